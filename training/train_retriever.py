"""Train the SurGE paper's dense retriever (protocol.md §6) with a hand-written ``accelerate`` loop.

Run::

    accelerate launch training/train_retriever.py --config training/configs/paper.yaml
    accelerate launch --num_processes 8 training/train_retriever.py --config training/configs/paper.yaml
    python training/train_retriever.py --model PATH --data surge --max-steps 100      # one process

Every YAML key is also a flag (``--output-dir``, ``--negatives``...; flags win over the YAML).

The recipe (paper defaults): a shared-weight encoder initialised from ``roberta-base``; query and
paper each encoded as ``<s> text </s>``, the vector is the last layer's first token; score = dot
product; loss = softmax cross-entropy over one cited paper (the positive) and ``negatives`` papers
drawn uniformly at random from the corpus, re-drawn every epoch; AdamW, lr 5e-6, 10 epochs, fp16 on a
GPU; linear warm-up then linear decay; gradient accumulation. Training pairs come from the train split
only -- (survey title, each paper in ``all_cites``) and (``queries.json`` question, each paper in its
``cites``) -- and a fraction of the train surveys is held out (their titles and questions too) to
report Recall@k at every epoch. No test survey and no test citation is ever read.

Why a hand-written ``accelerate`` loop and not sentence-transformers' trainer with
``MultipleNegativesRankingLoss(similarity_fct=dot_score, scale=1.0)``, which also shares the encoder
and runs under ``accelerate launch``:

1. Objective. That loss always scores each query against every paper of the batch (the other
   queries' positives and negatives too). Here that is not just "more negatives": a survey's title and
   its section questions cite largely the same papers, so other rows' positives are often true
   positives of this query, and the loss would push them away. Our loss is exactly the paper's
   (1 positive + N random negatives per query); ``in_batch_negatives: true`` adds the batch's other
   papers as candidates but masks those known to be relevant to the query.
2. Random corpus negatives re-drawn per epoch are a function of (seed, epoch, pair) in our collate
   function; with the trainer they need a dataset transform fed by a callback.
3. The loop is ~170 lines and every step is visible; its pieces are plain functions in
   ``surge_dataset/retrieval/training.py`` (pairs, negatives, batches, loss, held-out Recall@k) and
   ``surge_dataset/retrieval/training_run.py`` (logging, checkpoints, the saved model), importable on their own.

The known traps of a hand-written loop, and how this script avoids each:

* DDP fails on parameters that get no gradient: the model is loaded with ``add_pooling_layer=False``
  (the pooler is never used), so every parameter takes part in the loss.
* A scheduler passed to ``accelerator.prepare`` steps once per process per step: ours is NOT
  prepared; it steps once per optimizer step (and not when fp16 skipped the step), and is registered
  for checkpointing instead.
* ``accelerator.load_state`` does not restore the step counter: ``trainer_state.json`` (epoch, step in
  epoch, global step) is saved with every checkpoint and read back; the batches of an epoch are a
  deterministic function of (seed, epoch), so a resumed run skips exactly the batches already seen.
* A hard-coded ``mixed_precision`` overrides ``accelerate launch --mixed_precision``: ``auto`` (the
  default) defers to the launcher when it asked for fp16/bf16, and otherwise means fp16 on a GPU.
* bf16 on a CPU is ~2.5x slower than fp32: on a CPU, mixed precision is turned off (with a warning).
* ``accelerate launch --cpu --num_processes 2`` starts ONE process: two CPU processes come from
  ``accelerate launch --multi_gpu --num_processes 2`` (or ``torchrun --nproc_per_node 2``); without
  a GPU the script then falls back to ``Accelerator(cpu=True)``, i.e. DDP over gloo. The world size
  is logged at start.

Output (``output_dir``): ``log.jsonl`` (and TensorBoard events when ``tensorboard`` is installed),
``checkpoints/checkpoint-<step>/`` (``accelerate`` state + ``trainer_state.json``; ``--resume latest``
or ``--resume PATH``), and ``model/`` -- a Hugging Face checkpoint plus ``surge_retriever.json`` and
sentence-transformers module files (CLS pooling), which ``surge index dense --model`` loads.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run from a checkout without installing the package
    sys.path.insert(0, str(REPO_ROOT))

# The reusable parts (importable without this script): data pairs, negatives, batches, the encoder's
# forward pass and loss, held-out Recall@k; logging, checkpoints, the saved model, mixed precision.
from surge_dataset.defaults import DEFAULT_RETRIEVER_BASE_MODEL  # noqa: E402 - after the sys.path fix above
from surge_dataset.errors import SurgeError  # noqa: E402
from surge_dataset.retrieval.training import (  # noqa: E402
    CorpusTexts,
    Pairs,
    build_pairs,
    build_queries,
    cls_vectors,
    contrastive_loss,
    draw_negatives,
    epoch_batches,
    evaluate_recall,
    load_encoder,
    split_surveys,
    tokenize,
)
from surge_dataset.retrieval.training_run import (  # noqa: E402
    Logger,
    checkpoints,
    progress_bar,
    resolve_mixed_precision,
    save_checkpoint,
    save_model,
)


@dataclass
class TrainConfig:
    """Every field is a YAML key and a ``--flag`` (underscores become dashes)."""

    model: str = DEFAULT_RETRIEVER_BASE_MODEL
    data: str = "surge"
    output_dir: str = "runs/retriever"
    epochs: int = 10
    max_steps: int = -1  # > 0: stop after this many optimizer steps (and size the schedule on it)
    batch_size: int = 32  # queries per process per micro-batch
    gradient_accumulation_steps: int = 1
    negatives: int = 7  # random corpus papers per query (softmax over 1 + negatives)
    in_batch_negatives: bool = False
    lr: float = 5e-6
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    max_grad_norm: float = 1.0
    max_query_length: int = 64
    max_doc_length: int = 256
    train_on: list[str] = field(default_factory=lambda: ["titles", "questions"])
    holdout_fraction: float = 0.1  # of the train surveys with citations, held out for Recall@k
    eval_ks: list[int] = field(default_factory=lambda: [20, 100, 1000])
    eval_corpus_size: int = 100_000  # papers ranked at evaluation (held-out positives + random); 0 = all
    eval_batch_size: int = 128
    eval_before_training: bool = False
    save_steps: int = 0  # 0: checkpoint at the end of every epoch only
    save_total_limit: int = 2
    logging_steps: int = 10
    mixed_precision: str = "auto"  # auto | no | fp16 | bf16
    seed: int = 42
    resume: str | None = None  # "latest" or a checkpoint folder
    progress: bool = True  # a progress bar with the loss on stderr (main process; every 30 s off a terminal)


#: ``--help`` text of every flag (the default is appended); a test checks that none is missing.
FLAG_HELP: dict[str, str] = {
    "model": "encoder to start from: a Hub id or a local folder (the paper: roberta-base)",
    "data": "a folder built by `surge data build` (only its train split is read)",
    "output_dir": "where log.jsonl, checkpoints/ and model/ are written",
    "epochs": "passes over the training pairs",
    "max_steps": "stop after this many optimizer steps and size the schedule on them (-1: run the epochs)",
    "batch_size": "queries per process per micro-batch, each with 1 cited paper + NEGATIVES random papers",
    "gradient_accumulation_steps": "micro-batches per optimizer step",
    "negatives": "random corpus papers per query, re-drawn every epoch (softmax over 1 + NEGATIVES)",
    "in_batch_negatives": "also score the batch's other papers, masking those relevant to the query",
    "lr": "AdamW learning rate",
    "weight_decay": "AdamW weight decay",
    "warmup_ratio": "fraction of the steps with a linear warm-up (then linear decay)",
    "max_grad_norm": "gradient clipping norm (0: no clipping)",
    "max_query_length": "tokens kept per query",
    "max_doc_length": "tokens kept per paper (title + abstract)",
    "train_on": "query kinds to train on: titles and/or questions (comma-separated)",
    "holdout_fraction": "fraction of the train surveys held out for Recall@k after every epoch",
    "eval_ks": "cut-offs k of the held-out Recall@k (comma-separated)",
    "eval_corpus_size": "papers ranked at evaluation: held-out positives + random ones (0: the whole corpus)",
    "eval_batch_size": "papers encoded per batch at evaluation",
    "eval_before_training": "evaluate once before the first step",
    "save_steps": "checkpoint every N optimizer steps (0: at the end of every epoch only)",
    "save_total_limit": "checkpoints kept (the oldest are deleted)",
    "logging_steps": "log the mean loss every N optimizer steps (log.jsonl, stdout, TensorBoard)",
    "mixed_precision": "auto (fp16 on a GPU unless `accelerate launch --mixed_precision` says otherwise; fp32 "
                       "on CPU), no, fp16 or bf16",
    "seed": "seed of the split, the batches and the negatives",
    "resume": "continue from a checkpoint: a folder, or 'latest' (a bare --resume means latest)",
    "progress": "show a progress bar with the loss on stderr (main process only)",
}


# --------------------------------------------------------------------------------------------------
# Configuration: dataclass defaults < YAML < flags
# --------------------------------------------------------------------------------------------------


def _parse_list(value: Any, kind: type) -> list[Any]:
    if isinstance(value, str):
        value = [v for v in re.split(r"[,\s]+", value) if v]
    return [kind(v) for v in value]


def _description() -> str:
    """``--help``'s description: the docstring up to the design notes (how to run, the recipe)."""
    text = (__doc__ or "").split("Why a hand-written", 1)[0]
    return text.replace("``", "`").replace("::\n", ":\n").strip()


