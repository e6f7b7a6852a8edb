"""Long work shows progress: the retriever's training (a bar with the loss), `surge index dense` (papers encoded),
and `train_retriever.py --help` describes every flag with its default."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from surge_dataset.core.settings import help_text
from surge_dataset.data.dataset import SurgeData
from surge_dataset.retrieval.train_config import TrainConfig, build_parser, load_config
from surge_dataset.retrieval.training_run import progress_bar

from .conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "training" / "train_retriever.py"


@pytest.fixture(scope="module")
def tiny_roberta(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from surge_dataset.testing.models import build_tiny_roberta

    return build_tiny_roberta(tmp_path_factory.mktemp("models") / "roberta", seed=0, hidden_size=32, max_length=128)


def test_help_describes_every_flag_with_its_default() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 0, done.stderr[-2000:]
    text = " ".join(done.stdout.split())
    assert "Train the SurGE paper's dense retriever" in text and "accelerate launch" in text
    actions = {action.dest: action for action in build_parser()._actions}
    defaults = TrainConfig()
    for field in dataclasses.fields(TrainConfig):
        action = actions[field.name]
        default = getattr(defaults, field.name)
        shown = ",".join(map(str, default)) if isinstance(default, list) else str(default)
        assert action.help.startswith(help_text(field)), field.name  # the help lives on the field
        assert action.help.endswith(f"(default: {shown})"), (field.name, action.help)
        assert " ".join(action.help.split())[:40] in text  # shown by --help
    assert actions["config"].help and all(field.metadata.get("help") for field in dataclasses.fields(TrainConfig))
    assert "One of: auto, no, fp16, bf16." in actions["mixed_precision"].help  # choices read off the field


def test_training_shows_a_progress_bar_with_the_loss(sample_dataset: Path, tiny_roberta: Path, tmp_path: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    args = ["--model", str(tiny_roberta), "--data", str(sample_dataset), "--output-dir", str(tmp_path / "run"),
            "--max-steps", "3", "--batch-size", "2", "--negatives", "1", "--max-doc-length", "32",
            "--eval-corpus-size", "40", "--holdout-fraction", "0.5", "--eval-ks", "5", "--logging-steps", "1"]
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    final = done.stderr.replace("\r", "\n").splitlines()
    bar = [line for line in final if line.startswith("training:") and "3/3" in line]
    assert bar and "loss=" in bar[-1] and "lr=" in bar[-1]
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]  # stdout: JSON lines only
    assert [r["step"] for r in records if r["event"] == "train"] == [1, 2, 3]


def test_no_progress_turns_the_bar_off() -> None:
    assert load_config(["--no-progress"]).progress is False and load_config([]).progress is True
    assert progress_bar(10, 0, enabled=False) is None
    bar = progress_bar(10, 4, enabled=True)  # a resumed run starts at its step
    assert bar.n == 4 and bar.total == 10
    bar.close()


def test_dense_encoding_reports_papers_done_also_when_resuming(
    sample_dataset: Path, tiny_roberta: Path, tmp_path: Path
) -> None:
    from surge_dataset.retrieval.encoding import encode_corpus

    data = SurgeData.open(sample_dataset)
    total = len(data.corpus)
    seen: list[tuple[int, int | None]] = []
    encode_corpus(tiny_roberta, data, tmp_path / "dense", shard_size=100, batch_size=32,
                  on_papers=lambda done, of: seen.append((done, of)))
    assert seen[-1] == (total, total) and all(of == total for _, of in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and len(seen) >= total // 32
    resumed: list[tuple[int, int | None]] = []  # every shard finished: reused shards still count
    encode_corpus(tiny_roberta, data, tmp_path / "dense", shard_size=100, batch_size=32,
                  on_papers=lambda done, of: resumed.append((done, of)))
    assert resumed[-1] == (total, total) and len(resumed) == -(-total // 100)
