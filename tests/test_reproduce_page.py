"""docs/reproduce.md: one row per table and figure of both papers, and every row it marks runnable runs on the sample.

The page is the list: the commands are read off its tables (every `surge ...` code span of a row whose "runnable"
cell says yes), run in the page's order with the CLI in a folder holding ./surge (the built sample), and each output
path the row names (a `build/...` code span of its "output" cell) must be there afterwards.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from typer.testing import CliRunner

from surge_dataset.cli import app

from .conftest import REPO_ROOT

PAGE = REPO_ROOT / "docs" / "reproduce.md"
#: Every table and figure of both papers must have a row (SurGE has no figure with numbers: one row says so).
ITEMS = {"SurGE": [f"Table {n}" for n in range(1, 5)],
         "SurveyGen": [*(f"Table {n}" for n in range(1, 9)), *(f"Figure {n}" for n in range(1, 6))]}


def rows() -> dict[str, list[dict[str, str]]]:
    """Section -> its table rows as {column: cell}."""
    out: dict[str, list[dict[str, str]]] = {}
    for section in re.split(r"^## ", PAGE.read_text(encoding="utf-8"), flags=re.M)[1:]:
        name = section.splitlines()[0].strip()
        lines = [line for line in section.splitlines() if line.startswith("| ")]
        header = [c.strip() for c in lines[0].strip("|").split(" | ")]
        out[name] = [dict(zip(header, (c.strip() for c in line.strip().strip("|").split(" | ")), strict=True))
                     for line in lines[2:]]
    return out


def test_every_table_and_figure_has_a_row_and_says_whether_it_runs() -> None:
    found = rows()
    for paper, items in ITEMS.items():
        named = " ".join(row["item"] for row in found[paper])
        for item in items:
            assert re.search(rf"\b{item}\b", named), f"{paper} {item} has no row"
        for row in found[paper]:
            runnable = row["runnable"]
            assert runnable in {"yes", "not yet", "—"} or runnable.startswith(("yes ", "no:")), row
            if runnable == "not yet":
                assert row["command on the sample"].startswith("not yet:"), row  # says why, names no command


def test_every_runnable_command_runs_on_the_sample(in_demo_folder: Path) -> None:
    runnable = [row for paper in rows().values() for row in paper if row["runnable"].startswith("yes")]
    assert len(runnable) >= 4
    runner = CliRunner()
    for row in runnable:
        commands = re.findall(r"`(surge [^`]+)`", row["command on the sample"])
        assert commands, row
        for command in commands:
            result = runner.invoke(app, shlex.split(command)[1:], env={"COLUMNS": "200"})
            assert result.exit_code == 0, f"{command}\n{result.output}"
        for output in re.findall(r"`(build/[^`]+)`", row["output"]):
            assert (in_demo_folder / output).exists(), f"{row['item']}: {output} was not written"
        if row["item"].startswith("Table 1"):
            assert '"mean_nodes"' in result.output  # standard output is the row's output
