"""The one on-disk cache of surge-bench: model outputs (NLI logits, embeddings), LLM answers, bibliographic look-ups
and ``surge data fresh``'s answers, so reruns and resumed runs skip the work.

One SQLite file per kind (``nli.sqlite``, ``embeddings.sqlite``, ``llm.sqlite``, ``references.sqlite``,
``fresh.sqlite``) in the cache folder (:func:`resolve_cache_dir`), opened in WAL mode: many processes can read while
one writes, every ``put_many`` is one transaction (a crash loses at most the batch being written, never corrupts
what was there), and nothing needs a server. Keys are hashes of (namespace, *texts) (:func:`make_key`), where the
namespace pins whatever changes the value (a model and its exact weights, a prompt version, a service).
:class:`SqliteStore` is the store; each user is a thin keyed store on it that only says how a value is kept:
:class:`JsonStore` (JSON text: LLM answers, look-ups) here, ``ScoreCache`` (float32 vectors) in
:mod:`surge_dataset.models.cache`.

WAL needs a local file system (not NFS): on clusters point ``cache_dir``/``$SURGE_CACHE`` at local disk.
The cache is an optimisation: if the file cannot be opened or written (read-only disk, another process
holding the write lock for too long, a damaged file) it warns once and carries on without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

__all__ = ["CacheDir", "JsonStore", "SqliteStore", "default_cache_dir", "make_key", "resolve_cache_dir"]

#: ``None`` -> :func:`default_cache_dir`; ``False`` -> no cache at all; a path -> that folder.
CacheDir = str | os.PathLike[str] | Literal[False] | None

_SQL_CHUNK = 500  # stays under SQLite's historical 999 bound-variables limit


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


def make_key(namespace: str, *texts: str) -> str:
    """Hash of the namespace and texts; length-prefixed so ("ab", "c") and ("a", "bc") differ."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (namespace, *texts):
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


class SqliteStore:
    """A persistent map from hashed keys to values in ``<cache_dir>/<name>.sqlite`` (one table).

    The one implementation of the on-disk caches (module docstring); subclasses only say how a value is stored
    (:meth:`_encode` / :meth:`_decode`) and in which table. ``cache_dir=None`` uses
    :func:`default_cache_dir`; ``cache_dir=False`` gives a disabled store whose ``get_many`` always
    misses and whose ``put_many`` does nothing, so callers never need a branch. Safe to share between
    threads (one lock) and between processes (SQLite WAL locking; a forked child reopens its own
    connection). A file that cannot be used warns once and the run carries on without it.
    """

    _table = "kv"
    _value_type = "BLOB"
    _what = "cache"
    #: The key of a value: :func:`make_key` (``ScoreCache.make_key(namespace, *texts)``).
    make_key = staticmethod(make_key)

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


class JsonStore(SqliteStore):
    """JSON values (LLM answers, look-up answers) as text in ``<cache_dir>/<name>.sqlite``, table ``answers``.

    Every answer is written as soon as it arrives, so a crashed run loses at most the requests in flight. The
    table and its layout are those of the LLM answer cache since its first version: existing files read as they are.
    """

    _table = "answers"
    _value_type = "TEXT"

    def __init__(self, cache_dir: CacheDir = None, name: str = "llm", *, timeout: float = 60.0) -> None:
        super().__init__(cache_dir, name, timeout=timeout)
        self._what = f"{name} cache"

    def _encode(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    def _decode(self, raw: str) -> Any:
        return json.loads(raw)
