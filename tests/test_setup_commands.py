"""The README's two commands (make demo / make test), what they install, CI, .gitignore, a re-runnable quickstart."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from .conftest import REPO_ROOT
from .doc_blocks import blocks, commands, section

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    return section(README, title)


_blocks, _commands = blocks, commands


def test_the_two_commands_come_first_and_the_makefile_runs_the_scripts() -> None:
    assert README.index("## Two commands") < README.index("## Install") < README.index("## Quickstart")
    assert _commands(_blocks(_section("Two commands"))[0]) == ["make demo", "make test"]
    makefile = (REPO_ROOT / "Makefile").read_text()
    assert re.search(r"^demo:\n\tbash scripts/demo.sh$", makefile, re.M)
    assert re.search(r"^test:\n\tbash scripts/test.sh$", makefile, re.M)
    if shutil.which("make"):
        # --no-print-directory: under `make test` (CI) the inherited MAKEFLAGS would add "Entering directory" lines
        dry = subprocess.run(["make", "--no-print-directory", "-n", "demo", "test"], cwd=REPO_ROOT,
                             capture_output=True, text=True, check=True)
        assert dry.stdout.split("\n")[:2] == ["bash scripts/demo.sh", "bash scripts/test.sh"]
    for script in ("setup.sh", "demo.sh", "test.sh"):
        subprocess.run(["bash", "-n", str(REPO_ROOT / "scripts" / script)], check=True)
    subprocess.run(["bash", "-n", str(REPO_ROOT / ".ci" / "run")], check=True)


def test_the_scripts_install_exactly_as_the_readme_says() -> None:
    readme_pips = [c.removeprefix("pip install ") for c in _commands(_blocks(_section("Install"))[0])
                   if c.startswith("pip install")]
    setup = (REPO_ROOT / "scripts" / "setup.sh").read_text()
    script_pips = re.findall(r'^\s*\.venv/bin/python -m pip install (.+)$', setup, re.M)
    assert [p.replace('"$TORCH_SPEC"', "torch==2.13.0") for p in script_pips] == readme_pips
    assert 'TORCH_SPEC="${TORCH_SPEC:-torch==2.13.0}"' in setup and "-m venv .venv" in setup
    test_script = (REPO_ROOT / "scripts" / "test.sh").read_text()
    assert ". scripts/setup.sh" in test_script and "python -m pytest -q" in test_script
    assert "make test" in _commands(_blocks(_section("Tests"))[0])[0]


def test_ci_creates_its_own_venv_and_calls_the_readmes_test_command() -> None:
    ci = (REPO_ROOT / ".ci" / "run").read_text()
    commands = [line.strip() for line in ci.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert commands.index("rm -rf .venv") < commands.index("make test")
    assert any(c.startswith("bash scripts/test.sh") for c in commands)  # the same command where make is missing
    assert "read " not in ci and "input(" not in ci  # CI has no stdin


def test_demo_builds_the_sample_to_surge_and_installs_the_metrics() -> None:
    demo = (REPO_ROOT / "scripts" / "demo.sh").read_text()
    build, render, install, evaluate = (re.search(pattern, demo).group(0) for pattern in (
        r'"\$surge" data build .*', r'"\$surge" data render .*', r'"\$surge" metrics install', r'"\$surge" evaluate .*'))
    assert "--source examples/sample --out surge --overwrite" in build and "--data surge" in render
    assert demo.index(install) < demo.index(evaluate) and "models path minilm" in demo
    assert demo.rstrip().endswith("--out outputs/ground-truth.json")  # the table is the last thing printed


@pytest.mark.parametrize("path", ["surge/", "outputs/x.json", "runs/bm25.trec", "results/rag.json", "report/table.md",
                                  "indexes/bm25/x", "data/corpus.json", ".venv/bin/python"])
def test_what_the_readme_commands_write_is_ignored(path: str) -> None:
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(["git", "check-ignore", "-q", path], cwd=REPO_ROOT)
    assert done.returncode == 0, f"{path} is not ignored"


def test_quickstart_steps_run_twice_as_written(minilm_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `surge` line of the README's quickstart, run as written from a checkout-like folder, twice."""
    from surge_dataset.cli import app

    (tmp_path / "examples").symlink_to(REPO_ROOT / "examples", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    steps = _commands(_blocks(_section("Quickstart (offline, on the shipped sample)"))[0])
    assert [s.split()[:3] for s in steps] == [["surge", "data", "build"], ["surge", "data", "render"],
                                              ["surge", "metrics", "install"], ["surge", "evaluate", "--data"]]
    runner = CliRunner()
    for attempt in range(2):
        for step in steps:
            step = step.replace('"$(surge models path minilm)"', shlex.quote(str(minilm_path)))
            result = runner.invoke(app, shlex.split(step)[1:])
            assert result.exit_code == 0, (attempt, step, result.output)
        assert "(official protocol)" in result.output and "mean" in result.output  # the results table
    assert (tmp_path / "surge" / "README.md").is_file() and (tmp_path / "outputs" / "ground-truth.json").is_file()
    # The Python snippet after the steps runs as copied, unedited, in the folder they ran in, wherever that is (here
    # a temporary folder, not this checkout): it names no path of one machine
    snippet = _blocks(_section("Quickstart (offline, on the shipped sample)"), "python")[0]
    assert "~" not in snippet and "data=str(root" in snippet and Path.cwd() == tmp_path != REPO_ROOT
    exec(compile(snippet.replace("shr.compute(", "scores = shr.compute(", 1), "README.md", "exec"), namespace := {})
    assert 0.99 < namespace["scores"]["shr"] <= 1.0  # the GT rendered as a survey matches its own headings


def test_make_test_quick_runs_the_suite_without_slow_tests_and_the_docs_say_what_a_clone_skips() -> None:
    """`make test` stays the whole suite; `make test-quick` is scripts/test.sh with `-m "not slow"`; README "Tests"
    and getting-started's "Tests" name both and say which tests skip in a clone (../shared), with no test count that
    drifts."""
    makefile = (REPO_ROOT / "Makefile").read_text()
    assert re.search(r'^test-quick:\n\tbash scripts/test.sh -m "not slow"$', makefile, re.M)
    assert re.search(r"^test:\n\tbash scripts/test.sh$", makefile, re.M)
    if shutil.which("make"):
        dry = subprocess.run(["make", "--no-print-directory", "-n", "test-quick"], cwd=REPO_ROOT,
                             capture_output=True, text=True, check=True)
        assert dry.stdout.strip() == 'bash scripts/test.sh -m "not slow"'
    assert '"$@"' in (REPO_ROOT / "scripts" / "test.sh").read_text()  # the marker reaches pytest
    guide = (REPO_ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    for text in (_section("Tests"), section(guide, "Tests")):
        assert ["make test", "make test-quick"] == [c.split("  #")[0].strip() for c in _commands(_blocks(text)[0])][:2]
        assert "../shared" in " ".join(text.split()) and not re.search(r"\b\d,\d{3} tests\b", text)
