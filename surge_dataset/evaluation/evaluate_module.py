"""The one base class of every ``evaluate`` module in ``metrics/``: a declaration over the metric registry.

A module file names its metric and carries its doctested examples in its docstring (``evaluate``'s own
module checks run ``doctest.testmod`` on the module and want at least two examples)::

    import evaluate  # noqa: F401
    from surge_dataset.evaluation import evaluate_module

    class SHR(evaluate_module.SurgeMetricModule):
        metric_name = "shr"

The class name is the metric's name in CamelCase: ``evaluate`` names a module by its class
(``camelcase_to_snakecase``), and that name prefixes the keys of ``evaluate.combine``, so it has to be the
name the module is loaded by.

Its ``compute`` takes the same raw inputs as every other module (generated Markdown and the GT survey:
a survey id, a ``surveys.json`` record or its JSON text, mixed freely in one batch) and runs
:func:`surge_dataset.evaluation.compute`, the engine of ``surge evaluate``. This file imports
``evaluate``; nothing else in the package does (``evaluate`` costs seconds to import), so import it only
from an ``evaluate`` module.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any

import datasets
import evaluate

from surge_dataset.core.metadata import CODEBASE_URL, PAPER_URL, SURGE_BIBTEX
from surge_dataset.core.vocabulary import closest_hint
from surge_dataset.evaluation import compute, get_metric
from surge_dataset.evaluation.compute import compute_reusing, inputs_description

__all__ = ["INPUTS_DESCRIPTION", "SETTINGS", "SurgeMetricModule"]

#: Every module's inputs description, read off the settings declarations.
INPUTS_DESCRIPTION = inputs_description()

#: The keywords of every module's ``compute``: those of :func:`~surge_dataset.evaluation.compute` after its
#: inputs (``data``, ``judge``, the model objects, then every declared setting), with their defaults.
SETTINGS: dict[str, inspect.Parameter] = {
    name: parameter for name, parameter in inspect.signature(compute).parameters.items()
    if name not in ("metrics", "predictions", "references")
}


def _named_compute() -> Callable[..., dict[str, Any]]:
    """``_compute(self, predictions, references, *, data=None, ..., batch_size=32, ...)``: every setting a named
    keyword-only parameter, generated from the settings declarations.

    Why generated: ``evaluate`` requires ``_compute`` to name its settings (its module checks refuse ``**kwargs``),
    and the declarations are the one list of them (a new setting reaches the flag, ``compute()`` and the cards
    with no edit; written out here it would be a second copy to keep in step).
    """
    names = list(SETTINGS)
    source = (
        "def _compute(self, predictions, references, *, "
        + ", ".join(f"{name}=_defaults[{name!r}]" for name in names)
        + "):\n"
        + "    return self._surge_compute(predictions, references, {"
        + ", ".join(f"{name!r}: {name}" for name in names)
        + "})\n"
    )
    namespace: dict[str, Any] = {"_defaults": {name: p.default for name, p in SETTINGS.items()}}
    exec(compile(source, f"<{__name__}._compute>", "exec"), namespace)  # noqa: S102 - names are our identifiers
    function = namespace["_compute"]
    function.__qualname__ = "SurgeMetricModule._compute"
    function.__module__ = __name__
    function.__doc__ = "Score the batch with the registered metric ``metric_name`` (see ``inputs_description``)."
    return function


def _reference_text(reference: Any) -> Any:
    """A reference as the one string feature the modules declare: a survey id as its digits, a record as its JSON
    (anything else is left for ``evaluate`` to refuse). One feature for all three lets a batch mix them:
    ``evaluate`` picks a feature from the first example only, so an ``int64`` choice broke on a later record."""
    if isinstance(reference, int) and not isinstance(reference, bool):
        return str(reference)
    if isinstance(reference, Mapping):
        return json.dumps(dict(reference), ensure_ascii=False)
    return reference


class SurgeMetricModule(evaluate.Metric):
    """An ``evaluate`` module for the registered metric ``metric_name`` (set by the subclass)."""

    metric_name: str = ""

    def _info(self) -> evaluate.MetricInfo:
        metric = get_metric(self.metric_name)
        return evaluate.MetricInfo(
            description=f"SurGE metric '{metric.name}' ({', '.join(metric.keys)}): {metric.description}.",
            citation=SURGE_BIBTEX,
            inputs_description=INPUTS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string"),
                                        "references": datasets.Value("string")}),
            homepage=PAPER_URL,
            codebase_urls=[CODEBASE_URL],
        )

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """``evaluate``'s ``add_batch``, each reference first written as the one string feature."""
        if references is not None:
            references = [_reference_text(r) for r in references]
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """``evaluate``'s ``add``, the reference first written as the one string feature."""
        super().add(prediction=prediction, reference=_reference_text(reference), **kwargs)

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict[str, Any] | None:
        """``evaluate``'s ``compute``; a keyword that is no setting is a ``TypeError`` naming the metric and the
        closest setting (before ``evaluate`` stores the batch)."""
        for name in kwargs:
            if name not in SETTINGS:
                raise TypeError(f"{self.metric_name}: compute() got an unexpected keyword argument {name!r} "
                                f"({closest_hint(name, SETTINGS)}); see the module's inputs description")
        return super().compute(predictions=predictions, references=references, **kwargs)

    _compute = _named_compute()

    def _surge_compute(self, predictions: list[str], references: list[Any], given: dict[str, Any]) -> dict[str, Any]:
        """Only the settings the caller changed go on: ``compute`` applies its own defaults (and its rules for
        ``None``) to the rest."""
        settings = {name: value for name, value in given.items() if value is not SETTINGS[name].default}
        # the models built by one call serve the next: a module computed batch after batch loads its model once
        loaded = self.__dict__.setdefault("_surge_loaded_models", {})
        return compute_reusing(loaded, self.metric_name, predictions, references, **settings)
