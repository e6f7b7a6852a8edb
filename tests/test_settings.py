"""One declaration per setting: the CLI options, compute()'s keywords, the cards' inputs text and the
journal key are read off the fields; closed vocabularies are named once; commands stay one screen."""

from __future__ import annotations

import dataclasses
import inspect
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.core.errors import SettingError, SurgeError
from surge_dataset.core.settings import declared, describe, key_payload, split_keywords
from surge_dataset.core.vocabulary import (
    ChoiceError,
    UnknownNameError,
    check_choice,
    parse_ids,
    parse_list,
)
from surge_dataset.evaluation import EvaluationConfig, RunOptions, compute, parse_metrics

from .conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "surge_dataset"


def _doc_setting_block() -> str:
    text = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    return re.search(r"```python setting\n(.*?)```", text, re.S).group(1)


def test_every_field_is_a_declared_setting_and_run_options_never_enter_the_key():
    for cls in (EvaluationConfig, RunOptions):
        assert [f.name for f in declared(cls)] == [f.name for f in dataclasses.fields(cls)]
        assert all(f.metadata["help"].strip() for f in declared(cls))
    assert {f.metadata["key"] for f in declared(RunOptions)} == {"never"}
    overlap = {f.name for f in declared(EvaluationConfig)} & {f.name for f in declared(RunOptions)}
    assert not overlap


def test_key_payload_follows_the_rules():
    """never: filters out; judge: only with a judge; models: only with a model metric; added_later: out at default."""
    config = EvaluationConfig(metrics=["recall"], min_cites=5)
    payload = key_payload(config, judge=False, models=False)
    assert "min_cites" not in payload and "judge_max_tries" not in payload and "device" not in payload
    assert "alce_backend" not in payload and "ner_model" not in payload  # added later, at their defaults
    assert payload["protocol"] == "official" and payload["metrics"] == ["recall"]
    judged = EvaluationConfig(metrics=["sqs"], judge="openai:gpt-4o", judge_repeats=2, prompts_version="p1")
    payload = key_payload(judged, judge=True, models=True)
    assert payload["judge_repeats"] == 2 and payload["judge_temperature"] == 0.7 and payload["device"] is None


