"""One LLM layer for judges and baselines: ``openai:``, ``hf:`` and ``gguf:`` backends behind one cache.

``make_llm("openai:gpt-4o")`` -> :class:`LLM` (``generate`` / ``probabilities``); :class:`Judge` turns
it into scores with bounded tries. Importing this package is cheap: ``openai``, ``torch`` and
``transformers`` load on the first request that misses the cache.
"""

from surge_dataset.llm.base import (
    BackendSpec,
    Completion,
    Conversation,
    GenerationSettings,
    LLMConfigurationError,
    LLMError,
    LLMStats,
    as_conversation,
)
from surge_dataset.llm.client import LLM, make_llm
from surge_dataset.llm.judge import Judge, JudgeOutcome, JudgeRequest, JudgeStats
from surge_dataset.llm.openai_backend import API_KEY_ENV_VARS
from surge_dataset.llm.parse import parse_points, parse_score

__all__ = [
    "API_KEY_ENV_VARS",
    "BackendSpec",
    "Completion",
    "Conversation",
    "GenerationSettings",
    "Judge",
    "JudgeOutcome",
    "JudgeRequest",
    "JudgeStats",
    "LLM",
    "LLMConfigurationError",
    "LLMError",
    "LLMStats",
    "as_conversation",
    "make_llm",
    "parse_points",
    "parse_score",
]
