"""Verification by re-scoring: a system's deterministic metrics computed again from its surveys and the dataset.

A results file is a claim. :func:`verify_results` runs ``surge evaluate``'s engine (:func:`~surge_dataset.evaluation.
evaluate_run`, with the models the results name, found by :func:`~surge_dataset.models.identity.locate_model`) on the
submitted surveys and compares every re-computed value with the submitted one, survey by survey:

* ``verified``: every re-computed value equals the submitted one within :data:`TOLERANCE`;
* ``precision``: every re-computed value equals the submitted one within :data:`TOLERANCE`, or, for a model's
  metric submitted from another kind of device (CUDA fp16 against this machine's CPU fp32), within what precision
  moves it (:func:`precision_slack`, measured): ranked apart from verified rows, never with them;
* ``mismatch``: one does not (the first is named: metric, survey, both values) -- a forged or altered score;
* ``unverified``: something could not be re-run, and why (a model not available here, no surveys or dataset, a
  metric asking outside services, results on other data).

Judged metrics (an LLM's answers; ALCE with the judge backend) are never re-run: they are *self-reported*, cell by
cell (:meth:`Verification.sources`). What a re-scored row publishes is what was re-computed here -- values, counts,
diagnostics and citation verdicts (:attr:`Verification.recomputed`, :attr:`Verification.details`) -- never the
submitted ones, which are only compared. ``surge submit`` runs this before packing (a mismatch is refused),
``surge leaderboard build`` for every submission (``--verify``: every input).
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surge_dataset.core.vocabulary import JUDGE, NLI
from surge_dataset.leaderboard.rescore_store import RescoreStore

__all__ = ["MISMATCH", "NLI_ITEMS", "PRECISION", "PRECISION_ITEMS", "PRECISION_SLACK", "RECOMPUTED", "SELF_REPORTED", "TOLERANCE", "UNVERIFIED",
           "VERIFIED", "Verification", "verify_results"]

VERIFIED, PRECISION, MISMATCH, UNVERIFIED = "verified", "precision", "mismatch", "unverified"
#: Where a published value comes from: computed again by the builder, or taken from the submitter's file.
RECOMPUTED, SELF_REPORTED = "recomputed", "self-reported"
#: Largest difference between a submitted and a re-computed value that counts as equal.
TOLERANCE = 1e-6
#: Largest difference, for an embedding model's metric re-computed on another kind of device, that is precision, not
#: forgery: twice the largest per-survey difference measured between fp32 and bf16/fp16 (SHR, 5.3e-4; ``python -m
#: benchmarks.precision_slack``).
PRECISION_SLACK = 2e-3
#: For an NLI metric -- an arg-max decision per item, so a survey's accuracy moves in steps of 0.5/n or 1/n, never
#: by a few digits -- how many of the survey's n items may change score: twice the most measured in one survey.
PRECISION_ITEMS = 2
#: An NLI metric's key -> the count (``counts`` of the re-computed record) that is its n.
NLI_ITEMS = {"doc_acc": "references", "sec_acc": "citations", "sent_acc": "citations"}
#: Model kind -> the results' config field naming it.
MODEL_FIELDS = {"nli": "nli_model", "encoder": "embedding_model", "ner": "ner_model"}


@dataclass
class Verification:
    """What re-scoring a system found (``record()`` is what ``leaderboard.json`` holds per system)."""

    status: str
    checked: list[str] = field(default_factory=list)
    self_reported: list[str] = field(default_factory=list)
    unverified: dict[str, str] = field(default_factory=dict)  # result key -> why it was not re-computed
    mismatch: dict[str, Any] | None = None
    mismatches: int = 0
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    device: str | None = None
    not_rescored: str | None = None  # why nothing was re-scored (a plain results file, --no-verify)
    #: result key -> why the submitted value differs within the precision slack (another kind of device)
    precision: dict[str, str] = field(default_factory=dict)
    #: survey id -> the record re-computed here (values of ``checked``, counts, diagnostics); None: nothing re-run
    recomputed: dict[str, dict[str, Any]] | None = field(default=None, repr=False)
    #: the re-run's ``--details`` records (citation verdicts); None: nothing re-run
    details: list[dict[str, Any]] | None = field(default=None, repr=False)

    def record(self) -> dict[str, Any]:
        """What ``leaderboard.json`` publishes: every free text with local paths cut (a reason may quote an error
        message or a model's folder)."""
        from surge_dataset.leaderboard.submission_rules import strip_local_paths

        return _stripped({"status": self.status, "label": self.label(), "summary": self.summary(),
                          "verified_groups": self.verified_groups(), "checked": self.checked,
                          "self_reported": self.self_reported, "unverified": self.unverified,
                          "precision": self.precision, "mismatch": self.mismatch, "mismatches": self.mismatches,
                          "models": self.models, "device": self.device, "not_rescored": self.not_rescored},
                         strip_local_paths)

    def sources(self, keys: Sequence[str]) -> dict[str, str]:
        """Each result key's published value: :data:`RECOMPUTED` (computed again here and shown as re-computed) or
        :data:`SELF_REPORTED` (judged, or not re-run: the submitted value, labelled so)."""
        return {k: RECOMPUTED if k in self.checked and self.recomputed is not None else SELF_REPORTED for k in keys}

    def verified_groups(self) -> str:
        """The row's label of what rests on re-computation: "objective: verified · judged: self-reported"."""
        parts = []
        objective = [*self.checked, *self.unverified, *self.precision]
        if objective or not self.self_reported:
            state = {VERIFIED: "verified", PRECISION: "within precision", MISMATCH: "mismatch"}.get(self.status)
            if self.not_rescored or state is None:
                state = "partly verified" if self.checked and self.recomputed is not None else "not re-computed"
            parts.append(f"objective: {state}")
        if self.self_reported:
            parts.append("judged: self-reported")
        return " · ".join(parts)

    def badge(self) -> str:
        """A few characters for the table: the status, nothing else (the summary says the rest)."""
        return {VERIFIED: "✓ verified", PRECISION: "≈ precision", MISMATCH: "✗ mismatch"}.get(self.status, "unverified")

    def first_difference(self) -> str | None:
        """A mismatch's first differing value, as the table's greyed rows show it."""
        from surge_dataset.report.constants import metric_label

        if self.status != MISMATCH or not self.mismatch:
            return None
        m = self.mismatch
        return (f"{metric_label(m['metric'])}, survey {m['survey_id']}: {_value(m['submitted'])} submitted, "
                f"{_value(m['recomputed'])} re-computed")

    def label(self) -> str:
        """The table's cell: the status and, briefly, what is off ("mismatch: Recall, survey 0")."""
        from surge_dataset.report.constants import metric_label

        if self.status == MISMATCH and self.mismatch:
            return f"mismatch: {metric_label(self.mismatch['metric'])}, survey {self.mismatch['survey_id']}"
        if self.status == PRECISION:
            keys = [metric_label(k) for k in self.precision]
            return f"precision: {', '.join(keys[:3])}{' …' if len(keys) > 3 else ''}"
        if self.not_rescored:
            return "unverified: not re-scored"
        if self.status == UNVERIFIED:
            keys = [metric_label(k) for k in self.unverified]
            return f"unverified: {', '.join(keys[:3])}{' …' if len(keys) > 3 else ''}"
        return self.status

    def summary(self) -> str:
        """One line: the status and what it rests on (metrics by their column names)."""
        from surge_dataset.report.constants import metric_label

        def names(keys: Sequence[str]) -> str:
            return ", ".join(metric_label(k) for k in keys)

        if self.status == MISMATCH and self.mismatch:
            m = self.mismatch
            more = f" (+{self.mismatches - 1} more)" if self.mismatches > 1 else ""
            return (f"mismatch: {m['metric']} of survey {m['survey_id']} is {_value(m['submitted'])} in the results, "
                    f"{_value(m['recomputed'])} re-computed{more}")
        if self.not_rescored:
            return f"unverified: {self.not_rescored}"
        parts = [self.status]
        if self.status == UNVERIFIED:
            by_reason: dict[str, list[str]] = {}
            for key, why in self.unverified.items():
                by_reason.setdefault(why, []).append(key)
            parts.append(": " + "; ".join(f"{names(keys)} ({why})" for why, keys in by_reason.items()))
            if self.checked:
                parts.append(f"; {names(self.checked)} re-computed and equal")
        if self.status == PRECISION:
            parts.append(": " + "; ".join(self.precision.values()) + " (re-computed values shown; ranked apart from "
                         "verified rows)")
        if self.self_reported:
            parts.append(f"; {names(self.self_reported)} self-reported (judged)")
        return "".join(parts)


def _stripped(value: Any, strip: Any) -> Any:
    """``value`` with ``strip`` applied to every string in it (keys stay: they are result keys and settings)."""
    if isinstance(value, str):
        return strip(value)
    if isinstance(value, dict):
        return {k: _stripped(v, strip) for k, v in value.items()}
    if isinstance(value, list):
        return [_stripped(v, strip) for v in value]
    return value


def _value(value: Any) -> str:
    return "missing" if value is None else f"{value:.6g}" if isinstance(value, (int, float)) else repr(value)


def _present_keys(surveys: Mapping[str, Mapping[str, Any]]) -> list[str]:
    from surge_dataset.evaluation.results import NON_METRIC_KEYS

    return list(dict.fromkeys(k for r in surveys.values() for k in r if k not in NON_METRIC_KEYS))


@dataclass
class _Backend:
    """What :meth:`Metric.active_needs` reads of a config: ALCE needs the judge or the NLI model by its backend."""

    alce_backend: Any


def _plan(config: Mapping[str, Any], keys: Sequence[str]) -> tuple[list[Any], Verification]:
    """The metrics to re-run (those config.metrics names and those writing a present key) and what is not."""
    from surge_dataset.evaluation import registry
    from surge_dataset.evaluation.catalogue import metric_of_key

    known = registry()
    out = Verification(UNVERIFIED)
    names = [m for m in (config.get("metrics") or []) if isinstance(m, str)]
    chosen = {m: known[m] for m in names if m in known}
    for key in keys:
        metric = metric_of_key(key)
        if metric is None:
            out.unverified[key] = f"{key} is no registered metric's key"
        else:
            chosen.setdefault(metric.name, metric)
    rerun = []
    for metric in chosen.values():
        mine = [k for k in keys if metric_of_key(k) is metric]
        judged = metric.judged or JUDGE in metric.active_needs(_Backend(config.get("alce_backend")))
        if judged:
            out.self_reported += mine
        elif metric.name == "reference_existence" and config.get("bib_services"):
            out.unverified.update(dict.fromkeys(mine, "reference_existence asked outside services "
                                                      f"({config.get('bib_services')}): not re-run"))
        else:
            rerun.append(metric)
    return rerun, out


def _models(rerun: Sequence[Any], config: Mapping[str, Any], given: Mapping[str, str],
            out: Verification) -> tuple[list[Any], dict[str, str]]:
    """The metrics whose models have a local copy here, and the copies (config field -> path)."""
    from surge_dataset.models.identity import locate_model

    recorded = config.get("models") if isinstance(config.get("models"), dict) else {}
    paths: dict[str, str] = {}
    runnable = []
    for metric in rerun:
        missing = []
        for kind in sorted(metric.needs & set(MODEL_FIELDS)):
            key = MODEL_FIELDS[kind]
            name = config.get(key)
            if key in paths:
                continue
            if not isinstance(name, str) or not name:
                missing.append(f"the results name no {key}")
                continue
            fingerprint = (recorded.get(key) or {}).get("fingerprint") if isinstance(recorded.get(key), dict) else None
            path, where = (Path(name), "its path") if Path(name).is_absolute() and Path(name).exists() else \
                locate_model(name, fingerprint, given)
            if path is None:
                missing.append(where)
                continue
            paths[key] = str(path)
            out.models[key] = {"name": _model_name(name), "fingerprint": fingerprint, "found_in": where}
        if missing:
            out.unverified.update(dict.fromkeys(metric.keys, "; ".join(missing)))
        else:
            runnable.append(metric)
    return runnable, paths


def _model_name(name: str) -> str:
    """A model as published: its name, never the folder it was read from (a local path is named by its identity,
    else cut to its last part)."""
    from surge_dataset.leaderboard.submission_rules import strip_local_paths
    from surge_dataset.models.identity import local_path, model_identity

    if local_path(name) is not None:
        identity = model_identity(name)
        if identity is not None:
            return identity.name
    return strip_local_paths(name)


def _config(recorded: Mapping[str, Any], metrics: Sequence[str], paths: Mapping[str, str], device: str) -> Any:
    """The recorded settings, the re-run's metrics, the local model copies, this machine's device; no judge."""
    from surge_dataset.core.settings import declared
    from surge_dataset.evaluation import EvaluationConfig

    settings = {f.name: recorded[f.name] for f in declared(EvaluationConfig) if f.name in recorded}
    settings.update(metrics=list(metrics), device=device, judge=None, judge_weighted=False, judge_repeats=1,
                    judge_temperature=None, prompts_version=None, alce_backend=NLI, bib_services="", **paths)
    return EvaluationConfig.from_options(**settings, resolve_device=False)


def _compare(submitted: Mapping[str, Mapping[str, Any]], recomputed: Mapping[str, Mapping[str, Any]],
             failures: Mapping[str, str], keys: Sequence[str], model_keys: Mapping[str, str], device_differs: bool,
             tolerance: float, out: Verification) -> None:
    from surge_dataset.evaluation.results import survey_sort_key

    for sid in sorted(submitted, key=survey_sort_key):
        for key in keys:
            a = submitted[sid].get(key)
            b = recomputed.get(sid, {}).get(key) if sid not in failures else None
            if a is None and b is None:
                continue
            if a is not None and b is not None and math.isclose(a, b, rel_tol=0.0, abs_tol=tolerance):
                continue
            if (device_differs and key in model_keys and a is not None and b is not None
                    and abs(a - b) <= precision_slack(key, model_keys[key], recomputed.get(sid, {}))):
                out.precision.setdefault(key, f"{key} re-computed on {out.device}, submitted from another device: "
                                              f"{_value(a)} vs {_value(b)} (survey {sid}; model precision)")
                continue
            out.mismatches += 1
            if out.mismatch is None:
                out.mismatch = {"metric": key, "survey_id": sid, "submitted": a, "recomputed": b,
                                **({"error": failures[sid]} if sid in failures else {})}


def precision_slack(key: str, kind: str, recomputed: Mapping[str, Any]) -> float:
    """How far a model's value of one survey may differ when it was computed on another kind of device: for an NLI
    metric, :data:`PRECISION_ITEMS` of the survey's items (its n from the re-computed counts), else
    :data:`PRECISION_SLACK`."""
    counts = recomputed.get("counts") if isinstance(recomputed.get("counts"), dict) else {}
    n = counts.get(NLI_ITEMS.get(key, "citations")) if kind == "nli" else None
    return PRECISION_ITEMS / n if isinstance(n, int) and n > 0 else PRECISION_SLACK


def verify_results(results: Mapping[str, Any], passages: Path | None, data: Any, *,
                   models: Mapping[str, str] | None = None, device: str | None = None, tolerance: float = TOLERANCE,
                   cache_dir: Path | None = None, store: RescoreStore | None = None,
                   loaded: dict[tuple[str, ...], Any] | None = None) -> Verification:
    """Re-score the deterministic metrics of ``results`` (a results dict, already checked by the schema) from the
    surveys in ``passages`` against ``data``; ``models``: ``NAME=PATH`` local copies (``--model``); ``store``: earlier
    re-computations by what they covered (:mod:`.rescore_store`): the same surveys, data, weights, metric versions
    and settings are not re-run, only compared again. ``loaded``: the models already built by earlier calls (a
    build re-scores many submissions with the same models: each is loaded once, not once per submission)."""
    from surge_dataset.models.base import resolve_device

    config, surveys = results["config"], results["surveys"]
    keys = _present_keys(surveys)
    rerun, out = _plan(config, keys)
    out.device = resolve_device(device)
    why_not = ("no generated surveys to re-score" if passages is None else "no dataset to re-score against (--data)"
               if data is None else None)
    if why_not is None and config.get("data_fingerprint") != data.fingerprint:
        why_not = f"scored on data {config.get('data_fingerprint')!r}, not on --data's {data.fingerprint!r}"
    if why_not is not None:
        out.unverified.update(dict.fromkeys([k for k in keys if k not in out.self_reported], why_not))
        return out
    runnable, paths = _models(rerun, config, models or {}, out)
    if runnable:
        from surge_dataset.evaluation.config import result_keys

        run_config = _config(config, [m.name for m in runnable], paths, out.device)
        written = result_keys(run_config)  # a key the results dropped is compared too: None against the value
        chosen = [k for k in keys if k in written] + [k for k in written if k not in keys]
        redone = _rescored(data, passages, run_config, runnable, paths, cache_dir, store, chosen, out, loaded)
        if redone is None:
            out.status = UNVERIFIED
            return out
        failures = {str(f["survey_id"]): str(f.get("error")) for f in redone["failures"] if f.get("survey_id") is not None}
        scored = set(redone["surveys"]) | set(failures)
        failures.update({sid: "no survey file to re-score" for sid in surveys if sid not in scored})
        model_keys = {k: "nli" if "nli" in m.needs else "encoder" for m in runnable if m.needs & set(MODEL_FIELDS)
                      for k in m.keys}
        recorded_device = str(config.get("device") or "").split(":")[0]
        _compare(surveys, redone["surveys"], failures, chosen, model_keys,
                 recorded_device != out.device.split(":")[0], tolerance, out)
        out.checked = [k for k in chosen if k not in out.unverified]
        out.recomputed, out.details = redone["surveys"], redone["details"]
    out.status = MISMATCH if out.mismatch else UNVERIFIED if out.unverified else PRECISION if out.precision \
        else VERIFIED
    return out


def _covers(data: Any, passages: Path, run_config: Any, runnable: Sequence[Any], paths: Mapping[str, str]
            ) -> dict[str, Any]:
    """What a re-computation depends on, by content: the survey files, the dataset, each model's weights, each
    metric's code version and the settings that change numbers (model paths replaced by the weights they hold)."""
    from surge_dataset.evaluation.fingerprints import survey_fingerprints
    from surge_dataset.models.identity import weights_fingerprint

    settings = {k: v for k, v in run_config.key_settings().items() if k not in MODEL_FIELDS.values()}
    return {"surveys": survey_fingerprints(passages, run_config.protocol), "data": data.fingerprint,
            "models": {key: weights_fingerprint(path) for key, path in sorted(paths.items())},
            "metrics": {m.name: m.version for m in runnable}, "settings": settings, "device": run_config.device}


def _rescored(data: Any, passages: Path, run_config: Any, runnable: Sequence[Any], paths: Mapping[str, str],
              cache_dir: Path | None, store: RescoreStore | None, chosen: Sequence[str],
              out: Verification, loaded: dict[tuple[str, ...], Any] | None = None) -> dict[str, Any] | None:
    """The re-run's surveys, failures and details: from ``store`` when it holds this very re-computation, else run
    (and kept there); None when it could not run (said in ``out``)."""
    from surge_dataset.core.errors import SurgeError
    from surge_dataset.core.io import JsonlJournal
    from surge_dataset.evaluation import evaluate_run
    from surge_dataset.evaluation.run_options import RunOptions
    from surge_dataset.evaluation.session import EvaluationSession
    from surge_dataset.leaderboard.rescore_store import rescore_key
    from surge_dataset.leaderboard.submission_rules import strip_local_paths

    covers = key = None
    if store is not None:
        try:
            covers = _covers(data, passages, run_config, runnable, paths)
        except SurgeError:  # an unreadable folder: the re-run below says why
            covers = None
        key = rescore_key(covers) if covers is not None else None
        stored = store.get(key, covers) if key is not None and covers is not None else None
        if stored is not None:
            return stored
    try:
        with (tempfile.TemporaryDirectory(prefix="surge-verify-") as tmp,
              EvaluationSession(run_config, RunOptions(cache_dir=cache_dir), data=data, shared_models=loaded) as session):
            redone = evaluate_run(data, passages, Path(tmp) / "results.json", session,
                                  details_path=Path(tmp) / "details.jsonl")
            details = JsonlJournal(Path(tmp) / "details.jsonl").read()  # the re-run's own, complete file
    except SurgeError as exc:  # a model that does not load, an unreadable folder: said, not a failed build
        why = strip_local_paths(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)[:300]
        out.unverified.update(dict.fromkeys(chosen, f"re-scoring failed: {why}"))
        return None
    assert redone is not None
    # kept in the Space folder, which is published: every text with local paths cut, as the Space's other files
    rescored = _stripped({"surveys": redone["surveys"], "details": details,
                          "failures": [{"survey_id": f.get("survey_id"), "error": str(f.get("error"))}
                                       for f in redone["failures"]]}, strip_local_paths)
    if store is not None and key is not None and covers is not None:
        store.put(key, covers, rescored)
    return rescored
