"""The `evaluate` modules: load from a checkout, run each card's example, ship inside the wheel."""

from __future__ import annotations

import doctest
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from surge_dataset import metric_path

from .conftest import REPO_ROOT

NAMES = ["citation_recall", "citation_accuracy", "shr", "rouge_bleu"]


def _card_example(name: str) -> str:
    card = (REPO_ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "sdk: gradio" in card and "app_file: app.py" in card
    match = re.search(r"## How to Use\s+```python\n(.*?)```", card, re.S)
    assert match, f"{name}: card has no python example"
    return match.group(1)


@pytest.mark.parametrize("name", NAMES)
def test_card_example_runs(name, installed_metrics, in_demo_folder):
    """Each card's example runs as written, offline: after `surge metrics install`, beside `./surge`."""
    example = _card_example(name)
    assert f'evaluate.load("surge/{name}")' in example and "/sample/" not in example
    test = doctest.DocTestParser().get_doctest(example, {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries > 2


def test_module_files_follow_evaluate_rules():
    for name in NAMES:
        source = (REPO_ROOT / "metrics" / name / f"{name}.py").read_text()
        assert not re.search(r"^import \w+\s*,", source, re.M), "one import per line (evaluate's scanner)"
        assert "**kwargs" in source, "_compute must accept **kwargs (evaluate.combine)"
        requirements = (REPO_ROOT / "metrics" / name / "requirements.txt").read_text().splitlines()
        assert [line for line in requirements if not line.startswith("#")] == ["surge-bench"]


def test_metric_path_finds_modules():
    assert Path(metric_path("shr")).name == "shr"
    with pytest.raises(FileNotFoundError):
        metric_path("nope")


def test_core_and_cli_do_not_import_evaluate():
    code = ("import sys, surge_dataset, surge_dataset.cli, surge_dataset.evaluation, surge_dataset.scoring.batch;"
            "print('evaluate' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_wheel_ships_the_metric_folders(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path), str(REPO_ROOT)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("surge_bench-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in NAMES:
        assert f"surge_dataset/_metrics/{name}/{name}.py" in names
        assert f"surge_dataset/_metrics/{name}/README.md" in names
