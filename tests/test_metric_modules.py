"""The `evaluate` modules: thin declarations over the registry, each card's example run as written."""

from __future__ import annotations

import doctest
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from surge_dataset import metric_path
from surge_dataset.evaluation import compute, registry

from .conftest import REPO_ROOT

MODULES = sorted(p.parent.name for p in (REPO_ROOT / "metrics").glob("*/README.md"))


def _card_example(name: str) -> str:
    card = (REPO_ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "sdk: gradio" in card and "app_file: app.py" in card
    match = re.search(r"## How to Use\s+```python\n(.*?)```", card, re.S)
    assert match, f"{name}: card has no python example"
    return match.group(1)


def test_every_registered_metric_has_a_module_of_its_name_and_back():
    """One name everywhere: folder = module file = ``evaluate.load("surge/<name>")`` = registered metric."""
    from surge_dataset.publish.modules import module_folders_by_metric

    for name in MODULES:
        source = (REPO_ROOT / "metrics" / name / f"{name}.py").read_text()
        assert re.findall(r'metric_name = "(\w+)"', source) == [name]
        assert f'evaluate.load("surge/{name}")' in (REPO_ROOT / "metrics" / name / "app.py").read_text()
    assert sorted(MODULES) == sorted(registry())
    assert {name: folder.name for name, folder in module_folders_by_metric().items()} == {n: n for n in MODULES}


@pytest.mark.parametrize("name", MODULES)
def test_card_example_runs(name, installed_metrics, in_demo_folder, monkeypatch):
    """Each card's example runs as written, offline: after `surge metrics install`, beside `./surge`."""
    for variable in ("SURGE_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)  # the judged examples use a local scripted server
    example = _card_example(name)
    assert f'evaluate.load("surge/{name}")' in example and "/sample/" not in example
    test = doctest.DocTestParser().get_doctest(example, {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries > 5


@pytest.mark.parametrize("name", MODULES)
def test_module_files_are_declarations(name):
    source = (REPO_ROOT / "metrics" / name / f"{name}.py").read_text()
    assert not re.search(r"^import \w+\s*,", source, re.M), "one import per line (evaluate's scanner)"
    assert "evaluate_module.SurgeMetricModule" in source and len(source.splitlines()) < 20
    requirements = (REPO_ROOT / "metrics" / name / "requirements.txt").read_text().splitlines()
    assert [line for line in requirements if not line.startswith("#")] == ["surge-bench"]


def test_unknown_keyword_is_an_error_naming_the_metric(installed_metrics):
    import evaluate

    module = evaluate.load("surge/rouge_bleu")
    with pytest.raises(TypeError, match="rouge_bleu: .*embeding_model"):
        module.compute(predictions=["# A\n"], references=['{"survey_title": "T", "structure": []}'],
                       embeding_model="x")


def test_compute_takes_a_gt_record_and_needs_data_only_for_ids_and_the_corpus():
    record = {"survey_title": "T", "all_cites": [1], "structure": [
        {"id": 0, "parent_id": None, "title": "root", "content": ""},
        {"id": 1, "parent_id": 0, "title": "Intro", "content": "Graphs are everywhere and learning on them. " * 4}]}
    text = "# Intro\n\n" + "Graphs are everywhere and learning on them. " * 4 + "\n"
    result = compute("rouge_bleu", [text], [record])
    assert result["rouge1"] == 1.0 and result["per_survey"] == [{k: result[k] for k in ("rouge1", "rouge2", "rougeL", "bleu")}]
    with pytest.raises(ValueError, match="pass data="):
        compute("recall", [text], [record])
    with pytest.raises(ValueError, match="survey id"):
        compute("rouge_bleu", [text], [0])


def test_metric_path_finds_modules():
    assert Path(metric_path("shr")).name == "shr"
    with pytest.raises(FileNotFoundError):
        metric_path("nope")


def test_core_and_cli_do_not_import_evaluate():
    code = ("import sys, surge_dataset, surge_dataset.cli, surge_dataset.evaluation;"
            "surge_dataset.evaluation.registry(); print('evaluate' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_wheel_ships_the_metric_folders(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path), str(REPO_ROOT)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("surge_bench-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in MODULES:
        assert f"surge_dataset/_metrics/{name}/{name}.py" in names
        assert f"surge_dataset/_metrics/{name}/README.md" in names


@pytest.mark.parametrize("name", MODULES)
def test_card_inputs_are_rendered_from_the_settings_not_copied(name):
    """The repository card keeps no copy of the inputs (a new setting would leave 14 cards stale); the card
    installed and published is rendered with evaluate_module.INPUTS_DESCRIPTION verbatim."""
    from surge_dataset.evaluation.evaluate_module import INPUTS_DESCRIPTION
    from surge_dataset.publish.modules import render_card

    folder = REPO_ROOT / "metrics" / name
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert card.count("<!-- surge:inputs -->") == 1 and "Args:" not in card
    rendered = render_card(folder)
    assert "```" + INPUTS_DESCRIPTION + "```" in rendered and "surge:inputs" not in rendered
    assert rendered.replace("```" + INPUTS_DESCRIPTION + "```", "") .count("### Output values") == 1
