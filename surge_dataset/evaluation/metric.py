"""What a metric is to the evaluator: a declaration (name, keys, models it needs) and two methods.

The runner (:mod:`.runner`) knows no metric by name. It asks every selected metric what model
inputs it will need for the whole run (:meth:`Metric.requests`), scores them once per model kind,
then asks each metric to :meth:`Metric.score` each survey from the answers to those inputs
(:class:`~.answers.Answers`: the calls of the models, serving only what the metric requested). Adding a
metric is one file in ``surge_dataset/evaluation/metrics/`` (found automatically) or a third-party
package exposing it in the ``surge.metrics`` entry-point group, plus its ``metrics/<name>/`` folder
for ``evaluate`` (see docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from surge_dataset.core.diagnostics import Diagnostic, diagnostic
from surge_dataset.core.interfaces import NLIBackend, TextEncoder
from surge_dataset.core.vocabulary import MODEL_KINDS
from surge_dataset.llm.judge import JudgeRequest
from surge_dataset.scoring.heading_recall import EntityExtractor
from surge_dataset.scoring.judges import ScoreJudge

if TYPE_CHECKING:
    from surge_dataset.evaluation.config import EvaluationConfig
    from surge_dataset.evaluation.prepare import PreparedSurvey

__all__ = [
    "MODEL_KINDS",
    "Diagnostic",
    "Metric",
    "MetricOutput",
    "ModelSet",
    "diagnostic",
    "Requests",
    "needed_models",
    "register",
    "unregister",
]

ENTRY_POINT_GROUP = "surge.metrics"


@dataclass
class Requests:
    """Model inputs one survey's metric will ask for: prefetched for the whole run in one batch each."""

    nli: list[tuple[str, str]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # for the sentence encoder
    judge: list[JudgeRequest | None] = field(default_factory=list)
    ner: list[str] = field(default_factory=list)

    def extend(self, other: Requests) -> None:
        self.nli += other.nli
        self.texts += other.texts
        self.judge += other.judge
        self.ner += other.ner


@dataclass
class MetricOutput:
    """One metric's part of a survey's result: values under its keys, counts, diagnostics, details."""

    values: dict[str, float | None]
    counts: dict[str, int] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    details: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ModelSet:
    """The models of a run (prefetching wrappers), ``None`` where no selected metric needs the kind."""

    nli: NLIBackend | None = None
    encoder: TextEncoder | None = None
    judge: ScoreJudge | None = None
    ner: EntityExtractor | None = None

    def prefetch(self, requests: Requests) -> None:
        """Score every request once per model kind (de-duplicated, length-sorted, cached).

        The run's NLI and encoder are prefetching wrappers (``evaluation/models.py``); a model without ``prefetch``
        is not asked here. The runner prefetches through :class:`~.answers.RunAnswers` instead, which keeps every
        answer by input; this is what a staged metric's ``prefetch`` calls on the models it is handed.
        """
        if requests.nli and self.nli is not None:
            _prefetch(self.nli, requests.nli)
        if requests.texts and self.encoder is not None:
            _prefetch(self.encoder, requests.texts)
        if requests.judge and self.judge is not None:
            self.judge.run([r for r in requests.judge if r is not None])
        if requests.ner and self.ner is not None:
            self.ner.entities(requests.ner)


def _prefetch(model: object, items: Sequence[object]) -> None:
    prefetch = getattr(model, "prefetch", None)
    if prefetch is not None:
        prefetch(items)


class Metric:
    """Base class of every metric of ``surge evaluate``; subclasses declare and implement.

    Class attributes:

    ``name``      the metric group (``--metrics NAME``, ``metrics/<name>/``);
    ``keys``      the result keys it writes;
    ``needs``     model kinds from :data:`MODEL_KINDS` (``corpus``: references must resolve);
    ``groups``    aliases it belongs to (``all``: the SurGE metrics; ``surveygen``);
    ``judged``    needs an LLM judge (left out of an alias without ``--judge``);
    ``released_zero``  an undefined value counts 0 under ``--aggregate released`` (the released
                  evaluator's objective metrics);
    ``weighted_key``   the probability-weighted key a judged metric adds with ``--judge-weighted``;
    ``description``    one line for listings and the ``evaluate`` card;
    ``order``     position among the metrics;
    ``version``   the scoring code's version: raised when a fix changes the metric's numbers;
    ``value_range``  (low, high) of every key's value (its card's "Range"), ``key_ranges`` the keys with
                  another one, ``clipped`` False when values may stray slightly outside (raw cosines): what a
                  results file from someone else may hold (:func:`value_range`);
    ``higher_is_better``  the direction of every key (what ranks, bolds and meta-evaluation read), and
                  ``key_directions`` the keys with the other one (``quiz_unanswered``: lower is better), read
                  through :func:`~surge_dataset.evaluation.catalogue.higher_is_better`.
    """

    name: ClassVar[str]
    keys: ClassVar[tuple[str, ...]]
    needs: ClassVar[frozenset[str]] = frozenset()
    groups: ClassVar[tuple[str, ...]] = ()
    judged: ClassVar[bool] = False
    released_zero: ClassVar[bool] = False
    weighted_key: ClassVar[str | None] = None
    description: ClassVar[str] = ""
    #: Position in listings, results and ``--metrics all`` (built-ins use 10, 20, ...; others come after).
    order: ClassVar[int] = 1000
    #: Raised with each fix that changes this metric's numbers. Above 1 it enters the journal key of runs
    #: that select the metric, so a resumed run never mixes surveys scored before and after the fix.
    version: ClassVar[int] = 1
    value_range: ClassVar[tuple[float, float] | None] = None
    key_ranges: ClassVar[dict[str, tuple[float, float]]] = {}
    clipped: ClassVar[bool] = True
    #: Whether a larger value is a better survey; a key of the other direction is listed in ``key_directions``.
    higher_is_better: ClassVar[bool] = True
    key_directions: ClassVar[dict[str, bool]] = {}

    def active_needs(self, config: EvaluationConfig) -> frozenset[str]:
        """The model kinds this metric needs under ``config`` (ALCE: the NLI model or the judge)."""
        return self.needs

    def extra_keys(self, config: EvaluationConfig) -> tuple[str, ...]:
        """Keys written besides :attr:`keys` under ``config``: the weighted score (``--judge-weighted``)
        and ``<key>_std`` over judge repeats (``--judge-repeats`` > 1). The one definition of both."""
        extra = [self.weighted_key] if self.weighted_key and config.judge_weighted else []
        if self.judged and config.judge_repeats > 1:
            extra += [f"{key}_std" for key in self.keys]
        return tuple(extra)

    def pin(self, config: EvaluationConfig, data: Any) -> dict[str, Any]:
        """Settings this metric reads off the dataset (``data``, a ``SurgeData`` or None) or a file, fixed before
        anything is scored so that they enter the journal key and the results' ``config`` (``quiz``: the quiz
        set and its fingerprint). Raises a :class:`~surge_dataset.core.errors.SurgeError` when the run cannot have
        them. Default: nothing to pin."""
        return {}

    def requests(self, survey: PreparedSurvey, config: EvaluationConfig) -> Requests:
        """Model inputs :meth:`score` will ask for (default: none)."""
        return Requests()

    def prefetch(self, surveys: Sequence[PreparedSurvey], models: ModelSet, config: EvaluationConfig
                 ) -> Mapping[int, Any] | None:
        """Ask the models ahead of :meth:`score`; override for inputs asked in stages (a later stage's inputs
        depend on an earlier stage's answers).

        An override asks ``models`` (:class:`~.answers.StagedModels`: the run's models, whatever it asks recorded
        as what its answers may serve, and ``models.lookups``, the run's bibliographic look-ups) and may return
        survey id -> what :meth:`score` reads as ``answers.prefetched`` for that survey. The runner never calls
        this default: it prefetches every metric's :meth:`requests` of the run together.
        """
        requests = Requests()
        for survey in surveys:
            requests.extend(self.requests(survey, config))
        models.prefetch(requests)
        return None

    def estimate_requests(
        self, surveys: Sequence[PreparedSurvey], config: EvaluationConfig
    ) -> tuple[list[Any], str | None]:
        """The judge questions a run would ask, known before any is answered (``--dry-run``), and a note
        when they are an estimate. Default: every survey's :meth:`requests`, exact for metrics that ask
        in one round; a metric asking in stages (its own :meth:`prefetch`) overrides this or is noted."""
        asked = [r for survey in surveys for r in self.requests(survey, config).judge if r is not None]
        if type(self).prefetch is not Metric.prefetch:
            return asked, f"{self.name} asks in stages and gives no estimate: only its first requests are counted"
        return asked, None

    def score(self, survey: PreparedSurvey, models: Any, config: EvaluationConfig) -> MetricOutput:
        """One survey's output from ``models``: the read-only answers (:class:`~.answers.Answers`) to what this
        metric requested, with the models' calls (``models.nli.logits``, ``models.encoder.encode``,
        ``models.judge.run``, ``models.ner.entities``); asking anything else raises."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<metric {self.name}: {', '.join(self.keys)}>"


def needed_models(metrics: Sequence[Metric], config: EvaluationConfig) -> set[str]:
    """The model kinds the selected metrics need under ``config`` (``corpus`` is not a model)."""
    return set().union(*(m.active_needs(config) for m in metrics)) - {"corpus"}


#: The metrics registered so far, by name: the registry's storage, written by :func:`register`.
_REGISTERED: dict[str, Metric] = {}


def registry_storage() -> dict[str, Metric]:
    """The registry's storage as it is (nothing loaded), for :func:`surge_dataset.evaluation.catalogue.registry`
    alone: everything else reads ``registry()``, which first registers the built-in metrics and the entry points
    and keeps the cards' order."""
    return _REGISTERED


def register(metric: type[Metric] | Metric, *, replace: bool = False) -> Any:
    """Add a metric (class or instance) to the registry; usable as a class decorator. Names are unique.

    A name another metric has is settled by :mod:`surge_dataset.core.registries`' rule: a built-in keeps its
    name whatever is installed, two installed packages declaring one name are a
    :class:`~surge_dataset.core.registries.NameClashError`, and code takes a built-in's or an earlier
    registration's name only with ``replace=True``.
    """
    from surge_dataset.core.registries import provider_of, settle_registration

    instance = metric() if isinstance(metric, type) else metric
    for attribute in ("name", "keys"):
        if not getattr(instance, attribute, None):
            raise TypeError(f"{type(instance).__name__} must declare {attribute!r}")
    stray = set(instance.key_directions) - set(instance.keys)
    if stray:  # a direction for a key the metric never writes would silently rank nothing
        raise ValueError(f"metric {instance.name!r} declares key_directions for keys it does not write: {sorted(stray)}")
    unknown = set(instance.needs) - {*MODEL_KINDS, "corpus"}
    if unknown:
        raise ValueError(f"metric {instance.name!r} needs unknown model kinds {sorted(unknown)}; known: {MODEL_KINDS}")
    existing = _REGISTERED.get(instance.name)
    if existing is not None and type(existing) is not type(instance):
        where = {"group": ENTRY_POINT_GROUP, "builtin_modules": [f"{__package__}.metrics"]}
        if not settle_registration(
            "metric", instance.name, provider_of(type(existing), **where),
            provider_of(type(instance), **where), replace=replace,
            pick="register({target}, replace=True) before the registry is first read",
        ):
            return metric
    taken = {key: other.name for other in _REGISTERED.values() if other.name != instance.name for key in other.keys}
    clash = [key for key in instance.keys if key in taken]
    if clash:
        raise ValueError(f"metric {instance.name!r} writes keys already written by {taken[clash[0]]!r}: {clash}")
    _REGISTERED[instance.name] = instance
    return metric


def unregister(name: str) -> None:
    """Remove a metric (tests and notebooks that register toy metrics clean up with this)."""
    _REGISTERED.pop(name, None)
