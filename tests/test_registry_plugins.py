"""Importer formats, bibliographic services and LLM backends are open sets: another package adds one with an
entry point only (groups ``surge.importers``, ``surge.bib_services``, ``surge.llm_backends``), and it works end
to end like a built-in. The package (tests/fixtures/registry_plugin) is 'installed' on sys.path with a
dist-info, as tests/test_plugins.py installs a generator; the registries' entry-point caches are reset."""

from __future__ import annotations

import shutil
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.core.registries import NameClashWarning
from surge_dataset.core.vocabulary import ChoiceError
from surge_dataset.importers.registry import IMPORTERS
from surge_dataset.llm.base import LLM_BACKENDS, BackendSpec, LLMConfigurationError
from surge_dataset.references.registry import BIB_SERVICES, rates_help, source_names, web_service

from .conftest import REPO_ROOT

MODULE = "surge_registry_plugin"
FIXTURE = REPO_ROOT / "tests" / "fixtures" / "registry_plugin" / f"{MODULE}.py"
WL = "Weisfeiler-Lehman Meets Graph Neural Networks: Higher-Order Expressivity"
ENTRY_POINTS = (f"[surge.importers]\nnotes = {MODULE}:read_notes\n"
                f"[surge.bib_services]\ntoybib = {MODULE}:ToyBib\n"
                f"[surge.llm_backends]\ntoy = {MODULE}:make_backend\n")
REGISTRIES = (IMPORTERS, BIB_SERVICES, LLM_BACKENDS)


def _install(site: Path, name: str, entry_points: str, monkeypatch: pytest.MonkeyPatch) -> None:
    dist_info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    (dist_info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    for registry in REGISTRIES:  # read the entry points again now, and again after the test (monkeypatch)
        monkeypatch.setattr(registry, "_entry_points", None)


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(FIXTURE, site / FIXTURE.name)
    _install(site, "surge-registry-plugin", ENTRY_POINTS, monkeypatch)
    yield site
    sys.modules.pop(MODULE, None)


def test_an_importer_format_of_another_package_imports_a_survey(plugin: Path, sample_dataset: Path,
                                                                tmp_path: Path) -> None:
    from surge_dataset.cli import app

    assert "notes" in IMPORTERS and "notes" in IMPORTERS.names()
    source = tmp_path / "runs"
    source.mkdir()
    (source / "0.note").write_text(f"# Graph networks\n\n## Intro\n\nWL tests bound GNNs [1].\nREF: {WL}\n",
                                   encoding="utf-8")
    out = tmp_path / "imported"
    done = CliRunner().invoke(app, ["import", str(source), "--format", "notes", "--data", str(sample_dataset),
                                    "--out", str(out), "--no-lookup"])
    assert done.exit_code == 0, done.output
    survey = (out / "0" / "survey.md").read_text(encoding="utf-8")
    assert "WL tests bound GNNs" in survey and WL in survey
    done = CliRunner().invoke(app, ["import", str(source), "--format", "note", "--out", str(tmp_path / "o")])
    assert done.exit_code == 2 and "did you mean 'notes'?" in done.output  # one line naming the closest


class _ToyBibServer(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        from surge_registry_plugin import answer_query

        body = answer_query(self.path.partition("?")[2])
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_bibliographic_service_of_another_package_answers_a_lookup(plugin: Path, tmp_path: Path) -> None:
    from surge_dataset.references.chain import ChainOptions, ReferenceChain, parse_services

    assert "toybib" in BIB_SERVICES and "toybib" in source_names() and "toybib 2.5" in rates_help()
    assert parse_services("toybib, openalex") == ("toybib", "openalex")
    with pytest.raises(ChoiceError, match="did you mean 'toybib'"):
        parse_services("toybi")
    service = web_service("toybib")  # its pure functions
    assert service.request("A B", "http://h/", {}).full_url == "http://h/find?q=A+B"
    assert [c.title for c in service.parse(200, b'{"hits": [{"title": "A B"}]}')] == ["A B"]
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ToyBibServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:  # the chain asks it through a local server, as a built-in service
        options = ChainOptions(services=("toybib",), base_urls={"toybib": f"http://127.0.0.1:{server.server_port}"},
                               rate_limits={"toybib": 100.0}, cache_dir=tmp_path / "cache")
        answers = ReferenceChain(options, {}).lookup({"k": "Graph Networks Revisited"})
    finally:
        server.shutdown()
        server.server_close()
    [answer] = answers["k"]
    assert answer.source == "toybib" and answer.error is None
    assert [(c.title, c.doi) for c in answer.candidates] == [("Graph Networks Revisited", "10.1/toy")]


def test_an_llm_backend_of_another_package_answers_a_judge_question(plugin: Path) -> None:
    from surge_dataset.llm import Judge, make_llm
    from surge_dataset.llm.judge import JudgeRequest

    assert "toy" in LLM_BACKENDS and BackendSpec.parse("toy:model-4") == BackendSpec("toy", "model-4")
    judge = Judge(make_llm("toy:model-4", cache_dir=False))
    [outcome] = judge.run([JudgeRequest.score([{"role": "user", "content": "Rate 1-5."}], 1, 5)])
    assert outcome.value == 4
    with pytest.raises(LLMConfigurationError, match=r"unknown backend 'tyo': closest: 'toy'"):
        BackendSpec.parse("tyo:model")


def test_an_installed_package_cannot_take_a_built_in_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one clash rule (core/registries.py): the built-in keeps ``storm``, ``openalex`` and ``openai``."""
    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(FIXTURE, site / FIXTURE.name)
    _install(site, "surge-squatter", ENTRY_POINTS.replace("notes =", "storm =").replace("toybib =", "openalex =")
             .replace("toy =", "openai ="), monkeypatch)
    try:
        with pytest.warns(NameClashWarning, match="built-in keeps the name"):
            assert IMPORTERS.load("storm").__module__ == "surge_dataset.importers.formats"
        with pytest.warns(NameClashWarning):
            assert type(web_service("openalex")).__module__ == "surge_dataset.references.openalex"
        with pytest.warns(NameClashWarning):
            assert LLM_BACKENDS.load("openai").__module__ == "surge_dataset.llm.backends"
    finally:
        sys.modules.pop(MODULE, None)


def test_code_registers_a_format_and_takes_a_built_in_only_with_replace() -> None:
    from surge_dataset.core.registries import NameClashError

    def reader(root: Path) -> Iterator[object]:
        return iter(())

    with pytest.raises(NameClashError, match="replace=True"):
        IMPORTERS.register("storm", reader)
    IMPORTERS.register("in_test", reader)
    try:
        assert IMPORTERS["in_test"] is reader
    finally:
        IMPORTERS.unregister("in_test")
    assert "in_test" not in IMPORTERS
