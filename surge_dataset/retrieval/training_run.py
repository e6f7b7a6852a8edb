"""Logging, progress, checkpoints, the saved model and mixed precision of ``training/train_retriever.py``.

The traps these avoid are described in the script's docstring: ``trainer_state.json`` is written last and
atomically (its presence marks a complete checkpoint for ``--resume latest``), and ``auto`` mixed
precision defers to ``accelerate launch --mixed_precision`` and is never used on a CPU.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from surge_dataset.core.io import atomic_write_json


class Logger:
    """JSON lines (always) and TensorBoard (when installed); main process only."""

    def __init__(self, output_dir: Path, enabled: bool):
        self.enabled = enabled
        self.path = output_dir / "log.jsonl"
        self.tb = None
        self.bar: Any = None  # the progress bar, when one is drawn: log lines are printed above it
        if enabled:
            output_dir.mkdir(parents=True, exist_ok=True)
            try:
                from torch.utils.tensorboard import SummaryWriter

                self.tb = SummaryWriter(str(output_dir / "tensorboard"))
            except ImportError:
                self.tb = None

    def log(self, event: str, **values: Any) -> None:
        if not self.enabled:
            return
        record = {"event": event, "time": round(time.time(), 3), **values}
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        if self.bar is not None:
            self.bar.write(json.dumps(record), file=sys.stdout)
        else:
            print(json.dumps(record), flush=True)
        if self.tb is not None and "step" in values:
            for key, value in values.items():
                if isinstance(value, (int, float)) and key != "step":
                    self.tb.add_scalar(f"{event}/{key}", value, values["step"])

    def close(self) -> None:
        if self.tb is not None:
            self.tb.close()


def progress_bar(total: int, initial: int, *, enabled: bool) -> Any:
    """A tqdm bar over optimizer steps on stderr (loss, lr, epoch as postfix), or None when disabled.

    Off a terminal (Slurm or CI logs) it redraws every 30 s instead of ten times a second, so a log
    shows the progress without drowning in it.
    """
    if not enabled:
        return None
    from tqdm import tqdm

    interactive = sys.stderr.isatty()
    return tqdm(total=total, initial=initial, desc="training", unit="step", file=sys.stderr, dynamic_ncols=interactive,
                mininterval=0.5 if interactive else 30.0)


def checkpoints(output_dir: Path) -> list[Path]:
    found = [p for p in (output_dir / "checkpoints").glob("checkpoint-*") if (p / "trainer_state.json").is_file()]
    return sorted(found, key=lambda p: int(p.name.split("-")[-1]))


def save_checkpoint(accelerator: Any, output_dir: Path, state: dict[str, Any], limit: int) -> Path:
    path = output_dir / "checkpoints" / f"checkpoint-{state['global_step']}"
    accelerator.save_state(str(path))
    if accelerator.is_main_process:
        # written last and atomically: its presence marks a complete checkpoint for --resume latest
        atomic_write_json(path / "trainer_state.json", state)
        for old in checkpoints(output_dir)[:-limit] if limit > 0 else []:
            shutil.rmtree(old, ignore_errors=True)
    accelerator.wait_for_everyone()
    return path


def save_model(accelerator: Any, model: Any, tokenizer: Any, config: Any, path: Path,
               extra: dict[str, Any]) -> None:
    """A plain Hugging Face checkpoint + ``surge_retriever.json`` + sentence-transformers files (CLS).

    ``config`` needs ``max_query_length`` and ``max_doc_length``.
    """
    net = accelerator.unwrap_model(model)
    if accelerator.is_main_process:
        if path.exists():
            shutil.rmtree(path)
        net.save_pretrained(str(path), state_dict=accelerator.get_state_dict(model))
        tokenizer.save_pretrained(str(path))
        retriever = {
            "pooling": "cls", "similarity": "dot", "shared_encoder": True,
            "document_text": "title + ' ' + abstract",
            "max_query_length": config.max_query_length, "max_doc_length": config.max_doc_length,
            "trained_with": "training/train_retriever.py", **extra,
        }
        (path / "surge_retriever.json").write_text(json.dumps(retriever, indent=2), encoding="utf-8")
        modules = [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        ]
        (path / "modules.json").write_text(json.dumps(modules, indent=2), encoding="utf-8")
        (path / "sentence_bert_config.json").write_text(
            json.dumps({"max_seq_length": config.max_doc_length, "do_lower_case": False}), encoding="utf-8"
        )
        (path / "1_Pooling").mkdir(exist_ok=True)
        (path / "1_Pooling" / "config.json").write_text(
            json.dumps({"word_embedding_dimension": net.config.hidden_size, "pooling_mode_cls_token": True,
                        "pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": False,
                        "pooling_mode_mean_sqrt_len_tokens": False}, indent=2),
            encoding="utf-8",
        )
    accelerator.wait_for_everyone()


def resolve_mixed_precision(requested: str, has_cuda: bool) -> str | None:
    """None lets ``accelerate launch --mixed_precision`` decide; see the training script's docstring."""
    launcher = os.environ.get("ACCELERATE_MIXED_PRECISION")
    if requested == "auto":
        if launcher and launcher != "no":
            choice: str | None = None if has_cuda else "no"
        else:
            choice = "fp16" if has_cuda else "no"
    else:
        choice = requested
    if not has_cuda and (choice in ("fp16", "bf16") or (choice is None and launcher not in (None, "no"))):
        warnings.warn("mixed precision on a CPU is slower than fp32 (bf16: ~2.5x); training in fp32", stacklevel=2)
        choice = "no"
    return choice
