"""The documentation site (mkdocs.yml, docs/): it builds with --strict, its generated pages follow the code, the
getting-started tour runs as written, and the sample leaderboard it shows is what examples/leaderboard.sh prints."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from .conftest import REPO_ROOT
from .doc_blocks import blocks, commands, section

DOCS = REPO_ROOT / "docs"
METRIC_NAMES = sorted(p.parent.name for p in (REPO_ROOT / "metrics").glob("*/README.md"))


_section, _blocks, _commands = section, blocks, commands


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """`mkdocs build --strict` of the repository's mkdocs.yml, into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO_ROOT / "mkdocs.yml"),
                           "-d", str(out)], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_the_site_builds_strict_with_every_page(site: Path) -> None:
    for page in ("index", "getting-started/index", "data/index", "evaluation/index", "evaluation/protocols/index",
                 "retrieval/index", "baselines/index", "leaderboard/index", "importing/index", "architecture/index",
                 "reproducing/index", "benchmarks/index", "faq/index", "reference/api/index", "reference/cli/index"):
        assert (site / f"{page}.html").is_file(), page


def test_one_page_per_metric_card_front_matter_stripped_inputs_filled(site: Path) -> None:
    index = (site / "metrics" / "index.html").read_text(encoding="utf-8")
    for name in METRIC_NAMES:
        page = (site / "metrics" / name / "index.html").read_text(encoding="utf-8")
        assert "sdk_version" not in page and "app_file" not in page, name  # the Space's YAML front matter
        assert "surge:inputs" not in page and "predictions (list of str)" in page, name  # hub.render_card's text
        assert f'href="{name}/"' in index, name


def test_the_api_reference_is_generated_from_the_code(site: Path) -> None:
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("surge_dataset.SurgeData", "surge_dataset.evaluation.compute.compute",
                 "surge_dataset.evaluation.metric.Metric", "surge_dataset.evaluation.metric.Metric.score",
                 "surge_dataset.generation.generator.Generator", "surge_dataset.retrieval.registry.open_index"):
        assert f'id="{name}"' in api, name


def _command_paths(command, path):  # noqa: ANN001, ANN202 - click objects (typer vendors its own click)
    yield path, command
    if hasattr(command, "list_commands"):
        ctx = command.context_class(command, info_name=path[-1])
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _command_paths(sub, [*path, name])


def test_the_cli_reference_shows_every_command_and_option_of_help() -> None:
    """Every command of the typer app, and every --option its `--help` prints, is in the generated reference."""
    import typer

    sys.path.insert(0, str(DOCS))
    try:
        import hooks
    finally:
        sys.path.remove(str(DOCS))
    from surge_dataset.cli import app

    reference = hooks.cli_reference()
    sections = dict(re.findall(r"^#+ `(surge[^`]*)`\n(.*?)(?=^#+ `surge|\Z)", reference, re.S | re.M))
    runner = CliRunner()
    paths = list(_command_paths(typer.main.get_command(app), ["surge"]))
    assert len(paths) > 20
    for path, _ in paths:
        name = " ".join(path)
        assert name in sections, name
        shown = runner.invoke(app, [*path[1:], "--help"])
        assert shown.exit_code == 0, (name, shown.output)
        # the option rows of typer's help panel: "│ *  --run  PATH ..." or "│    --exclude-empty  --keep-empty ..."
        rows = [line[:45] for line in shown.output.splitlines() if re.match(r"│\s{0,2}\*?\s{0,4}--[a-z]", line)]
        options = {option for row in rows for option in re.findall(r"--[a-z][\w-]*", row)}
        assert "--help" in options, name
        for option in options:
            assert f"`{option}`" in sections[name], (name, option)


TOUR = "Five-minute tour (offline, on the shipped sample)"


