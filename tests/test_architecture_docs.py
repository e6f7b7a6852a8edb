"""docs/architecture.md: every worked example runs as written, and the package has no import cycle."""

from __future__ import annotations

import pkgutil
import re
import subprocess
import sys

import pytest

import surge_dataset

from .conftest import REPO_ROOT

DOC = REPO_ROOT / "docs" / "architecture.md"


def _examples() -> list[tuple[str, str]]:
    """(section title, code) of every python block under '## Worked examples', in order."""
    text = DOC.read_text(encoding="utf-8").split("## Worked examples", 1)[1]
    out, section = [], ""
    for part in re.split(r"(^### .*$)", text, flags=re.M):
        if part.startswith("### "):
            section = part[4:].strip()
            continue
        out += [(section, code) for code in re.findall(r"```python\n(.*?)```", part, re.S)]
    return out


def test_the_doc_has_the_extension_points():
    assert [s for s, _ in _examples()] == ["Add a metric", "Add a metric", "Add a command", "Add a data source",
                                          "Add a service client", "Add an import format", "Add a generator",
                                          "Add a retrieval index", "Add a re-ranker", "Add a judge backend"]


def test_where_a_new_thing_goes_is_answered_for_each_kind():
    """docs/architecture.md's table names a home for each kind of addition, each with a worked example."""
    text = DOC.read_text(encoding="utf-8")
    table = text.split("## Where does a new X go", 1)[1].split("\n## ", 1)[0]
    rows = {line.split("|")[1].strip(): line for line in table.splitlines() if line.startswith("| ") and "---" not in line}
    for kind in ("metric", "setting", "command", "data source", "service client", "import format", "baseline",
                 "re-ranker", "index kind", "judge / LLM backend"):
        assert kind in rows, kind
        anchor = re.search(r"\(#([\w-]+)\)", rows[kind])
        headings = {re.sub(r"\W+", "-", h.lower()).strip("-") for h in re.findall(r"^### (.+)$", text, re.M)}
        assert anchor and anchor.group(1) in headings, kind


def test_worked_examples_run_as_written(in_demo_folder, capsys):
    """One namespace per section, blocks in order, in a folder holding ./surge (as after `make demo`)."""
    namespaces: dict[str, dict] = {}
    try:
        for section, code in _examples():
            exec(compile(code, f"{DOC.name}: {section}", "exec"), namespaces.setdefault(section, {}))
    finally:
        from surge_dataset.evaluation import unregister
        from surge_dataset.generation import generator as registry
        from surge_dataset.importers.registry import IMPORTERS
        from surge_dataset.llm.base import LLM_BACKENDS
        from surge_dataset.retrieval.rerank import unregister_reranker

        unregister("heading_count")
        registry._REGISTRY.pop("echo_title", None)
        LLM_BACKENDS.unregister("always4")
        IMPORTERS.unregister("agent_json")
        unregister_reranker("word_overlap")
    printed = capsys.readouterr().out.splitlines()
    # the toy metric through compute(): 2 generated headings ("Intro", "Details") / survey 0's GT sections
    ratio = float(printed[0])
    from surge_dataset import SurgeData

    sample = SurgeData.open("surge")
    assert ratio == pytest.approx(2 / len(sample.survey(0).sections()))
    counts = ["train", str(len(sample.surveys("train"))), "test", str(len(sample.surveys("test")))]
    assert printed[1] == repr(counts)  # the command
    assert printed[2] == "Attention on Graphs: A Survey 2"  # the data source, built and opened
    assert printed[3:5] == ["https://dblp.org/search/publ/api?q=Graph+Attention+Networks&format=json&h=5", "2018"]
    assert printed[5] == "1 1 1"  # the import format: one citation, its entry found in the corpus, one file skipped
    assert printed[6].startswith("# ")  # the generator
    assert printed[7] == "['bm25', 'dense']"  # the index kinds
    assert printed[8] == "[9, 7]"  # the re-ranker: the candidate sharing both words first
    assert printed[-1] == "4.0"


def _modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(surge_dataset.__path__, "surge_dataset.")]
    # evaluate_module imports `evaluate`: tested with the modules; a __main__ module runs its program when imported
    return sorted(n for n in names if not n.endswith(("evaluate_module", ".__main__")))


_IMPORT_EVERY_MODULE = """
import importlib, sys
failed = []
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed.append((name, f"{type(exc).__name__}: {exc}"))
print(failed)
"""


def test_every_module_imports():
    """Every module imports in a fresh interpreter. Import cycles are the import contracts' to find, statically and
    inside functions too (tests/test_import_contracts.py); this catches what only running the import shows."""
    out = subprocess.run([sys.executable, "-c", _IMPORT_EVERY_MODULE, *_modules()], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_no_core_file_over_500_lines():
    roots = ("surge_dataset", "baselines", "training", "benchmarks", "examples")
    big = [(str(p.relative_to(REPO_ROOT)), n) for root in roots for p in (REPO_ROOT / root).rglob("*.py")
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500]
    assert not big, big
