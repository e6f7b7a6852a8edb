"""On-disk cache of LLM answers: ``<cache dir>/llm.sqlite``, beside the NLI and embedding caches.

Same conventions as :class:`surge_dataset.models.cache.ScoreCache` (same folder rules via
:func:`resolve_cache_dir`, SQLite in WAL mode, one transaction per write, warn once and carry on
without a cache if the file cannot be used), but the values are JSON text, because answers are text.
Every answer is written as soon as it arrives, so a crashed run loses at most the requests in flight.
"""

from __future__ import annotations

import json
from typing import Any

from surge_dataset.models.cache import CacheDir, ScoreCache, SqliteStore

__all__ = ["TextCache", "make_key"]

def make_key(namespace: str, *parts: str) -> str:
    """Length-prefixed hash of the parts (the same hashing as the score cache)."""
    return ScoreCache.make_key(namespace, *parts)


class TextCache(SqliteStore):
    """LLM answers as JSON text in ``<cache_dir>/<name>.sqlite`` (default name ``llm``)."""

    _table = "answers"
    _value_type = "TEXT"
    _what = "LLM cache"

    def __init__(self, cache_dir: CacheDir = None, name: str = "llm", *, timeout: float = 60.0) -> None:
        super().__init__(cache_dir, name, timeout=timeout)

    def _encode(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    def _decode(self, raw: str) -> Any:
        return json.loads(raw)
