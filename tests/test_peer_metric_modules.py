"""The `evaluate` modules of ALCE and STORM's heading metrics: each card's example runs offline, as written."""

from __future__ import annotations

import doctest
import re

import pytest

from .conftest import REPO_ROOT

NAMES = ["alce", "heading_soft_recall", "heading_entity_recall"]


@pytest.mark.parametrize("name", NAMES)
def test_card_example_runs(name, installed_metrics, in_demo_folder):
    card = (REPO_ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "sdk: gradio" in card and "app_file: app.py" in card
    example = re.search(r"## How to Use\s+```python\n(.*?)```", card, re.S).group(1)
    assert f'evaluate.load("surge/{name}")' in example
    test = doctest.DocTestParser().get_doctest(example, {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 4
    # the card shows the module's own docstring example
    source = (REPO_ROOT / "metrics" / name / f"{name}.py").read_text()
    assert example.strip().splitlines()[-1] in source
    assert not re.search(r"^import \w+\s*,", source, re.M) and "**kwargs" in source
    requirements = (REPO_ROOT / "metrics" / name / "requirements.txt").read_text().splitlines()
    assert [line for line in requirements if not line.startswith("#")] == ["surge-bench"]
