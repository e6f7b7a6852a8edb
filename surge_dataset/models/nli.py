"""NLI logits for (premise, hypothesis) pairs: the model behind SurGE's Doc-, Sec- and Sent-Acc.

:class:`NLIScorer` wraps ``sentence_transformers.CrossEncoder`` and adds what a benchmark run needs:
duplicate pairs scored once, an on-disk cache, length-sorted batches, half precision on GPU, and logits
always returned in one canonical column order read from the model's config (never assumed).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from surge_dataset.core.cache import CacheDir
from surge_dataset.core.defaults import DEFAULT_NLI_MODEL
from surge_dataset.core.errors import SurgeError
from surge_dataset.core.interfaces import NLIBackend, Pair
from surge_dataset.models.base import load_model, model_fingerprint, resolve_dtype
from surge_dataset.models.cache import EngineStats, ScoreCache, cached_vectors

if TYPE_CHECKING:
    import torch

__all__ = [
    "CANONICAL_LABELS",
    "DEFAULT_NLI_MODEL",
    "NLI_METRICS",
    "NLIBackend",
    "NLIScorer",
    "canonical_permutation",
]

#: Column order of every ``logits`` array this package hands out.
CANONICAL_LABELS: tuple[str, str, str] = ("contradiction", "entailment", "neutral")
#: What fails without an NLI model (named in load errors).
NLI_METRICS: tuple[str, ...] = ("Doc-Acc", "Sec-Acc", "Sent-Acc")

LogitsFn = Callable[[list[Pair]], np.ndarray]


class NotAnNLIModelError(SurgeError, ValueError):
    """A model that loads but has no contradiction/entailment/neutral labels (e.g. an embedding model)."""


def canonical_permutation(id2label: Any) -> list[int]:
    """Model column index for each canonical label, matching label names case-insensitively.

    ``id2label`` is a model config's mapping (int or str keys). A model without the three NLI labels
    is refused: guessing its order would silently swap entailment and contradiction.
    """
    if not id2label:
        raise ValueError(
            "the NLI model's config has no id2label mapping; it must name its labels "
            f"{', '.join(CANONICAL_LABELS)} so their order can be read instead of guessed"
        )
    names = {int(index): str(label).strip().lower() for index, label in dict(id2label).items()}
    permutation = []
    for wanted in CANONICAL_LABELS:
        hits = [index for index, name in names.items() if name == wanted]
        if len(hits) != 1:
            raise ValueError(
                f"the NLI model's id2label {dict(sorted(names.items()))} does not name exactly one "
                f"'{wanted}' label; an NLI model with labels {', '.join(CANONICAL_LABELS)} is required"
            )
        permutation.append(hits[0])
    if len(names) != len(CANONICAL_LABELS) or sorted(names) != list(range(len(names))):
        raise ValueError(f"the NLI model must have exactly 3 labels numbered 0-2, got id2label {names}")
    return permutation


class NLIScorer:
    """Canonical-order NLI logits with de-duplication, an on-disk cache and length-sorted batching.

    Pairs are fed to the model exactly as given, ``(first, second)``: choosing which of premise and
    hypothesis goes first (the released SurGE evaluator swaps them at two levels) is the caller's job.
    ``label_order`` names the columns of :meth:`logits` (always :data:`CANONICAL_LABELS`);
    ``model_label_order`` is the model's own order from its config.

    ``cache_dir``: ``None`` = the default cache folder, ``False`` = no cache, else a folder.
    ``dtype``: ``None`` = fp16 on CUDA, fp32 otherwise; or ``"bf16"``, ``"fp32"``, a ``torch.dtype``.
    """

    label_order: tuple[str, ...] = CANONICAL_LABELS

    def __init__(
        self,
        model_name_or_path: str = DEFAULT_NLI_MODEL,
        device: str | None = None,
        batch_size: int = 32,
        cache_dir: CacheDir = None,
        dtype: str | torch.dtype | None = None,
        *,
        max_length: int | None = None,
        revision: str | None = None,
        needed_for: Sequence[str] = NLI_METRICS,
        flag: str = "--nli-model",
    ) -> None:
        import torch
        from sentence_transformers import CrossEncoder

        model_name_or_path = str(model_name_or_path)

        def load() -> Any:
            return CrossEncoder(model_name_or_path, device=device, max_length=max_length, revision=revision)

        self.model = load_model(load, model_name_or_path, needed_for, flag)
        # Outside load_model: a model with the wrong labels loads fine and deserves its own message.
        try:
            permutation = canonical_permutation(self.model.model.config.id2label)
        except ValueError as exc:
            raise NotAnNLIModelError(f"{flag} {model_name_or_path} is not an NLI cross-encoder ({exc}); "
                                     f"{', '.join(needed_for)} need one, e.g. {DEFAULT_NLI_MODEL}") from None
        self.model.eval()
        self.dtype = resolve_dtype(dtype, self.model.device)
        if self.dtype != torch.float32:
            self.model.to(self.dtype)
        id2label = self.model.model.config.id2label
        model_order = tuple(str(id2label[i]).lower() for i in sorted(id2label, key=int))
        max_len = getattr(self.model, "max_seq_length", None) or getattr(
            self.model.tokenizer, "model_max_length", ""
        )
        namespace = "|".join(
            [
                "nli-v1",
                model_fingerprint(model_name_or_path, revision),
                str(self.dtype).removeprefix("torch."),
                f"max_length={max_len}",
            ]
        )
        predict_kwargs: dict[str, Any] = {"batch_size": batch_size, "show_progress_bar": False}
        params = inspect.signature(self.model.predict).parameters
        # Raw logits whatever activation a model config asks for (the keyword was renamed in v4).
        if "activation_fn" in params:
            predict_kwargs["activation_fn"] = torch.nn.Identity()
        elif "activation_fct" in params:
            predict_kwargs["activation_fct"] = torch.nn.Identity()

        def raw_logits(pairs: list[Pair]) -> np.ndarray:
            with torch.inference_mode():
                out = self.model.predict([list(pair) for pair in pairs], **predict_kwargs)
            return np.asarray(out, dtype=np.float32).reshape(len(pairs), -1)

        self._setup(raw_logits, model_order, permutation, namespace, batch_size, ScoreCache(cache_dir, "nli"))
        self.model_name_or_path = model_name_or_path

    def _setup(
        self,
        raw_logits: LogitsFn,
        model_order: tuple[str, ...],
        permutation: list[int],
        namespace: str,
        batch_size: int,
        cache: ScoreCache,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self._raw_logits = raw_logits
        self.model_label_order = model_order
        self._permutation = permutation
        self.namespace = namespace
        self.batch_size = batch_size
        self.cache = cache
        self.stats = EngineStats()

    @classmethod
    def from_logits_fn(
        cls,
        fn: LogitsFn,
        label_order: Sequence[str] = CANONICAL_LABELS,
        *,
        name: str = "injected",
        batch_size: int = 32,
        cache_dir: CacheDir = False,
    ) -> NLIScorer:
        """A scorer around ``fn(pairs) -> logits`` (columns in ``label_order``) instead of a model.

        Goes through the same de-duplication, cache and reordering as a real model, so scoring code and
        its tests exercise one path. The cache is off by default: ``name`` alone cannot tell two
        functions apart.
        """
        scorer = cls.__new__(cls)
        order = tuple(str(label).lower() for label in label_order)
        permutation = canonical_permutation(dict(enumerate(order)))
        scorer._setup(fn, order, permutation, f"nli-v1|fn|{name}", batch_size, ScoreCache(cache_dir, "nli"))
        scorer.model = None
        scorer.model_name_or_path = name
        scorer.dtype = None
        return scorer

    def _compute(self, pairs: list[Pair]) -> np.ndarray:
        raw = np.asarray(self._raw_logits(pairs), dtype=np.float32)
        if raw.shape != (len(pairs), len(CANONICAL_LABELS)):
            raise ValueError(
                f"NLI backend returned shape {raw.shape} for {len(pairs)} pairs; expected (n, 3)"
            )
        return raw[:, self._permutation]

    @staticmethod
    def item_length(pair: Pair) -> int:
        """What batches are sorted by (characters of both texts): pairs of a batch pad little."""
        return len(pair[0]) + len(pair[1])

    @property
    def chunk_size(self) -> int:
        """Pairs per model call: many batches (fewer Python round trips), few enough that a crash loses little."""
        return self.batch_size * 16

    def logits(self, pairs: Sequence[Pair]) -> np.ndarray:
        """float32 array ``[len(pairs), 3]``, columns (contradiction, entailment, neutral), rows in input order."""
        if len(pairs) == 2 and all(isinstance(part, str) for part in pairs):
            raise TypeError("logits takes a list of (premise, hypothesis) pairs, not a single pair")
        clean = [(str(first), str(second)) for first, second in pairs]
        keys = [ScoreCache.make_key(self.namespace, first, second) for first, second in clean]
        return cached_vectors(
            clean,
            keys=keys,
            compute=self._compute,
            cache=self.cache,
            length=self.item_length,
            chunk_size=self.chunk_size,
            dim=len(CANONICAL_LABELS),
            stats=self.stats,
        )

    def __repr__(self) -> str:
        return f"NLIScorer({self.model_name_or_path!r}, dtype={self.dtype}, cache={self.cache!r})"