def test_the_getting_started_tour_runs_as_written(minilm_path: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `surge` line of docs/getting-started.md's tour, run from a checkout-like folder, then its Python."""
    from surge_dataset.cli import app

    page = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    tour = _section(page, TOUR)
    steps = _commands(_blocks(tour)[0])
    assert [s.split()[:3] for s in steps] == [["surge", "data", "build"], ["surge", "data", "render"],
                                              ["surge", "metrics", "install"], ["surge", "evaluate", "--data"],
                                              ["surge", "report", "outputs/results.json"]]
    (tmp_path / "examples").symlink_to(REPO_ROOT / "examples", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for step in steps:
        step = step.replace('"$(surge models path minilm)"', shlex.quote(str(minilm_path)))
        result = runner.invoke(app, shlex.split(step)[1:])
        assert result.exit_code == 0, (step, result.output)
    assert (tmp_path / "outputs" / "results.json").is_file() and (tmp_path / "report" / "table.md").is_file()
    code = _blocks(tour, "python")[0].replace('Path("~/surge-bench").expanduser()', f"Path({str(tmp_path)!r})")
    exec(compile(code.replace("shr.compute(", "scores = shr.compute(", 1), "getting-started.md", "exec"),
         namespace := {})
    assert 0.99 < namespace["scores"]["shr"] <= 1.0
    # The README's quickstart is this tour: the same commands, in the same order
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    quickstart = _section(readme, "Quickstart (offline, on the shipped sample)")
    assert [c for block in _blocks(quickstart) for c in _commands(block)] == steps


def test_the_readme_links_into_docs_that_exist() -> None:
    """README.md links into docs/ name files that exist (mkdocs --strict checks the links between pages)."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (REPO_ROOT / target).is_file(), target


@pytest.mark.slow
def test_the_sample_leaderboard_shown_is_what_the_example_prints(tmp_path: Path) -> None:
    """docs/leaderboard.md's tables are examples/leaderboard.sh's output today (about a minute on 2 cores)."""
    bindir = str(Path(sys.executable).parent)
    done = subprocess.run(["bash", str(REPO_ROOT / "examples" / "leaderboard.sh")], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "WORK": str(tmp_path / "lb"), "PYTHON": sys.executable,
                               "PATH": bindir + os.pathsep + os.environ.get("PATH", "")})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = tmp_path / "lb" / "report"
    shown = (DOCS / "leaderboard.md").read_text(encoding="utf-8")
    table = shown.split("`build/leaderboard/report/table.md`:\n", 1)[1].split("`build/leaderboard/report/", 1)[0]
    assert table.strip() == (report / "table.md").read_text(encoding="utf-8").strip()
    significance = shown.split("`build/leaderboard/report/significance.md` (table part):\n", 1)[1]
    rows = [line for line in significance.split("\nReading it:", 1)[0].splitlines() if line.startswith("|")]
    printed = [line for line in (report / "significance.md").read_text(encoding="utf-8").splitlines()
               if line.startswith("|")]
    assert rows == printed


def test_the_quiz_comparison_shown_is_what_the_example_prints(tmp_path: Path) -> None:
    """docs/evaluation/quiz.md's table is examples/quiz_comparison.py's output: recall and the quiz (the scripted
    reader: exact) checked here, without the SmolLM2 CQS judge (minutes on a CPU; its column is shown as measured)."""
    done = subprocess.run([sys.executable, str(REPO_ROOT / "examples" / "quiz_comparison.py"), "--out",
                           str(tmp_path / "qc"), "--no-cqs"], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    def rows(text: str) -> dict[str, dict[str, str]]:
        lines = [line for line in text.splitlines() if line.startswith("| ")]
        header = [cell.strip() for cell in lines[0].strip("|").split("|")]
        return {cells[0]: dict(zip(header, cells, strict=True))
                for cells in ([c.strip() for c in line.strip("|").split("|")] for line in lines[2:])}

    shown = (DOCS / "evaluation" / "quiz.md").read_text(encoding="utf-8")
    table = shown.split("<!-- quiz-comparison -->\n", 1)[1].split("<!-- /quiz-comparison -->", 1)[0]
    printed, documented = rows(done.stdout), rows(table)
    assert list(printed) == list(documented) == ["ground-truth", "degraded", "references-only", "off-topic"]
    for system, values in printed.items():
        for column in ("recall", "quiz", "quiz_unanswered"):
            assert documented[system][column] == values[column], (system, column)
        assert re.fullmatch(r"\d\.\d{4}", documented[system]["cqs"]), documented[system]
    for line in done.stdout.splitlines():
        if line.startswith(("- recall ranks", "- quiz ranks", "- Kendall's tau between the recall and quiz",
                            "- meta-eval vs the built order, recall", "- meta-eval vs the built order, quiz")):
            assert line in shown, line
