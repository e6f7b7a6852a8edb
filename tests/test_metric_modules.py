"""The `evaluate` modules: thin declarations over the registry, each card's example run as written."""

from __future__ import annotations

import contextlib
import doctest
import gc
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path
from unittest import mock

import pytest

from surge_dataset import metric_path
from surge_dataset.evaluation import compute, registry

from .conftest import REPO_ROOT

MODULES = sorted(p.parent.name for p in (REPO_ROOT / "metrics").glob("*/README.md"))


def _card_example(name: str) -> str:
    """The example of the card as installed and published (filled in from the module's docstring)."""
    from surge_dataset.publish.modules import render_card

    card = render_card(REPO_ROOT / "metrics" / name)
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
    code = source[source.index('"""', 4) + 3:]  # after the docstring (the examples)
    assert "evaluate_module.SurgeMetricModule" in code and len(code.strip().splitlines()) < 10
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
    assert card.count("<!-- surge:inputs -->") == 1 and "Args:" not in card and ">>>" not in card
    rendered = render_card(folder)
    assert "```" + INPUTS_DESCRIPTION + "```" in rendered and "surge:inputs" not in rendered
    assert rendered.replace("```" + INPUTS_DESCRIPTION + "```", "") .count("### Output values") == 1


@contextlib.contextmanager
def _local_modules():
    """What evaluate's harness does around its doctests (``use_local_metrics``): ``evaluate.load`` of a module
    name loads the module folder of this checkout instead of asking the Hub."""
    import evaluate

    real = evaluate.load

    def load_local(path, *args, **kwargs):
        return real(metric_path(path.split("/", 1)[1]) if path.startswith("surge/") else path, *args, **kwargs)

    with mock.patch("evaluate.load", side_effect=load_local):
        yield


@pytest.mark.parametrize("name", MODULES)
def test_evaluate_common_module_checks(name, in_demo_folder, monkeypatch):
    """``evaluate``'s own module test (tests/test_metric_common.py, ``LocalModuleTest.test_load``), reproduced:
    the module imported as ``evaluate`` imports it, ``_compute`` takes no ``**kwargs``, and ``doctest.testmod``
    of the module (no option flags, ``raise_on_error``) runs at least two examples without a failure. Run beside
    ``./surge``, as the examples say; the judged ones answer from ``ScriptedChat`` in process."""
    import evaluate

    for variable in ("SURGE_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    factory = evaluate.loading.evaluation_module_factory(metric_path(name), module_type="metric")
    module = importlib.import_module(factory.module_path)
    cls = evaluate.loading.import_main_class(module.__name__)
    parameters = inspect.signature(cls._compute).parameters
    assert all(p.kind != p.VAR_KEYWORD for p in parameters.values())
    assert {"data", "judge", "embedding_model", "batch_size"} <= set(parameters)
    monkeypatch.setattr(doctest, "ELLIPSIS_MARKER", "[...]")
    with _local_modules():
        try:
            results = doctest.testmod(module, verbose=False, raise_on_error=True)
        except doctest.UnexpectedException as exc:
            raise exc.exc_info[1] from None
        except doctest.DocTestFailure as failure:
            pytest.fail(f"{name}: {failure.example.source!r} gave {failure.got!r}, not {failure.example.want!r}")
    assert results.failed == 0 and results.attempted > 1
    assert cls().name == name  # the name evaluate.combine prefixes keys with is the name it is loaded by


def test_combine_keys_carry_the_load_names(installed_metrics, in_demo_folder):
    import evaluate

    text = "# Intro\n\nGraphs are everywhere. " * 3 + "\n"
    combined = evaluate.combine([evaluate.load("surge/recall"), evaluate.load("surge/rouge_bleu")])
    assert [m.name for m in combined.evaluation_modules] == ["recall", "rouge_bleu"]
    result = combined.compute(predictions=[text], references=[0], data="surge")
    assert {"recall", "rouge1", "recall_per_survey", "rouge_bleu_per_survey"} <= set(result)


def test_a_batch_may_mix_survey_ids_and_records(installed_metrics, in_demo_folder):
    """ids, records and record JSON in one batch: what ``compute()`` accepts, ``evaluate`` accepts too."""
    import evaluate

    surveys = json.loads((REPO_ROOT / "examples" / "sample" / "surveys.json").read_text(encoding="utf-8"))
    record = next(r for r in surveys if r["survey_id"] == 0)
    text = "# Introduction\n\nGraph neural networks pass messages between nodes of a graph. " * 3 + "\n"
    references = [0, record, json.dumps(record), "0"]
    module = evaluate.load("surge/rouge_bleu")
    through_evaluate = module.compute(predictions=[text] * 4, references=references, data="surge")
    direct = compute("rouge_bleu", [text] * 4, references, data="surge")
    assert through_evaluate["per_survey"] == direct["per_survey"] and len(set(map(str, direct["per_survey"]))) == 1
    for one in references:  # add() one at a time takes each kind too
        module.add(prediction=text, reference=one)
    assert module.compute(data="surge")["per_survey"] == direct["per_survey"]


def test_compute_leaves_no_file_open(in_demo_folder):
    """``compute(data="surge")`` opens the corpus index and closes it: no ``ResourceWarning`` for
    ``index/papers.arrow`` at garbage collection, no descriptor left on it."""
    text = "# Intro\n\nGraph neural networks pass messages [1].\n\n[1] Not A Real Paper\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compute("recall", [text], [0], data="surge")
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
    fds = Path("/proc/self/fd")
    if fds.is_dir():
        open_files = {os.path.realpath(fd) for fd in fds.iterdir()}
        assert not [f for f in open_files if f.endswith("papers.arrow")]
