"""`surge evaluate` checks every model the run needs before any work, offline or with the Hub out of
reach: one error listing them all with the command that fetches each, within seconds (no retry storm); a
cached model with the Hub out of reach is read from the cache at once."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.evaluation import EvaluationConfig
from surge_dataset.evaluation.models import model_needs
from surge_dataset.models.availability import ModelNeed, ModelsUnavailableError, hub_state, missing_models
from surge_dataset.testing.models import cache_as_hub_model

from .support.cli_process import closed_port, error_line, surge

runner = CliRunner()


@pytest.fixture(scope="module")
def rendered(sample_dataset: Path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gt")
    assert runner.invoke(app, ["data", "render", "--data", str(sample_dataset), "--out", str(out)]).exit_code == 0
    return out


def test_model_needs_of_a_run_are_read_off_its_metrics(tmp_path: Path) -> None:
    config = EvaluationConfig(metrics=["recall", "citation_accuracy", "shr", "heading_entity_recall", "sqs"],
                              judge=f"gguf:{tmp_path / 'judge.gguf'}", embedding_model=str(tmp_path))
    needs = {need.flag: need for need in model_needs(config)}
    assert needs["--nli-model"] == ModelNeed("cross-encoder/nli-deberta-v3-base", "--nli-model",
                                             ("citation_accuracy",), repo="cross-encoder/nli-deberta-v3-base")
    assert needs["--embedding-model"].local == tmp_path and needs["--embedding-model"].repo is None
    assert needs["--ner-model"].repo == "dslim/bert-base-NER" and needs["--ner-model"].needed_for == ("heading_entity_recall",)
    assert needs["--judge"].local == tmp_path / "judge.gguf" and needs["--judge"].needed_for == ("sqs",)
    hub_gguf = model_needs(EvaluationConfig(metrics=["sqs"], judge="gguf:org/repo/model-q4.gguf"))
    assert [(n.repo, n.file) for n in hub_gguf] == [("org/repo", "model-q4.gguf")]
    assert model_needs(EvaluationConfig(metrics=["recall", "sqs"], judge="openai:gpt-4o")) == []  # nothing loads here


def test_every_missing_model_is_listed_at_once_with_its_fetch_command(tmp_path: Path) -> None:
    needs = [ModelNeed.named("org/nli", "--nli-model", ["citation_accuracy"]),
             ModelNeed.named("org/embedder", "--embedding-model", ["shr", "sim"]),
             ModelNeed.named(str(tmp_path / "no-such-ner"), "--ner-model", ["heading_entity_recall"])]
    missing = missing_models(needs, "offline")
    assert [need.name for need, _ in missing] == ["org/nli", "org/embedder", str(tmp_path / "no-such-ner")]
    message = str(ModelsUnavailableError(missing, "offline"))
    assert message.startswith("3 models this run needs are not available, nothing was evaluated: ")
    assert "org/nli (citation_accuracy; --nli-model): not in the Hugging Face cache" in message
    assert "and HF_HUB_OFFLINE is set; fetch it with `surge models download org/nli`" in message
    assert "org/embedder (shr, sim; --embedding-model)" in message and "`surge models download org/embedder`" in message
    assert "--embedding-model $(surge models path minilm)" in message  # the bundled stand-in
    assert f"{tmp_path / 'no-such-ner'} (heading_entity_recall; --ner-model): no such folder" in message
    assert "`surge models download org/nli org/embedder`" in message
    assert missing_models(needs[:2], "reachable") == []  # they would be downloaded


def test_an_unreachable_hub_is_known_after_one_quick_request(monkeypatch: pytest.MonkeyPatch) -> None:
    assert hub_state() == "offline"  # HF_HUB_OFFLINE=1 (tests/conftest.py): nothing is asked
    monkeypatch.delenv("HF_HUB_OFFLINE")
    started = time.monotonic()
    assert hub_state(f"http://127.0.0.1:{closed_port()}", timeout=2.0) == "unreachable"
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize("hub", ["offline", "unreachable"])
def test_evaluate_offline_fails_once_within_seconds_naming_every_model(sample_dataset: Path, rendered: Path,
                                                                       tmp_path: Path, hub: str) -> None:
    """`--metrics all` with an empty HF cache: one error naming the NLI and the embedding model (before the fix:
    ~50 s of huggingface_hub retries with the Hub out of reach, then the NLI model alone)."""
    env = {"HF_HOME": str(tmp_path / "hf-empty")}
    env.update({"HF_HUB_OFFLINE": "1"} if hub == "offline" else {"HF_ENDPOINT": f"http://127.0.0.1:{closed_port()}"})
    done, seconds = surge("evaluate", "--data", str(sample_dataset), "--passages", str(rendered), "--metrics", "all",
                          "--out", str(tmp_path / "r.json"), env=env)
    line = error_line(done)
    assert line.startswith("error: 2 models this run needs are not available, nothing was evaluated: ")
    assert "cross-encoder/nli-deberta-v3-base (citation_accuracy; --nli-model)" in line
    assert "BAAI/bge-large-en-v1.5 (shr; --embedding-model)" in line
    assert "`surge models download cross-encoder/nli-deberta-v3-base BAAI/bge-large-en-v1.5`" in line
    assert ("HF_HUB_OFFLINE is set" if hub == "offline" else "cannot be reached") in line
    assert seconds < 30, seconds  # the import and one refused connection; no dataset is opened, no model loaded
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "r.json.journal.jsonl").exists()


def test_a_cached_model_is_read_at_once_when_the_hub_is_out_of_reach(sample_dataset: Path, rendered: Path,
                                                                     minilm_path: Path, tmp_path: Path) -> None:
    """The embedder named by its Hub id, in the HF cache, the Hub refusing connections: the run reads the cache
    straight away (before the fix: HEAD requests to the Hub retried for minutes, file by file)."""
    home = tmp_path / "hf"
    cache_as_hub_model(minilm_path, "sentence-transformers/all-MiniLM-L6-v2", home / "hub")
    done, seconds = surge("evaluate", "--data", str(sample_dataset), "--passages", str(rendered), "--metrics", "shr",
                          "--embedding-model", "sentence-transformers/all-MiniLM-L6-v2", "--device", "cpu",
                          "--out", str(tmp_path / "r.json"), "--cache-dir", str(tmp_path / "cache"),
                          env={"HF_HOME": str(home), "HF_ENDPOINT": f"http://127.0.0.1:{closed_port()}"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Retrying" not in done.stderr and seconds < 120, seconds
    results = json.loads((tmp_path / "r.json").read_text())
    assert all(abs(r["shr"] - 1.0) < 1e-4 for r in results["surveys"].values())  # the GT matches its own headings
    assert results["config"]["embedding_model"] == "sentence-transformers/all-MiniLM-L6-v2"
