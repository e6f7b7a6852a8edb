"""Unit-length text embeddings (dot product = cosine): the model behind SurGE's soft heading recall.

:class:`Embedder` wraps ``sentence_transformers.SentenceTransformer`` with the same engine as the NLI
scorer: duplicates encoded once, an on-disk cache, length-sorted batches, half precision on GPU.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from surge_dataset.core.cache import CacheDir
from surge_dataset.core.defaults import DEFAULT_EMBEDDING_MODEL
from surge_dataset.core.interfaces import TextEncoder
from surge_dataset.models.base import load_model, model_fingerprint, resolve_dtype
from surge_dataset.models.cache import EngineStats, ScoreCache, cached_vectors

if TYPE_CHECKING:
    import torch

__all__ = ["DEFAULT_EMBEDDING_MODEL", "EMBEDDING_METRICS", "Embedder", "TextEncoder", "l2_normalise"]

#: What fails without an embedding model (named in load errors).
EMBEDDING_METRICS: tuple[str, ...] = ("SHR",)


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length in float32; all-zero rows stay zero instead of becoming NaN."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


class Embedder:
    """L2-normalised float32 sentence embeddings with de-duplication, an on-disk cache and batching.

    ``cache_dir``: ``None`` = the default cache folder, ``False`` = no cache, else a folder.
    ``dtype``: ``None`` = fp16 on CUDA, fp32 otherwise; or ``"bf16"``, ``"fp32"``, a ``torch.dtype``.
    Outputs are always float32 and re-normalised after any half-precision model.
    """

    def __init__(
        self,
        model_name_or_path: str = DEFAULT_EMBEDDING_MODEL,
        device: str | None = None,
        batch_size: int = 64,
        cache_dir: CacheDir = None,
        dtype: str | torch.dtype | None = None,
        *,
        revision: str | None = None,
        needed_for: Sequence[str] = EMBEDDING_METRICS,
        flag: str = "--embedding-model",
    ) -> None:
        import torch
        from sentence_transformers import SentenceTransformer

        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        model_name_or_path = str(model_name_or_path)

        def load() -> Any:
            return SentenceTransformer(model_name_or_path, device=device, revision=revision)

        self.model = load_model(load, model_name_or_path, needed_for, flag)
        self.model.eval()
        self.dtype = resolve_dtype(dtype, self.model.device)
        if self.dtype != torch.float32:
            self.model.to(self.dtype)
        dimension = (
            getattr(self.model, "get_embedding_dimension", None)
            or self.model.get_sentence_embedding_dimension
        )
        self.dim: int | None = dimension()
        self.model_name_or_path = model_name_or_path
        self.batch_size = batch_size
        self.namespace = "|".join(
            [
                "embed-v1",
                model_fingerprint(model_name_or_path, revision),
                str(self.dtype).removeprefix("torch."),
                f"max_seq_length={self.model.max_seq_length}",
                "l2",
            ]
        )
        self.cache = ScoreCache(cache_dir, "embeddings")
        self.stats = EngineStats()

    def _compute(self, texts: list[str]) -> np.ndarray:
        import torch

        with torch.inference_mode():
            out = self.model.encode(
                texts,
                batch_size=self.batch_size,
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=True,
            )
        return l2_normalise(np.asarray(out, dtype=np.float32).reshape(len(texts), -1))

    item_length = staticmethod(len)  #: what batches are sorted by (characters), so a batch pads little

    @property
    def chunk_size(self) -> int:
        """Texts per model call (as :class:`~.nli.NLIScorer`: many batches, a small loss on a crash)."""
        return self.batch_size * 16

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array ``[len(texts), dim]`` of unit rows, in input order."""
        if isinstance(texts, str):
            raise TypeError("encode takes a list of texts, not a single string")
        clean = [str(text) for text in texts]
        keys = [ScoreCache.make_key(self.namespace, text) for text in clean]
        return cached_vectors(
            clean,
            keys=keys,
            compute=self._compute,
            cache=self.cache,
            length=self.item_length,
            chunk_size=self.chunk_size,
            dim=self.dim,
            stats=self.stats,
        )

    def __repr__(self) -> str:
        return f"Embedder({self.model_name_or_path!r}, dtype={self.dtype}, cache={self.cache!r})"
