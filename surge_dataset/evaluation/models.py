"""The models of an evaluation run, built once, wrapped so that a whole run's inputs are scored together.

The backends (``models.nli.NLIScorer``, ``models.embed.Embedder``, ``llm.Judge``, ``models.ner``)
already batch, length-sort and cache on disk; asking them once per run instead of once per survey lets
one sort cover all surveys and skips repeated cache look-ups.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from surge_dataset.core.vocabulary import MODEL_KINDS
from surge_dataset.evaluation.metric import ModelSet
from surge_dataset.evaluation.run_options import RunOptions

__all__ = ["MODEL_OPTIONS", "LazyModel", "Prefetched", "PrefetchedEncoder", "PrefetchedNLI", "build_models", "is_built", "judge_report",
           "model_factories", "model_needs", "unwrap"]


class LazyModel:
    """A model built by its factory on first use: a run whose surveys ask it nothing never loads it."""

    def __init__(self, factory: Callable[[], Any]):
        self._factory = factory
        self._model: Any = None

    @property
    def built(self) -> bool:
        return self._model is not None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._model is None:
            self._model = self._factory()
        return getattr(self._model, name)


def unwrap(model: Any) -> Any:
    """The model inside a built :class:`LazyModel` (None for one never built); other objects as they are."""
    return model._model if isinstance(model, LazyModel) else model


def is_built(model: Any) -> bool:
    """False for a :class:`LazyModel` never used (and for None)."""
    return model is not None and (not isinstance(model, LazyModel) or model.built)


class Prefetched:
    """Computes every input of a run in one de-duplicated call and keeps the rows (the run's answers read them,
    :mod:`.answers`; a metric never asks this wrapper while it scores)."""

    def __init__(self, compute: Any, width: int = 0):
        self.unsharded_compute = compute
        self._compute = compute
        self._width = width
        self._memo: dict[Any, np.ndarray] = {}

    def shard_with(self, compute: Callable[[list[Any]], Any] | None) -> None:
        """Compute new inputs with ``compute`` (split between processes, :mod:`.parallel`); None: here alone."""
        self._compute = compute or self.unsharded_compute

    def prefetch(self, items: Sequence[Any]) -> None:
        todo = list(dict.fromkeys(item for item in items if item not in self._memo))
        if todo:
            for item, row in zip(todo, np.asarray(self._compute(todo)), strict=True):
                self._memo[item] = row

    def stored(self, items: Sequence[Any]) -> list[np.ndarray]:
        """The kept row of each of ``items`` (all prefetched), not copied."""
        return [self._memo[item] for item in items]

    def _rows(self, items: Sequence[Any]) -> np.ndarray:
        self.prefetch(items)
        return np.stack([self._memo[i] for i in items]) if items else np.zeros((0, self._width))


class PrefetchedNLI(Prefetched):
    """NLI logits for all (first, second) pairs of a run."""

    def __init__(self, backend: Any):
        super().__init__(lambda pairs: backend.logits(pairs), width=3)
        self.backend = backend

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return self._rows(pairs)


class PrefetchedEncoder(Prefetched):
    """Embeddings for all the texts a run's embedding metrics encode."""

    def __init__(self, backend: Any):
        super().__init__(lambda texts: backend.encode(texts))
        self.backend = backend

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._rows(texts)


_WRAPPERS: dict[str, Callable[[Any], Any]] = {"nli": PrefetchedNLI, "encoder": PrefetchedEncoder}


def build_models(
    needs: set[str], given: Mapping[str, Any], factories: Mapping[str, Callable[[], Any] | None]
) -> ModelSet:
    """A :class:`ModelSet` with each needed kind: the given object, else its factory's (built on first use).

    Kinds nobody needs stay ``None``, and a factory runs only when a survey really asks its model
    something: no model is loaded for nothing. A missing factory for a needed kind is a usage error.
    """
    models: dict[str, Any] = {}
    for kind in MODEL_KINDS:
        if kind not in needs:
            continue
        model = given.get(kind)
        if model is None:
            factory = factories.get(kind)
            if factory is None:
                raise ValueError(f"the selected metrics need a {kind} model: pass {kind}= or {kind}_factory=")
            model = LazyModel(factory)
        wrap = _WRAPPERS.get(kind)
        models[kind] = wrap(model) if wrap is not None and not isinstance(model, Prefetched) else model
    return ModelSet(**models)


