"""The Inspect task ``surge/survey``: one sample per survey topic, one scorer per SurGE metric.

``inspect eval surge/survey --model <model> -T data=surge -T split=test`` (after ``pip install -e '.[inspect]'``;
:mod:`._registry` registers :func:`survey` under that name through Inspect's ``inspect_ai`` entry point).

* **Samples**: :func:`~.survey.survey_inputs`: the prompt of :mod:`.prompts` (topic only, or with ``run``
  the run's top-``top_k`` papers as ``[P<n>] Title. Abstract: ...``), the survey id and the labelled
  papers in the metadata.
* **Solver**: ``generate()``, then :func:`write_survey`, which turns the answer into the evaluator's Markdown
  with the baselines' writer (:func:`~.survey.render_answer`) and keeps it in the sample's store
  (:data:`MARKDOWN_KEY`). With another solver (``--solver``) the scorers render the final answer themselves.
* **Scorers**: one per metric, named as the metric (``recall``, ``shr``, ...), each a thin wrapper over
  ``compute()`` (:class:`~.scoring.SurveyScoring`); a value is a dict of the metric's result keys, and the
  metric :func:`surge_mean` averages them with ``surge evaluate``'s own rule (``evaluation.runner.average``).
  Judged metrics (``sqs``, ``cqs``, ``quiz``, ...) ask the ``grader`` model role (``--model-role grader=...``),
  else the evaluated model, as Inspect's model-graded scorers do; ``richness`` and ``quiz`` are scorers like the
  others (``-T metrics=quiz,richness``).

``inspect_ai`` is imported inside the functions only: ``import surge_dataset.inspect.task`` works without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from surge_dataset.core.metadata import SURGE_BENCH_VERSION
from surge_dataset.core.vocabulary import OFFICIAL
from surge_dataset.generation.inspect_prompts import INSPECT_PROMPTS_VERSION
from surge_dataset.generation.inspect_survey import (
    INFO_KEY,
    MARKDOWN_KEY,
    render_answer,
    render_info,
    sample_markdown,
    survey_inputs,
)
from surge_dataset.inspect.scoring import SurveyScoring, inspect_judge

__all__ = ["TASK_NAME", "survey", "surge_mean", "write_survey"]

TASK_NAME = "surge/survey"


def _local(path: str | Path | None) -> str | None:
    """An existing local path made absolute (Inspect may run a task from its package folder); else as given
    (a Hub id or a model name)."""
    if path is None:
        return None
    return str(Path(path).resolve()) if Path(path).exists() else str(path)


def write_survey() -> Any:
    """Solver: the model's answer -> the evaluator's Markdown (labels numbered, exact corpus titles), kept in
    the store under :data:`MARKDOWN_KEY`; the answer itself stays the sample's output."""
    from inspect_ai.solver import solver

    @solver(name="write_survey")
    def factory() -> Any:
        async def solve(state: Any, generate: Any) -> Any:
            rendered = render_answer(state.output.completion, state.metadata)
            state.store.set(MARKDOWN_KEY, rendered.markdown)
            state.store.set(INFO_KEY, render_info(rendered))
            return state

        return solve

    return factory()


def surge_mean(metric_name: str, protocol: str, aggregate: str) -> Any:
    """Inspect metric: the mean of each result key over the samples, by ``surge evaluate``'s rule
    (:func:`~surge_dataset.evaluation.runner.average`: undefined values left out, or counted 0 under
    ``released`` for the SurGE metrics)."""
    from inspect_ai.scorer import metric

    from surge_dataset.evaluation.config import EvaluationConfig
    from surge_dataset.evaluation.runner import average

    @metric(name="surge_mean")
    def factory(metric_name: str, protocol: str, aggregate: str) -> Any:
        config = EvaluationConfig(metrics=[metric_name], protocol=protocol, aggregate=aggregate)  # type: ignore[arg-type]

        def mean(scores: list[Any]) -> dict[str, float | None]:
            records = {str(i): dict(s.score.value) for i, s in enumerate(scores) if isinstance(s.score.value, dict)}
            return average(records, config)[0]

        return mean

    return factory(metric_name, protocol, aggregate)


