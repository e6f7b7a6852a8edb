"""One rule for a name two providers declare (surge_dataset/core/registries.py), the same in the metric, generator and
index-kind registries; unknown names and formats answer with the closest one.

Plugins are "installed" as real distributions: a module and a ``*.dist-info`` with ``entry_points.txt`` on
``sys.path``, found by ``importlib.metadata`` exactly as a ``pip install`` would be.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.core.registries import NameClashError, NameClashWarning
from surge_dataset.core.vocabulary import ChoiceError, UnknownNameError
from surge_dataset.evaluation.catalogue import get_metric, registry
from surge_dataset.evaluation.metric import Metric, register, unregister
from surge_dataset.generation import Generator, available_generators, get_generator, register_generator
from surge_dataset.generation import generator as generator_registry
from surge_dataset.importers import FORMATS, READERS, read_documents
from surge_dataset.retrieval import registry as index_registry
from surge_dataset.retrieval.index_base import write_manifest
from surge_dataset.retrieval.registry import UnknownIndexKindError, get_index_opener, index_kinds, open_index

Install = Callable[..., str]


@pytest.fixture
def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Install]:
    """``install(dist, source, {group: {name: "module:attr"}})``: a package on ``sys.path`` with its dist-info.

    Returns the module's name (unique per test, so no module or warning is shared between tests). The
    generator and index registries start from the installed metadata again; what a test registers is undone.
    """
    site = tmp_path / "site"
    modules: list[str] = []

    def _install(dist: str, source: str, entry_points: dict[str, dict[str, str]]) -> str:
        module = f"{dist.replace('-', '_')}_{tmp_path.name.replace('-', '_')}"
        (site / module).mkdir(parents=True)
        (site / module / "__init__.py").write_text(textwrap.dedent(source), encoding="utf-8")
        dist_info = site / f"{dist.replace('-', '_')}-0.1.dist-info"
        dist_info.mkdir()
        (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8")
        lines = [f"[{group}]\n" + "".join(f"{name} = {value.format(module=module)}\n" for name, value in names.items())
                 for group, names in entry_points.items()]
        (dist_info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
        modules.append(module)
        importlib.invalidate_caches()  # the folder listing sys.path's finders cached may predate this module
        return module

    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(generator_registry, "_REGISTRY", {})
    monkeypatch.setattr(generator_registry, "_LOADED", {})
    monkeypatch.setattr(index_registry.INDEXES, "_runtime", {})
    monkeypatch.setattr(index_registry.INDEXES, "_entry_points", None)  # read the new dist-infos
    yield _install
    for module in modules:
        sys.modules.pop(module, None)


GENERATOR_SOURCE = """
from surge_dataset.generation import Draft, Generator

class Twin(Generator):
    name = "{name}"
    inputs = "none"

    def generate(self, topic, papers, llm):
        return Draft(topic.title, [])
"""

INDEX_SOURCE = """
class Index:
    @classmethod
    def load(cls, index_dir):
        return cls()
"""

METRIC_SOURCE = """
from surge_dataset.evaluation.metric import Metric

class Twin(Metric):
    name = "{name}"
    keys = ("{name}_value",)
