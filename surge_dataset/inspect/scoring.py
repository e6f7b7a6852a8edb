"""The scorers' engine: one registered metric on one survey's Markdown through :func:`~surge_dataset.evaluation.compute`.

The Inspect scorers are thin: each hands the sample's Markdown and survey id to :meth:`SurveyScoring.score`,
which is ``compute(metric, [markdown], [survey_id], data=..., **settings)``, the engine of
``surge evaluate``; so a sample's value is the per-survey value ``surge evaluate`` writes for the same
Markdown (``tests/test_inspect_task.py`` checks it). The task's :class:`~surge_dataset.evaluation.EvaluationSession`
pins the settings once and builds the local models (NLI, embedder, NER) on first use, shared by every sample;
scoring with them holds one lock (the scorers run in worker threads). A judged metric (SQS, CQS, ...) asks an Inspect model, the ``grader`` role when the
eval binds one, through :class:`InspectChatBackend`: the judge's sync calls are sent back to the eval's
event loop (``anyio.from_thread``), so the scorer must run :meth:`SurveyScoring.score` with
``anyio.to_thread.run_sync``. Nothing here imports ``inspect_ai`` at module import.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from surge_dataset.core.errors import error_text
from surge_dataset.core.vocabulary import ENCODER, JUDGE, NER, NLI
from surge_dataset.evaluation.catalogue import get_metric
from surge_dataset.evaluation.compute import compute
from surge_dataset.evaluation.config import EvaluationConfig, parse_metrics
from surge_dataset.evaluation.models import LazyModel
from surge_dataset.evaluation.session import EvaluationSession
from surge_dataset.llm.base import BackendSpec, Completion, Conversation, GenerationSettings, LLMStats

__all__ = ["LOCAL_MODELS", "InspectChatBackend", "SurveyScoring", "inspect_judge"]

#: The model kinds built locally once per task (the judge is an Inspect model instead).
LOCAL_MODELS = (NLI, ENCODER, NER)


def _once(factory: Callable[[], Any]) -> Callable[[], Any]:
    """A factory that builds its model once even when two threads ask at the same moment."""
    lock, built = threading.Lock(), []

    def build() -> Any:
        with lock:
            if not built:
                built.append(factory())
            return built[0]

    return build


class SurveyScoring:
    """What every scorer of one task shares: the dataset, the evaluation settings and the local models.

    ``metrics``: names or aliases as ``--metrics`` takes them (the judged ones are allowed: an Inspect eval
    always has a model to grade with). ``settings``: :class:`~surge_dataset.evaluation.EvaluationConfig`
    fields (``protocol``, ``nli_model``, ``embedding_model``, ...), passed to ``compute`` unchanged.
    """

    def __init__(self, data: Any, metrics: str | Sequence[str] | None = None, **settings: Any) -> None:
        self.data = data
        self.settings = settings
        chosen = parse_metrics(metrics, judge=True) if metrics else None
        config = EvaluationConfig.from_options(**({"metrics": chosen} if chosen else {}), **settings)
        # pinned once (the quiz set's fingerprint, checked before any sample); its factories build the local models
        self.session = EvaluationSession(config, data=data)
        self.config = self.session.config
        self.models = {kind: LazyModel(_once(self.session.factories[kind])) for kind in LOCAL_MODELS}
        self._lock = threading.Lock()

    @property
    def metrics(self) -> list[str]:
        return list(self.config.metrics)

    def keys(self, metric: str) -> tuple[str, ...]:
        return tuple(get_metric(metric).keys)

    def judged(self, metric: str) -> bool:
        return JUDGE in get_metric(metric).active_needs(self.config)

    def score(self, metric: str, markdown: str, survey_id: int, judge: Any = None) -> dict[str, Any]:
        """``{"values": {key: value}, "counts": {...}, "diagnostics": [...]}`` of one survey, as
        ``surge evaluate`` records it (``values`` under the protocol's aggregate rule: ``released``
        scores an undefined value of the SurGE metrics 0)."""
        def run() -> dict[str, Any]:
            return compute(metric, [markdown], [survey_id], data=self.data, judge=judge, **self.models,
                           **self.settings)

        if self.judged(metric):
            result = run()  # waits on the event loop for the grader: never under the models' lock
        else:
            with self._lock:
                result = run()
        return {"values": result["per_survey"][0], "counts": result["counts"][0],
                "diagnostics": result["diagnostics"][0]}

    def config_record(self) -> dict[str, Any]:
        """The evaluation settings as a results file's ``config`` records them (``asdict`` of the config)."""
        return asdict(self.config)


class InspectChatBackend:
    """A :class:`~surge_dataset.llm.base.ChatBackend` over an Inspect model, for the judge of SQS/CQS.

    :meth:`generate` is called from a worker thread started by ``anyio.to_thread.run_sync`` and sends every
    conversation concurrently on the eval's event loop, where the Inspect model lives (its connection
    limits, retries and usage accounting apply as to any Inspect call).
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        self.spec = BackendSpec("inspect", str(model))  # type: ignore[arg-type]  # not a --judge kind

    def identity(self) -> str:
        return f"inspect:{self.model}"

    def generate(self, conversations: Sequence[Conversation], settings: GenerationSettings,
                 on_done: Callable[[int, Completion], None], stats: LLMStats) -> None:
        import anyio.from_thread

        anyio.from_thread.run(self._answer_all, list(conversations), settings, on_done, stats)

    async def _answer_all(self, conversations: list[Conversation], settings: GenerationSettings,
                          on_done: Callable[[int, Completion], None], stats: LLMStats) -> None:
        import anyio

        async with anyio.create_task_group() as group:
            for index, conversation in enumerate(conversations):
                group.start_soon(self._answer, index, conversation, settings, on_done, stats)

    async def _answer(self, index: int, conversation: Conversation, settings: GenerationSettings,
                      on_done: Callable[[int, Completion], None], stats: LLMStats) -> None:
        from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig

        kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
        messages = [kinds[role](content=content) for role, content in conversation]
        config = GenerateConfig(max_tokens=settings.max_new_tokens, temperature=settings.temperature)
        stats.add(sent=1)
        try:
            output = await self.model.generate(messages, config=config)
        except Exception as exc:  # noqa: BLE001 - one failed request is recorded as missing, never a crash
            stats.add(failed=1)
            on_done(index, Completion(None, error=error_text(exc)))
            return
        usage = output.usage
        on_done(index, Completion(output.completion, prompt_tokens=usage.input_tokens if usage else None,
                                  completion_tokens=usage.output_tokens if usage else None))


def inspect_judge(model: Any, config: EvaluationConfig) -> Any:
    """A :class:`~surge_dataset.llm.Judge` asking ``model`` (an Inspect model), set as ``surge evaluate``
    sets its judge from the config (tries, repeat temperature); no answer cache (Inspect has its own)."""
    from surge_dataset.llm import LLM, Judge

    extra = {"sample_temperature": config.judge_temperature} if config.judge_temperature else {}
    return Judge(LLM(InspectChatBackend(model), cache_dir=False), max_tries=config.judge_max_tries, **extra)
