"""The errors a newcomer meets first are one line, exit 2, no traceback."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app

from .conftest import REPO_ROOT
from .support.cli_process import closed_port, error_line, surge

runner = CliRunner()


def one_line_error(result) -> str:
    """Exit 2 and the error as the last line of the output; no traceback, no library reports, no ANSI codes."""
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("error:"), result.output
    assert "Traceback" not in result.output and "\x1b[" not in result.output and "LOAD REPORT" not in result.output
    return lines[-1]


@pytest.fixture
def rendered(sample_dataset: Path, tmp_path: Path) -> Path:
    out = tmp_path / "gt"
    assert runner.invoke(app, ["data", "render", "--data", str(sample_dataset), "--out", str(out),
                               "--survey-ids", "0,1"]).exit_code == 0
    return out


def test_a_default_model_missing_offline_names_the_metric_and_the_download_command(
        sample_dataset: Path, rendered: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    if not constants.HF_HUB_OFFLINE:
        pytest.skip("huggingface_hub was imported before HF_HUB_OFFLINE=1 was set")
    base = ["evaluate", "--data", str(sample_dataset), "--passages", str(rendered)]
    line = one_line_error(runner.invoke(app, [*base, "--metrics", "all", "--out", str(tmp_path / "a.json")]))
    assert "(citation_accuracy; --nli-model)" in line and "`surge models download cross-encoder/nli-deberta-v3-base`" in line
    assert "(shr; --embedding-model)" in line  # every missing model in the one line (tests/test_model_preflight.py)
    line = one_line_error(runner.invoke(app, [*base, "--metrics", "shr", "--out", str(tmp_path / "b.json")]))
    assert "(shr; --embedding-model)" in line and "`surge models download BAAI/bge-large-en-v1.5`" in line
    assert "--embedding-model $(surge models path minilm)" in line  # the bundled stand-in


def test_an_embedding_model_given_as_nli_model_is_one_line(sample_dataset: Path, rendered: Path, tmp_path: Path,
                                                          minilm_path: Path) -> None:
    result = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(rendered),
                                 "--metrics", "citation_accuracy", "--nli-model", str(minilm_path),
                                 "--out", str(tmp_path / "r.json")])
    line = one_line_error(result)
    assert f"--nli-model {minilm_path} is not an NLI cross-encoder" in line and "contradiction" in line


def test_training_offline_without_the_base_model_is_one_line(sample_dataset: Path, tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "training" / "train_retriever.py"), "--config",
         str(REPO_ROOT / "training" / "configs" / "paper.yaml"), "--data", str(sample_dataset),
         "--output-dir", str(tmp_path / "run")],
        capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert "Traceback" not in done.stderr and lines[-1].startswith("error:"), done.stderr[-2000:]
    assert "roberta-base" in lines[-1] and "surge models download roberta-base" in lines[-1]


def test_a_full_disk_during_evaluate_is_one_line_and_a_rerun_resumes(
        sample_dataset: Path, rendered: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import surge_dataset.core.io as io

    out = tmp_path / "results" / "r.json"
    command = ["evaluate", "--data", str(sample_dataset), "--passages", str(rendered), "--metrics", "recall",
               "--out", str(out)]
    real_fsync = os.fsync

    def full(fd: int) -> None:  # what the kernel answers on a full disk: ENOSPC, without a file name
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(io.os, "fsync", full)
    line = one_line_error(runner.invoke(app, command))
    assert f"no space left on the device holding {out.parent}" in line and "rerun the same command" in line
    assert not out.exists()
    monkeypatch.setattr(io.os, "fsync", real_fsync)
    result = runner.invoke(app, command)
    assert result.exit_code == 0, result.output
    assert out.is_file()


def test_a_flat_folder_of_survey_files_points_to_surge_import(sample_dataset: Path, rendered: Path,
                                                             tmp_path: Path) -> None:
    """OUT/0.md, OUT/1.md (no OUT/<id>/ folders) is one line naming `surge import ... --format markdown`,
    whose output `surge evaluate` reads."""
    flat = tmp_path / "flat"
    flat.mkdir()
    for survey_id in (0, 1):
        (flat / f"{survey_id}.md").write_text((rendered / str(survey_id) / "survey.md").read_text())
    line = one_line_error(runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(flat),
                                              "--metrics", "recall", "--out", str(tmp_path / "r.json")]))
    assert f"--passages {flat} holds survey files (0.md, 1.md) directly" in line
    command = f"surge import {flat} --format markdown --data {sample_dataset} --out {flat}-folders"
    assert f"`{command}`" in line
    imported = runner.invoke(app, command.split()[1:])
    assert imported.exit_code == 0, imported.output
    assert runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", f"{flat}-folders",
                               "--metrics", "recall", "--out", str(tmp_path / "r.json")]).exit_code == 0


def test_no_dataset_folder_names_the_data_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from a folder without ./surge, the error says --data defaults to ./surge and how to build it."""
    monkeypatch.chdir(tmp_path)
    line = one_line_error(runner.invoke(app, ["evaluate", "--passages", str(tmp_path), "--metrics", "recall"]))
    assert line.startswith("error: surge: no such dataset folder: --data defaults to ./surge")
    assert "`surge data build --source examples/sample --out surge`" in line
    other = one_line_error(runner.invoke(app, ["data", "export", "--data", "nowhere", "--out", str(tmp_path / "o")]))
    assert "nowhere: no such dataset folder" in other and "default ./surge" in other