def build_parser() -> argparse.ArgumentParser:
    """``--config`` plus one flag per :class:`TrainConfig` field, each with its description and default."""
    parser = argparse.ArgumentParser(
        prog="train_retriever.py", description=_description(), formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=argparse.SUPPRESS,
        epilog="Defaults are the dataclass's; training/configs/paper.yaml holds the paper's recipe. "
               "The script's docstring explains why it is a plain accelerate loop.",
    )
    parser.add_argument("--config", metavar="YAML", help="YAML file whose keys are the flags below (flags win; "
                                                         "default: none, the defaults below)")
    defaults = TrainConfig()
    for f in dataclasses.fields(TrainConfig):
        flag = "--" + f.name.replace("_", "-")
        default = getattr(defaults, f.name)
        shown = ",".join(map(str, default)) if isinstance(default, list) else default
        text = f"{FLAG_HELP[f.name]} (default: {shown})"
        if f.type in ("bool", bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, help=text)
        elif f.type in ("int", int):
            parser.add_argument(flag, type=int, metavar="N", help=text)
        elif f.type in ("float", float):
            parser.add_argument(flag, type=float, metavar="X", help=text)
        elif f.name == "resume":  # a bare --resume means the latest checkpoint
            parser.add_argument(flag, nargs="?", const="latest", type=str, metavar="PATH", help=text)
        else:
            metavar = {"data": "DIR", "output_dir": "DIR", "train_on": "KINDS", "eval_ks": "KS",
                       "mixed_precision": "MODE"}.get(f.name, f.name.upper())
            parser.add_argument(flag, type=str, metavar=metavar, help=text)
    return parser