def test_cli_options_are_the_exposed_settings():
    """surge evaluate has one flag per exposed setting of both classes, with the field's help."""
    result = CliRunner().invoke(app, ["evaluate", "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0
    for cls in (EvaluationConfig, RunOptions):
        for f in declared(cls, exposed_only=True):
            assert "--" + f.name.replace("_", "-") in result.output, f.name
        for f in declared(cls):
            if not f.metadata["exposed"]:
                assert "--" + f.name.replace("_", "-") + " " not in result.output


def test_compute_keywords_are_the_exposed_settings_and_a_typo_names_the_closest():
    parameters = inspect.signature(compute).parameters
    for f in declared(RunOptions, exposed_only=True):
        assert f.name in parameters
    assert "protocol" in parameters and "min_cites" not in parameters and "embedding_dtype" not in parameters
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'judge_timout' \(closest: 'judge_timeout'\)"):
        compute("rouge_bleu", [], [], judge_timout=3)
    with pytest.raises(TypeError, match="'min_cites'"):
        split_keywords({"min_cites": 1}, EvaluationConfig, where="compute()", skip=("min_cites",))


def test_inputs_description_lists_every_keyword_with_its_choices():
    text = describe((EvaluationConfig, RunOptions))
    assert "protocol (str, default 'official'): " in text and "One of: official, paper." in text
    assert "judge_timeout (float, default 120.0)" in text


def test_a_word_outside_a_vocabulary_is_a_setting_error_with_the_closest_word():
    with pytest.raises(ChoiceError, match=r"protocol must be one of official, paper, not 'oficial' "
                                          r"\(did you mean 'official'\?\)"):
        EvaluationConfig(protocol="oficial")
    with pytest.raises(SettingError, match="judge_repeats must be at least 1"):
        EvaluationConfig(judge="openai:gpt-4o", judge_repeats=0)
    with pytest.raises(SettingError, match="needs a local judge"):
        EvaluationConfig(metrics=["sqs"], judge="openai:gpt-4o", judge_weighted=True)
    assert issubclass(ChoiceError, ValueError) and issubclass(ChoiceError, SurgeError)
    check_choice("x", "a", ("a", "b"))


def test_unknown_metric_names_the_closest_in_the_library_and_the_cli(tmp_path):
    with pytest.raises(UnknownNameError, match=r"unknown metric 'recal' \(closest: 'recall'\)") as raised:
        parse_metrics("recal")
    assert isinstance(raised.value, KeyError) and "\"" not in str(raised.value)[:8]
    with pytest.raises(UnknownNameError, match="closest: 'shr'"):
        EvaluationConfig(metrics=["shrr"])
    result = CliRunner().invoke(app, ["evaluate", "--data", "surge", "--passages", str(tmp_path), "--metrics", "recal"])
    assert result.exit_code == 2
    assert "unknown metric 'recal' (closest: 'recall')" in result.output and "Traceback" not in result.output


def test_one_parser_for_comma_lists_and_id_lists():
    assert parse_list(" recall, shr,, ") == ["recall", "shr"]
    assert parse_list(["a ", " ", "b"]) == ["a", "b"] and parse_list(None) == []
    assert parse_ids("1,5-7, 10") == [1, 5, 6, 7, 10] and parse_ids(None) == [] and parse_ids([3, 4]) == [3, 4]
    with pytest.raises(ValueError, match="'x' is not a survey id"):
        parse_ids("1,x")


#: Vocabulary words compared as raw strings: each must be the named constant of surge_dataset/core/vocabulary.py.
RAW_COMPARISON = re.compile(r"""(==|!=)\s*["'](official|paper|released|defined|surge|openai|hf|gguf)["']|"""
                            r"""\bin \(["'](official|paper|released|defined|nli|judge)["']""")


def test_no_vocabulary_word_is_compared_as_a_raw_string():
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "vocabulary.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if RAW_COMPARISON.search(line.split("#")[0]):
                found.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def _commands(group, prefix=()):
    for name, command in getattr(group, "commands", {}).items():
        if hasattr(command, "commands"):
            yield from _commands(command, (*prefix, name))
        else:
            yield " ".join((*prefix, name)), command.callback


def test_every_command_is_one_screen():
    """options -> config -> run -> print, in at most 80 lines with its options (style.md, section 3)."""
    import typer.main

    long = {}
    for name, callback in _commands(typer.main.get_command(app)):
        while hasattr(callback, "__wrapped__"):
            callback = callback.__wrapped__
        lines = len(inspect.getsource(callback).splitlines())
        if lines > 80:
            long[name] = lines
    assert not long


def test_cli_module_only_wires_sub_apps():
    source = (PACKAGE / "cli" / "__init__.py").read_text(encoding="utf-8")
    assert "@app.command" not in source and "_app.command(\"" not in source.replace('data_app.command("export', "")


@pytest.mark.slow
def test_adding_a_setting_is_one_declaration(tmp_path):
    """Apply docs/architecture.md's "Add a setting" block to a copy of the package, and nothing else: the flag,
    the compute() keyword, the cards' inputs text and the journal key all follow, and old keys stay."""
    copy = tmp_path / "surge_dataset"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO_ROOT / "metrics", tmp_path / "metrics", ignore=shutil.ignore_patterns("__pycache__"))
    config_py = copy / "evaluation" / "config.py"
    source = config_py.read_text(encoding="utf-8")
    anchor = "\n    def __post_init__(self) -> None:"
    assert source.count(anchor) == 1
    config_py.write_text(source.replace(anchor, "\n" + _doc_setting_block().rstrip("\n") + "\n" + anchor, 1),
                         encoding="utf-8")
    script = textwrap.dedent("""
        import inspect, pathlib, sys
        import surge_dataset
        assert pathlib.Path(surge_dataset.__file__).parent == pathlib.Path(sys.argv[1]), surge_dataset.__file__
        from typer.testing import CliRunner
        from surge_dataset.cli import app
        from surge_dataset.evaluation import EvaluationConfig, compute
        from surge_dataset.evaluation.evaluate_module import INPUTS_DESCRIPTION

        assert "nli_max_length" in inspect.signature(compute).parameters
        assert "nli_max_length (int | None, default None): Tokens of each NLI" in INPUTS_DESCRIPTION
        from surge_dataset.publish.modules import metric_folders, render_card
        assert all("nli_max_length (int" in render_card(f) for f in metric_folders().values())  # every card
        shown = CliRunner().invoke(app, ["evaluate", "--help"], env={"COLUMNS": "400"}).output
        assert "--nli-max-length" in shown and "Tokens of each NLI premise" in shown
        assert EvaluationConfig().key("fp") == "4463f378b305e144"  # pinned in tests/test_journal_keys.py
        assert EvaluationConfig(nli_max_length=256).key("fp") != "4463f378b305e144"
        try:
            compute("rouge_bleu", [], [], nli_max_lenght=3)
        except TypeError as exc:
            assert "closest: 'nli_max_length'" in str(exc), exc
        else:
            raise AssertionError("a typo passed")
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", script, str(copy)], cwd=tmp_path, capture_output=True, text=True,
                            env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"},
                            timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-3000:]
