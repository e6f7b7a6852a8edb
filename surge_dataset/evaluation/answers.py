"""What a metric reads while it scores: the run's model outputs for the inputs it asked for, and nothing else.

The runner asks every model once for the whole run (:meth:`RunAnswers.prefetch`: the metrics'
:meth:`~.metric.Metric.requests` of every survey, one batch per model kind), then lets metrics that ask in
stages (their own ``prefetch``) ask through :meth:`RunAnswers.staged`, which records what each asked. Each
metric then scores each survey from an :class:`Answers`: the same calls as the models (``answers.nli.logits``,
``answers.encoder.encode``, ``answers.judge.run``, ``answers.ner.entities``), served from those outputs only. An
input the metric never asked for is an :class:`UnrequestedInputError` (a bug in the metric's ``requests``), never
computed on the side, one survey at a time, outside the batch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.vocabulary import MODEL_KINDS
from surge_dataset.evaluation.metric import ModelSet, Requests
from surge_dataset.evaluation.models import Prefetched

__all__ = ["Answers", "RunAnswers", "StagedModels", "UnrequestedInputError"]

#: Model kind -> the call a metric makes on it (scoring code's one call per kind).
CALLS = {"nli": "logits", "encoder": "encode", "judge": "run", "ner": "entities"}
#: Columns of an empty answer of the kinds that answer with rows.
_WIDTH = {"nli": 3, "encoder": 0}
_NOTHING = object()


class UnrequestedInputError(SurgeError, LookupError):
    """A metric scored with a model input its ``requests`` (or its own ``prefetch``) never named."""


def _listed(kind: str, outputs: Any) -> list[Any]:
    """A model's answer as one item per input (the rows of an NLI or encoder array)."""
    return list(np.asarray(outputs)) if kind in _WIDTH else list(outputs)


def _shaped(kind: str, outputs: list[Any]) -> Any:
    """Items back into what the model call returns (rows stacked into one array)."""
    if kind in _WIDTH:
        return np.stack(outputs) if outputs else np.zeros((0, _WIDTH[kind]))
    return outputs


def _inputs(kind: str, requests: Requests) -> list[Any]:
    items = {"nli": requests.nli, "encoder": requests.texts, "judge": requests.judge, "ner": requests.ner}[kind]
    return [item for item in items if item is not None]


class RunAnswers:
    """Every model output of a run by input, what each metric asked for, and what staged metrics handed over.

    Owned by an :class:`~.session.EvaluationSession` (its cache); ``models`` are the run's models (prefetching
    wrappers of the NLI model and the encoder, built lazily).
    """

    def __init__(self, models: ModelSet) -> None:
        self.models = models
        self._outputs: dict[str, dict[Any, Any]] = {kind: {} for kind in MODEL_KINDS}
        self._requested: dict[tuple[str, int], Requests] = {}
        self._staged: dict[str, dict[str, set[Any]]] = {}
        self._handed: dict[str, Mapping[int, Any]] = {}

    def fetch(self, kind: str, items: Sequence[Any]) -> list[Any]:
        """Outputs of ``items``: the ones not yet known asked of the model in one call, de-duplicated."""
        known = self._outputs[kind]
        todo = [item for item in dict.fromkeys(items) if item not in known]
        if todo:
            model = getattr(self.models, kind)
            if model is None:
                raise ValueError(f"no {kind} model in this run: no selected metric declares it among its needs")
            if isinstance(model, Prefetched):  # the rows the wrapper keeps, not a stacked copy of them
                model.prefetch(todo)
                outputs = model.stored(todo)
            else:
                outputs = _listed(kind, getattr(model, CALLS[kind])(todo))
            known.update(zip(todo, outputs, strict=True))
        return [known[item] for item in items]

    def prefetch(self, requests: Requests) -> None:
        """One call per model kind for every request of the run (NLI, encoder, judge, NER, in that order)."""
        for kind in MODEL_KINDS:
            items = _inputs(kind, requests)
            if items and getattr(self.models, kind) is not None:
                self.fetch(kind, items)

    def request(self, metric: str, survey_id: int, requests: Requests) -> None:
        """Record what ``metric`` will ask for ``survey_id`` (what its answers then serve)."""
        self._requested[(metric, survey_id)] = requests

    def staged(self, metric: str, lookups: Any = None) -> StagedModels:
        """The models as a staged metric's ``prefetch`` asks them: every call answered and recorded as its own."""
        asked = self._staged.setdefault(metric, {kind: set() for kind in MODEL_KINDS})
        faces = {kind: _Recorder(self, kind, asked[kind]) if getattr(self.models, kind) is not None else None
                 for kind in MODEL_KINDS}
        return StagedModels(**faces, lookups=lookups)

    def hand_over(self, metric: str, handed: Mapping[int, Any] | None) -> None:
        """What a staged metric's ``prefetch`` returned: survey id -> what its ``score`` reads as ``prefetched``."""
        if handed is not None:
            self._handed[metric] = handed

    def for_metric(self, metric: str, survey_id: int) -> Answers:
        """The read-only answers ``metric`` scores survey ``survey_id`` from."""
        requests = self._requested.get((metric, survey_id), Requests())
        staged = self._staged.get(metric, {})
        faces = {}
        for kind in MODEL_KINDS:
            if getattr(self.models, kind) is not None:
                # the survey's own requests and the metric's staged ones, checked in turn: never copied into one
                # set per survey (a staged metric's inputs are the whole run's)
                allowed = (set(_inputs(kind, requests)), staged.get(kind, set()))
                faces[kind] = _Served(self, kind, allowed, metric)
        handed = self._handed.get(metric, {})
        return Answers(metric, survey_id, prefetched=handed.get(survey_id, _NOTHING), **faces)

    def known(self, kind: str, item: Any) -> bool:
        return item in self._outputs[kind]


