"""What `surge evaluate` tells a user on the terminal: damaged input by kind, and `--details` that is never
silently empty."""

from __future__ import annotations

import json
import re
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
    assert [(k.code, k.survey_ids, k.messages) for k in kinds] == [("a", (3, 10), ("m1", "m3")), ("b", (10,), ("x",))]
    assert kinds[0].line() == "a in 2 surveys (3, 10): survey 3: m1; survey 10: m3"


def test_a_grouped_diagnostic_never_shows_one_surveys_counts_for_several() -> None:
    """missing_reference_number in surveys 0 and 1 with their own counts: each survey's detail, or none."""
    def cites(n: int) -> dict:
        return {"code": "missing_reference_number", "message": f"{n} citation instance(s) cite {n} number(s)"}

    two = summarise_diagnostics({"0": {"diagnostics": [cites(2)]}, "1": {"diagnostics": [cites(13)]}})
    assert [k.line() for k in two] == ["missing_reference_number in 2 surveys (0, 1): survey 0: 2 citation "
                                       "instance(s) cite 2 number(s); survey 1: 13 citation instance(s) cite 13 number(s)"]
    many = summarise_diagnostics({str(i): {"diagnostics": [cites(i + 1)]} for i in range(5)})
    assert many[0].line() == ("missing_reference_number in 5 surveys (0, 1, 2, 3, 4); each survey's detail is in its "
                              "results record (diagnostics)")
    same = summarise_diagnostics({"0": {"diagnostics": [{"code": "empty_file", "message": "empty"}]},
                                  "1": {"diagnostics": [{"code": "empty_file", "message": "empty"}]}})
    assert same[0].line() == "empty_file in 2 surveys (0, 1): empty"


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


def test_what_the_mean_is_over_is_said_under_the_table_and_recorded(sample_dataset: Path, tmp_path: Path) -> None:
    """A stray folder 99/ (no such survey) counts 0 in the released mean; test topic 2 has no survey.
    Under the table: the survey that counted 0 and why, the topic without a survey, the mean over the scored
    surveys; the results JSON records the same (``averaging``) for `surge report`."""
    from surge_dataset.data.render import render_surveys

    data = SurgeData.open(sample_dataset)
    passages = tmp_path / "out"
    render_surveys([data.survey(0), data.survey(1)], data.corpus, passages)
    (passages / "99").mkdir()
    (passages / "99" / "survey.md").write_text("# A survey of nothing\n")
    result = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(passages),
                                 "--metrics", "recall", "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 1, result.output  # a survey folder failed
    results = json.loads((tmp_path / "r.json").read_text())
    recall = [results["surveys"][s]["recall"] for s in ("0", "1")]
    assert results["average"]["recall"] == pytest.approx(sum(recall) / 3)  # 99 counted 0 (--aggregate released)
    averaging = results["averaging"]
    assert averaging["counted_zero"] == [{"survey_id": 99, "keys": ["recall"],
                                          "reason": "could not be evaluated: survey id 99 has no "
                                                    "ground truth in the dataset"}]
    assert averaging["topics_without_survey"] == [2] and averaging["topics"] == "test"
    assert averaging["average_scored"]["recall"] == pytest.approx(sum(recall) / 2)
    assert averaging["average_scored_counts"] == {"recall": 2}
    lines = result.output.splitlines()
    table_end = next(i for i, line in enumerate(lines) if "mean of scored" in line)  # the row under "mean"
    assert lines[table_end - 1].split("│")[1].strip() == "mean" and f"{sum(recall) / 2:.4f}" in lines[table_end]
    notes = [line for line in lines[table_end:] if line.startswith("note:")]
    assert ("note: the mean counts 0 for 1 survey (--aggregate released): 99 (recall: could not be evaluated: "
            "survey id 99 has no ground truth in the dataset)") in notes
    # The folder by its last part only: results and their notes carry no local path
    assert f"note: 1 test topic has no generated survey in {passages.name}: 2 (not in the mean)" in notes


def test_undefined_values_counted_zero_are_listed_and_left_out_of_the_scored_mean() -> None:
    """Released aggregate: survey 5's shr was undefined and scored 0 (its diagnostic names the key); survey 9's
    folder failed. Mean of scored: shr over survey 4 alone, recall over 4 and 5."""
    from surge_dataset.evaluation import EvaluationConfig
    from surge_dataset.evaluation.summary import averaging_notes

    config = EvaluationConfig(metrics=["recall", "shr"])
    surveys = {"4": {"recall": 0.5, "shr": 0.8, "diagnostics": []},
               "5": {"recall": 0.25, "shr": 0.0, "diagnostics": [
                   {"code": "undefined_scored_zero", "message": "shr undefined for this survey: scored 0 ...",
                    "line": None, "keys": ["shr"]}]}}
    failures = [{"survey_id": 9, "path": "x/9", "error": "folder holds no file"}]
    notes = averaging_notes(surveys, failures, [], config, topics=[4, 5, 9, 11], topics_name="test")
    assert notes["counted_zero"] == [
        {"survey_id": 5, "keys": ["shr"], "reason": "undefined for this survey"},
        {"survey_id": 9, "keys": ["recall", "shr"], "reason": "could not be evaluated: folder holds no file"}]
    assert notes["topics_without_survey"] == [11]
    assert notes["average_scored"] == {"recall": pytest.approx(0.375), "shr": pytest.approx(0.8)}
    assert notes["average_scored_counts"] == {"recall": 2, "shr": 1}
    defined = averaging_notes(surveys, failures, [], EvaluationConfig(metrics=["recall", "shr"], aggregate="defined"),
                              topics=[4, 5, 9, 11], topics_name="test")
    assert defined["counted_zero"] == []  # nothing counts 0 under defined: failures and undefined values are left out


def test_a_stray_folder_is_a_warning_exit_0_unless_strict(sample_dataset: Path, tmp_path: Path) -> None:
    """A `notes/` folder beside the survey folders is skipped with a warning: exit 0, so a `set -e` script goes on;
    --strict makes it exit 1. A survey id the data lacks still fails the run, in words, without an exception name."""
    from surge_dataset.data.render import render_surveys

    data = SurgeData.open(sample_dataset)
    passages = tmp_path / "out"
    render_surveys([data.survey(0)], data.corpus, passages)
    (passages / "notes").mkdir()
    (passages / "notes" / "todo.txt").write_text("later\n")
    args = ["evaluate", "--data", str(sample_dataset), "--passages", str(passages), "--metrics", "recall"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert f"warning: skipped {passages / 'notes'}: folder name is not a numeric survey id" in output
    assert "failed:" not in output and (tmp_path / "r.json").is_file()
    strict = runner.invoke(app, [*args, "--out", str(tmp_path / "r.json"), "--strict"])
    assert strict.exit_code == 1 and "warning: skipped" in strict.output
    (passages / "99").mkdir()
    (passages / "99" / "survey.md").write_text("# A survey of nothing\n")
    failed = runner.invoke(app, [*args, "--out", str(tmp_path / "r2.json")])
    assert failed.exit_code == 1
    line = next(x for x in failed.output.splitlines() if x.startswith("failed:"))
    assert line.endswith("survey id 99 has no ground truth in the dataset") and "Error" not in line
    errors = [f["error"] for f in json.loads((tmp_path / "r2.json").read_text())["failures"]]
    assert not any(re.search(r"\b[A-Z]\w*(Error|Exception)\b", e) for e in errors), errors
