"""Write the sample's quiz set, ``examples/sample/quizzes.jsonl`` and its ``quizzes.manifest.json``, reproducibly.

The quiz set goes through the same writer as ``surge data quiz`` (``surge_dataset.quiz.writer``), but the model
is :class:`surge_dataset.testing.quiz.ClozeWriter` answering through :class:`surge_dataset.testing.ScriptedChat` (a
chat model in process, named ``openai:cloze-writer``): a deterministic script, not a language model. For each
question asked it blanks out one long word of a sentence of the GT section and offers three words of the
section's other sentences as the wrong options, quoting the sentence as its evidence; every question then passes
the writer's checks like any LLM's.
So the sample's quizzes are cloze questions ("Which word completes the statement ...?"), reproducible byte for
byte (the manifest's ``created`` and ``versions`` aside), and the files say which script wrote them.

    python examples/make_sample_quizzes.py [--out DIR]    # default: examples/sample beside this file
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent / "sample"
WRITER = "openai:cloze-writer"
PER_SURVEY = 10


def main(out: Path) -> None:
    from surge_dataset import SurgeData
    from surge_dataset.core.records import QUIZ_FILE
    from surge_dataset.data.build import build_dataset
    from surge_dataset.llm import LLM, Judge
    from surge_dataset.quiz.settings import QuizOptions
    from surge_dataset.quiz.writer import write_outputs, write_quiz_set
    from surge_dataset.testing import ClozeWriter, ScriptedChat

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source"
        source.mkdir()
        for name in ("surveys.json", "corpus.json", "queries.json"):  # never an older quizzes.jsonl
            (source / name).write_bytes((SAMPLE / name).read_bytes())
        build_dataset(source, Path(tmp) / "surge")
        data = SurgeData.open(Path(tmp) / "surge")
        options = QuizOptions(judge=WRITER, per_survey=PER_SURVEY, cache_dir=False)
        model = ScriptedChat(responder=ClozeWriter(), model=WRITER.partition(":")[2])
        writing = write_quiz_set(data, options, judge=Judge(LLM(model, cache_dir=False), max_tries=options.max_tries))
    writing.manifest["writer_script"] = "examples/make_sample_quizzes.py (surge_dataset.testing.quiz.ClozeWriter)"
    out.mkdir(parents=True, exist_ok=True)
    write_outputs(out / QUIZ_FILE, writing)
    print(json.dumps({k: writing.manifest[k] for k in ("questions", "questions_asked", "dropped", "fingerprint")}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SAMPLE)
    sys.exit(main(parser.parse_args().out))
