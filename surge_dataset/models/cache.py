"""On-disk cache of model outputs (NLI logits, embeddings), so reruns and resumed runs skip the model.

One SQLite file per kind of output (``nli.sqlite``, ``embeddings.sqlite``) in the cache folder, opened in
WAL mode: many processes can read while one writes, every ``put_many`` is one transaction (a crash loses
at most the batch being written, never corrupts what was there), and nothing needs a server. Keys are
hashes of (namespace, *texts), where the namespace pins the model, its exact weights and anything else
that changes the numbers (dtype, max length).

WAL needs a local file system (not NFS): on clusters point ``cache_dir``/``$SURGE_CACHE`` at local disk.
The cache is an optimisation: if the file cannot be opened or written (read-only disk, another process
holding the write lock for too long, a damaged file) it warns once and carries on without it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np

__all__ = [
    "CacheDir",
    "EngineStats",
    "ScoreCache",
    "SqliteStore",
    "cached_vectors",
    "default_cache_dir",
    "length_sorted_chunks",
    "resolve_cache_dir",
]

#: ``None`` -> :func:`default_cache_dir`; ``False`` -> no cache at all; a path -> that folder.
CacheDir = str | os.PathLike[str] | Literal[False] | None

_SQL_CHUNK = 500  # stays under SQLite's historical 999 bound-variables limit
T = TypeVar("T", bound=Hashable)


def default_cache_dir() -> Path:
    """``$SURGE_CACHE`` if set, else ``~/.cache/surge`` (honouring ``$XDG_CACHE_HOME``)."""
    env = os.environ.get("SURGE_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "surge"


def resolve_cache_dir(cache_dir: CacheDir) -> Path | None:
    """Apply the shared ``cache_dir`` convention: ``None`` = default folder, ``False`` = disabled."""
    if cache_dir is False:
        return None
    if cache_dir is None:
        return default_cache_dir()
    if cache_dir is True:  # tolerated: "yes, cache" means the default folder
        return default_cache_dir()
    return Path(cache_dir).expanduser()


class SqliteStore:
    """A persistent map from hashed keys to values in ``<cache_dir>/<name>.sqlite`` (one table).

    The one implementation of the on-disk caches (NLI logits, embeddings, LLM answers); subclasses only
    say how a value is stored (:meth:`_encode` / :meth:`_decode`). ``cache_dir=None`` uses
    :func:`default_cache_dir`; ``cache_dir=False`` gives a disabled store whose ``get_many`` always
    misses and whose ``put_many`` does nothing, so callers never need a branch. Safe to share between
    threads (one lock) and between processes (SQLite WAL locking; a forked child reopens its own
    connection). A file that cannot be used warns once and the run carries on without it.
    """

    _table = "kv"
    _value_type = "BLOB"
    _what = "cache"

    def __init__(self, cache_dir: CacheDir = None, name: str = "scores", *, timeout: float = 60.0) -> None:
        folder = resolve_cache_dir(cache_dir)
        self.path: Path | None = None if folder is None else folder / f"{name}.sqlite"
        self.timeout = timeout
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid: int | None = None
        self._broken = False

    @property
    def enabled(self) -> bool:
        return self.path is not None and not self._broken

    @staticmethod
    def make_key(namespace: str, *texts: str) -> str:
        """Hash of the namespace and texts; length-prefixed so ("ab", "c") and ("a", "bc") differ."""
        digest = hashlib.blake2b(digest_size=16)
        for part in (namespace, *texts):
            data = part.encode("utf-8", "surrogatepass")
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)
        return digest.hexdigest()

    def _encode(self, value: Any) -> Any:
        raise NotImplementedError

    def _decode(self, raw: Any) -> Any:
        raise NotImplementedError

    # -- connection handling -------------------------------------------------------------------------

    def _disable(self, action: str, exc: BaseException) -> None:
        self._broken = True
        warnings.warn(
            f"{self._what} {self.path} disabled ({action} failed: {exc}); the run goes on without it. "
            "Delete the file or pass another cache folder to re-enable caching.",
            RuntimeWarning,
            stacklevel=3,
        )

    def _connection(self) -> sqlite3.Connection | None:
        if not self.enabled:
            return None
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        assert self.path is not None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            # NORMAL in WAL mode: a power cut may drop the last commits but never corrupts the file.
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {self._table} (key TEXT PRIMARY KEY, value {self._value_type} NOT NULL) "
                "WITHOUT ROWID"
            )
        except (OSError, sqlite3.Error) as exc:
            self._disable("opening", exc)
            return None
        self._conn, self._pid = conn, os.getpid()
        return conn

    def close(self) -> None:
        """Close this process's connection (it reopens on next use)."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    # -- batch API ------------------------------------------------------------------------------------

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The stored values for those keys that are present (missing keys are simply absent)."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        if not wanted:
            return found
        with self._lock:
            conn = self._connection()
            if conn is None:
                return found
            try:
                for start in range(0, len(wanted), _SQL_CHUNK):
                    chunk = wanted[start : start + _SQL_CHUNK]
                    marks = ",".join("?" * len(chunk))
                    rows = conn.execute(f"SELECT key, value FROM {self._table} WHERE key IN ({marks})", chunk)
                    for key, value in rows:
                        found[key] = self._decode(value)
            except (sqlite3.Error, ValueError) as exc:
                self._disable("reading", exc)
                return {}
        return found

    def put_many(self, items: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> None:
        """Store values in one transaction; existing keys are overwritten."""
        pairs = items.items() if isinstance(items, Mapping) else items
        rows = [(key, self._encode(value)) for key, value in pairs]
        if not rows:
            return
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    conn.executemany(f"INSERT OR REPLACE INTO {self._table} (key, value) VALUES (?, ?)", rows)
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                self._disable("writing", exc)

    def __len__(self) -> int:
        with self._lock:
            conn = self._connection()
            if conn is None:
                return 0
            return int(conn.execute(f"SELECT COUNT(*) FROM {self._table}").fetchone()[0])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path) if self.enabled else 'disabled'})"


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
