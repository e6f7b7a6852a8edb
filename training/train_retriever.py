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
   ``surge_dataset/retrieval/training_run.py`` (logging, checkpoints, the saved model), importable on their own;
   the settings (``TrainConfig``, each flag's help on its field) are in ``surge_dataset/retrieval/train_config.py``.

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

import contextlib
import dataclasses
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

# The reusable parts (importable without this script): the settings (flags, YAML); data pairs, negatives,
# batches, the encoder's forward pass and loss, held-out Recall@k; logging, checkpoints, the saved model.
from surge_dataset.core.errors import SurgeError
from surge_dataset.retrieval.train_config import TrainConfig, load_config
from surge_dataset.retrieval.training import (
    CorpusTexts,
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
from surge_dataset.retrieval.training_run import (
    Logger,
    checkpoints,
    progress_bar,
    resolve_mixed_precision,
    save_checkpoint,
    save_model,
)


def _description() -> str:
    """``--help``'s description: the docstring up to the design notes (how to run, the recipe)."""
    text = (__doc__ or "").split("Why a hand-written", 1)[0]
    return text.replace("``", "`").replace("::\n", ":\n").strip()


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
    """Train; a problem the user can fix (no model offline, no data, nothing to resume, a bad setting) is one
    line on stderr and exit status 2 (:func:`surge_dataset.cli.console.user_errors`)."""
    import typer

    from surge_dataset.cli.console import user_errors

    try:
        with user_errors():
            train(load_config(argv, description=_description()))
    except typer.Exit as exc:  # user_errors ends a typer command the typer way; this is a plain script
        raise SystemExit(exc.exit_code) from None


if __name__ == "__main__":
    main()
