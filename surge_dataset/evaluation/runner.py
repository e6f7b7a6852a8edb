"""``surge evaluate``: score a folder of generated surveys against the ground truth, resumably.

Flow (docs/architecture.md): passage file -> parse -> resolve (Corpus) -> metric requests -> model
outputs (one batch per model kind for the whole run, cached on disk) -> per-survey scores -> journal
(append, fsync) -> results.json (atomic). The runner knows no metric by name: it asks the registry.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Container, Sequence
from pathlib import Path
from typing import Any

from surge_dataset.core.diagnostics import as_diagnostic, diagnostic, diagnostic_record
from surge_dataset.core.errors import error_text
from surge_dataset.core.io import JsonlJournal, atomic_write_json, atomic_write_text
from surge_dataset.core.vocabulary import MODEL_KINDS, RELEASED
from surge_dataset.data.dataset import SurgeData
from surge_dataset.data.filters import SurveyFilter, split_entries
from surge_dataset.evaluation.config import (
    EvaluationConfig,
    judge_settings,
    record_models,
    recorded_settings,
    result_keys,
    selected_metrics,
)
from surge_dataset.evaluation.fingerprints import run_fingerprint, survey_fingerprints
from surge_dataset.evaluation.metric import Metric, Requests
from surge_dataset.evaluation.models import judge_report, unwrap
from surge_dataset.evaluation.parallel import shared_model_pass
from surge_dataset.evaluation.passages import recorded_passages
from surge_dataset.evaluation.prepare import (
    PreparedSurvey,
    discover_passages,
    package_versions,
    prepare_survey,
    survey_counts,
)
from surge_dataset.evaluation.results import check_results
from surge_dataset.evaluation.schema import WrittenResults
from surge_dataset.evaluation.session import EvaluationSession
from surge_dataset.evaluation.summary import (
    average_results,
    averaging_notes,
    expected_topics,
    released_zero_keys,
)

__all__ = ["evaluate_run", "is_staged", "journal_path", "prefetch_all", "prepare_folder", "resolution_details",
           "score_survey"]


def is_staged(metric: Metric) -> bool:
    """Whether ``metric`` asks its models in stages (its own ``prefetch``) rather than by its ``requests``."""
    return type(metric).prefetch is not Metric.prefetch


def prefetch_all(surveys: Sequence[PreparedSurvey], session: EvaluationSession) -> dict[str, Any] | None:
    """Every model input of the run, before any survey is scored: one batch per model kind.

    The metrics' :meth:`~.metric.Metric.requests` of all surveys go to each model in one call (one length sort,
    one concurrent round for a judge server) and are recorded as what each metric may read
    (:class:`~.answers.RunAnswers`); metrics that ask in stages (their own ``prefetch``) run after, with the
    session's bibliographic look-ups. Returns what those look-ups did (``results["references"]``), None when
    nothing was looked up.
    """
    session.begin_run()
    if not surveys:
        return None
    ids = [survey.survey_id for survey in surveys]
    if len(set(ids)) != len(ids):
        raise ValueError(f"surveys to score share an id ({sorted({i for i in ids if ids.count(i) > 1})}): "
                         "each survey's answers are found by its id")
    config, answers = session.config, session.answers
    metrics = selected_metrics(config)
    combined = Requests()
    for metric in metrics:
        if not is_staged(metric):
            for survey in surveys:
                asked = metric.requests(survey, config)
                answers.request(metric.name, survey.survey_id, asked)
                combined.extend(asked)
    answers.prefetch(combined)
    for metric in metrics:
        if is_staged(metric):
            answers.hand_over(metric.name, metric.prefetch(surveys, answers.staged(metric.name, session.lookups),
                                                           config))
    return session.lookups.report()


def prepare_folder(
    data: SurgeData, passage_dir: str | Path, config: EvaluationConfig, *, skip: Container[int] = ()
) -> tuple[list[PreparedSurvey], list[dict[str, Any]], list[dict[str, Any]]]:
    """(prepared surveys, failures, surveys the filters excluded) of a passage folder; ids in ``skip``
    (finished in the journal) are not read again. Shared by a run and its ``--dry-run``."""
    entries, failures = discover_passages(passage_dir, config.protocol, data_hint=str(data.path))
    entries, excluded = split_entries(data, entries, SurveyFilter(config.min_cites, config.exclude_empty))
    prepared: list[PreparedSurvey] = []
    for survey_id, path in entries:
        if survey_id in skip:
            continue
        try:
            prepared.append(prepare_survey(data, survey_id, path, config.protocol))
        except Exception as exc:  # noqa: BLE001 - any unreadable survey is reported, the run goes on
            failures.append({"survey_id": survey_id, "path": str(path), "error": error_text(exc)})
    return prepared, failures, excluded


def score_survey(prepared: PreparedSurvey, session: EvaluationSession, *, with_details: bool = False) -> dict[str, Any]:
    """All requested metrics of one prepared survey -> the result record written to the journal.

    Each metric scores from its read-only answers (:meth:`~.answers.RunAnswers.for_metric`), after
    :func:`prefetch_all`: what it did not request is an error, never computed here.
    """
    config = session.config
    result: dict[str, Any] = {}
    counts: dict[str, int] = {}
    diagnostics = [*prepared.read_diagnostics, *prepared.parsed.diagnostics]
    details: list[dict[str, Any]] = []
    for metric in selected_metrics(config):
        output = metric.score(prepared, session.answers.for_metric(metric.name, prepared.survey_id), config)
        values = dict(output.values)
        if config.aggregate == RELEASED and metric.released_zero:
            undefined = [k for k, v in values.items() if v is None]
            values.update(dict.fromkeys(undefined, 0.0))
            if undefined:  # the keys, so the mean over scored surveys can leave these zeros out (summary.py)
                output.diagnostics.append(diagnostic(
                    "undefined_scored_zero", f"{', '.join(undefined)} undefined for this survey: scored 0 "
                    "(--aggregate released, as the released evaluator does)", keys=undefined))
        result.update(values)
        counts.update(output.counts)
        diagnostics.extend(as_diagnostic(d) for d in output.diagnostics)  # a plugin may still hand in dicts
        if with_details:
            details.extend(output.details)
    result["counts"] = {**survey_counts(prepared), **counts}
    result["diagnostics"] = [diagnostic_record(d) for d in diagnostics]
    if with_details and not details:  # no selected metric reports items: say how every reference resolved
        details = resolution_details(prepared)
    for record in details:
        record["survey_id"] = prepared.survey_id
    return {"result": result, "details": details}


def resolution_details(prepared: PreparedSurvey) -> list[dict[str, Any]]:
    """One ``--details`` record per reference entry and citation instance: its resolved doc id, or why none.

    Written when no selected metric reports per-item records (recall, SHR, the SurveyGen metrics), so that
    ``--details`` always says which references resolved and which citations point at nothing.
    """
    gt_cites = set(prepared.gt.all_cites)

    def why(number: int, doc_id: int | None) -> str:
        if number not in prepared.references:
            return "reference number missing from the reference list"
        return "resolved" if doc_id is not None else "title not found in the corpus (not_in_corpus)"

    records: list[dict[str, Any]] = []
    for number, reference in sorted(prepared.parsed.references.items()):
        doc_id = prepared.references.get(number)
        records.append({"kind": "reference", "number": number, "title": reference.title, "line": reference.line,
                        "doc_id": doc_id, "why": why(number, doc_id), "in_gt": doc_id in gt_cites})
    for citation in prepared.citations:
        doc_id = prepared.references.get(citation.number)
        records.append({"kind": "citation", "number": citation.number, "heading": citation.heading,
                        "sentence": citation.sentence, "doc_id": doc_id, "why": why(citation.number, doc_id),
                        "in_gt": doc_id in gt_cites})
    return records


def average(
    surveys: dict[str, dict[str, Any]], config: EvaluationConfig, failed_folders: int = 0
) -> tuple[dict[str, float | None], dict[str, int]]:
    """Mean over surveys of each key (protocol.md §4) and the number of surveys each mean is over.

    ``defined``: undefined (None) values are left out. ``released``: for the metrics that declare
    ``released_zero`` the mean is over every survey folder, undefined values and ``failed_folders``
    (survey folders that could not be evaluated) counted 0.
    """
    return average_results(surveys, result_keys(config), config.aggregate, failed_folders, set(released_zero_keys(config)))


def _retry_on_rerun(record: dict[str, Any]) -> bool:
    """A survey whose model requests failed in transport (``*_failed`` counts) is scored again."""
    counts = record.get("result", {}).get("counts", {})
    return any(k.endswith("_failed") and v for k, v in counts.items())


def journal_path(out: Path) -> Path:
    return out.with_name(out.name + ".journal.jsonl")


def evaluate_run(
    data: SurgeData,
    passage_dir: str | Path,
    out: str | Path,
    session: EvaluationSession | EvaluationConfig,
    *,
    details_path: str | Path | None = None,
    on_survey_done: Callable[[int, int, int], None] | None = None,
    **models: Any,
) -> dict[str, Any] | None:
    """Evaluate every survey in ``passage_dir`` and write ``out`` atomically; returns the results dict.

    ``session`` (:class:`~.session.EvaluationSession`) is the run's engine: its settings (pinned against
    ``data``), run options, models (built only if a requested metric needs them and some survey still has to be
    scored), bibliographic look-ups and, under ``accelerate launch``, its process group: the NLI and encoder work
    is then split between the processes, the main process finishes the run and returns the results, the others
    return None (:mod:`.parallel`). ``on_survey_done(survey_id, done, total)`` is called after each survey is
    journaled (progress bars; tests interrupt a run from it).

    The older form, an :class:`~.config.EvaluationConfig` with models by keyword (``nli=``, ``encoder=``,
    ``judge=``, ``ner=``, their ``<kind>_factory=``, ``run=``, ``processes=``), still runs (scripts written
    against it, the parity tests with the released evaluator) in a session made of them here and closed after,
    with a :class:`DeprecationWarning`.
    """
    if isinstance(session, EvaluationConfig):
        warnings.warn("evaluate_run(data, passages, out, config, nli=..., ...) is deprecated: pass "
                      "EvaluationSession(config, nli=..., ...) as the fourth argument", DeprecationWarning, stacklevel=2)
        # the older form also took each kind's factory as ``<kind>_factory=``: the session takes them as ``factories``
        factories = {kind: models.pop(f"{kind}_factory") for kind in MODEL_KINDS if f"{kind}_factory" in models}
        with EvaluationSession(session, factories={k: f for k, f in factories.items() if f is not None},
                               **models) as own:
            return evaluate_run(data, passage_dir, out, own, details_path=details_path, on_survey_done=on_survey_done)
    if models:
        raise TypeError(f"evaluate_run() takes its models from the session, not {sorted(models)}: "
                        "EvaluationSession(config, nli=..., ...)")
    out = Path(out)
    config = session.pin(data)  # e.g. the quiz set's fingerprint: in the key and the results
    session.check_judge()
    key = config.key(data.fingerprint)
    journal = JsonlJournal(journal_path(out))
    finished = _finished_records(journal, key, session, with_details=details_path is not None)
    processes = session.processes
    skip = set(finished) if processes is None else set(processes.from_main(sorted(finished)))
    prepared, failures, excluded = prepare_folder(data, passage_dir, config, skip=skip)
    if processes is not None:  # a disagreement is an error on every process, never a hang in a later collective
        processes.check_same([p.survey_id for p in prepared], "surveys to score")
        if prepared:
            shared_model_pass(prepared, session.models, config, processes, selected_metrics(config))
    model_work = processes.shares() if processes is not None else None  # every process, even with nothing to do
    if processes is not None and not processes.is_main:
        return None
    lookups = prefetch_all(prepared, session)
    total = len(finished) + len(prepared)
    for p in prepared:
        scored = score_survey(p, session, with_details=details_path is not None)
        record = {"survey_id": p.survey_id, "config_key": key, "path": str(p.path), **scored,
                  "with_details": details_path is not None}  # a later --details run rescores the others
        journal.append(record)
        finished[p.survey_id] = record
        if on_survey_done:
            on_survey_done(p.survey_id, len(finished), total)

    # the journal may hold surveys a filter now excludes (filters are not in its key): they are not reported
    left_out = {e["survey_id"] for e in excluded}
    kept = {i: finished[i] for i in sorted(finished) if i not in left_out}
    results = _results_record(data, passage_dir, out, session, kept, failures, excluded, model_work=model_work)
    if lookups is not None:  # what the bibliographic services did in this invocation (no secrets)
        results["references"] = lookups
    record_models(results)  # every model by name and weights fingerprint, never a local path
    if details_path is not None:
        lines = [json.dumps(d, ensure_ascii=False) for record in kept.values() for d in record.get("details", [])]
        atomic_write_text(details_path, "\n".join(lines) + ("\n" if lines else ""))
    # checked as every reader will check it, before it exists: a field the schema does not declare is a bug here,
    # never a file that a reader later refuses
    check_results(out, results, WrittenResults)
    atomic_write_json(out, results)
    return results


def _finished_records(journal: JsonlJournal, key: str, session: EvaluationSession, *, with_details: bool
                      ) -> dict[int, dict[str, Any]]:
    """The journal's surveys scored under this run's key (and with details when the run writes them).

    Under accelerate launch the main process alone reads the journal (it alone writes it; another machine may not
    see it) and tells the others which surveys are finished.
    """
    processes = session.processes
    if processes is not None and not processes.is_main:
        return {}
    return {rec["survey_id"]: rec for rec in journal.read()
            if rec.get("config_key") == key and not _retry_on_rerun(rec)
            and (not with_details or rec.get("with_details", bool(rec.get("details"))))}


def _results_record(
    data: SurgeData, passage_dir: str | Path, out: Path, session: EvaluationSession,
    finished: dict[int, dict[str, Any]], failures: list[dict[str, Any]], excluded: list[dict[str, Any]],
    *, model_work: Any,
) -> dict[str, Any]:
    """The results file of a run (before its look-ups and models are recorded): settings, per-survey scores,
    means, failures, what the means are over and the content fingerprints."""
    config, processes = session.config, session.processes
    surveys = {str(i): record["result"] for i, record in finished.items()}
    failed_folders = len({f["survey_id"] for f in failures if f["survey_id"] is not None} - set(finished))
    means, counted = average(surveys, config, failed_folders)
    results: dict[str, Any] = {
        "config": {
            **recorded_settings(config),  # model settings only of the kinds a selected metric used
            "data": str(data.path),
            "data_fingerprint": data.fingerprint,
            "data_window": data.window,  # a fresh split's window, None otherwise; the fingerprint is in the key
            "data_survey_dates": list(data.survey_dates or []) or None,  # the surveys' own dates, not a window
            "passages": recorded_passages(passage_dir, out),  # relative to the results file
            "versions": package_versions(),
            "num_processes": processes.num_processes if processes is not None else 1,  # not in the resume key
            **({"model_work": model_work} if model_work is not None else {}),
        },
        "surveys": surveys,
        "average": means,
        "average_counts": counted,
        "failures": sorted(failures, key=lambda f: (f["survey_id"] is None, f["survey_id"] or 0, f["path"])),
        "excluded": excluded,  # surveys the filters (--min-cites, --exclude-empty) left out, with the reason
    }
    topics, topics_name = expected_topics(data)  # what the means are over, said under the table and in the report
    # what was scored, by content: a results file is joined to another (surge report, the leaderboard) only when
    # they scored the same survey files, whatever their folders are called
    scored = survey_fingerprints(passage_dir, config.protocol, survey_ids=surveys)
    results["fingerprints"] = {"surveys": scored,
                               "run": run_fingerprint(scored, data.fingerprint, config.key_settings())}
    results["averaging"] = averaging_notes(surveys, results["failures"], excluded, config, topics=topics,
                                           topics_name=topics_name)
    live = session.live_judge()  # the judge that ran, never built for this
    if config.judge:
        results["config"]["judge_settings"] = judge_settings(config, unwrap(live))
    if live is not None:
        results["judge"] = judge_report(live)
    return results
