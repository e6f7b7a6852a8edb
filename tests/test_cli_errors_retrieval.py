"""The retrieval commands catch nothing themselves: what a user can fix is a ``SurgeError`` raised
where it happens, shown by the ``surge`` root as one line with exit 2; a programming error stays a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.core.errors import SurgeError

runner = CliRunner()
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def one_line_error(result, *must_say: str) -> str:
    """Exit 2, one line starting with ``error:``, no traceback, and the given words in it."""
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    text = result.output.strip()
    assert "Traceback" not in text and "\x1b[" not in text, text
    assert text.startswith("error:") and len(text.splitlines()) == 1, text
    for words in must_say:
        assert words in text, text
    return text


@pytest.fixture(scope="module")
def bm25_index(sample_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.retrieval import build_bm25_index

    out = tmp_path_factory.mktemp("errors") / "bm25"
    build_bm25_index(SurgeData.open(sample_dataset), out)
    return out


@pytest.fixture(scope="module")
def run_file(bm25_index: Path, sample_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("errors") / "run.trec"
    done = runner.invoke(app, ["retrieve", "--index", str(bm25_index), "--data", str(sample_dataset), "--k", "20",
                               "--out", str(run)])
    assert done.exit_code == 0, done.output
    return run


# index bm25 ----------------------------------------------------------------------------------------------------


def test_index_bm25_into_an_existing_index_or_a_missing_dataset(bm25_index: Path, sample_dataset: Path,
                                                                tmp_path: Path) -> None:
    one_line_error(runner.invoke(app, ["index", "bm25", "--data", str(sample_dataset), "--out", str(bm25_index)]),
                   "already exists", "--overwrite")
    one_line_error(runner.invoke(app, ["index", "bm25", "--data", str(tmp_path / "nope"), "--out",
                                       str(tmp_path / "i")]), "no such dataset folder")


def test_a_programming_error_is_still_a_traceback(sample_dataset: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """No command hides a plain ``ValueError`` (a bug) behind a one-line message any more."""
    import surge_dataset.retrieval.bm25 as bm25

    def broken(*args, **kwargs):
        raise ValueError("a bug, not a user error")

    monkeypatch.setattr(bm25, "build_bm25_index", broken)
    result = runner.invoke(app, ["index", "bm25", "--data", str(sample_dataset), "--out", str(tmp_path / "i")])
    assert result.exit_code == 1 and isinstance(result.exception, ValueError) and not isinstance(
        result.exception, SurgeError)


# index dense ---------------------------------------------------------------------------------------------------


def test_index_dense_bad_faiss_missing_model_and_a_foreign_out(sample_dataset: Path, tmp_path: Path) -> None:
    base = ["index", "dense", "--data", str(sample_dataset)]
    one_line_error(runner.invoke(app, [*base, "--model", str(tmp_path), "--faiss", "hnsv",
                                       "--out", str(tmp_path / "d")]), "--faiss", "'hnsw'")
    one_line_error(runner.invoke(app, [*base, "--model", str(tmp_path / "no-model"), "--out", str(tmp_path / "d")]),
                   "--model", "no such folder")
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me\n")
    model = tmp_path / "model"
    model.mkdir()
    one_line_error(runner.invoke(app, [*base, "--model", str(model), "--out", str(foreign)]), "surge did not write")
    assert (foreign / "notes.txt").read_text() == "keep me\n"


# retrieve ------------------------------------------------------------------------------------------------------


def test_retrieve_missing_index_unknown_split_bad_query_type_and_filter(bm25_index: Path, sample_dataset: Path,
                                                                       tmp_path: Path) -> None:
    base = ["retrieve", "--data", str(sample_dataset), "--out", str(tmp_path / "r.trec")]
    one_line_error(runner.invoke(app, [*base, "--index", str(tmp_path / "nope")]), "not a surge index")
    one_line_error(runner.invoke(app, [*base, "--index", str(bm25_index), "--queries", "tset"]),
                   "unknown split 'tset'", "'test'")
    one_line_error(runner.invoke(app, [*base, "--index", str(bm25_index), "--query-type", "title"]),
                   "--query-type", "'titles'")
    one_line_error(runner.invoke(app, [*base, "--index", str(bm25_index), "--min-cites", "-1"]), "--min-cites")
    assert not (tmp_path / "r.trec").exists()  # no empty run left behind by a misspelt split


# retrieval-eval ------------------------------------------------------------------------------------------------


def test_retrieval_eval_missing_or_malformed_run_unknown_split_bad_engine(run_file: Path, sample_dataset: Path,
                                                                         tmp_path: Path) -> None:
    base = ["retrieval-eval", "--data", str(sample_dataset)]
    one_line_error(runner.invoke(app, [*base, "--run", str(tmp_path / "missing.trec")]), "missing.trec",
                   "no such TREC run file")
    bad = tmp_path / "bad.trec"
    bad.write_text("0 Q0 12 1 0.5 tag\n0 Q0 13 2\n")
    one_line_error(runner.invoke(app, [*base, "--run", str(bad)]), f"{bad}:2", "6 columns, found 4")
    bad.write_text("0 Q0 12 1 high tag\n")
    one_line_error(runner.invoke(app, [*base, "--run", str(bad)]), f"{bad}:1", "'high'")
    bad.write_bytes(b"\xff\xfe\x00binary")
    one_line_error(runner.invoke(app, [*base, "--run", str(bad)]), "not UTF-8")
    one_line_error(runner.invoke(app, [*base, "--run", str(run_file), "--qrels", "tset"]), "unknown split 'tset'")
    one_line_error(runner.invoke(app, [*base, "--run", str(run_file), "--engine", "trec_eval"]), "--engine")
    one_line_error(runner.invoke(app, [*base, "--run", str(run_file), "--query-type", "sections"]), "--query-type")
    empty = tmp_path / "empty.qrels"
    empty.write_text("")
    one_line_error(runner.invoke(app, [*base, "--run", str(run_file), "--qrels", str(empty)]), "nothing to evaluate")
    assert runner.invoke(app, [*base, "--run", str(run_file)]).exit_code == 0  # the same run, read fine


def test_retrieval_eval_with_a_broken_sidecar(run_file: Path, sample_dataset: Path, tmp_path: Path) -> None:
    run = tmp_path / "run.trec"
    run.write_text(run_file.read_text())
    (tmp_path / "run.trec.meta.json").write_text("{not json")
    one_line_error(runner.invoke(app, ["retrieval-eval", "--data", str(sample_dataset), "--run", str(run)]),
                   "run.trec.meta.json", "not a JSON sidecar")


# data export-retrieval -----------------------------------------------------------------------------------------


def test_export_retrieval_bad_format_unknown_split_and_existing_out(sample_dataset: Path, tmp_path: Path) -> None:
    base = ["data", "export-retrieval", "--data", str(sample_dataset)]
    out = tmp_path / "exp"
    one_line_error(runner.invoke(app, [*base, "--out", str(out), "--format", "csv"]), "--format", "beir, mteb")
    one_line_error(runner.invoke(app, [*base, "--out", str(out), "--query-type", "question"]), "'questions'")
    one_line_error(runner.invoke(app, [*base, "--out", str(out), "--split", "dev"]), "unknown split 'dev'")
    assert not out.exists()
    assert runner.invoke(app, [*base, "--out", str(out)]).exit_code == 0
    one_line_error(runner.invoke(app, [*base, "--out", str(out)]), "already exists", "--overwrite")


# the library keeps the built-in bases its callers caught -------------------------------------------------------


def test_errors_keep_their_builtin_bases(sample_dataset: Path, tmp_path: Path) -> None:
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.retrieval import evaluate_run, load_queries, read_trec_run
    from surge_dataset.retrieval.index_base import read_manifest

    data = SurgeData.open(sample_dataset)
    with pytest.raises(FileNotFoundError):
        read_trec_run(tmp_path / "missing.trec")
    with pytest.raises(FileNotFoundError):
        read_manifest(tmp_path)
    with pytest.raises(KeyError):
        load_queries(data, "dev")
    with pytest.raises(ValueError):
        load_queries(data, "test", "sections")
    with pytest.raises(ValueError):
        evaluate_run({"0": {"1": 1.0}}, {})
    assert load_queries(data, "test")  # a known split still loads
