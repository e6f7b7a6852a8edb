"""`surge generate`'s settings, declared once: GenerationConfig (what changes the text) and
GenerationRunOptions (how the run goes) carry help and checks; the command is options -> config -> run -> print."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import generate as cli_generate
from surge_dataset.core.errors import SettingError, SurgeError
from surge_dataset.core.settings import declared, flag_of, help_text
from surge_dataset.core.vocabulary import ChoiceError
from surge_dataset.generation.settings import GenerationConfig, GenerationRunOptions, parse_system_options


def test_generate_is_one_screen() -> None:
    """options -> config -> run -> print, in at most 80 lines with its options (style.md, section 3)."""
    callback = cli_generate.generate
    while hasattr(callback, "__wrapped__"):
        callback = callback.__wrapped__
    lines = len(inspect.getsource(callback).splitlines())
    assert lines <= 80, f"surge generate is {lines} lines"


def test_every_option_is_read_off_a_declared_setting() -> None:
    """One flag per setting, its help the field's (choices appended), and no setting in both classes."""
    result = CliRunner().invoke(cli_generate.app, ["--help"], env={"COLUMNS": "2000"})
    assert result.exit_code == 0, result.output
    help_lines = " ".join(line.strip(" │") for line in result.output.splitlines())
    help_words = " ".join(help_lines.split())
    for cls in (GenerationConfig, GenerationRunOptions):
        assert [f.name for f in declared(cls)] == [f.name for f in dataclasses.fields(cls)]
        for f in declared(cls):
            assert flag_of(f) in result.output, f.name
            assert " ".join(help_text(f).split()) in help_words, f.name
    assert {f.metadata["key"] for f in declared(GenerationRunOptions)} == {"never"}
    assert not {f.name for f in declared(GenerationConfig)} & {f.name for f in declared(GenerationRunOptions)}
    assert "-o" in result.output and "One of: test, train, all." in help_words


def test_config_checks_split_ids_options_and_the_system() -> None:
    config = GenerationConfig(system="llm_only", llm="openai:m", survey_ids="1,4-5", system_options=["max-sections=2"])
    assert config.survey_ids == [1, 4, 5] and config.system_options == {"max_sections": "2"}
    assert config.generator.name == "llm_only" and config.generator.options["max_sections"] == 2
    assert GenerationConfig(system="llm_only", llm="openai:m", survey_ids="").survey_ids is None  # the split decides

    with pytest.raises(ChoiceError, match=r"--split must be one of test, train, all, not 'tset' \(did you mean 'test'\?\)"):
        GenerationConfig(system="llm_only", llm="openai:m", split="tset")
    with pytest.raises(SettingError, match=r"--survey-ids '1,x': 'x' is not a survey id"):
        GenerationConfig(system="llm_only", llm="openai:m", survey_ids="1,x")
    with pytest.raises(SettingError, match="expected KEY=VALUE"):
        GenerationConfig(system="llm_only", llm="openai:m", system_options=["max_sections"])
    with pytest.raises(SettingError, match="has no option"):
        GenerationConfig(system="llm_only", llm="openai:m", system_options=["nope=1"])
    with pytest.raises(SurgeError, match="ragg"):  # UnknownNameError or, from an older registry, a SettingError
        GenerationConfig(system="ragg", llm="openai:m")
    with pytest.raises(SettingError, match="no_such_module"):
        GenerationConfig(system="no_such_module:Generator", llm="openai:m")
    with pytest.raises(SurgeError, match="invalid LLM spec"):
        GenerationConfig(system="llm_only", llm="gpt-4o")
    with pytest.raises(SettingError, match="give a run with --run"):
        GenerationConfig(system="rag", llm="openai:m")
    with pytest.raises(SettingError, match="no such file"):
        GenerationConfig(system="rag", llm="openai:m", run=Path("no-such.trec"))
    assert parse_system_options({"a": 1}) == {"a": 1}


def test_run_options_check_what_goes_together(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(SettingError, match="--parallel-surveys is for openai: servers"):
        GenerationRunOptions(out=out, parallel_surveys=2, llm="gguf:model.gguf")
    assert GenerationRunOptions(out=out, parallel_surveys=2, llm="openai:m").parallel_surveys == 2
    with pytest.raises(SettingError, match="--price-per-1k goes with --dry-run"):
        GenerationRunOptions(out=out, price_per_1k="1,2")
    assert GenerationRunOptions(dry_run=True, price_per_1k="0.5, 2").price_per_1k == (0.5, 2.0)
    with pytest.raises(SettingError, match="two non-negative numbers"):
        GenerationRunOptions(dry_run=True, price_per_1k="1")
    with pytest.raises(SettingError, match="--out is required"):
        GenerationRunOptions()


def test_a_wrong_setting_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli_generate.app, ["--system", "llm_only", "--llm", "openai:m", "--split", "tset",
                                                    "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.output.strip() == "error: --split must be one of test, train, all, not 'tset' (did you mean 'test'?)"
