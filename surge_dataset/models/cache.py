"""Model outputs (NLI logits, embeddings) in the one on-disk cache (:mod:`surge_dataset.core.cache`), and the
batching that computes only what neither a duplicate nor the cache has (:func:`cached_vectors`)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from surge_dataset.core.cache import SqliteStore

__all__ = ["EngineStats", "ScoreCache", "cached_vectors", "length_sorted_chunks"]

T = TypeVar("T", bound=Hashable)


class ScoreCache(SqliteStore):
    """Model outputs (NLI logits, embeddings) as float32 vectors, keyed by model and input texts."""

    _table = "vectors"
    _value_type = "BLOB"
    _what = "score cache"

    def _encode(self, value: np.ndarray) -> bytes:
        return np.ascontiguousarray(value, dtype=np.float32).tobytes()

    def _decode(self, raw: bytes) -> np.ndarray:
        return np.frombuffer(raw, dtype=np.float32)


@dataclass
class EngineStats:
    """Counters of what :func:`cached_vectors` did, summed over calls (diagnostics and benchmarks)."""

    requested: int = 0
    unique: int = 0
    cache_hits: int = 0
    computed: int = 0
    model_calls: int = 0


def length_sorted_chunks(items: Sequence[T], length: Callable[[T], int], chunk_size: int) -> list[list[T]]:
    """``items`` longest first (a stable sort: equal lengths keep their order), cut ``chunk_size`` at a time.

    How :func:`cached_vectors` hands work to a model, and so how an ``accelerate launch`` of ``surge
    evaluate`` splits it (:mod:`~surge_dataset.evaluation.parallel`): whole chunks to each process, each
    chunk the same batch as in one process, so the numbers come out bit for bit the same.
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be positive, got {chunk_size}")
    ordered = sorted(items, key=lambda item: -length(item))
    return [ordered[start : start + chunk_size] for start in range(0, len(ordered), chunk_size)]


def cached_vectors(
    items: Sequence[T],
    *,
    keys: Sequence[str],
    compute: Callable[[list[T]], np.ndarray],
    cache: ScoreCache,
    length: Callable[[T], int],
    chunk_size: int,
    dim: int | None = None,
    stats: EngineStats | None = None,
) -> np.ndarray:
    """Vectors for ``items`` (one row each, input order), computing only what neither a duplicate nor the cache has.

    Misses are sorted longest first, so each model batch holds similar lengths (little padding) and an
    out-of-memory error shows up on the first batch, and handed to ``compute`` ``chunk_size`` at a time;
    each chunk is written to the cache at once, so a crash mid-run keeps the finished chunks.
    """
    if len(items) != len(keys):
        raise ValueError(f"{len(items)} items but {len(keys)} keys")
    stats = stats if stats is not None else EngineStats()
    first: dict[str, int] = {}
    for index, key in enumerate(keys):
        first.setdefault(key, index)
    stats.requested += len(items)
    stats.unique += len(first)

    vectors = dict(cache.get_many(first))
    stats.cache_hits += len(vectors)
    missing = [key for key in first if key not in vectors]
    for chunk_keys in length_sorted_chunks(missing, lambda key: length(items[first[key]]), chunk_size):
        out = np.asarray(compute([items[first[key]] for key in chunk_keys]), dtype=np.float32)
        if out.ndim != 2 or out.shape[0] != len(chunk_keys):
            raise ValueError(f"compute returned shape {out.shape} for {len(chunk_keys)} items")
        stats.model_calls += 1
        stats.computed += len(chunk_keys)
        fresh = dict(zip(chunk_keys, out, strict=True))
        cache.put_many(fresh)
        vectors.update(fresh)

    if not items:
        return np.zeros((0, dim or 0), dtype=np.float32)
    widths = {vector.shape[0] for vector in vectors.values()}
    if len(widths) != 1:
        raise ValueError(
            f"vectors of different lengths {sorted(widths)} under one namespace; clear the cache"
        )
    return np.stack([vectors[key] for key in keys]).astype(np.float32, copy=False)
