"""Run the authors' released SurGE evaluator beside ours, with the same injected models.

The released evaluator (``oneal2000/SurGE``, ``src/``; MIT) produced the published Table 4. This
module never contains its code: it *imports* it from a folder the user points at
(``--released-src DIR``, ``$SURGE_RELEASED_SRC``, or ``../shared/reference/surge-released/src`` beside
a checkout), swaps its models for objects we pass in, and returns its numbers under our result keys,
so tests and ``benchmarks/evaluate_speed.py`` can check ``--protocol official`` against it survey by
survey.

Models are injected on both sides, so the comparison is about the protocol, not about weights:

* :class:`HashNLI` gives every (first, second) text pair fixed logits derived from a hash of the
  exact strings. Any difference in a premise, a hypothesis or their order changes the logits, so
  equal scores mean equal model inputs. Any real cross-encoder works as well (``predict`` on their
  side, :class:`~surge_dataset.models.nli.NLIScorer` on ours).
* :class:`HashEncoder` embeds a text as a fixed positive vector derived from its hash (for SHR).
* :class:`ScriptedJudgeClient` answers the released SQS/CQS prompts through a fake OpenAI client;
  :class:`ScriptedJudge` answers ours. Both extract the judged text (the generated outline, the
  sampled paragraph) from the prompt and score it with the same function, so equal SQS/CQS mean the
  judge saw the same outline strings and the same sampled, cut sections.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import json
import os
import sys
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "RELEASED_EVAL_LIST",
    "RELEASED_KEYS",
    "HashEncoder",
    "HashNLI",
    "ReleasedEvaluator",
    "ScriptedJudge",
    "ScriptedJudgeClient",
    "find_released_src",
    "load_released_modules",
]

#: The released evaluator's metric names for the objective metrics (its ``eval_list``).
RELEASED_EVAL_LIST = ("Coverage", "Relevance-Paper", "Relevance-Section", "Relevance-Sentence", "SH-Recall", "ROUGE-BLEU")
#: Path in the released result dict -> our result key.
RELEASED_KEYS: dict[tuple[str, ...], str] = {
    ("Information_Collection", "Comprehensiveness", "Coverage"): "recall",
    ("Information_Collection", "Relevance", "Paper_Level"): "doc_acc",
    ("Information_Collection", "Relevance", "Section_Level"): "sec_acc",
    ("Information_Collection", "Relevance", "Sentence_Level"): "sent_acc",
    ("Survey_Structure", "Structure_Quality(LLM_as_judge)"): "sqs",
    ("Survey_Structure", "SH-Recall"): "shr",
    ("Survey_Content", "Relevance", "ROUGE-1"): "rouge1",
    ("Survey_Content", "Relevance", "ROUGE-2"): "rouge2",
    ("Survey_Content", "Relevance", "ROUGE-L"): "rougeL",
    ("Survey_Content", "Relevance", "BLEU"): "bleu",
    ("Survey_Content", "Logic"): "cqs",
}
_RELEASED_MODULES = ("evaluator", "markdownParser", "informationFuncs", "structureFuncs", "rougeBleuFuncs")
_CHECKOUT_REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference" / "surge-released" / "src"


def find_released_src(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The released evaluator's ``src`` folder: ``explicit``, ``$SURGE_RELEASED_SRC``, or the reference
    copy beside a checkout; None when none of them holds ``evaluator.py``."""
    for candidate in (explicit, os.environ.get("SURGE_RELEASED_SRC"), _CHECKOUT_REFERENCE):
        if candidate and (Path(candidate) / "evaluator.py").is_file():
            return Path(candidate)
    return None


# ------------------------------------------------------------------------------------------ models


def _digest(*parts: str) -> bytes:
    return hashlib.blake2b("\x00".join(parts).encode("utf-8"), digest_size=32).digest()


class HashNLI:
    """Deterministic NLI logits (contradiction, entailment, neutral) from a hash of the exact pair.

    ``predict`` is the released evaluator's interface (``CrossEncoder.predict``); ``logits`` is ours.
    Roughly a third of the pairs land on each top label, and the neutral rule's second condition
    (entailment above contradiction) goes both ways.
    """

    def _row(self, first: str, second: str) -> list[float]:
        raw = np.frombuffer(_digest(first, second)[:6], dtype=np.uint16).astype(np.float64)
        return list(raw / 65535.0 * 4.0 - 2.0)

    def predict(self, pairs: Sequence[Sequence[str]], **_: Any) -> np.ndarray:
        return np.asarray([self._row(str(a), str(b)) for a, b in pairs], dtype=np.float32)

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return self.predict(pairs)


