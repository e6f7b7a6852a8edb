"""The `evaluate` modules of the judged and SurveyGen metrics: each card's example runs offline."""

from __future__ import annotations

import doctest
import re

import pytest

from .conftest import REPO_ROOT

NAMES = ["sqs", "cqs", "rel_llm", "kpr", "citation_prf", "structure_overlap", "sim"]


@pytest.mark.parametrize("name", NAMES)
def test_card_example_runs(name, monkeypatch, installed_metrics, in_demo_folder):
    for variable in ("SURGE_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)  # the examples' judge is a local scripted server
    card = (REPO_ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "sdk: gradio" in card and "app_file: app.py" in card
    example = re.search(r"## How to Use\s+```python\n(.*?)```", card, re.S).group(1)
    assert f'evaluate.load("surge/{name}")' in example  # run as written: served by `surge metrics install`
    test = doctest.DocTestParser().get_doctest(example, {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 2
    source = (REPO_ROOT / "metrics" / name / f"{name}.py").read_text()
    assert not re.search(r"^import \w+\s*,", source, re.M) and "**kwargs" in source
    requirements = (REPO_ROOT / "metrics" / name / "requirements.txt").read_text().splitlines()
    assert [line for line in requirements if not line.startswith("#")] == ["surge-bench"]
