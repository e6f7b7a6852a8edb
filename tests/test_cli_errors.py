"""One error root: a user's mistake in any command is one line and exit 2, caught once by the root
command (cli.SurgeGroup), with no `except` tuple of its own in the command."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app

from .conftest import REPO_ROOT


def _one_line_error(args: list[str]) -> str:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


def test_bad_test_ids_in_data_build(tmp_path):
    line = _one_line_error(["data", "build", "--source", str(tmp_path), "--out", str(tmp_path / "out"),
                            "--test-ids", "0-4,x"])
    assert "'x' is not a survey id" in line


def test_missing_surveygen_file(tmp_path):
    line = _one_line_error(["data", "from-surveygen", str(tmp_path / "nope.json"), "--out", str(tmp_path / "o")])
    assert "nope.json" in line


def test_broken_surveygen_file(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    assert "not valid JSON" in _one_line_error(["data", "from-surveygen", str(broken), "--out", str(tmp_path / "o")])


def test_meta_eval_missing_and_broken_inputs(tmp_path):
    human = tmp_path / "human.csv"
    assert "human.csv" in _one_line_error(["meta-eval", "--human", str(human), str(tmp_path / "a.json")])
    human.write_text("survey_id,system,rank\n0,A,1\n", encoding="utf-8")
    broken = tmp_path / "a.json"
    broken.write_text("not json", encoding="utf-8")
    assert re.search(r"a\.json: not valid JSON \(line 1", _one_line_error(["meta-eval", "--human", str(human),
                                                                          str(broken)]))
    broken.write_text(json.dumps({"x": 1}), encoding="utf-8")
    assert "not a `surge evaluate` results file" in _one_line_error(["meta-eval", "--human", str(human), str(broken)])


def test_report_without_results_file(tmp_path):
    assert "no such file" in _one_line_error(["report", str(tmp_path / "missing.json"), "--out", str(tmp_path / "r")])


def test_missing_dataset_folder(tmp_path):
    line = _one_line_error(["data", "export", "--data", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o")])
    assert "nowhere" in line


@pytest.mark.parametrize("args, expected", [
    (["--protocol", "papr"], "did you mean 'paper'"),
    (["--aggregate", "mean"], "aggregate must be one of released, defined"),
    (["--dtype", "fp8"], "dtype must be one of auto, fp32, fp16, bf16"),
    (["--judge-repeats", "0", "--judge", "openai:gpt-4o"], "judge_repeats must be at least 1"),
    (["--price-per-1k", "1,2"], "--price-per-1k goes with --dry-run"),
])
def test_evaluate_settings_are_checked_in_one_place(tmp_path, args, expected):
    sample = REPO_ROOT / "examples" / "sample"
    assert expected in _one_line_error(["evaluate", "--data", str(sample), "--passages", str(tmp_path),
                                        "--metrics", "recall", *args])
