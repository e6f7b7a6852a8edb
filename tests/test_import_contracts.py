"""The package's floors, as import contracts (pyproject's ``[tool.importlinter]``) checked by ``lint-imports``.

import-linter reads every import, those inside functions included, so a lazy import that climbs a floor fails here
as surely as one at the top of a file. The packages of one floor are independent siblings (``|``): none imports
another, with no exception. The docs read the floors from pyproject (``docs/hooks.py`` ``LAYERS``, rendered as
docs/reference/layout.md) and docs/architecture.md's table lists the same floors.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO_ROOT

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")


def _contracts() -> dict[str, dict]:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    return {c["id"]: c for c in config["contracts"]}


def _docs_layers():
    spec = importlib.util.spec_from_file_location("docs_hooks", REPO_ROOT / "docs" / "hooks.py")
    pytest.importorskip("mkdocs", reason="docs/hooks.py imports mkdocs (the docs extra)")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return hooks


def _linter() -> str:
    linter = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if linter is None:
        pytest.skip("import-linter is not installed (the dev extra)")
    return linter


def test_every_contract_is_kept():
    """``lint-imports`` (no cache: a stale cache must not hide a new import) keeps every contract."""
    out = subprocess.run([_linter(), "--no-cache"], capture_output=True, text=True, cwd=REPO_ROOT)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "BROKEN" not in out.stdout and f"{len(_contracts())} kept, 0 broken" in out.stdout


def test_the_cycle_contract_sees_a_cycle_made_inside_a_function(tmp_path):
    """Our acyclic contract, on a package of two modules where one imports the other at the top and the other
    imports it back inside a function (the import no import-time check would see): broken."""
    package = tmp_path / "surge_dataset" / "evaluation"
    package.mkdir(parents=True)
    for folder in (package.parent, package):
        (folder / "__init__.py").write_text("")
    (package / "a.py").write_text("from surge_dataset.evaluation.b import B\nA = 1\n")
    (package / "b.py").write_text("B = 2\n\n\ndef later():\n    from surge_dataset.evaluation.a import A\n    return A\n")
    contract = _contracts()["acyclic"]
    (tmp_path / ".importlinter").write_text(
        "[importlinter]\nroot_package = surge_dataset\n\n[importlinter:contract:acyclic]\n"
        f"name = {contract['name']}\ntype = {contract['type']}\nancestors =\n    surge_dataset\n")
    out = subprocess.run([_linter(), "--no-cache"], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert out.returncode == 1 and "BROKEN" in out.stdout, out.stdout[-3000:] + out.stderr[-2000:]


def test_every_floor_of_the_layers_contract_holds_independent_packages():
    """A floor written with ``:`` lets its packages import each other, and ``ignore_imports`` lets one import
    through: neither may come back. Each floor is one package or several separated by ``|``."""
    contract = _contracts()["layers"]
    assert contract["type"] == "layers"
    assert not contract.get("ignore_imports") and contract.get("containers") is None, contract
    for floor in contract["layers"]:
        assert ":" not in floor, f"the floor {floor!r} lets its packages import each other; separate them with '|'"
        names = [name.strip() for name in floor.split("|")]
        assert all(re.fullmatch(r"surge_dataset\.[a-z_]+", name) for name in names), floor
    assert "independent" in contract["name"]


def test_the_layers_contract_is_the_documented_layers_and_covers_every_package():
    hooks = _docs_layers()
    documented = [" | ".join(f"surge_dataset.{p}" for p in packages) for _, _, packages in hooks.LAYERS]
    assert _contracts()["layers"]["layers"] == documented
    packages = {p.name for p in (REPO_ROOT / "surge_dataset").iterdir() if (p / "__init__.py").is_file()}
    layered = {p for _, _, names in hooks.LAYERS for p in names}
    assert packages == layered | set(hooks.OUTSIDE_LAYERS), packages ^ (layered | set(hooks.OUTSIDE_LAYERS))


def test_architecture_md_lists_the_contracts_floors():
    """docs/architecture.md's table of where things live has one row group per floor of the contract, top to
    bottom, with exactly that floor's packages."""
    text = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("## Where things live", 1)[1].split("\n## ", 1)[0]
    floors: list[list[str]] = []
    for row in re.findall(r"^\|\s*(.*?)\s*\|\s*`([a-z_]+)/`\s*\|", table, re.M):
        floor, package = row
        if floor.startswith("outside"):
            continue
        if floor:
            floors.append([])
        floors[-1].append(package)
    expected = [[name.strip().removeprefix("surge_dataset.") for name in floor.split("|")]
                for floor in _contracts()["layers"]["layers"]]
    assert floors == expected


#: The packages that own a terminal or web UI (typer, Rich, Gradio); every other package is forbidden them.
UI_OWNERS = {"cli", "leaderboard"}


def test_the_forbidden_contracts_name_every_package_of_their_layers():
    """The UI rule holds for every package but the CLI and the leaderboard, the test-doubles rule for every package
    on a floor: a package added to a floor is added to these lists too."""
    hooks = _docs_layers()
    every_layer = [f"surge_dataset.{p}" for _, _, names in hooks.LAYERS for p in names]
    contracts = _contracts()
    assert sorted(contracts["ui"]["source_modules"]) == sorted(
        name for name in every_layer if name.removeprefix("surge_dataset.") not in UI_OWNERS)
    assert sorted(contracts["testing"]["source_modules"]) == sorted(every_layer)
