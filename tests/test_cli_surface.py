"""One CLI: the same conventions in every command's help, defaults and errors."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.cli.options import DEFAULT_DATA

runner = CliRunner()
ROOT = typer.main.get_command(app)


def _commands(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every leaf command with its path (typer may vendor its own click: groups are told by ``commands``)."""
    found = []
    for name, command in sorted(group.commands.items()):
        path = (*prefix, name)
        if hasattr(command, "commands"):
            found.extend(_commands(command, path))
        else:
            found.append((path, command))
    return found


COMMANDS = _commands(ROOT)


def test_version_is_the_installed_distributions() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"surge-bench {metadata.version('surge-bench')}"


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=" ".join)
def test_help_shows_flags_as_flags_and_arguments_by_name(path: tuple[str, ...]) -> None:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    usage = next(line for line in result.output.splitlines() if "Usage:" in line)
    assert "{" not in usage and "<" not in usage, usage
    assert "<bool>" not in result.output and "BOOLEAN" not in result.output


def test_every_data_option_defaults_to_the_built_folder() -> None:
    with_data = [(path, param) for path, command in COMMANDS for param in command.params
                 if "--data" in getattr(param, "opts", ())]
    assert len(with_data) >= 10
    for path, param in with_data:
        assert not param.required and param.default == DEFAULT_DATA, path


def test_passages_given_a_file_says_so(sample_dataset: Path, tmp_path: Path) -> None:
    survey = tmp_path / "survey.md"
    survey.write_text("# S\n")
    result = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(survey),
                                 "--metrics", "recall", "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 2
    assert result.output.strip() == (f"error: --passages {survey} is a file, not a folder: pass the folder DIR that "
                                     "holds DIR/<survey_id>/<file>.md (one folder per survey)")


def test_metrics_list_is_an_aligned_table() -> None:
    from surge_dataset.evaluation import registry

    result = runner.invoke(app, ["metrics", "list"], env={"COLUMNS": "300"})
    assert result.exit_code == 0 and "\t" not in result.output
    lines = result.output.splitlines()
    header = next(line for line in lines if "metric" in line and "needs" in line)
    column = header.index("needs")
    rows = {line.split()[1]: line for line in lines if line.startswith("│") and line.split()[1] in registry()}
    assert set(rows) == set(registry())
    assert all(line[column - 2] == "│" for line in rows.values())  # every row's columns line up with the header's


def test_package_metadata_names_licence_and_urls() -> None:
    meta = metadata.metadata("surge-bench")
    assert meta.get("License-Expression") == "MIT" and "LICENSE" in (meta.get_all("License-File") or [])
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert urls["Paper"] == "https://arxiv.org/abs/2508.15658" and len(urls) >= 2


def test_human_evaluation_has_commands_named_so() -> None:
    """What a user looking for human evaluation types: `surge human export` and `surge human import`."""
    paths = {path for path, _ in COMMANDS}
    assert {("human", "export"), ("human", "import")} <= paths
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and re.search(r"│ human\s+Human evaluation", result.output), result.output
