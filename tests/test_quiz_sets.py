"""Quiz sets as pinned data: checked on reading, fingerprinted, pinned as the dataset's quizzes config, exported
back; and the sample's quiz set: reproducible, every answer carried by the GT sentence it quotes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.core.errors import InputFileError
from surge_dataset.data.build import build_dataset
from surge_dataset.data.quiz_sets import QuizSet, load_quiz_set, read_quiz_file

from .conftest import REPO_ROOT, SAMPLE_DIR

SAMPLE_QUIZ = SAMPLE_DIR / "quizzes.jsonl"
GOOD = {"survey_id": 0, "question_id": "0-0", "section": "Introduction", "question": "Which?",
        "options": ["a", "b", "c", "d"], "answer": "B", "evidence": "It is b."}
runner = CliRunner()


def _official(folder: Path) -> Path:
    """The sample's official files alone (no quiz set beside them)."""
    folder.mkdir(parents=True)
    for name in ("surveys.json", "corpus.json", "queries.json"):
        shutil.copyfile(SAMPLE_DIR / name, folder / name)
    return folder


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", r":1: not a JSON object"),
    (json.dumps({**GOOD, "answer": "E"}), r":1: answer: Input should be 'A', 'B', 'C' or 'D'"),
    (json.dumps({**GOOD, "options": ["a", "b", "c"]}), r":1: options: a question has 4 options, not 3"),
    (json.dumps({**GOOD, "options": ["a", "B ", "b", "d"]}), r":1: options: two options are the same"),
    (json.dumps({**GOOD, "question": " "}), r":1: question: must not be empty"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "evidence"}), r":1: evidence: Field required"),
    (json.dumps({**GOOD, "colour": "red"}), r":1: colour: Extra inputs are not permitted"),
])
def test_a_bad_line_is_one_error_naming_file_line_and_field(tmp_path, line, message):
    path = tmp_path / "quizzes.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(InputFileError, match=re.escape(str(path)) + message):
        read_quiz_file(path)


def test_empty_files_and_repeated_ids_are_refused(tmp_path):
    path = tmp_path / "quizzes.jsonl"
    path.write_text("\n\n")
    with pytest.raises(InputFileError, match="no question in the file"):
        read_quiz_file(path)
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "question": "Other?"}) + "\n")
    with pytest.raises(InputFileError, match="question_id '0-0' appears twice"):
        read_quiz_file(path)
    with pytest.raises(InputFileError, match="no such quiz file"):
        load_quiz_set(tmp_path / "missing.jsonl")


def test_the_fingerprint_is_of_the_questions_not_the_file(tmp_path):
    one = QuizSet.of([GOOD, {**GOOD, "question_id": "0-1", "question": "Other?"}])
    reordered = QuizSet.of([{**GOOD, "question_id": "0-1", "question": "Other?"}, GOOD])
    changed = QuizSet.of([GOOD, {**GOOD, "question_id": "0-1", "question": "Other?", "answer": "C"}])
    assert one.fingerprint == reordered.fingerprint != changed.fingerprint
    assert re.fullmatch(r"[0-9a-f]{16}", one.fingerprint)
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in (GOOD, {**GOOD, "question_id": 1, "question": "Other?"})))
    assert read_quiz_file(path).questions[1].question_id == "1"  # an integer id is read as text


