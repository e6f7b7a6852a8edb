"""Model layer: NLI scorer, embedder and the on-disk cache they share.

Importing this package is cheap: torch and sentence-transformers load only when a model is built.
"""

from .base import ModelLoadError
from .cache import CacheDir, EngineStats, ScoreCache, default_cache_dir
from .embed import DEFAULT_EMBEDDING_MODEL, Embedder, TextEncoder
from .nli import CANONICAL_LABELS, DEFAULT_NLI_MODEL, NLIBackend, NLIScorer

__all__ = [
    "CANONICAL_LABELS",
    "CacheDir",
    "DEFAULT_EMBEDDING_MODEL",
    "DEFAULT_NLI_MODEL",
    "Embedder",
    "EngineStats",
    "ModelLoadError",
    "NLIBackend",
    "NLIScorer",
    "ScoreCache",
    "TextEncoder",
    "default_cache_dir",
]
