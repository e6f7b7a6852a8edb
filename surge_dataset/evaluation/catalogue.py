"""The metric registry as read: the built-in metrics (every module of :mod:`surge_dataset.evaluation.metrics`) and
the ``surge.metrics`` entry points registered on first read, in the cards' order; a metric by name; the range
each result key may take.

Kept apart from :mod:`.metric` (the interface and :func:`~.metric.register`), which every metric module imports:
this module imports the metric modules, so the two directions never meet in one module.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Sequence
from importlib import metadata
from typing import Any

from surge_dataset.core.vocabulary import UnknownNameError
from surge_dataset.evaluation.metric import ENTRY_POINT_GROUP, Metric, register, registry_storage

__all__ = ["UNCLIPPED_SLACK", "get_metric", "higher_is_better", "metric_of_key", "registry", "value_range"]

_LOADED = False


def registry() -> dict[str, Metric]:
    """Every known metric by name, in registration order (built-ins first, then entry points)."""
    global _LOADED
    if not _LOADED:
        _LOADED = True
        from surge_dataset.evaluation import metrics as builtin

        for module in pkgutil.iter_modules(builtin.__path__):
            importlib.import_module(f"{builtin.__name__}.{module.name}")
        for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
            register(entry.load())
    registered = registry_storage()
    if list(registered) != sorted(registered, key=lambda n: registered[n].order):
        ordered = sorted(registered.values(), key=lambda m: m.order)  # stable: ties keep registration order
        registered.clear()
        registered.update((m.name, m) for m in ordered)
    return registered


def get_metric(name: str) -> Metric:
    """The registered metric ``name``; :class:`~surge_dataset.core.vocabulary.UnknownNameError` (a ``KeyError``)
    naming the closest registered name otherwise."""
    try:
        return registry()[name]
    except KeyError:
        raise UnknownNameError("metric", name, registry()) from None


def metric_of_key(key: str) -> Metric | None:
    """The registered metric that writes the per-survey result key ``key`` (one of its ``keys``, its weighted key,
    or ``<key>_std`` over judge repeats); None for a key no registered metric declares. The one rule of which keys
    a results file may hold: a reader shows no value under a key that no metric declares."""
    base = key.removesuffix("_std")
    for metric in registry().values():
        if key in metric.keys or key == metric.weighted_key or (base != key and base in metric.keys):
            return metric
    return None


def higher_is_better(key: str) -> bool:
    """Whether a larger value of the result key ``key`` is better: its metric's ``key_directions`` entry, else the
    metric's ``higher_is_better``. ``<key>_std`` (judge noise) and the weighted key follow their base key; a key no
    registered metric declares is taken as higher-is-better, as every SurGE column is. The one rule that meta-eval,
    the report's bold and the leaderboard's ordering read."""
    metric = metric_of_key(key)
    if metric is None:
        return True
    base = key.removesuffix("_std") if key.removesuffix("_std") in metric.keys else key
    return metric.key_directions.get(base, metric.higher_is_better)


#: How far outside its range an unclipped value may stray (a share of the range's width).
UNCLIPPED_SLACK = 0.25


def value_range(key: str) -> tuple[float, float] | None:
    """The values a result key may take, as its card gives them: ``<key>_std`` (judge repeats, ddof=1) at most
    half the range's width times sqrt(2); an unclipped metric's range widened by :data:`UNCLIPPED_SLACK`.
    None for a key no registered metric declares a range for."""
    metrics = tuple(registry().values())
    if _RANGES.get("registry") != metrics:  # read once per registry state: a results file asks per survey and key
        _RANGES.clear()
        _RANGES["registry"] = metrics
    if key not in _RANGES:
        _RANGES[key] = _declared_range(key, metrics)
    return _RANGES[key]


_RANGES: dict[str, Any] = {}


def _declared_range(key: str, metrics: Sequence[Metric]) -> tuple[float, float] | None:
    for metric in metrics:
        for base in (key, key.removesuffix("_std")):
            if base in metric.keys or base == metric.weighted_key:
                declared = metric.key_ranges.get(base, metric.value_range)
                if declared is None:
                    return None
                low, high = declared
                if base != key:
                    return (0.0, (high - low) / 2**0.5) if metric.judged else None
                slack = 0.0 if metric.clipped else UNCLIPPED_SLACK * (high - low)
                return low - slack, high + slack
    return None
