"""How an evaluation run goes (batch sizes, caches, servers, timeouts): settings that never change a number, so
never in the journal key or the results' config (:mod:`.config` holds the ones that do)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from surge_dataset.core.settings import setting
from surge_dataset.references.registry import rates_help

__all__ = ["RunOptions"]


@dataclass
class RunOptions:
    """How an evaluation run goes: never changes a number, so never in the journal key or the results' config."""

    batch_size: int = setting(32, key="never", help="Model batch size (NLI, embedder, NER).")
    cache_dir: Path | None = setting(
        None, key="never", help="Model-output cache folder (default $SURGE_CACHE or ~/.cache/surge).")
    base_url: str | None = setting(
        None, key="never", help="OpenAI-compatible server for openai: judges (vLLM, llama.cpp).")
    judge_concurrency: int = setting(8, key="never", help="Judge requests in flight at once (openai: judges).")
    judge_timeout: float = setting(120.0, key="never", help="Seconds per judge request before it is retried.")
    judge_batch_size: int = setting(8, key="never", help="Prompts per batch for hf:/gguf: judges.")
    bib_base_url: list[str] = setting(
        default_factory=list, key="never", metavar="SERVICE=URL", cli_type=list[str],
        help="Base URL of a bibliographic service (repeatable), for a mirror or a test server, e.g. "
             "openalex=http://127.0.0.1:8000.")
    bib_rate_limit: list[str] = setting(
        default_factory=list, key="never", metavar="SERVICE=N", cli_type=list[str],
        help=f"Requests per second to a bibliographic service (repeatable; defaults: {rates_help()}).")
    bib_timeout: float = setting(30.0, key="never", help="Seconds per bibliographic request before it is retried.")
    bib_max_retries: int = setting(
        4, key="never", help="Retries of a bibliographic request after a 429, a 5xx or a network error.")
    bib_concurrency: int = setting(4, key="never", help="Bibliographic requests in flight at once, per service.")