class HashEncoder:
    """Deterministic text embeddings: a positive 32-d vector per text, derived from its hash."""

    dim = 32

    def encode(self, texts: Sequence[str], **_: Any) -> np.ndarray:
        rows = [np.frombuffer(_digest(str(t)), dtype=np.uint8)[: self.dim].astype(np.float64) + 1.0 for t in texts]
        return np.asarray(rows, dtype=np.float32).reshape(len(rows), self.dim)


def judged_score(text: str) -> int:
    """The scripted judges' score of a judged text: a fixed digit 0-5 from its hash."""
    return _digest(text)[0] % 6


def _between(text: str, before: str, after: str) -> str | None:
    start = text.find(before)
    if start < 0:
        return None
    start += len(before)
    end = text.find(after, start)
    return text[start:end] if end >= 0 else None


class _Completions:
    def __init__(self, owner: ScriptedJudgeClient) -> None:
        self.owner = owner

    def create(self, *, model: str, messages: list[dict[str, str]], **settings: Any) -> Any:
        self.owner.calls.append({"model": model, "messages": messages, **settings})
        prompt = messages[-1]["content"]
        judged = self.owner.extract(prompt)
        text = str(judged_score(judged)) if judged is not None else "unreadable"
        message = types.SimpleNamespace(content=text)
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])


class ScriptedJudgeClient:
    """A fake ``openai.OpenAI`` client for the released evaluator: scores the outline or paragraph
    its SQS/CQS prompt embeds with :func:`judged_score` (markers of the released prompt layout)."""

    SQS_MARKERS = ("### Generated Titles:\n", "\n\n## **Scoring Criteria:**")
    CQS_MARKERS = ("### **Paragraph:**  \n", "  \n\n### **Output Format:**")

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.chat = types.SimpleNamespace(completions=_Completions(self))

    def extract(self, prompt: str) -> str | None:
        for before, after in (self.SQS_MARKERS, self.CQS_MARKERS):
            found = _between(prompt, before, after)
            if found is not None:
                return found
        return None


class ScriptedJudge:
    """Our side of the scripted judge: a ``Judge``-like object scoring the outline or section our
    SQS/CQS request embeds, found by rendering our own templates around a sentinel."""

    _SENTINEL = "\x00JUDGED\x00"

    def __init__(self) -> None:
        from surge_dataset.llm.prompts import get_prompt

        self.asked: list[Any] = []
        self._markers: list[tuple[str, str]] = []
        for name, slot, other in (("sqs", "generated_outline", {"reference_outline": "\x01"}), ("cqs", "section", {})):
            text = get_prompt(name).render(**{slot: self._SENTINEL, **other})[-1]["content"]
            before, after = text.split(self._SENTINEL)
            self._markers.append((before.rsplit("\x01", 1)[-1][-60:], after[:60]))  # no placeholder in a marker

    def run(self, requests: Sequence[Any]) -> list[Any]:
        from surge_dataset.llm.judge import JudgeOutcome

        outcomes = []
        for request in requests:
            self.asked.append(request)
            prompt = request.conversation[-1][1]
            judged = next((t for b, a in self._markers if (t := _between(prompt, b, a)) is not None), None)
            value = judged_score(judged) if judged is not None else None
            outcomes.append(JudgeOutcome(value=value, tries=1, answers=(str(value),)))
        return outcomes


# ------------------------------------------------------------------------------------------ the evaluator


