"""The `surge data` commands end to end through the CLI (what users type)."""

from __future__ import annotations

import json
import socket

from typer.testing import CliRunner

from surge_dataset.cli import app

from .conftest import SAMPLE_DIR

runner = CliRunner()


def test_build_export_round_trip_on_the_sample(tmp_path):
    result = runner.invoke(app, ["data", "build", "--source", str(SAMPLE_DIR), "--out", str(tmp_path / "surge")])
    assert result.exit_code == 0, result.output
    assert "surveys" in result.output and "341" in result.output
    result = runner.invoke(app, ["data", "export", "--data", str(tmp_path / "surge"), "--out", str(tmp_path / "back")])
    assert result.exit_code == 0, result.output
    for name in ("surveys", "corpus", "queries"):
        assert json.loads((tmp_path / "back" / f"{name}.json").read_text()) == json.loads(
            (SAMPLE_DIR / f"{name}.json").read_text()
        )


def test_from_surveygen_then_build(surveygen_example, tmp_path):
    result = runner.invoke(app, ["data", "from-surveygen", str(surveygen_example), "--out", str(tmp_path / "sg")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "sg" / "surveygen_signals.json").is_file()
    result = runner.invoke(app, ["data", "build", "--source", str(tmp_path / "sg"), "--out", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output


def test_download_without_network_says_what_to_do(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("Network is unreachable")

    monkeypatch.setattr(socket, "create_connection", refuse)
    result = runner.invoke(app, ["data", "download", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "cannot reach drive.google.com" in result.output
    assert "1ZZPeZvjexFcCmgFqxftKeCPn1vYeBR0Q" in result.output


def test_render_and_missing_dataset_message(tmp_path):
    result = runner.invoke(app, ["data", "render", "--data", str(tmp_path / "nope"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "no such dataset folder" in result.output


def test_load_dataset_on_the_built_sample(sample_dataset, monkeypatch):
    """All three configs of the shipped sample load with `datasets`, with the documented splits and types."""
    from datasets import load_dataset

    monkeypatch.chdir(sample_dataset.parent)
    surveys = load_dataset(sample_dataset.name)
    assert {k: v.num_rows for k, v in surveys.items()} == {"train": 3, "test": 3}
    assert sorted(surveys["test"]["survey_id"]) == [0, 1, 2]
    features = surveys["train"].features
    assert features["structure"].feature["title"].dtype == "string"
    assert features["bertopic_cd"].dtype == "float64"
    corpus = load_dataset(sample_dataset.name, "corpus", split="train")
    assert corpus.num_rows == 341 and corpus.features["doc_id"].dtype == "int64"
    queries = load_dataset(sample_dataset.name, "queries")
    assert {k: v.num_rows for k, v in queries.items()} == {"train": 21, "test": 33}
    assert queries["test"].features["cites"].feature.dtype == "int64"
    assert set(queries["test"]["survey_id"]) == {0, 1, 2}
