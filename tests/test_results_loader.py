"""One loader of a results file (surge_dataset.evaluation.results), checked against the one schema: every reader
(`surge report`, the leaderboard, `surge judge-agreement`, `surge meta-eval`, `surge arena`) reads the same numbers
from a good file and refuses a bad one with the same one-line message naming the file, the survey and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.core.errors import InputFileError
from surge_dataset.evaluation.results import load_results, read_results
from surge_dataset.judging.agreement import load_run
from surge_dataset.judging.meta_eval import load_results as meta_eval_results
from surge_dataset.leaderboard.inputs import read_inputs
from surge_dataset.report import ReportError
from surge_dataset.report import load_results as report_results

VALUES = {"alpha": {"0": 0.25, "1": 0.5}, "beta": {"0": 0.75, "1": 1.0}}


def _write(path: Path, system: str, values: dict[str, object], **config: object) -> Path:
    surveys = {sid: {"recall": v, "counts": {"references": 4}, "diagnostics": []} for sid, v in values.items()}
    path.write_text(json.dumps({"config": {"system": system, "protocol": "official", **config}, "surveys": surveys}),
                    encoding="utf-8")
    return path


@pytest.fixture
def good(tmp_path: Path) -> list[Path]:
    return [_write(tmp_path / f"{name}.json", name, values) for name, values in VALUES.items()]


def test_every_reader_reads_the_same_numbers(good):
    expected = {name: {sid: {"recall": v} for sid, v in values.items()} for name, values in VALUES.items()}
    assert {s.name: s.scores() for s in load_results(good)} == expected
    assert {s.name: s.scores() for s in report_results(good)} == expected
    assert load_run(",".join(map(str, good))).systems == expected
    assert meta_eval_results(good) == {name: {int(sid): v for sid, v in per.items()} for name, per in expected.items()}
    entries, _, refused, duplicates = read_inputs(good)
    assert (refused, duplicates) == ([], [])
    assert {e.system.name: e.system.scores() for e in entries} == expected


BAD = {
    "a string score": ({"0": 0.1, "1": "0.5"}, "survey '1', field 'recall': a number is required, got '0.5' (str)"),
    "out of its range": ({"0": 0.1, "1": 7}, "survey '1': recall = 7 is outside [0, 1], the range of its metric card"),
    "a bool score": ({"0": True, "1": 0.5}, "survey '0', field 'recall': a number is required, got True (bool)"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_every_reader_refuses_a_bad_file_with_the_schemas_one_line(good, tmp_path, case):
    values, problem = BAD[case]
    bad = _write(tmp_path / "bad.json", "bad", values)
    message = f"{bad}: {problem}"
    with pytest.raises(InputFileError) as raised:
        read_results(bad)
    assert str(raised.value) == message
    with pytest.raises(ReportError) as raised:
        report_results([good[0], bad])
    assert str(raised.value) == message
    human = tmp_path / "human.csv"
    human.write_text("survey_id,system,rank\n0,bad,1\n0,alpha,2\n", encoding="utf-8")
    commands = {
        "report": ["report", str(good[0]), str(bad), "--out", str(tmp_path / "report")],
        "judge-agreement": ["judge-agreement", f"a={good[0]},{bad}", f"b={good[0]},{good[1]}"],
        "meta-eval": ["meta-eval", "--human", str(human), str(good[0]), str(bad)],
        "arena": ["arena", str(good[0]), str(bad), "--judge", "openai:x"],
    }
    for name, command in commands.items():
        result = CliRunner().invoke(app, command, env={"COLUMNS": "2000"})
        assert result.exit_code == 2 and "Traceback" not in result.output, (name, result.output)
        assert " ".join(result.output.split()) == " ".join(f"error: {message}".split()), (name, result.output)
    # the leaderboard refuses the bad input alone, in the same line without its folder, and builds the others
    result = CliRunner().invoke(app, ["leaderboard", "build", str(good[0]), str(bad), "--out", str(tmp_path / "space"),
                                      "--resamples", "200"], env={"COLUMNS": "2000"})
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    assert f"refused: bad.json: {problem}" in " ".join(result.output.split())
    assert "1 systems in 1 setting group(s)" in result.output


def test_a_file_without_config_reads_as_empty_settings(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"surveys": {"0": {"recall": 0.5}}}), encoding="utf-8")
    [system] = load_results([path])
    assert (system.name, system.config, system.values("recall")) == ("old", {}, {"0": 0.5})


def test_a_value_on_its_range_up_to_rounding_is_in_range(tmp_path):
    """sacreBLEU scores a survey identical to its GT 100.00000000000004: in [0, 100]; 100.1 is not."""
    path = tmp_path / "perfect.json"
    path.write_text(json.dumps({"surveys": {"0": {"bleu": 100.00000000000004}, "1": {"recall": -1e-17}}}),
                    encoding="utf-8")
    assert read_results(path)["surveys"]["0"]["bleu"] > 100
    path.write_text(json.dumps({"surveys": {"0": {"bleu": 100.1}}}), encoding="utf-8")
    with pytest.raises(InputFileError, match=r"bleu = 100\.1 is outside \[0, 100\]"):
        read_results(path)
