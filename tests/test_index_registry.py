"""The index registry: a kind registered at run time is opened by ``open_index`` and ``surge retrieve``, and
listed by ``surge index list``; built-in kinds are declared lazily (no bm25s / faiss / torch at import)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from surge_dataset.core.registries import Provider
from surge_dataset.retrieval import (
    Hit,
    available_index_kinds,
    index_kinds,
    open_index,
    read_trec_run,
    register_index,
    registry,
    unregister_index,
)
from surge_dataset.retrieval.index_base import UNKNOWN_DAY, write_manifest

from .conftest import REPO_ROOT


class ToyIndex:
    """Ranks every paper by the number of characters it shares with the query (enough to be a searcher)."""

    opened: list[dict[str, Any]] = []

    def __init__(self, index_dir: Path, doc_ids: np.ndarray):
        self.index_dir = index_dir
        self.doc_ids = doc_ids
        self.doc_days = np.full(len(doc_ids), UNKNOWN_DAY, dtype=np.int32)

    @classmethod
    def load(cls, index_dir: str | Path, *, batch_size: int = 1) -> ToyIndex:  # takes batch_size, not model
        cls.opened.append({"index_dir": str(index_dir), "batch_size": batch_size})
        return cls(Path(index_dir), np.load(Path(index_dir) / "doc_ids.npy"))

    def search(self, queries: Sequence[str], k: int, cutoff_days: Sequence[int | None] | None = None) -> list[list[Hit]]:
        return [[Hit(int(d), float(len(q) - i)) for i, d in enumerate(self.doc_ids[:k])] for q in queries]


def toy_opener(index_dir: str | Path, **kwargs: Any) -> ToyIndex:
    """A plain function as opener: it takes every option (``**kwargs``)."""
    ToyIndex.opened.append({"function": True, **kwargs})
    return ToyIndex(Path(index_dir), np.load(Path(index_dir) / "doc_ids.npy"))


def _toy_folder(path: Path, kind: str, doc_ids: Sequence[int] = (3, 1, 2)) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    np.save(path / "doc_ids.npy", np.asarray(doc_ids, dtype=np.int64))
    write_manifest(path, {"kind": kind, "n_docs": len(doc_ids)})
    return path


@pytest.fixture
def toy_kind() -> Iterator[str]:
    ToyIndex.opened.clear()
    register_index("toy", ToyIndex)
    yield "toy"
    unregister_index("toy")


def test_a_kind_registered_at_run_time_is_opened_with_the_options_it_takes(toy_kind: str, tmp_path: Path) -> None:
    folder = _toy_folder(tmp_path / "toy", toy_kind)
    assert index_kinds()["toy"] == f"{__name__}:ToyIndex"
    searcher = open_index(folder, model="m", batch_size=8, backend="numba")  # only batch_size reaches load()
    assert isinstance(searcher, ToyIndex) and ToyIndex.opened == [{"index_dir": str(folder), "batch_size": 8}]
    assert [h.doc_id for h in searcher.search(["abc"], 2)[0]] == [3, 1]

    with pytest.raises(ValueError, match="already registered"):
        register_index("toy", toy_opener)
    register_index("toy", toy_opener, replace=True)  # a function taking **kwargs gets every option
    open_index(folder, model="m", batch_size=8)
    assert ToyIndex.opened[-1] == {"function": True, "model": "m", "batch_size": 8}


def test_decorator_string_targets_and_unknown_kinds(tmp_path: Path) -> None:
    @register_index("toy-decorated")
    class Decorated(ToyIndex):
        pass

    register_index("toy-lazy", f"{__name__}:toy_opener")  # "module:attr", imported when first opened
    try:
        assert isinstance(open_index(_toy_folder(tmp_path / "a", "toy-decorated")), Decorated)
        assert isinstance(open_index(_toy_folder(tmp_path / "b", "toy-lazy")), ToyIndex)
        assert {"bm25", "dense", "toy-decorated", "toy-lazy"} <= set(available_index_kinds())
    finally:
        unregister_index("toy-decorated")
        unregister_index("toy-lazy")
    with pytest.raises(ValueError, match=r"unknown index kind 'toy-lazy' \(known: bm25, dense"):
        open_index(tmp_path / "b")
    with pytest.raises(ValueError, match="already registered"):
        register_index("bm25", ToyIndex)  # built-ins are not replaced by accident


def test_entry_point_kinds_are_found_and_builtins_are_declared_once_in_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugin = Provider(f"{__name__}:ToyIndex", "package 'toy'")
    monkeypatch.setattr(registry.INDEXES, "_entry_points", {"toy-plugin": [plugin]})
    assert index_kinds()["toy-plugin"] == f"{__name__}:ToyIndex"
    assert isinstance(open_index(_toy_folder(tmp_path / "p", "toy-plugin")), ToyIndex)
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    entry_points = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"].get("entry-points", {})
    assert "surge.indexes" not in entry_points  # the built-in kinds are registered in their modules, once
    assert set(registry.INDEXES.builtins()) == {"bm25", "dense"}


def test_cli_lists_the_kind_and_retrieves_with_it(toy_kind: str, sample_dataset: Path, tmp_path: Path) -> None:
    from surge_dataset.cli import SurgeGroup
    from surge_dataset.cli.retrieval import index_app
    from surge_dataset.cli.retrieval import retrieve as retrieve_cmd

    app = typer.Typer(cls=SurgeGroup)  # the root that turns a SurgeError into one line and exit 2
    app.add_typer(index_app, name="index")
    app.command("retrieve")(retrieve_cmd)
    runner = CliRunner()
    listed = runner.invoke(app, ["index", "list"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0, listed.output
    rows = {line.split("│")[1].strip(): line for line in listed.output.splitlines() if line.count("│") >= 3}
    assert {"bm25", "dense", "toy"} <= set(rows)
    assert "ToyIndex" in rows["toy"] and "plugin" in rows["toy"] and "built-in" in rows["bm25"]

    folder = _toy_folder(tmp_path / "toy", toy_kind)
    run = tmp_path / "run.trec"
    result = runner.invoke(app, ["retrieve", "--index", str(folder), "--data", str(sample_dataset), "--k", "2",
                                 "--batch-size", "5", "--out", str(run)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert ToyIndex.opened[-1]["batch_size"] == 5
    assert all(list(docs) == ["3", "1"] for docs in read_trec_run(run).values())
    assert json.loads(run.with_name(run.name + ".meta.json").read_text())["index_kind"] == "toy"

    unknown = _toy_folder(tmp_path / "unknown", "nope")
    result = runner.invoke(app, ["retrieve", "--index", str(unknown), "--data", str(sample_dataset),
                                 "--out", str(tmp_path / "x.trec")], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "unknown index kind 'nope'" in result.output


def _fresh_import(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_importing_the_package_loads_no_heavy_library() -> None:
    loaded = _fresh_import(
        "import sys, surge_dataset.retrieval, surge_dataset.retrieval.registry, surge_dataset.cli.retrieval\n"
        "surge_dataset.retrieval.index_kinds()\n"
        "print(sorted(m for m in ('bm25s', 'faiss', 'torch', 'transformers', 'ranx', 'Stemmer') if m in sys.modules))"
    )
    assert loaded == "[]"


@pytest.mark.parametrize("module", ["registry", "encoder", "encoding", "faiss_index"])
def test_each_retrieval_module_imports_alone(module: str) -> None:
    """No import cycle: every module imports first, in a fresh interpreter."""
    assert _fresh_import(f"import surge_dataset.retrieval.{module}; print('ok')") == "ok"
