"""One evaluation run's owner: its pinned settings, run options, models, answers and bibliographic look-ups.

Every way of scoring builds one :class:`EvaluationSession` and hands it to the runner: ``surge evaluate``,
:func:`~surge_dataset.evaluation.compute` (and through it the ``evaluate`` modules and the Inspect scorers), the
judge re-scoring and the leaderboard's re-scoring::

    with EvaluationSession(config, RunOptions(batch_size=16), data=data) as session:
        evaluate_run(data, "outputs/mysystem", "results.json", session)

Models are given (``nli=``, ``encoder=``, ``judge=``, ``ner=``) or built from the settings on first use (a run
whose surveys ask a model nothing never loads it); ``factories`` replaces how a kind is built. The look-up session
of the bibliographic services is opened here, handed to the metrics' prefetch and closed with the session.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from surge_dataset.core.vocabulary import MODEL_KINDS
from surge_dataset.evaluation.answers import RunAnswers
from surge_dataset.evaluation.config import EvaluationConfig, pin_settings, selected_metrics
from surge_dataset.evaluation.metric import ModelSet, needed_models
from surge_dataset.evaluation.models import build_models, is_built, model_factories
from surge_dataset.evaluation.parallel import ProcessGroup
from surge_dataset.evaluation.run_options import RunOptions

__all__ = ["MODEL_IDENTITY", "EvaluationSession"]

_UNSET: Any = object()

#: Model kind -> the config fields that say which model is built and how: models kept in ``shared_models`` are
#: found again under these values (a judge is never shared: its answers and counters belong to one run).
MODEL_IDENTITY = {"nli": ("nli_model", "dtype", "device"), "encoder": ("embedding_model", "embedding_dtype", "device"),
                  "ner": ("ner_model", "device")}


class EvaluationSession:
    """The one owner of an evaluation run (module docstring).

    ``config``: the settings, pinned against ``data`` (:func:`~.config.pin_settings`; without ``data``, against
    the dataset :func:`~.runner.evaluate_run` is given). ``run``: how the run goes
    (batch sizes, caches, servers; :class:`~.run_options.RunOptions`). ``processes``: the ``accelerate launch`` this
    process is one of (None: one process); each process's models go on its own device. ``shared_models``: a dict
    kept by the caller across sessions, so that a build of many runs loads each local model once.
    ``environ``: the environment of the bibliographic look-ups (default ``os.environ``).
    """

    def __init__(self, config: EvaluationConfig, run: RunOptions | None = None, *, data: Any = _UNSET,
                 nli: Any = None, encoder: Any = None, judge: Any = None, ner: Any = None,
                 factories: Mapping[str, Callable[[], Any]] | None = None,
                 shared_models: dict[tuple[str, ...], Any] | None = None,
                 processes: ProcessGroup | None = None, environ: Mapping[str, str] | None = None) -> None:
        self.data = data
        self.settings = config  # as given: each dataset the session runs on is pinned from these, never another's
        self.config = config if data is _UNSET else pin_settings(config, data)
        self.run = run or RunOptions()
        self.processes = processes
        self.given: dict[str, Any] = {"nli": nli, "encoder": encoder, "judge": judge, "ner": ner}
        device = processes.device_for(self.config.device) if processes is not None else None
        built = model_factories(self.config, self.run, device=device)
        self.factories: dict[str, Callable[[], Any]] = {
            kind: _kept(shared_models, kind, self.config, self.run, make)
            for kind, make in {**built, **(factories or {})}.items()}
        self.environ = environ
        self._models: ModelSet | None = None
        self._answers: RunAnswers | None = None
        self._lookups: Any = None

    # -- the run's parts, each made on first use ---------------------------------------------------------

    @property
    def models(self) -> ModelSet:
        """The models the selected metrics need (given, else built by their factory when first asked)."""
        if self._models is None:
            self._models = build_models(needed_models(selected_metrics(self.config), self.config), self.given,
                                        self.factories)
        return self._models

    @property
    def answers(self) -> RunAnswers:
        """The run's model outputs by input, and what each metric asked for (:mod:`.answers`)."""
        if self._answers is None:
            self._answers = RunAnswers(self.models)
        return self._answers

    @property
    def lookups(self) -> Any:
        """The bibliographic look-up session (``references.LookupSession``) under this run's options."""
        if self._lookups is None:
            from surge_dataset.references import LookupSession

            self._lookups = LookupSession(self.run, self.environ)
        return self._lookups

    # -- what the runner asks of it -------------------------------------------------------------------------

    def pin(self, data: Any) -> EvaluationConfig:
        """The settings pinned against ``data`` (the run's dataset), kept as this session's."""
        if data is not self.data or self.data is _UNSET:
            self.config, self.data = pin_settings(self.settings, data), data
        return self.config

    def begin_run(self) -> None:
        """Forget what an earlier run of this session asked, was handed and looked up (the models stay loaded):
        each run scores from its own answers and reports its own look-ups."""
        self._answers = None
        if self._lookups is not None:
            self._lookups.close()
            self._lookups = None

    def check_judge(self) -> None:
        """A usage error, before any work, when a selected metric needs a judge and the session has none."""
        wanting = [m.name for m in selected_metrics(self.config) if "judge" in m.active_needs(self.config)]
        if wanting and not self.config.judge and self.given["judge"] is None:
            raise ValueError(f"metrics {wanting} need a judge (config.judge)")

    def live_judge(self) -> Any:
        """The judge that ran (built or given), None when none did: never built for this question."""
        judge = self._models.judge if self._models is not None else None
        return judge if is_built(judge) else self.given["judge"]

    def close(self) -> None:
        if self._lookups is not None:
            self._lookups.close()

    def __enter__(self) -> EvaluationSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        given = [kind for kind in MODEL_KINDS if self.given[kind] is not None]
        return f"<EvaluationSession metrics={list(self.config.metrics)} given={given}>"


def _kept(shared: dict[tuple[str, ...], Any] | None, kind: str, config: EvaluationConfig, run: RunOptions,
          make: Callable[[], Any]) -> Callable[[], Any]:
    """``make``, building each local model at most once per ``shared`` (the same name, precision and device, and
    the same batch size and cache folder, which the model is built with)."""
    if shared is None or kind not in MODEL_IDENTITY:
        return make
    key = (kind, *(str(getattr(config, field)) for field in MODEL_IDENTITY[kind]),
           f"batch_size={run.batch_size}", f"cache_dir={run.cache_dir}")

    def build() -> Any:
        if key not in shared:
            shared[key] = make()
        return shared[key]
    return build
