"""The run driver: one folder per survey, written atomically, resumable, failures reported per survey.

:func:`generate_surveys` drives a whole run: ``<out>/<survey_id>/survey.md`` plus the ``survey.json``
sidecar (system, prompts version, LLM, per-call token counts, timings, dropped citations), skipped when
already complete for the same configuration; a failed survey is recorded under ``<out>/.failed/``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import error_text
from surge_dataset.core.io import atomic_write_json, atomic_write_text, file_sha256
from surge_dataset.core.metadata import installed_versions
from surge_dataset.core.records import Paper
from surge_dataset.generation.draft import Topic
from surge_dataset.generation.generator import GenerationError, Generator
from surge_dataset.generation.inputs import all_queries, guidance_of, read_run_topk, topic_of, usable_papers
from surge_dataset.generation.llm_calls import PromptFitter, RecordingLLM, StageProgress, TokenCounter
from surge_dataset.generation.markdown import RenderedSurvey, render_markdown

__all__ = [
    "FAILURE_DIR",
    "SIDECAR_NAME",
    "SIDECAR_VERSION",
    "SURVEY_FILE",
    "RunReport",
    "generate_one",
    "generate_surveys",
    "is_complete",
    "survey_inputs",
]

SURVEY_FILE = "survey.md"
SIDECAR_NAME = "survey.json"
FAILURE_DIR = ".failed"  # hidden: `surge evaluate` skips dot-entries of the passage folder
SIDECAR_VERSION = 1


@dataclass
class RunReport:
    """What one process of a run did."""

    generated: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    failed: dict[int, str] = field(default_factory=dict)


def _config_key(config: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _file_digest(path: str | Path | None) -> str | None:
    if path is None:
        return None
    return file_sha256(path)[:16]


def is_complete(folder: Path, key: str | None = None) -> bool:
    """A survey folder whose sidecar says complete (and, when ``key`` is given, was made by this config)."""
    sidecar = folder / SIDECAR_NAME
    if not (sidecar.is_file() and (folder / SURVEY_FILE).is_file()):
        return False
    try:
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return meta.get("status") == "complete" and (key is None or meta.get("config_key") == key)


def _summarise_calls(calls: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    stages: dict[str, dict[str, Any]] = {}
    seen_batches: set[int] = set()
    for call in calls:
        stage = stages.setdefault(call["stage"], {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                                                  "cached": 0, "seconds": 0.0})
        stage["calls"] += 1
        stage["prompt_tokens"] += call["prompt_tokens"]
        stage["completion_tokens"] += call["completion_tokens"]
        stage["cached"] += int(call["cached"])
        if call["batch"] not in seen_batches:  # a batch's wall time counts once
            seen_batches.add(call["batch"])
            stage["seconds"] = round(stage["seconds"] + call["batch_seconds"], 4)
    sources: dict[str, int] = {}
    for call in calls:
        source = call.get("tokens_from", "counted")
        sources[source] = sources.get(source, 0) + 1
    return {
        "calls": len(calls),
        "cached_calls": sum(int(c["cached"]) for c in calls),
        "tokens_from": sources,  # calls whose tokens the backend reported vs counted/estimated here
        "prompt_tokens": sum(c["prompt_tokens"] for c in calls),
        "completion_tokens": sum(c["completion_tokens"] for c in calls),
        "stages": stages,
    }


def generate_one(
    generator: Generator,
    topic: Topic,
    papers: Sequence[Paper],
    llm: Any,
    *,
    counter: TokenCounter | None = None,
    on_progress: Callable[[StageProgress], None] | None = None,
    fitter: PromptFitter | None = None,
) -> tuple[RenderedSurvey, dict[str, Any]]:
    """Run one generator on one topic: the rendered survey and the sidecar fields it produced."""
    recorder = RecordingLLM(llm, counter, survey_id=topic.survey_id, on_progress=on_progress, fitter=fitter)
    start = time.perf_counter()
    draft = generator.generate(topic, list(papers), recorder)
    rendered = render_markdown(draft)
    seconds = time.perf_counter() - start
    llm_seconds = _summarise_calls(recorder.calls)
    info = {
        "survey_id": topic.survey_id,
        "topic": topic.title,
        "papers_given": [p.doc_id for p in papers],
        "references": len(rendered.references),
        "citations": rendered.citations,
        "dropped_citations": rendered.dropped_citations,
        "dropped_labels": rendered.dropped_labels,
        "notes": list(draft.notes),
        "prompt_fitting": recorder.fits,
        "system_info": dict(draft.extra),
        "token_count_method": recorder.counter.method,
        "totals": {k: v for k, v in llm_seconds.items() if k != "stages"},
        "stages": llm_seconds["stages"],
        "calls": recorder.calls,
        "timings": {"total_seconds": round(seconds, 4),
                    "llm_seconds": round(sum(s["seconds"] for s in llm_seconds["stages"].values()), 4)},
    }
    return rendered, info


def survey_inputs(
    data: Any, generator: Generator, survey_id: int, ranked: Mapping[int, Sequence[int]], queries: Sequence[Any],
    run: str | Path | None = None,
) -> tuple[Topic, list[Paper]]:
    """What a generator is given for one survey: its topic and papers (``ranked``: the run's top-k per
    survey; ``queries``: every query, for the GT guidance). Shared by a run and its ``--dry-run``."""
    survey = data.survey(survey_id)
    topic = topic_of(survey)
    if generator.inputs == "retrieval":
        if survey_id not in ranked:
            raise GenerationError(f"the run {run} has no ranking for survey {survey_id}")
        return topic, usable_papers(data.corpus.get(ranked[survey_id]))
    if generator.inputs == "ground_truth":
        guided = Topic(topic.survey_id, topic.title, topic.date, guidance=guidance_of(survey, queries))
        return guided, usable_papers(data.corpus.get(list(survey.all_cites)))
    return topic, []


def generate_surveys(
    data: Any,
    generator: Generator,
    llm: Any,
    out: str | Path,
    survey_ids: Sequence[int],
    *,
    run: str | Path | None = None,
    top_k: int = 100,
    llm_info: Mapping[str, Any] | None = None,
    parallel_surveys: int = 1,
    on_start: Callable[[int], None] | None = None,
    on_done: Callable[[int, str, str | None], None] | None = None,
    on_progress: Callable[[StageProgress], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    context_length: int | None = None,
) -> RunReport:
    """Generate ``survey_ids`` into ``out/<id>/``; finished surveys of the same config are skipped.

    ``on_done(survey_id, status, error)`` reports each survey: ``generated``, ``skipped`` or ``failed``;
    ``on_progress`` gets a :class:`StageProgress` as LLM answers arrive. Prompts longer than the model's
    context (``context_length``, default: what the LLM reports; 0 = never fit) are shortened by a
    :class:`PromptFitter`, which warns once through ``on_warning``.
    A failure (no run entry, an LLM request that failed after retries, a bug in a generator) is
    recorded under ``out/.failed/<id>.json`` and the run goes on; a configuration error of the LLM
    (wrong key or model) or a model that cannot be loaded stops the run, since every survey would fail
    alike. ``parallel_surveys`` > 1 generates that many surveys at once in threads (for ``openai:``
    servers, whose request pool a single survey's stages rarely fill).
    """
    from surge_dataset.core.output_folder import claim_output_folder
    from surge_dataset.llm import LLMConfigurationError
    from surge_dataset.models.base import ModelLoadError

    # A resumable writer: an earlier run's folder is written into; someone else's files never are.
    out = claim_output_folder(out, "generated-surveys", "surge generate",
                              inputs=[("--data", getattr(data, "path", None)), ("--run", run)])
    if generator.inputs == "retrieval" and run is None:
        raise ValueError(f"system {generator.name!r} needs a retrieval run (--run)")
    ranked = read_run_topk(run, top_k) if generator.inputs == "retrieval" and run is not None else {}
    queries = all_queries(data) if generator.inputs == "ground_truth" else []
    config = _run_config(generator, llm, data, run, top_k)
    key = _config_key(config)
    generator.bind(data)
    counter = TokenCounter(llm)
    report = RunReport()

    def reported_context() -> int | None:
        """Asked on the first long prompt only: it may read the model's config."""
        return getattr(llm, "context_length", None)

    fitter = PromptFitter(counter, reported_context if context_length is None else (context_length or None), on_warning)

    def inputs(survey_id: int) -> tuple[Topic, list[Paper]]:
        return survey_inputs(data, generator, survey_id, ranked, queries, run)

    def one(survey_id: int) -> None:
        folder = out / str(survey_id)
        if is_complete(folder, key):
            report.skipped.append(survey_id)
            if on_done:
                on_done(survey_id, "skipped", None)
            return
        if on_start:
            on_start(survey_id)
        try:
            topic, papers = inputs(survey_id)
            rendered, info = generate_one(generator, topic, papers, llm, counter=counter, on_progress=on_progress,
                                          fitter=fitter)
            sidecar = _sidecar(generator, llm, llm_info, data, run, config, key, info)
            atomic_write_text(folder / SURVEY_FILE, rendered.markdown)
            atomic_write_json(folder / SIDECAR_NAME, sidecar)  # last: its presence marks the survey complete
            (out / FAILURE_DIR / f"{survey_id}.json").unlink(missing_ok=True)
            report.generated.append(survey_id)
            if on_done:
                on_done(survey_id, "generated", None)
        except (LLMConfigurationError, ModelLoadError):
            raise  # every survey would fail alike: stop with one clear message
        except Exception as exc:  # noqa: BLE001 - one survey's failure must not stop the others
            error = error_text(exc)
            report.failed[survey_id] = error
            _record_failure(out, survey_id, generator.name, error)
            if on_done:
                on_done(survey_id, "failed", error)

    if parallel_surveys <= 1:
        for survey_id in survey_ids:
            one(survey_id)
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=parallel_surveys, thread_name_prefix="surge-survey") as pool:
            for future in [pool.submit(one, survey_id) for survey_id in survey_ids]:
                future.result()  # re-raises a configuration error
    order = {survey_id: i for i, survey_id in enumerate(survey_ids)}
    report.generated.sort(key=order.__getitem__)
    report.skipped.sort(key=order.__getitem__)
    return report


