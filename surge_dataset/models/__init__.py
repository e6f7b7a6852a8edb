"""Model layer: the NLI scorer, the embedder, NER, model identities, the on-disk cache they share, and the models
fetched ahead or bundled with the dev extras.

Importing this package is cheap: torch and sentence-transformers load only when a model is built.
"""

from surge_dataset.models.base import ModelLoadError
from surge_dataset.models.cache import EngineStats, ScoreCache
from surge_dataset.models.embed import DEFAULT_EMBEDDING_MODEL, Embedder, TextEncoder
from surge_dataset.models.nli import CANONICAL_LABELS, DEFAULT_NLI_MODEL, NLIBackend, NLIScorer

__all__ = [
    "CANONICAL_LABELS",
    "DEFAULT_EMBEDDING_MODEL",
    "DEFAULT_NLI_MODEL",
    "Embedder",
    "EngineStats",
    "ModelLoadError",
    "NLIBackend",
    "NLIScorer",
    "ScoreCache",
    "TextEncoder",
]