def test_generate_without_the_run_file_says_how_to_make_it(sample_dataset: Path, tmp_path: Path) -> None:
    """Docs/baselines.md's small-model example names runs/bm25.test.trec; without it the error says
    which commands write it."""
    line = one_line_error(runner.invoke(app, ["generate", "--system", "rag", "--llm", "gguf:model.gguf",
                                              "--data", str(sample_dataset), "--run", str(tmp_path / "bm25.test.trec"),
                                              "--out", str(tmp_path / "out")]))
    assert f"--run {tmp_path / 'bm25.test.trec'}: no such file" in line
    assert "`surge index bm25 --data surge --out indexes/bm25`" in line
    assert ("`surge retrieve --index indexes/bm25 --data surge --queries test --query-type titles --k 100 "
            f"--out {tmp_path / 'bm25.test.trec'}`") in line


def test_a_missing_nested_folder_is_no_hub_id(tmp_path: Path) -> None:
    """``--data tests/fixtures/sample`` (a typo, two slashes) is a missing folder, never sent to the Hub as an id."""
    line = one_line_error(runner.invoke(app, ["import", str(tmp_path), "--format", "markdown", "--data",
                                              "tests/fixtures/no_such_sample", "--out", str(tmp_path / "o")]))
    assert "tests/fixtures/no_such_sample: no such dataset folder (and not a Hub id of the form org/name)" in line


@pytest.mark.parametrize("hub", ["offline", "unreachable"])
def test_a_hub_id_the_hub_cannot_serve_is_one_error_line(tmp_path: Path, hub: str) -> None:
    """``--data org/name`` with the Hub out of reach (offline, or refusing connections): one line naming both
    readings of --data, no traceback from the HTTP client."""
    env = {"HF_HOME": str(tmp_path / "hf-empty")}
    env.update({"HF_HUB_OFFLINE": "1"} if hub == "offline" else {"HF_ENDPOINT": f"http://127.0.0.1:{closed_port()}"})
    done, _ = surge("import", str(tmp_path), "--format", "markdown", "--data", "someone/surge-copy", "--out",
                    str(tmp_path / "o"), env=env)
    line = error_line(done)
    assert line.startswith("error: someone/surge-copy: no such dataset folder, and the Hub dataset someone/surge-copy "
                           "could not be fetched (")
    assert "built dataset folder (default ./surge) or the id of a Hub copy" in line