class _Face:
    """A model kind's call (``logits``, ``encode``, ``run``, ``entities``) over :meth:`_outputs`."""

    def __init__(self, answers: RunAnswers, kind: str) -> None:
        self._answers, self._kind = answers, kind

    def _outputs(self, items: Sequence[Any]) -> list[Any]:
        raise NotImplementedError

    def _call(self, kind: str, items: Sequence[Any]) -> Any:
        if kind != self._kind:
            raise AttributeError(f"the {self._kind} model has no {CALLS[kind]}()")
        return _shaped(kind, self._outputs(list(items)))

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return self._call("nli", pairs)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._call("encoder", texts)

    def run(self, requests: Sequence[Any]) -> list[Any]:
        return self._call("judge", requests)

    def entities(self, texts: Sequence[str]) -> list[list[str]]:
        return self._call("ner", texts)


class _Recorder(_Face):
    """A staged metric's model during its ``prefetch``: asks the model (through the run's outputs), records."""

    def __init__(self, answers: RunAnswers, kind: str, asked: set[Any]) -> None:
        super().__init__(answers, kind)
        self._asked = asked

    def _outputs(self, items: Sequence[Any]) -> list[Any]:
        self._asked.update(items)
        return self._answers.fetch(self._kind, items)

    def prefetch(self, items: Sequence[Any]) -> None:
        self._outputs([item for item in items if item is not None])

    def __getattr__(self, name: str) -> Any:
        """The model's other attributes (a scoring function's own asking loop reads a judge's ``llm``, ``stats``)."""
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(getattr(self._answers.models, self._kind), name)


class _Served(_Face):
    """One model kind's answers to what one metric asked: anything else is an :class:`UnrequestedInputError`."""

    def __init__(self, answers: RunAnswers, kind: str, allowed: tuple[set[Any], ...], metric: str) -> None:
        super().__init__(answers, kind)
        self._allowed, self._metric = allowed, metric

    def _outputs(self, items: Sequence[Any]) -> list[Any]:
        missing = [item for item in dict.fromkeys(items)
                   if not any(item in inputs for inputs in self._allowed) or not self._answers.known(self._kind, item)]
        if missing:
            raise UnrequestedInputError(
                f"metric {self._metric!r} asked the {self._kind} model for {len(missing)} input(s) it never requested "
                f"(first: {str(missing[0])[:120]!r}): its requests() (or its own prefetch()) must name every input "
                "its score() reads; nothing is computed after the run's prefetch")
        return self._answers.fetch(self._kind, items)


@dataclass
class StagedModels(ModelSet):
    """What a metric that asks in stages is handed in ``prefetch``: the run's models (each call answered from the
    run's outputs and recorded as this metric's) and the bibliographic look-up session of the run."""

    lookups: Any = None


class Answers:
    """Read-only: the model answers one metric scores one survey from (the calls of :class:`~.metric.ModelSet`).

    A kind is None where the run has no such model. ``prefetched``: what the metric's own ``prefetch`` handed
    over for this survey.
    """

    def __init__(self, metric: str, survey_id: int, *, prefetched: Any = _NOTHING, nli: Any = None,
                 encoder: Any = None, judge: Any = None, ner: Any = None) -> None:
        self.metric, self.survey_id = metric, survey_id
        self.nli, self.encoder, self.judge, self.ner = nli, encoder, judge, ner
        self._prefetched = prefetched

    def prefetch(self, requests: Requests) -> None:
        """What :meth:`~.metric.ModelSet.prefetch` was to a metric that prefetched in ``score``: every input is
        already answered (nothing is asked); one it never requested is an :class:`UnrequestedInputError`."""
        for kind in MODEL_KINDS:
            face, items = getattr(self, kind), _inputs(kind, requests)
            if face is not None and items:
                face._outputs(items)

    @property
    def prefetched(self) -> Any:
        if self._prefetched is _NOTHING:
            raise UnrequestedInputError(f"metric {self.metric!r}: its prefetch() handed over nothing for survey "
                                        f"{self.survey_id}: it returns survey id -> what score() reads")
        return self._prefetched

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__dict__:
            raise AttributeError(f"the answers of {self.metric!r} are read-only")
        super().__setattr__(name, value)
