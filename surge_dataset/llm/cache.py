"""On-disk cache of LLM answers: ``<cache dir>/llm.sqlite``, beside the NLI and embedding caches.

Same conventions as :class:`surge_dataset.models.cache.ScoreCache` (same folder rules via
:func:`resolve_cache_dir`, SQLite in WAL mode, one transaction per write, warn once and carry on
without a cache if the file cannot be used), but the values are JSON text, because answers are text.
Every answer is written as soon as it arrives, so a crashed run loses at most the requests in flight.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..models.cache import CacheDir, ScoreCache, resolve_cache_dir

__all__ = ["TextCache", "make_key"]

_SQL_CHUNK = 500


def make_key(namespace: str, *parts: str) -> str:
    """Length-prefixed hash of the parts (the same hashing as the score cache)."""
    return ScoreCache.make_key(namespace, *parts)


class TextCache:
    """A persistent map from hashed keys to JSON values in ``<cache_dir>/<name>.sqlite``.

    ``cache_dir=None`` is the default folder ($SURGE_CACHE or ~/.cache/surge), ``False`` disables it.
    Thread-safe (one lock) and process-safe (SQLite locking; a forked child reopens its connection).
    """

    def __init__(self, cache_dir: CacheDir = None, name: str = "llm", *, timeout: float = 60.0) -> None:
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

    def _disable(self, action: str, exc: BaseException) -> None:
        self._broken = True
        warnings.warn(f"LLM cache {self.path} disabled ({action} failed: {exc}); answers are not cached.",
                      RuntimeWarning, stacklevel=3)

    def _connection(self) -> sqlite3.Connection | None:
        if not self.enabled:
            return None
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        assert self.path is not None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
        except (OSError, sqlite3.Error) as exc:
            self._disable("opening", exc)
            return None
        self._conn, self._pid = conn, os.getpid()
        return conn

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """Decoded values of the keys present (absent keys are simply missing)."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        with self._lock:
            conn = self._connection()
            if conn is None or not wanted:
                return found
            try:
                for start in range(0, len(wanted), _SQL_CHUNK):
                    chunk = wanted[start : start + _SQL_CHUNK]
                    marks = ",".join("?" * len(chunk))
                    for key, value in conn.execute(f"SELECT key, value FROM answers WHERE key IN ({marks})", chunk):
                        found[key] = json.loads(value)
            except (sqlite3.Error, ValueError) as exc:
                self._disable("reading", exc)
                return {}
        return found

    def put_many(self, items: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> None:
        """Store JSON-serialisable values in one transaction."""
        pairs = items.items() if isinstance(items, Mapping) else items
        rows = [(key, json.dumps(value, ensure_ascii=False)) for key, value in pairs]
        if not rows:
            return
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    conn.executemany("INSERT OR REPLACE INTO answers (key, value) VALUES (?, ?)", rows)
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                self._disable("writing", exc)

    def __len__(self) -> int:
        with self._lock:
            conn = self._connection()
            return 0 if conn is None else int(conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def __repr__(self) -> str:
        return f"TextCache({str(self.path) if self.enabled else 'disabled'})"