def load_config(argv: list[str] | None = None) -> TrainConfig:
    """Parse ``--config`` and the flags; unknown YAML keys are an error (a typo must not pass silently)."""
    parser = build_parser()
    args = vars(parser.parse_args(argv))
    values: dict[str, Any] = {}
    if "config" in args:
        loaded = yaml.safe_load(Path(args.pop("config")).read_text(encoding="utf-8")) or {}
        known = {f.name for f in dataclasses.fields(TrainConfig)}
        unknown = sorted(set(loaded) - known)
        if unknown:
            parser.error(f"unknown key(s) in the config file: {', '.join(unknown)}")
        values.update(loaded)
    values.update(args)
    config = TrainConfig(**values)
    config.train_on = _parse_list(config.train_on, str)
    config.eval_ks = _parse_list(config.eval_ks, int)
    bad = sorted(set(config.train_on) - {"titles", "questions"})
    if bad or not config.train_on:
        parser.error(f"train_on takes titles and/or questions, got {config.train_on}")
    if config.mixed_precision not in ("auto", "no", "fp16", "bf16"):
        parser.error("mixed_precision must be auto, no, fp16 or bf16")
    return config


# --------------------------------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------------------------------


def train(config: TrainConfig) -> dict[str, Any]:
    import torch
    from accelerate import Accelerator
    from accelerate.utils import set_seed
    from transformers.utils import logging as hf_logging

    from surge_dataset.data.dataset import SurgeData

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    has_cuda = torch.cuda.is_available()
    accelerator = Accelerator(
        cpu=not has_cuda,  # DDP over gloo when launched with --multi_gpu on a machine without GPUs
        mixed_precision=resolve_mixed_precision(config.mixed_precision, has_cuda),
    )
    output_dir = Path(config.output_dir)
    logger = Logger(output_dir, accelerator.is_main_process)
    set_seed(config.seed)

    data = SurgeData.open(config.data)
    corpus = CorpusTexts(data)
    train_ids, held_ids = split_surveys(data, config.holdout_fraction, config.seed)
    pairs = build_pairs(build_queries(data, train_ids, config.train_on), corpus.doc_ids)
    held_queries = build_queries(data, held_ids, ["titles"])
    held_positive = sorted({d for _, rel in held_queries for d in rel} & set(corpus.doc_ids.tolist()))
    rng_pool = np.random.default_rng([config.seed, 99])
    if config.eval_corpus_size <= 0 or config.eval_corpus_size >= len(corpus.doc_ids):
        pool = corpus.doc_ids.copy()
    else:
        sample = rng_pool.choice(corpus.doc_ids, size=config.eval_corpus_size, replace=False)
        pool = np.unique(np.concatenate([sample, np.asarray(held_positive, dtype=np.int64)]))

    tokenizer, model = load_encoder(config.model)
    no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(t in n for t in no_decay)],
         "weight_decay": config.weight_decay},
        {"params": [p for n, p in model.named_parameters() if any(t in n for t in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=config.lr)
    world = accelerator.num_processes
    steps_per_epoch = epoch_batches(len(pairs.texts), config.batch_size, world, config.seed, 0).shape[0]
    updates_per_epoch = math.ceil(steps_per_epoch / config.gradient_accumulation_steps)  # a partial group steps too
    total_updates = config.max_steps if config.max_steps > 0 else updates_per_epoch * config.epochs
    epochs = config.epochs if config.max_steps <= 0 else math.ceil(total_updates / updates_per_epoch)
    warmup = int(config.warmup_ratio * total_updates)

    def schedule(step: int) -> float:
        if step < warmup:
            return (step + 1) / max(1, warmup)
        return max(0.0, (total_updates - step) / max(1, total_updates - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)  # not prepared: see docstring
    model, optimizer = accelerator.prepare(model, optimizer)
    accelerator.register_for_checkpointing(scheduler)

    state = {"epoch": 0, "step_in_epoch": 0, "global_step": 0, "world_size": world}
    if config.resume:
        found = checkpoints(output_dir) if config.resume == "latest" else [Path(config.resume)]
        if not found or not (found[-1] / "trainer_state.json").is_file():
            raise SurgeError(f"--resume {config.resume}: no checkpoint found under {output_dir / 'checkpoints'}")
        state = json.loads((found[-1] / "trainer_state.json").read_text(encoding="utf-8"))
        if state["step_in_epoch"] and state.get("world_size", world) != world:
            raise SurgeError(
                f"{found[-1]} was saved mid-epoch by {state['world_size']} processes; resume it with the same "
                "number (an epoch's batches depend on it), or from an end-of-epoch checkpoint"
            )
        accelerator.load_state(str(found[-1]))
        logger.log("resume", checkpoint=str(found[-1]), **state)
        state["world_size"] = world

    logger.log(
        "start", world_size=world, device=str(accelerator.device), distributed_type=str(accelerator.distributed_type),
        mixed_precision=accelerator.mixed_precision, n_pairs=len(pairs.texts), train_surveys=sorted(train_ids),
        heldout_surveys=sorted(held_ids), eval_pool=len(pool), steps_per_epoch=steps_per_epoch,
        total_updates=total_updates, config=dataclasses.asdict(config),
    )
    if config.eval_before_training and state["global_step"] == 0:
        logger.log("eval", step=0, epoch=0, **evaluate_recall(accelerator, model, tokenizer, config, held_queries, pool, corpus))

    n_candidates = 1 + config.negatives
    model.train()
    done = state["global_step"] >= total_updates
    bar = progress_bar(total_updates, state["global_step"], enabled=config.progress and accelerator.is_main_process)
    logger.bar = bar
    running: list[float] = []
    last_saved = -1
    start_time = time.time()
    for epoch in range(state["epoch"], epochs):
        if done:
            break
        batches = epoch_batches(len(pairs.texts), config.batch_size, world, config.seed, epoch)
        first = state["step_in_epoch"] if epoch == state["epoch"] else 0
        for step_in_epoch in range(first, len(batches)):
            rows = batches[step_in_epoch, accelerator.process_index]
            doc_ids: list[int] = []
            for row in rows:
                rng = np.random.default_rng([config.seed, epoch, int(row)])  # redrawn every epoch
                doc_ids.append(int(pairs.positives[row]))
                doc_ids.extend(draw_negatives(corpus.doc_ids, pairs.relevant[row], config.negatives, rng))
            relevant = [pairs.relevant[row] for row in rows]
            q_batch = tokenize(tokenizer, [pairs.texts[row] for row in rows], config.max_query_length, accelerator.device)
            d_batch = tokenize(tokenizer, corpus.texts(doc_ids), config.max_doc_length, accelerator.device)
            sync = (step_in_epoch + 1) % config.gradient_accumulation_steps == 0 or step_in_epoch + 1 == len(batches)
            with accelerator.no_sync(model) if not sync else contextlib.nullcontext():
                with accelerator.autocast():
                    loss = contrastive_loss(
                        cls_vectors(model, q_batch), cls_vectors(model, d_batch), n_candidates, relevant,
                        doc_ids, config.in_batch_negatives,
                    )
                accelerator.backward(loss / config.gradient_accumulation_steps)
            running.append(float(loss.detach()))
            state["step_in_epoch"] = step_in_epoch + 1
            state["epoch"] = epoch
            if not sync:
                continue
            if config.max_grad_norm > 0:
                accelerator.clip_grad_norm_(model.parameters(), config.max_grad_norm)
            optimizer.step()
            if not accelerator.optimizer_step_was_skipped:
                scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            state["global_step"] += 1
            step = state["global_step"]
            if bar is not None:
                bar.set_postfix(loss=f"{running[-1]:.4f}", lr=f"{scheduler.get_last_lr()[0]:.2e}", epoch=epoch,
                                refresh=False)
                bar.update(1)
            if step % config.logging_steps == 0 or step == 1:
                mean = accelerator.reduce(torch.tensor(np.mean(running), device=accelerator.device), "mean")
                logger.log("train", step=step, epoch=epoch, loss=float(mean), lr=scheduler.get_last_lr()[0],
                           seconds=round(time.time() - start_time, 2))
                running = []
            if config.save_steps > 0 and step % config.save_steps == 0:
                path = save_checkpoint(accelerator, output_dir, state, config.save_total_limit)
                logger.log("checkpoint", step=step, path=str(path))
                last_saved = step
            if step >= total_updates:
                done = True
                break
        epoch_finished = state["step_in_epoch"] >= len(batches)
        if epoch_finished:
            state.update(epoch=epoch + 1, step_in_epoch=0)
        metrics = evaluate_recall(accelerator, model, tokenizer, config, held_queries, pool, corpus)
        logger.log("eval", step=state["global_step"], epoch=epoch + 1 if epoch_finished else epoch, **metrics)
        if (config.save_steps <= 0 or done) and last_saved != state["global_step"]:
            last_saved = state["global_step"]
            path = save_checkpoint(accelerator, output_dir, state, config.save_total_limit)
            logger.log("checkpoint", step=state["global_step"], path=str(path))

    if bar is not None:
        bar.close()
        logger.bar = None
    save_model(accelerator, model, tokenizer, config, output_dir / "model",
               {"global_step": state["global_step"], "base_model": config.model})
    logger.log("end", step=state["global_step"], model=str(output_dir / "model"),
               seconds=round(time.time() - start_time, 2))
    logger.close()
    accelerator.end_training()
    return state


def main(argv: list[str] | None = None) -> None:
    """Train; a problem the user can fix (no model offline, no data, nothing to resume) is one line, exit 2."""
    try:
        train(load_config(argv))
    except SurgeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None

__all__ = [
    "FLAG_HELP",
    "CorpusTexts",
    "Logger",
    "Pairs",
    "TrainConfig",
    "build_pairs",
    "build_parser",
    "build_queries",
    "checkpoints",
    "cls_vectors",
    "contrastive_loss",
    "draw_negatives",
    "epoch_batches",
    "evaluate_recall",
    "load_config",
    "main",
    "progress_bar",
    "resolve_mixed_precision",
    "save_checkpoint",
    "save_model",
    "split_surveys",
    "tokenize",
    "train",
]


if __name__ == "__main__":
    main()