class _NoFlagModel:
    """Stand-in for ``FlagEmbedding.FlagModel``: the embedder is always injected, so building one is a bug."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("FlagModel stand-in: inject an encoder (ReleasedEvaluator(encoder=...))")


@contextlib.contextmanager
def _released_import_path(src: Path) -> Iterator[None]:
    """``src`` on ``sys.path`` and stand-ins for what the released code imports but never uses here."""
    added = str(src)
    sys.path.insert(0, added)
    stubs = []
    for name in ("FlagEmbedding", "httpx"):  # imported at the top of evaluator.py, never used here
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except ImportError:
            module = types.ModuleType(name)
            module.FlagModel = _NoFlagModel  # type: ignore[attr-defined]
            sys.modules[name] = module
            stubs.append(name)
    try:
        yield
    finally:
        if added in sys.path:
            sys.path.remove(added)
        for name in stubs:  # other libraries (openai looks for httpx) must not see the stand-ins
            sys.modules.pop(name, None)


def _load_released(src: Path) -> types.ModuleType:
    """Import the released ``evaluator`` module fresh from ``src`` (its siblings by their bare names)."""
    for name in _RELEASED_MODULES:
        sys.modules.pop(name, None)
    with _released_import_path(src):
        return importlib.import_module("evaluator")


def load_released_modules(src: str | os.PathLike[str] | None = None) -> types.SimpleNamespace:
    """The released evaluator's modules, imported fresh: ``.evaluator``, ``.markdownParser``,
    ``.informationFuncs``, ``.structureFuncs``, ``.rougeBleuFuncs`` (to call their functions one by one).

    ``src``: the released ``src`` folder (default :func:`find_released_src`); FileNotFoundError without one.
    """
    folder = find_released_src(src)
    if folder is None:
        raise FileNotFoundError("the released evaluator's src/ folder was not found (set $SURGE_RELEASED_SRC)")
    _load_released(folder)
    return types.SimpleNamespace(**{name: sys.modules[name] for name in _RELEASED_MODULES})


def _flatten(result: dict[str, Any]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for path, key in RELEASED_KEYS.items():
        value: Any = result
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        out[key] = None if value is None else float(value)
    return out


class ReleasedEvaluator:
    """The released ``SurGEvaluator`` on official JSON files, with injected models, quiet.

    ``evaluate(passage_dir)`` runs its own ``eval_all`` (per-survey results read back from the file it
    writes) and returns ``(per_survey, average)`` keyed by our metric names.
    """

    def __init__(
        self,
        src: str | os.PathLike[str],
        surveys_json: str | os.PathLike[str],
        corpus_json: str | os.PathLike[str],
        *,
        nli: Any = None,
        encoder: Any = None,
        judge_client: Any = None,
    ) -> None:
        self.src = Path(src)
        module = _load_released(self.src)
        with contextlib.redirect_stdout(io.StringIO()):
            self.evaluator = module.SurGEvaluator(
                survey_path=str(surveys_json), corpus_path=str(corpus_json), using_openai=False,
            )
        if judge_client is not None:  # what using_openai=True would set up, with the fake client
            self.evaluator.using_openai = True
            self.evaluator.client = judge_client
        self.evaluator.nli_model = nli if nli is not None else HashNLI()
        self.evaluator.flag_model = encoder if encoder is not None else HashEncoder()
        self.judged = judge_client is not None

    def eval_list(self) -> list[str]:
        names = list(RELEASED_EVAL_LIST)
        return [*names, "Structure_Quality", "Logic"] if self.judged else names

    def evaluate(
        self, passage_dir: str | os.PathLike[str], save_path: str | os.PathLike[str], *,
        eval_list: Sequence[str] | None = None,
    ) -> tuple[dict[str, dict[str, float | None]], dict[str, float | None]]:
        """Per-survey values ``{survey_id: {key: value}}`` and the released evaluator's average.

        ``eval_list``: the released metric names to run (default: :meth:`eval_list`).
        """
        names = list(eval_list) if eval_list is not None else self.eval_list()
        with contextlib.redirect_stdout(io.StringIO()):
            average = self.evaluator.eval_all(str(passage_dir), names, save_path=str(save_path))
        per_survey: dict[str, dict[str, float | None]] = {}
        text = Path(save_path).read_text(encoding="utf-8")
        decoder, position = json.JSONDecoder(), 0
        while True:
            while position < len(text) and text[position].isspace():
                position += 1
            if position >= len(text):
                break
            record, position = decoder.raw_decode(text, position)
            if record.get("survey_id") != "Average":
                per_survey[str(record["survey_id"])] = _flatten(record)
        return per_survey, _flatten(average)


def compare(
    ours: dict[str, dict[str, Any]], released: dict[str, dict[str, Any]], keys: Sequence[str],
    tolerance: dict[str, float] | None = None, default_tolerance: float = 1e-6,
) -> list[str]:
    """Every disagreement between two ``{survey: {key: value}}`` tables, as readable lines."""
    tolerance = tolerance or {}
    problems = []
    for survey in sorted(set(ours) | set(released), key=lambda s: (len(s), s)):
        if survey not in ours or survey not in released:
            problems.append(f"survey {survey}: only in {'ours' if survey in ours else 'released'}")
            continue
        for key in keys:
            a, b = ours[survey].get(key), released[survey].get(key)
            if a is None or b is None:
                if a != b:
                    problems.append(f"survey {survey} {key}: ours {a} released {b}")
            elif abs(a - b) > tolerance.get(key, default_tolerance):
                problems.append(f"survey {survey} {key}: ours {a!r} released {b!r} (diff {a - b:.3g})")
    return problems
