"""training/train_retriever.py: configuration, loss, sampling, and a 2-process CPU run under accelerate launch.

The settings, loss and sampling are package code (``surge_dataset.retrieval.train_config`` / ``.training`` /
``.training_run``); the script keeps the loop, run here as users run it."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.vocabulary import ChoiceError
from surge_dataset.data.build import build_dataset
from surge_dataset.data.dataset import SurgeData
from surge_dataset.retrieval.train_config import TrainConfig, load_config
from surge_dataset.retrieval.training import (
    build_queries,
    contrastive_loss,
    draw_negatives,
    epoch_batches,
    split_surveys,
)
from surge_dataset.retrieval.training_run import resolve_mixed_precision

from .conftest import REPO_ROOT, SAMPLE_DIR
from .processes import free_port

SCRIPT = REPO_ROOT / "training" / "train_retriever.py"
PAPER_CONFIG = REPO_ROOT / "training" / "configs" / "paper.yaml"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> SurgeData:
    out = tmp_path_factory.mktemp("train-data") / "surge"
    build_dataset(SAMPLE_DIR, out)
    return SurgeData.open(out)


# --------------------------------------------------------------------------------------------------
# Fast unit tests
# --------------------------------------------------------------------------------------------------


def test_paper_config_is_the_papers_recipe() -> None:
    config = load_config(["--config", str(PAPER_CONFIG)])
    assert config.model == "roberta-base" and config.lr == 5e-6 and config.epochs == 10
    assert config.mixed_precision == "auto" and config.in_batch_negatives is False
    assert config.train_on == ["titles", "questions"]


def test_every_yaml_key_is_a_flag_and_flags_win(tmp_path: Path) -> None:
    import yaml

    keys = set(yaml.safe_load(PAPER_CONFIG.read_text()))
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    assert keys <= fields
    config = load_config(
        ["--config", str(PAPER_CONFIG), "--lr", "1e-3", "--batch-size", "4", "--negatives", "3", "--epochs", "2",
         "--max-steps", "5", "--seed", "7", "--output-dir", "x", "--model", "m", "--data", "d", "--resume", "latest",
         "--in-batch-negatives", "--eval-ks", "5,10"]
    )
    assert (config.lr, config.batch_size, config.negatives, config.epochs, config.max_steps, config.seed) == (
        1e-3, 4, 3, 2, 5, 7)
    assert (config.output_dir, config.model, config.data, config.resume) == ("x", "m", "d", "latest")
    assert config.in_batch_negatives is True and config.eval_ks == [5, 10]
    assert config.weight_decay == 0.01  # untouched keys keep the YAML value
    bad = tmp_path / "bad.yaml"
    bad.write_text("learning_rate: 0.1\nseeds: 3\n")
    with pytest.raises(SurgeError, match=r"'learning_rate' \(known: model, .*'seeds' \(closest: 'seed'\)"):
        load_config(["--config", str(bad)])  # a typo must not pass silently; the script prints it, exit 2


def test_settings_outside_their_choices_name_the_closest(tmp_path: Path) -> None:
    with pytest.raises(ChoiceError, match=r"mixed_precision must be one of auto, no, fp16, bf16.*'fp16'"):
        load_config(["--mixed-precision", "fp61"])
    with pytest.raises(ChoiceError, match=r"train_on must be one of titles, questions, not 'question'"):
        load_config(["--train-on", "titles,question"])
    with pytest.raises(ChoiceError, match="train_on needs at least one"):
        TrainConfig(train_on=[])
    assert TrainConfig(train_on="questions", eval_ks="5 10").eval_ks == [5, 10]  # flags' comma/space lists
    done = subprocess.run([sys.executable, str(SCRIPT), "--mixed-precision", "fp61"], capture_output=True,
                          text=True, timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: mixed_precision"), done.stderr


def test_the_script_edits_no_sys_path_and_re_exports_nothing() -> None:
    """It imports the installed package like any user code (the tests run it from another folder)."""
    text = SCRIPT.read_text(encoding="utf-8")
    assert "sys.path" not in text and "__all__" not in text


def test_mixed_precision_defers_to_launcher_and_never_on_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ACCELERATE_MIXED_PRECISION", raising=False)
    assert resolve_mixed_precision("auto", has_cuda=True) == "fp16"
    assert resolve_mixed_precision("auto", has_cuda=False) == "no"
    assert resolve_mixed_precision("no", has_cuda=True) == "no"
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "bf16")
    assert resolve_mixed_precision("auto", has_cuda=True) is None  # the launcher decides
    with pytest.warns(UserWarning, match="CPU"):
        assert resolve_mixed_precision("bf16", has_cuda=False) == "no"


def test_batches_are_deterministic_per_epoch_and_negatives_avoid_positives() -> None:
    a = epoch_batches(50, 4, 2, seed=1, epoch=0)
    assert a.shape == (6, 2, 4) and len(set(a.ravel().tolist())) == 48
    np.testing.assert_array_equal(a, epoch_batches(50, 4, 2, seed=1, epoch=0))
    assert not np.array_equal(a, epoch_batches(50, 4, 2, seed=1, epoch=1))
    doc_ids = np.arange(10)
    relevant = frozenset(range(8))
    draws = draw_negatives(doc_ids, relevant, 50, np.random.default_rng(0))
    assert len(draws) == 50 and set(draws) <= {8, 9}
    epoch0 = draw_negatives(np.arange(1000), frozenset(), 5, np.random.default_rng([42, 0, 3]))
    epoch1 = draw_negatives(np.arange(1000), frozenset(), 5, np.random.default_rng([42, 1, 3]))
    assert epoch0 != epoch1  # re-drawn every epoch


def test_contrastive_loss_is_the_papers_softmax_and_masks_false_negatives() -> None:
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    q = torch.randn(2, 4)
    d = torch.randn(6, 4)  # 2 queries x (1 positive + 2 negatives)
    doc_ids = [10, 11, 12, 20, 10, 13]  # paper 10 (cited by both queries) also sits in query 1's group
    relevant = [frozenset({10}), frozenset({20, 10})]
    loss = contrastive_loss(q, d, 3, relevant, doc_ids, in_batch=False)
    expected = F.cross_entropy(torch.stack([q[0] @ d[0:3].T, q[1] @ d[3:6].T]), torch.tensor([0, 0]))
    assert loss.item() == pytest.approx(expected.item(), rel=1e-6)

    in_batch = contrastive_loss(q, d, 3, relevant, doc_ids, in_batch=True)
    scores = q @ d.T
    scores[1, 0] = scores[1, 4] = float("-inf")  # paper 10 is relevant to query 1: not a negative for it
    scores[0, 4] = float("-inf")  # the same paper 10 again, for query 0 (not its own positive slot)
    manual = F.cross_entropy(scores, torch.tensor([0, 3]))
    assert in_batch.item() == pytest.approx(manual.item(), rel=1e-6)


def test_training_reads_train_split_only(data: SurgeData) -> None:
    train_ids, held = split_surveys(data, 0.5, seed=42)
    test_ids = {s.survey_id for s in data.surveys("test")}
    assert train_ids and held and not (train_ids | held) & test_ids and not train_ids & held
    queries = build_queries(data, train_ids, ["titles", "questions"])
    test_cites = {d for s in data.surveys("test") for d in s.all_cites}
    train_cites = {d for s in data.surveys("train") if s.survey_id in train_ids for d in s.all_cites}
    assert all(rel <= train_cites for _, rel in queries)
    assert {t for t, _ in queries}.isdisjoint({s.survey_title for s in data.surveys("test")})
    assert test_cites - train_cites  # the guarantee is not vacuous


# --------------------------------------------------------------------------------------------------
# Two CPU processes under accelerate launch, resume, index, retrieval-eval
# --------------------------------------------------------------------------------------------------


def _launch(args: list[str], cwd: Path, script: Path = SCRIPT) -> subprocess.CompletedProcess:
    accelerate = Path(sys.executable).with_name("accelerate")
    command = [
        str(accelerate), "launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
        "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(free_port()),
        str(script), *args,
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return result


def _log(output_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (output_dir / "log.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_two_process_training_resumes_and_the_model_indexes_the_corpus(data: SurgeData, tmp_path: Path) -> None:
    import yaml
    from typer.testing import CliRunner

    from surge_dataset.retrieval import DenseIndex, run_retrieval
    from surge_dataset.testing.models import build_tiny_roberta

    model = build_tiny_roberta(tmp_path / "roberta", seed=0, hidden_size=64, max_length=256)
    out = tmp_path / "run"
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({
        "model": str(model), "data": str(data.path), "output_dir": str(out), "max_steps": 20, "batch_size": 4,
        "negatives": 3, "lr": 1.0e-3, "warmup_ratio": 0.0, "holdout_fraction": 0.5, "eval_ks": [5, 20, 100],
        "logging_steps": 5, "max_doc_length": 128, "save_total_limit": 2, "seed": 42,
    }))

    _launch(["--config", str(config)], cwd=tmp_path)
    log = _log(out)
    start = next(r for r in log if r["event"] == "start")
    assert start["world_size"] == 2 and start["distributed_type"].endswith("MULTI_CPU")
    assert start["heldout_surveys"] and not set(start["train_surveys"]) & {0, 1, 2}
    losses = [r["loss"] for r in log if r["event"] == "train"]
    assert [r["step"] for r in log if r["event"] == "train"] == [1, 5, 10, 15, 20]
    assert np.mean(losses[-2:]) < losses[0]  # the loss goes down
    evals = [r for r in log if r["event"] == "eval"]
    assert evals and all("recall@20" in r for r in evals)
    assert (out / "checkpoints" / "checkpoint-20" / "trainer_state.json").is_file()

    _launch(["--config", str(config), "--resume", "latest", "--max-steps", "30"], cwd=tmp_path)
    log = _log(out)
    resume = next(r for r in log if r["event"] == "resume")
    assert resume["global_step"] == 20 and resume["checkpoint"].endswith("checkpoint-20")
    after = log[log.index(resume):]
    steps = [r["step"] for r in after if r["event"] == "train"]
    assert steps and min(steps) > 20 and steps[-1] == 30  # continued, not restarted
    assert next(r for r in after if r["event"] == "start")["world_size"] == 2
    assert [r for r in after if r["event"] == "end"][-1]["step"] == 30
    assert max(r["loss"] for r in after if r["event"] == "train") < losses[0]
    saved = json.loads((out / "model" / "surge_retriever.json").read_text())
    assert saved["pooling"] == "cls" and saved["max_doc_length"] == 128 and saved["global_step"] == 30

    # The trained model indexes the sample corpus, its shards split over two processes.
    indexer = tmp_path / "index_dense.py"
    indexer.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(REPO_ROOT)!r})\n"
        "from surge_dataset.data.dataset import SurgeData\n"
        "from surge_dataset.retrieval.encoding import encode_corpus\n"
        "report = encode_corpus(sys.argv[1], SurgeData.open(sys.argv[2]), sys.argv[3], shard_size=100)\n"
        "print('encoded', report.encoded, flush=True)\n"
    )
    result = _launch([str(out / "model"), str(data.path), str(tmp_path / "dense")], cwd=tmp_path, script=indexer)
    # one line per process; the two may interleave on the shared stdout, so read the lists, not the lines
    encoded = sorted(re.findall(r"\[\d+(?:, \d+)*\]", result.stdout))
    assert encoded == ["[0, 2]", "[1, 3]"], result.stdout
    index = DenseIndex.load(tmp_path / "dense")
    assert index.manifest["num_processes"] == 2 and index.manifest["max_doc_length"] == 128
    assert index.index.ntotal == 341
    run_retrieval(tmp_path / "dense", data, tmp_path / "run.trec", k=100)

    import typer

    from surge_dataset.cli.retrieval import retrieval_eval

    app = typer.Typer()
    app.command("retrieval-eval")(retrieval_eval)
    app.command("noop")(lambda: None)
    result = CliRunner().invoke(
        app, ["retrieval-eval", "--run", str(tmp_path / "run.trec"), "--data", str(data.path)], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "R@20" in result.output and "R@100" in result.output