def test_build_pins_the_quiz_set_and_export_writes_it_back(tmp_path):
    source = _official(tmp_path / "src")
    plain = build_dataset(source, tmp_path / "plain")
    result = runner.invoke(app, ["data", "build", "--source", str(source), "--out", str(tmp_path / "surge"),
                                 "--quizzes", str(SAMPLE_QUIZ)])
    assert result.exit_code == 0, result.output
    assert re.search(r"quizzes\s*│\s*test\s*│\s*30", result.output) and "pinned as the 'quizzes' config" in result.output
    data, expected = SurgeData.open(tmp_path / "surge"), read_quiz_file(SAMPLE_QUIZ)
    assert "quizzes" in data.configs and data.fingerprint == SurgeData.open(tmp_path / "plain").fingerprint
    assert "quizzes" not in plain.counts
    pinned = load_quiz_set(data.path)
    assert pinned.fingerprint == expected.fingerprint == data.meta["quizzes"]["fingerprint"]
    assert sorted(q.question_id for q in pinned.questions) == sorted(q.question_id for q in expected.questions)
    assert data.meta["quizzes"]["writers"] == ["openai:cloze-writer (surge-quiz-writer-1)"]
    card = (data.path / "README.md").read_text()
    assert "config_name: quizzes" in card and "## Fields: `quizzes`" in card
    assert "written by openai:cloze-writer (surge-quiz-writer-1)" in card and expected.fingerprint in card
    from datasets import load_dataset

    assert load_dataset(str(data.path), "quizzes", split="test").num_rows == 30
    result = runner.invoke(app, ["data", "export", "--data", str(data.path), "--out", str(tmp_path / "back")])
    assert result.exit_code == 0 and "the pinned quiz set" in result.output, result.output
    assert read_quiz_file(tmp_path / "back" / "quizzes.jsonl").fingerprint == expected.fingerprint
    rebuilt = build_dataset(tmp_path / "back", tmp_path / "again")  # quizzes.jsonl beside the files is picked up
    assert rebuilt.counts["quizzes"] == {"train": 30, "test": 30}


def test_a_quiz_set_on_surveys_the_data_lacks_is_refused_before_anything_is_written(tmp_path):
    source = _official(tmp_path / "src")
    (source / "quizzes.jsonl").write_text(json.dumps({**GOOD, "survey_id": 99}) + "\n")
    with pytest.raises(InputFileError, match=r"quizzes.jsonl: questions on survey ids the dataset does not have: \[99\]"):
        build_dataset(source, tmp_path / "surge")
    assert not (tmp_path / "surge").exists()


# ------------------------------------------------------------------------------ the sample's quiz set


def _gt_sections() -> dict[tuple[int, str], str]:
    surveys = json.loads((SAMPLE_DIR / "surveys.json").read_text(encoding="utf-8"))
    return {(s["survey_id"], n["title"]): n["content"] for s in surveys for n in s["structure"]}


def test_every_sample_answer_is_the_word_its_gt_sentence_has():
    """Checked with plain string operations, not the writer's own checks: the evidence is a sentence of the GT
    section named, and putting the correct option into the question's blank gives that sentence back."""
    sections = _gt_sections()
    quiz_set = read_quiz_file(SAMPLE_QUIZ)
    assert len(quiz_set.questions) == 60 and sorted(quiz_set.by_survey) == [0, 1, 2, 41, 42, 43]
    assert all(len(questions) == 10 for questions in quiz_set.by_survey.values())
    for question in quiz_set.questions:
        assert question.evidence in " ".join(sections[question.survey_id, question.section].split()), question
        statement = question.question.split('"', 1)[1].rsplit('"', 1)[0]
        assert statement.replace("____", question.correct, 1) == question.evidence, question
        for wrong in (o for o in question.options if o != question.correct):
            assert statement.replace("____", wrong, 1) != question.evidence
        assert (question.prompt_version, question.generator) == ("surge-quiz-writer-1", "openai:cloze-writer")


def test_the_sample_quiz_set_is_reproduced_by_its_script(tmp_path):
    done = subprocess.run([sys.executable, str(REPO_ROOT / "examples" / "make_sample_quizzes.py"), "--out",
                           str(tmp_path)], capture_output=True, text=True, cwd=REPO_ROOT)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "quizzes.jsonl").read_bytes() == SAMPLE_QUIZ.read_bytes(), "rerun make_sample_quizzes.py"
    volatile = ("created", "versions")
    manifests = [json.loads(p.read_text()) for p in (tmp_path / "quizzes.manifest.json",
                                                     SAMPLE_DIR / "quizzes.manifest.json")]
    assert [{k: v for k, v in m.items() if k not in volatile} for m in manifests][0] == \
        {k: v for k, v in manifests[1].items() if k not in volatile}