def _metric_scorer(scoring: SurveyScoring, name: str) -> Any:
    """Scorer ``name``: the metric on the sample's Markdown through ``compute()``, in a worker thread."""
    import anyio.to_thread
    from inspect_ai.model import get_model, model_roles
    from inspect_ai.scorer import Score, scorer

    @scorer(metrics=[surge_mean(name, scoring.config.protocol, str(scoring.config.aggregate))], name=name)
    def factory() -> Any:
        async def score(state: Any, target: Any) -> Any:
            markdown = sample_markdown(state.store, state.output.completion, state.metadata)
            judge, grader = None, None
            if scoring.judged(name):
                model = get_model(role="grader")
                grader = {"model": str(model), "role": "grader" if "grader" in model_roles() else "evaluated model"}
                judge = inspect_judge(model, scoring.config)
            result = await anyio.to_thread.run_sync(scoring.score, name, markdown, int(state.metadata["survey_id"]),
                                                    judge)
            values = result["values"]
            return Score(value={k: values.get(k) for k in scoring.keys(name)},
                         explanation=", ".join(f"{k}={v}" for k, v in values.items()),
                         metadata={"counts": result["counts"], "diagnostics": result["diagnostics"],
                                   **({"grader": grader} if grader else {})})

        return score

    return factory()


def survey(
    data: str = "surge",
    split: str = "test",
    survey_ids: str | list[int] | int | None = None,
    run: str | None = None,
    top_k: int = 100,
    metrics: str | list[str] | None = None,
    nli_model: str | None = None,
    embedding_model: str | None = None,
    protocol: str = OFFICIAL,
    quiz: str | None = None,
) -> Any:
    """SurGE survey generation as an Inspect task (registered as ``surge/survey``).

    Args:
        data: a built SurGE dataset folder or Hub id.
        split: the split whose topics are the samples (``all``: every survey).
        survey_ids: only these surveys: ids or ranges, ``"0-9,12"`` or a list.
        run: a survey-title TREC run (``surge retrieve --query-type titles``): its top ``top_k`` papers of
            each topic are in the prompt. Without it the model gets the topic only (Fully-LLMGen).
        top_k: papers per topic taken from ``run``.
        metrics: metric names or aliases as ``surge evaluate --metrics`` takes them (default: the objective
            SurGE metrics, recall, citation_accuracy, shr, rouge_bleu); ``all`` adds sqs and cqs, graded
            by the ``grader`` model role (else the evaluated model).
        nli_model: the NLI cross-encoder of citation_accuracy (name or local folder; default the paper's).
        embedding_model: the embedder of SHR (name or local folder; default the paper's).
        protocol: ``official`` (the released evaluator) or ``paper``.
        quiz: the quiz set of the ``quiz`` scorer (a ``quizzes.jsonl``; default: the dataset's ``quizzes`` config),
            answered by the ``grader`` role; its fingerprint is in the task's metadata (``config.quiz_fingerprint``).
    """
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser
    from inspect_ai.solver import generate

    from surge_dataset.data.dataset import SurgeData

    dataset = SurgeData.open(_local(data))  # type: ignore[arg-type]
    settings = {k: v for k, v in {"protocol": protocol, "nli_model": _local(nli_model),
                                  "embedding_model": _local(embedding_model), "quiz": _local(quiz)}.items()
                if v is not None}
    scoring = SurveyScoring(dataset, metrics, **settings)
    run = _local(run)
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser}
    samples = [
        Sample(input=[kinds[m["role"]](content=m["content"]) for m in messages], target="",
               id=meta["survey_id"], metadata=meta)
        for messages, meta in survey_inputs(dataset, split, survey_ids, run, top_k)
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"surge-{split}"),
        solver=[generate(), write_survey()],
        scorer=[_metric_scorer(scoring, name) for name in scoring.metrics],
        metadata={"surge": {
            "prompts_version": INSPECT_PROMPTS_VERSION,
            "surge_bench": SURGE_BENCH_VERSION,
            "data": str(dataset.path.resolve()),
            "data_fingerprint": dataset.fingerprint,
            "split": split,
            "run": run,
            "top_k": top_k if run else None,
            "config": scoring.config_record(),
        }},
    )
