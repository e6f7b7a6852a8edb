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


def test_stats_of_the_sample_hand_checked(sample_dataset, tmp_path):
    """examples/sample: 6 surveys (3 test, 3 train) of 16, 16, 16, 15, 16 and 10 structure nodes (root included),
    each reaching section > subsection > subsubsection (depth 3); all_cites of 21, 20, 19, 18, 17 and 0 papers; a
    341-paper corpus whose abstracts hold 21,644 words. Not SurGE's data: no published column."""
    result = CliRunner().invoke(app, ["data", "stats", "--data", str(sample_dataset), "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)
    assert stats["surveys"] == 6 and stats["splits"] == {"test": 3, "train": 3}
    assert stats["mean_depth"] == 3.0 and stats["max_depth"] == 3
    assert stats["mean_nodes"] == (16 * 4 + 15 + 10) / 6 and stats["max_nodes"] == 16
    assert stats["mean_citations"] == (21 + 20 + 19 + 18 + 17 + 0) / 6
    assert stats["corpus_size"] == 341 and stats["papers_without_abstract"] == 0
    assert stats["mean_abstract_words"] == 21_644 / 341
    assert stats["is_surge"] is False and all(row["published"] is None for row in stats["rows"])
    assert [row["statistic"] for row in stats["rows"]][0] == "Total Ground Truth Surveys"
    table = CliRunner().invoke(app, ["data", "stats", "--data", str(sample_dataset)], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    assert "14.833" in table.output and "63.472" in table.output
    assert "not SurGE's data: no published row" in table.output and "published" not in table.output.split("not")[0]


def test_stats_beside_the_published_row_and_without_a_corpus(tmp_path):
    """SurGE's own data (205 surveys, 1,086,992 papers) is shown beside Table 1; a survey file alone has no corpus."""
    from surge_dataset.core.records import Survey
    from surge_dataset.data.stats import PAPER_TABLE1, dataset_statistics

    root = {"id": 0, "parent_id": -1, "title": "root", "content": ""}
    deep = [root, {"id": 1, "parent_id": 0, "title": "A", "content": "x"},
            {"id": 2, "parent_id": 1, "title": "A.1", "content": "y"}]
    surveys = [Survey.from_official({"survey_id": i, "survey_title": "t", "structure": deep if i == 0 else [root],
                                     "all_cites": [1, 2] if i == 0 else []}) for i in range(205)]
    stats = dataset_statistics(surveys, iter(["two words", None, ""] + ["w"] * (1_086_992 - 3)))
    assert stats.is_surge and stats.max_depth == 2 and stats.mean_depth == 2 / 205
    assert stats.mean_nodes == (3 + 204) / 205 and stats.mean_citations == 2 / 205
    assert stats.papers_without_abstract == 2 and stats.mean_abstract_words == (2 + 1_086_989) / 1_086_990
    assert [r["published"] for r in stats.rows()] == [p for _, _, p in PAPER_TABLE1]
    no_corpus = dataset_statistics(surveys[:2], None)
    assert not no_corpus.is_surge and no_corpus.corpus_size is None and no_corpus.mean_abstract_words is None
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "surveys.json").write_text((SAMPLE_DIR / "surveys.json").read_text())
    assert CliRunner().invoke(app, ["data", "build", "--source", str(tmp_path / "src"), "--out",
                                    str(tmp_path / "built")]).exit_code == 0
    result = CliRunner().invoke(app, ["data", "stats", "--data", str(tmp_path / "built")], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Corpus Size" in result.output and "–" in result.output and "this has 6 and –" in result.output