def judge_report(judge: Any) -> dict[str, Any]:
    """What the judge did in this invocation (requests, cache hits, retries, missing), never secrets."""
    report: dict[str, Any] = {"spec": getattr(judge, "spec", None)}
    llm = getattr(judge, "llm", None)
    if llm is not None:
        from surge_dataset.core.http import redact_url

        report["base_url"] = redact_url(getattr(llm.backend, "base_url", None))
        report["llm"] = llm.stats.as_dict()
    stats = getattr(judge, "stats", None)
    if stats is not None and hasattr(stats, "as_dict"):
        report["judge"] = stats.as_dict()
    return report


#: Model kind -> the config field naming its model and the ``surge evaluate`` option that sets it.
MODEL_OPTIONS: dict[str, tuple[str, str]] = {
    "nli": ("nli_model", "--nli-model"), "encoder": ("embedding_model", "--embedding-model"),
    "ner": ("ner_model", "--ner-model"),
}


def model_needs(config: Any) -> list[Any]:
    """The models a run under ``config`` loads, as :class:`~surge_dataset.models.availability.ModelNeed` (name,
    option, the metrics that need it) for :func:`~surge_dataset.models.availability.preflight`: NLI, embedding
    and NER models, and a local judge (``hf:``, ``gguf:``; a server judge loads nothing here)."""
    from surge_dataset.core.vocabulary import GGUF, HF
    from surge_dataset.evaluation.config import selected_metrics
    from surge_dataset.llm.base import BackendSpec, LLMConfigurationError
    from surge_dataset.models.availability import ModelNeed

    metrics = selected_metrics(config)
    needs = []
    for kind, (field, flag) in MODEL_OPTIONS.items():
        users = [m.name for m in metrics if kind in m.active_needs(config)]
        if users:
            needs.append(ModelNeed.named(getattr(config, field), flag, users))
    users = [m.name for m in metrics if "judge" in m.active_needs(config)]
    spec = BackendSpec.parse(config.judge) if users and config.judge else None
    if spec is not None and spec.kind == HF:
        need = ModelNeed.named(spec.model, "--judge", users)
        needs.append(ModelNeed(f"hf:{spec.model}", need.flag, need.needed_for, repo=need.repo, local=need.local))
    elif spec is not None and spec.kind == GGUF:
        from surge_dataset.llm.local import gguf_location

        local = Path(spec.model).expanduser()
        try:
            source, file = gguf_location(spec.model)  # a local file, else org/repo/file.gguf on the Hub
        except LLMConfigurationError:  # neither: the check says "no such file"
            source, file = "", local.name
        hub = bool(source) and not local.is_file()
        needs.append(ModelNeed(f"gguf:{spec.model}", "--judge", tuple(users), repo=source if hub else None, file=file,
                               local=None if hub else local))
    return needs


def model_factories(config: Any, options: RunOptions | None = None, *, device: str | None = None
                    ) -> dict[str, Callable[[], Any]]:
    """How to build each model kind from a config (names, device, precision) and the run options (batch
    sizes, cache, server): the CLI and :func:`~surge_dataset.evaluation.compute` share these, so both load
    models one way. ``device``: this process's own GPU under ``accelerate launch`` (instead of
    ``config.device``, which names the kind of device for every process)."""
    run = options or RunOptions()
    batch_size, cache_dir, device = run.batch_size, run.cache_dir, device or config.device

    def nli() -> Any:
        from surge_dataset.models.nli import NLIScorer

        return NLIScorer(config.nli_model, device=device, dtype=config.dtype, batch_size=batch_size,
                         cache_dir=cache_dir)

    def encoder() -> Any:
        from surge_dataset.models.embed import Embedder

        return Embedder(config.embedding_model, device=device, dtype=config.embedding_dtype,
                        batch_size=batch_size, cache_dir=cache_dir)

    def judge() -> Any:
        from surge_dataset.llm import Judge, make_llm

        if not config.judge:
            raise ValueError("the selected metrics need an LLM judge: pass judge= (e.g. openai:gpt-4o)")
        llm = make_llm(config.judge, base_url=run.base_url, concurrency=run.judge_concurrency,
                       timeout=run.judge_timeout, device=device, batch_size=run.judge_batch_size,
                       cache_dir=cache_dir)
        extra = {"sample_temperature": config.judge_temperature} if config.judge_temperature else {}
        return Judge(llm, max_tries=config.judge_max_tries, weighted=config.judge_weighted, **extra)

    def ner() -> Any:
        from surge_dataset.models.ner import NERExtractor

        return NERExtractor(config.ner_model, device=device, batch_size=batch_size)

    return {"nli": nli, "encoder": encoder, "judge": judge, "ner": ner}