def _run_config(generator: Generator, llm: Any, data: Any, run: str | Path | None, top_k: int) -> dict[str, Any]:
    """What a generated survey depends on: a finished survey of the same config (its key) is skipped on a rerun."""
    return {
        **generator.config(),
        "llm": str(llm.spec),
        "prompts_version": generator.prompts_version or "unknown",
        "top_k": top_k if generator.inputs == "retrieval" else None,
        "run": _file_digest(run) if generator.inputs == "retrieval" else None,
        "data": getattr(data, "fingerprint", ""),
    }


def _sidecar(generator: Generator, llm: Any, llm_info: Mapping[str, Any] | None, data: Any, run: str | Path | None,
             config: dict[str, Any], key: str, info: dict[str, Any]) -> dict[str, Any]:
    """The sidecar of a finished survey: how it was made (system, prompts, LLM, inputs, data) and its config key."""
    from surge_dataset.llm.prompts import PROMPTS_VERSION

    return {
        "status": "complete",
        "sidecar_version": SIDECAR_VERSION,
        "config_key": key,
        "system": generator.name,
        "prompts_version": config["prompts_version"],
        "judge_prompts_version": PROMPTS_VERSION,
        "llm": {"spec": str(llm.spec), **dict(llm_info or {})},
        "generation": asdict(generator.settings),
        "options": dict(generator.options),
        "inputs": generator.inputs,
        "run": None if run is None or generator.inputs != "retrieval" else str(run),
        "run_digest": config["run"],
        "top_k": config["top_k"],
        "data": str(getattr(data, "path", "")),
        "data_fingerprint": config["data"],
        **info,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": _versions(),
    }


def _record_failure(out: Path, survey_id: int, system: str, error: str) -> None:
    """``out/.failed/<id>.json``: why a survey failed (a rerun tries it again)."""
    atomic_write_json(out / FAILURE_DIR / f"{survey_id}.json",
                      {"survey_id": survey_id, "system": system, "error": error,
                       "time": datetime.now(timezone.utc).isoformat(timespec="seconds")})


def _versions() -> dict[str, str]:
    return installed_versions(("surge-bench", "transformers", "torch", "openai"))
