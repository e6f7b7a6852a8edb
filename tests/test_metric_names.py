"""One name per built-in metric: the metric's ``name``, its module in ``surge_dataset/evaluation/metrics/``, its
class, its ``evaluate`` module folder ``metrics/<name>/`` (card included) and that module's class all agree, so a
metric is found under one name wherever it is looked for."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from surge_dataset.evaluation import registry

from .conftest import REPO_ROOT

BUILTIN_PACKAGE = "surge_dataset.evaluation.metrics"
BUILTINS = {name: metric for name, metric in registry().items() if type(metric).__module__.startswith(BUILTIN_PACKAGE)}


def module_class(folder: Path) -> str:
    """The class that ``metrics/<name>/<name>.py`` declares over ``SurgeMetricModule``."""
    tree = ast.parse((folder / f"{folder.name}.py").read_text(encoding="utf-8"))
    found = [node.name for node in tree.body if isinstance(node, ast.ClassDef)
             and any(ast.unparse(base).endswith("SurgeMetricModule") for base in node.bases)]
    assert len(found) == 1, f"{folder}: {len(found)} SurgeMetricModule classes"
    return found[0]


def test_every_builtin_metric_module_is_registered() -> None:
    stems = {p.stem for p in (REPO_ROOT / "surge_dataset" / "evaluation" / "metrics").glob("*.py")
             if not p.stem.startswith("_")}
    assert stems == set(BUILTINS)


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_one_name_per_metric(name: str) -> None:
    metric = BUILTINS[name]
    assert Path(inspect.getfile(type(metric))).stem == name, "module file named after the metric"
    folder = REPO_ROOT / "metrics" / name
    assert (folder / f"{name}.py").is_file() and (folder / "README.md").is_file(), f"no evaluate module {folder}"
    assert type(metric).__name__ == module_class(folder), "metric class and evaluate module class share one name"
