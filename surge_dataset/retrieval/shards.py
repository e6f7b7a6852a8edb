"""Embedding shards on disk: ``shards/emb-00007.npy`` beside ``shards/ids-00007.npy`` (its doc ids),
each renamed into place when complete, so a shard is either whole or absent."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from surge_dataset.core.io import atomic_path

SHARDS_DIR = "shards"


def shard_paths(out: Path, index: int) -> tuple[Path, Path]:
    return out / SHARDS_DIR / f"emb-{index:05d}.npy", out / SHARDS_DIR / f"ids-{index:05d}.npy"


def shard_done(out: Path, index: int, rows: int) -> bool:
    emb, ids = shard_paths(out, index)
    if not (emb.is_file() and ids.is_file()):
        return False
    try:
        return np.load(emb, mmap_mode="r").shape[0] == rows and np.load(ids, mmap_mode="r").shape[0] == rows
    except (ValueError, OSError):  # a torn file (cannot happen with rename, but never trust a crash)
        return False


def save_npy(path: Path, array: np.ndarray) -> None:
    with atomic_path(path, suffix=".npy") as tmp:
        with open(tmp, "wb") as handle:
            np.save(handle, array)
            handle.flush()
            os.fsync(handle.fileno())


def load_shards(out: Path, n_shards: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    for index in range(n_shards):
        emb, ids = shard_paths(out, index)
        if not (emb.is_file() and ids.is_file()):
            raise FileNotFoundError(f"{out}: shard {index} is missing; rerun the same command to finish it")
        yield np.load(emb), np.load(ids)

