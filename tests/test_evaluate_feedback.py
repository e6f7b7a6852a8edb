"""What `surge evaluate` tells a user on the terminal: damaged input by kind, and `--details` that is never
silently empty (issue 16, items 4 and 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.data.dataset import SurgeData
from surge_dataset.evaluation.summary import summarise_diagnostics

runner = CliRunner()


@pytest.fixture
def damaged(sample_dataset: Path, tmp_path: Path) -> Path:
    """Survey 0 empty, survey 1 with a byte-order mark, survey 2 citing [99] with no such reference."""
    data = SurgeData.open(sample_dataset)
    title = data.corpus.get([data.survey(2).all_cites[0]])[0].title
    folder = tmp_path / "damaged"
    for survey_id, text in ((0, b""), (1, "\ufeff# A survey\n\n## Intro\n\nText.\n".encode()),
                            (2, f"# S\n\n## Intro\n\nA claim [1]. Another [99].\n\n## References\n\n[1] {title}\n".encode())):
        (folder / str(survey_id)).mkdir(parents=True)
        (folder / str(survey_id) / "survey.md").write_bytes(text)
    return folder


def _evaluate(data: Path, passages: Path, out: Path, *extra: str):
    result = runner.invoke(app, ["evaluate", "--data", str(data), "--passages", str(passages), "--metrics", "recall",
                                 "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return result


def test_damaged_input_is_listed_by_kind_after_the_table(sample_dataset: Path, damaged: Path, tmp_path: Path) -> None:
    output = _evaluate(sample_dataset, damaged, tmp_path / "r.json").output
    lines = output.splitlines()
    table_end = max(i for i, line in enumerate(lines) if "mean" in line)
    notes = [line for line in lines[table_end:] if line.startswith("diagnostic:")]
    assert "diagnostic: empty_file in 1 survey (0): the survey is empty or only white space" in notes
    assert any(line.startswith("diagnostic: byte_order_mark in 1 survey (1):") for line in notes)
    assert any(line.startswith("diagnostic: missing_reference_number in 1 survey (2):") and "99" in line
               for line in notes)
    assert any(line.startswith("diagnostic: no_references in 2 surveys (0, 1):") for line in notes)
    quiet = _evaluate(sample_dataset, damaged, tmp_path / "r.json", "--quiet").output
    assert "diagnostic:" not in quiet and "mean" in quiet


def test_summary_groups_codes_by_survey_most_widespread_first() -> None:
    surveys = {"3": {"diagnostics": [{"code": "a", "message": "m1"}, {"code": "a", "message": "m2"}]},
               "10": {"diagnostics": [{"code": "b", "message": "x"}, {"code": "a", "message": "m3"}]},
               "4": {"diagnostics": []}}
    kinds = summarise_diagnostics(surveys)
    assert [(k.code, k.survey_ids, k.example) for k in kinds] == [("a", (3, 10), "m1"), ("b", (10,), "x")]
    assert kinds[0].line() == "a in 2 surveys (3, 10): m1"


def test_details_with_recall_lists_every_reference_and_citation(sample_dataset: Path, damaged: Path,
                                                                tmp_path: Path) -> None:
    details = tmp_path / "details.jsonl"
    output = _evaluate(sample_dataset, damaged, tmp_path / "r.json", "--details", str(details)).output
    records = [json.loads(line) for line in details.read_text().splitlines()]
    assert f"details: {len(records)} records in {details}" in output
    survey_2 = [r for r in records if r["survey_id"] == 2]
    data = SurgeData.open(sample_dataset)
    cited = data.survey(2).all_cites[0]
    assert [(r["kind"], r["number"], r["doc_id"], r["why"]) for r in survey_2] == [
        ("reference", 1, cited, "resolved"),
        ("citation", 1, cited, "resolved"),
        ("citation", 99, None, "reference number missing from the reference list"),
        ("citation", 1, cited, "resolved"),  # official: the reference line "[1] ..." is a citation instance too
    ]
    assert survey_2[0]["in_gt"] is True and survey_2[2]["in_gt"] is False


def test_details_say_when_nothing_applies_and_a_resumed_run_still_writes_them(
        sample_dataset: Path, tmp_path: Path) -> None:
    folder = tmp_path / "bare"
    (folder / "0").mkdir(parents=True)
    (folder / "0" / "survey.md").write_text("# Only a heading\n\nNo citations at all.\n")
    details = tmp_path / "d.jsonl"
    output = _evaluate(sample_dataset, folder, tmp_path / "r.json", "--details", str(details)).output
    assert f"details: nothing to write to {details}" in output and details.read_text() == ""
    # a survey first scored without --details is scored again when --details is asked for later
    (folder / "1").mkdir()
    (folder / "1" / "survey.md").write_text("# S\n\n## A\n\nText [1].\n\n## References\n\n[1] Not a corpus title\n")
    _evaluate(sample_dataset, folder, tmp_path / "r2.json")
    output = _evaluate(sample_dataset, folder, tmp_path / "r2.json", "--details", str(details)).output
    kinds = [(r["survey_id"], r["kind"], r["why"]) for r in map(json.loads, details.read_text().splitlines())]
    assert kinds == [(1, "reference", "title not found in the corpus (not_in_corpus)")] + [
        (1, "citation", "title not found in the corpus (not_in_corpus)")] * 2  # the text's [1] and the list's
    assert "details: 3 records" in output
