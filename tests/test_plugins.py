"""Generators are plugins: found through the ``surge.generators`` entry points, never imported by the core."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.generation import (
    ENTRY_POINT_GROUP,
    Draft,
    DraftSection,
    Generator,
    available_generators,
    get_generator,
    register_generator,
)
from surge_dataset.generation import generator as registry
from tests.support.openai_server import ScriptedOpenAIServer

from .conftest import REPO_ROOT

BUILT_IN = {"rag", "autosurvey", "stepsurvey", "surveyforge", "naive_rag", "qualsg", "llm_only", "guided"}
PLUGIN_MODULE = "surge_toy_plugin"

PLUGIN_SOURCE = '''
from surge_dataset.generation import Draft, DraftSection, Generator
from surge_dataset.llm.prompts import PROMPTS, PromptTemplate, register

if "toy.write" not in PROMPTS:
    register(PromptTemplate(name="toy.write", system="You write surveys.", user="Write about {topic}."))


class Toy(Generator):
    name = "toy_plugin"
    inputs = "none"
    defaults = {"heading": "Overview"}
    prompts_version = "toy-1"

    def generate(self, topic, papers, llm):
        text = self.ask(llm, "write", "toy.write", [{"topic": topic.title}])[0]
        return Draft(topic.title, [DraftSection(self.heading, text)])
'''


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty in-process registry and entry-point cache for this test only."""
    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_LOADED", {})


@pytest.fixture
def installed_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None) -> Path:
    """A third-party package 'installed' on sys.path: its module and a dist-info declaring the entry point."""
    site = tmp_path / "site"
    (site / PLUGIN_MODULE).mkdir(parents=True)
    (site / PLUGIN_MODULE / "__init__.py").write_text(textwrap.dedent(PLUGIN_SOURCE), encoding="utf-8")
    dist_info = site / "surge_toy_plugin-0.1.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: surge-toy-plugin\nVersion: 0.1\n", encoding="utf-8")
    (dist_info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\ntoy_plugin = {PLUGIN_MODULE}:Toy\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    yield site
    sys.modules.pop(PLUGIN_MODULE, None)


def test_a_generator_declared_as_an_entry_point_is_found_by_surge_generate(
    installed_plugin: Path, sample_dataset: Path, tmp_path: Path
) -> None:
    from surge_dataset.cli import app

    assert {"toy_plugin", *BUILT_IN} <= set(available_generators())
    assert PLUGIN_MODULE not in sys.modules  # listed, not loaded: entry points load lazily
    out = tmp_path / "out"
    with ScriptedOpenAIServer(responder=lambda messages: "A plugin wrote this.") as server:
        result = CliRunner().invoke(app, [
            "generate", "--system", "toy_plugin", "--llm", "openai:scripted", "--base-url", server.base_url,
            "--data", str(sample_dataset), "--survey-ids", "0", "--out", str(out), "--cache-dir", str(tmp_path / "cache"),
            "-o", "heading=Plugin Section",
        ])
        assert result.exit_code == 0, result.output
        assert len(server.requests) == 1
    assert PLUGIN_MODULE in sys.modules
    markdown = (out / "0" / "survey.md").read_text(encoding="utf-8")
    assert "## Plugin Section\n\nA plugin wrote this.\n" in markdown
    sidecar = json.loads((out / "0" / "survey.json").read_text(encoding="utf-8"))
    assert (sidecar["status"], sidecar["system"], sidecar["prompts_version"]) == ("complete", "toy_plugin", "toy-1")
    assert sidecar["options"] == {"heading": "Plugin Section"}


def _fake_entry_points(monkeypatch: pytest.MonkeyPatch, **targets: str) -> None:
    points = [metadata.EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP) for name, value in targets.items()]

    def entry_points(**params: str) -> list[metadata.EntryPoint]:
        return [p for p in points if params.get("group") in (None, p.group)]

    monkeypatch.setattr(metadata, "entry_points", entry_points)


class Declared(Generator):
    name = "declared"
    inputs = "none"

    def generate(self, topic, papers, llm):  # noqa: ANN001, ANN201
        return Draft(topic.title, [DraftSection("From the entry point", "")])


class Misnamed(Declared):
    name = "something_else"


class NotAGenerator:
    name = "declared"


def test_entry_points_are_checked_and_the_decorator_wins(monkeypatch: pytest.MonkeyPatch, fresh_registry: None) -> None:
    _fake_entry_points(monkeypatch, declared=f"{__name__}:Declared", misnamed=f"{__name__}:Misnamed",
                       wrong=f"{__name__}:NotAGenerator", missing="no_such_module_surge:Thing")
    assert available_generators() == ["declared", "misnamed", "missing", "wrong"]
    assert type(get_generator("declared")) is Declared
    with pytest.raises(ValueError, match="must agree"):
        get_generator("misnamed")
    with pytest.raises(ValueError, match="not a surge_dataset.generation.Generator subclass"):
        get_generator("wrong")
    with pytest.raises(ImportError):
        get_generator("missing")
    with pytest.raises(KeyError, match=r"unknown generator 'nope' \(known: declared, misnamed, missing, wrong\)"):
        get_generator("nope")
    with pytest.raises(KeyError, match=r"unknown generator 'declard' \(closest: 'declared'\)"):
        get_generator("declard")

    @register_generator
    class Local(Declared):
        """Registered in this process: wins over the installed entry point of the same name."""

        name = "declared"

    assert type(get_generator("declared")) is Local

    @register_generator
    class Quick(Declared):
        name = "quick"

    assert "quick" in available_generators() and type(get_generator("quick")) is Quick
    with pytest.raises(ValueError, match="has no name"):
        register_generator(type("Nameless", (Declared,), {"name": ""}))


def test_the_built_in_systems_are_installed_entry_points_matching_pyproject(fresh_registry: None) -> None:
    tomllib = pytest.importorskip("tomllib")
    declared = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = declared["project"]["entry-points"][ENTRY_POINT_GROUP]
    assert set(declared) == BUILT_IN
    installed = {p.name: p.value for p in metadata.distribution("surge-bench").entry_points
                 if p.group == ENTRY_POINT_GROUP}
    assert installed == declared, "stale metadata: rerun `pip install -e .` after editing pyproject.toml"
    for name in sorted(BUILT_IN):
        generator = get_generator(name)
        assert generator.name == name and generator.prompts_version == "surge-baselines-1"


def test_importing_the_core_does_not_import_baselines() -> None:
    code = textwrap.dedent("""
        import sys
        import surge_dataset.generation, surge_dataset.cli.generate
        from surge_dataset.generation import available_generators, get_generator
        assert 'surge_baselines' not in sys.modules, 'importing the core imported the baselines'
        assert 'rag' in available_generators() and 'surge_baselines' not in sys.modules, 'listing imported the baselines'
        get_generator('rag')
        assert 'surge_baselines.rag' in sys.modules
    """)
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


def test_no_core_module_names_baselines() -> None:
    """The core reaches plugins only through entry points: no import of ``baselines``, not even a lazy one."""
    offenders = []
    for path in sorted((REPO_ROOT / "surge_dataset").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                names = [str(node.args[0].value)] if "import" in ast.unparse(node.func) else []
            else:
                continue
            offenders += [f"{path.relative_to(REPO_ROOT)}:{node.lineno}" for n in names
                          if n.split(".")[0] in ("baselines", "surge_baselines")]
    assert not offenders, offenders