"""


# ------------------------------------------------------------------------------------------- generators


def test_two_packages_declaring_one_generator_name_is_an_error_naming_both(install: Install) -> None:
    a = install("surge-twin-a", GENERATOR_SOURCE.format(name="twin"), {"surge.generators": {"twin": "{module}:Twin"}})
    b = install("surge-twin-b", GENERATOR_SOURCE.format(name="twin"), {"surge.generators": {"twin": "{module}:Twin"}})
    assert "twin" in available_generators() and "rag" in available_generators()
    with pytest.raises(NameClashError) as raised:
        get_generator("twin")
    message = str(raised.value)
    assert f"{a}:Twin (package 'surge-twin-a')" in message and f"{b}:Twin (package 'surge-twin-b')" in message
    assert "uninstall one of the two packages" in message and f"--system {a}:Twin" in message
    assert isinstance(raised.value, ValueError)  # what `surge generate` and library callers catch
    assert type(get_generator(f"{b}:Twin")).__module__ == b  # the way out the message gives
    assert get_generator("rag").name == "rag"  # the other names keep working


def test_a_package_cannot_take_a_built_in_generator_name(install: Install) -> None:
    other = install("surge-fake-rag", GENERATOR_SOURCE.format(name="rag"), {"surge.generators": {"rag": "{module}:Twin"}})
    with pytest.warns(NameClashWarning, match=rf"surge_baselines.rag:RAG \(built-in\) and by {other}:Twin .*keeps the name"):
        generator = get_generator("rag")
    assert type(generator).__module__ == "surge_baselines.rag"


def test_an_entry_point_naming_the_built_in_object_is_not_a_clash(install: Install) -> None:
    install("surge-rag-again", "", {"surge.generators": {"rag": "surge_baselines:RAG", "autosurvey": "surge_baselines.autosurvey:AutoSurvey"}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a warning
        assert type(get_generator("rag")).__module__ == "surge_baselines.rag"  # surge_baselines:RAG is surge_baselines.rag:RAG
        assert type(get_generator("autosurvey")).__module__ == "surge_baselines.autosurvey"


def test_code_takes_a_built_in_or_registered_generator_name_only_with_replace(install: Install) -> None:
    class MyRag(Generator):
        name = "rag"
        inputs = "none"

    with pytest.raises(NameClashError, match=r"generator 'rag' is already registered: surge_baselines.rag:RAG \(built-in\); "
                                             r"to register .*MyRag instead, pass replace=True"):
        register_generator(MyRag)
    register_generator(replace=True)(MyRag)
    assert type(get_generator("rag")) is MyRag
    register_generator(MyRag)  # the same class again: not a clash

    class Other(MyRag):
        pass

    with pytest.raises(NameClashError, match="already registered"):
        register_generator(Other)


# ------------------------------------------------------------------------------------------- index kinds


def _folder(path: Path, kind: str) -> Path:
    path.mkdir(parents=True)
    write_manifest(path, {"kind": kind})
    return path


def test_two_packages_declaring_one_index_kind_is_an_error_when_opened(install: Install, tmp_path: Path) -> None:
    a = install("surge-kind-a", INDEX_SOURCE, {"surge.indexes": {"twin-kind": "{module}:Index"}})
    b = install("surge-kind-b", INDEX_SOURCE, {"surge.indexes": {"twin-kind": "{module}:Index"}})
    assert index_kinds()["twin-kind"] == f"{a}:Index | {b}:Index"  # listed, nothing imported
    assert a not in sys.modules and b not in sys.modules
    folder = _folder(tmp_path / "twin", "twin-kind")
    with pytest.raises(NameClashError) as raised:
        open_index(folder)
    message = str(raised.value)
    assert "index kind 'twin-kind' is declared twice" in message and "package 'surge-kind-b'" in message
    assert f"register_index('twin-kind', '{b}:Index', replace=True)" in message
    index_registry.register_index("twin-kind", f"{b}:Index")  # code chooses: an installed kind is taken
    assert type(open_index(folder)).__module__ == b


def test_a_package_cannot_take_a_built_in_index_kind(install: Install) -> None:
    from surge_dataset.retrieval.bm25 import BM25Index

    other = install("surge-fake-bm25", INDEX_SOURCE, {"surge.indexes": {"bm25": "{module}:Index"}})
    assert index_kinds()["bm25"] == "surge_dataset.retrieval.bm25:BM25Index"
    with pytest.warns(NameClashWarning, match=rf"index kind 'bm25' is declared twice.*{other}:Index"):
        assert get_index_opener("bm25") == BM25Index.load
    with pytest.raises(NameClashError, match=r"already registered: surge_dataset.retrieval.bm25:BM25Index \(built-in\)"):
        index_registry.register_index("bm25", f"{other}:Index")


def test_an_index_entry_point_naming_the_built_in_object_is_not_a_clash(install: Install) -> None:
    from surge_dataset.retrieval.bm25 import BM25Index

    install("surge-bm25-again", "", {"surge.indexes": {"bm25": "surge_dataset.retrieval:BM25Index"}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert get_index_opener("bm25") == BM25Index.load
    index_registry.register_index("bm25", BM25Index)  # the built-in class itself: no replace=True needed


def test_an_unknown_index_kind_names_the_closest(install: Install, tmp_path: Path) -> None:
    with pytest.raises(UnknownIndexKindError, match=r"unknown index kind 'bm52' \(closest: 'bm25'\)") as raised:
        get_index_opener("bm52")
    assert isinstance(raised.value, KeyError) and isinstance(raised.value, ValueError)
    folder = _folder(tmp_path / "x", "dense2")
    with pytest.raises(ValueError, match=rf"unknown index kind 'dense2' \(closest: 'dense'\), named by {folder}"):
        open_index(folder)


# ------------------------------------------------------------------------------------------- metrics


@pytest.fixture
def metrics() -> Iterator[dict[str, Metric]]:
    """The metric registry, loaded, with what a test changes put back."""
    before = dict(registry())
    yield before
    for name in set(registry()) - set(before):
        unregister(name)
    for name, metric in before.items():
        if registry()[name] is not metric:
            register(metric, replace=True)


def test_two_packages_declaring_one_metric_name_is_an_error(install: Install, metrics: dict) -> None:
    a = install("surge-metric-a", METRIC_SOURCE.format(name="twin_metric"), {"surge.metrics": {"twin": "{module}:Twin"}})
    b = install("surge-metric-b", METRIC_SOURCE.format(name="twin_metric"), {"surge.metrics": {"twin": "{module}:Twin"}})
    first, second = (__import__(module).Twin for module in (a, b))
    register(first)  # what registry() does with each entry point
    with pytest.raises(NameClashError, match=rf"metric 'twin_metric' is declared twice, by {a}:Twin \(package "
                                             rf"'surge-metric-a'\) and by {b}:Twin \(package 'surge-metric-b'\): "
                                             "uninstall one of the two packages"):
        register(second)
    assert type(get_metric("twin_metric")) is first


def test_a_package_cannot_take_a_built_in_metric_name(install: Install, metrics: dict) -> None:
    other = install("surge-fake-recall", METRIC_SOURCE.format(name="recall"), {"surge.metrics": {"recall": "{module}:Twin"}})
    with pytest.warns(NameClashWarning, match=rf"metric 'recall' is declared twice, by .* \(built-in\) and by {other}:Twin"):
        register(__import__(other).Twin)
    assert get_metric("recall") is metrics["recall"]


def test_code_takes_a_built_in_metric_name_only_with_replace(metrics: dict) -> None:
    builtin = type(metrics["recall"])

    class MyRecall(builtin):
        pass

    with pytest.raises(NameClashError, match=r"metric 'recall' is already registered: .*\(built-in\); to register "
                                             r".*MyRecall instead, pass replace=True"):
        register(MyRecall)
    register(MyRecall, replace=True)
    assert type(get_metric("recall")) is MyRecall
    register(builtin, replace=True)
    register(builtin)  # the same class again: not a clash
    assert get_metric("recall").name == "recall"


# ------------------------------------------------------------------------------------------- closest names


def test_unknown_generator_names_the_closest() -> None:
    with pytest.raises(UnknownNameError, match=r"unknown generator 'rga' \(closest: 'rag'\)") as raised:
        get_generator("rga")
    assert isinstance(raised.value, KeyError) and not str(raised.value).startswith("'")


def test_import_formats_are_one_registry_read_by_the_cli(tmp_path: Path) -> None:
    names = tuple(READERS)
    assert FORMATS is READERS and {"autosurvey", "storm", "llmxmr", "surveyforge", "markdown", "latex", "pdf",
                                    "inspect"} <= set(names)
    with pytest.raises(ChoiceError, match=r"format must be one of autosurvey, .*not 'strom' \(did you mean 'storm'\?\)"):
        read_documents("strom", tmp_path)
    from surge_dataset.cli import app

    runner = CliRunner()
    shown = " ".join(runner.invoke(app, ["import", "--help"], env={"COLUMNS": "200"}).output.split())
    assert f"One of: {', '.join(names)}." in shown and "default: 90.0" in shown
    done = runner.invoke(app, ["import", str(tmp_path), "--format", "strom", "--out", str(tmp_path / "o")])
    assert done.exit_code == 2 and "did you mean 'storm'?" in done.output
