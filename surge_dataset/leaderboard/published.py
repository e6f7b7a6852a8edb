"""What a leaderboard row publishes: each system re-scored (:mod:`.verify`) or said why not, its values replaced by
the re-computed ones where re-scoring ran, each metric's source (re-computed or self-reported), its badge and a
mismatch's first difference; and which inputs are refused at this stage (a survey the dataset lacks, a re-scoring that
breaks), each alone, so that one submission never stops the build for the others.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from surge_dataset.leaderboard.inputs import Entry, refused_input
from surge_dataset.leaderboard.rescore_store import RescoreStore

__all__ = ["Published", "badge", "first_difference", "known_surveys", "publish", "refusal", "verify_entries"]


@dataclass
class Published:
    """What a system's row publishes besides its values: each metric's source and the re-run's citation verdicts."""

    sources: dict[str, str]
    status: str
    details: dict[str, list[dict[str, Any]]] | None = None  # survey id -> re-computed records; None: as submitted
    counts_recomputed: bool = False

    @property
    def ranked(self) -> bool:
        from surge_dataset.leaderboard.verify import MISMATCH

        return self.status != MISMATCH


def verify_entries(entries: Sequence[Entry], metrics: Sequence[str], dataset: Any, verify: bool | None,
                   models: Mapping[str, str], device: str | None, say: Callable[[str], None],
                   refused: list[dict[str, Any]], store: RescoreStore) -> dict[str, Published]:
    """Each entry's ``verification`` record, re-scored (:mod:`.verify`) or why not; its published values replaced by
    the re-computed ones (values, counts, diagnostics; the submitted ones are only compared). An entry whose
    re-scoring breaks is refused alone (left out of the result): one submission never stops the others."""
    from surge_dataset.leaderboard.verify import UNVERIFIED, Verification, verify_results

    published = {}
    loaded: dict[tuple[str, ...], Any] = {}  # each model built once for the whole build, not once per submission
    for entry in entries:
        if verify is False or (verify is None and entry.submission is None):
            why = "not re-scored (--no-verify)" if verify is False else \
                "a plain results file, not re-scored (pass --verify to re-score it)"
            found = Verification(UNVERIFIED, not_rescored=why)
        else:
            reused = len(store.reused)
            try:
                found = verify_results(entry.results, entry.passages, dataset, models=models, device=device,
                                       store=store, loaded=loaded)
            except Exception as exc:  # noqa: BLE001 - anything a hostile submission triggers refuses it, not the build
                first = (str(exc).splitlines() or [""])[0] or "an error with no message"
                refused.append(refusal(entry, f"re-scoring failed: {first}"))
                continue
            say(f"{'compared with the stored re-scoring of' if len(store.reused) > reused else 're-scored'} "
                f"{entry.system.name} (verification)")
        entry.verification = found.record()
        published[entry.system.name] = publish(entry, found, metrics)
    return published


def publish(entry: Entry, found: Any, metrics: Sequence[str]) -> Published:
    """The re-computed record of every survey where re-scoring ran; the submitted value only for a self-reported key."""
    from surge_dataset.evaluation.results import NON_METRIC_KEYS
    from surge_dataset.leaderboard.verify import RECOMPUTED

    sources = found.sources(metrics)
    if found.recomputed is None:
        return Published(sources, found.status)
    published = Published(sources, found.status, counts_recomputed=True)
    surveys = {}
    for sid, submitted in entry.system.surveys.items():
        redone = found.recomputed.get(sid) or {}
        record = {k: v for k, v in submitted.items() if k not in NON_METRIC_KEYS and sources.get(k) != RECOMPUTED}
        record.update({k: redone.get(k) for k in metrics if sources.get(k) == RECOMPUTED})
        record["counts"] = dict(redone.get("counts") or {})
        record["diagnostics"] = list(redone.get("diagnostics") or [])
        surveys[sid] = record
    entry.system.surveys = surveys
    if found.unverified:  # a metric not re-run here: its verdicts exist only in the submitted details (self-reported)
        return published
    published.details = {}
    for record in found.details or []:
        published.details.setdefault(str(record.get("survey_id")), []).append(record)
    return published


def badge(verification: Mapping[str, Any] | None) -> str:
    from surge_dataset.leaderboard.verify import Verification

    return Verification(str((verification or {}).get("status") or "unverified")).badge()


def first_difference(verification: Mapping[str, Any] | None) -> str | None:
    from surge_dataset.leaderboard.verify import MISMATCH, Verification

    if not verification or verification.get("status") != MISMATCH or not verification.get("mismatch"):
        return None
    return Verification(MISMATCH, mismatch=verification["mismatch"]).first_difference()


def refusal(entry: Entry, reason: str) -> dict[str, Any]:
    """An entry refused after it was read, as :func:`.inputs.refused_input` lists every refused input."""
    place = entry.submission if entry.submission is not None else entry.system.path
    return refused_input(place.name, entry.system.name, reason)


def known_surveys(entries: Sequence[Entry], dataset: Any, refused: list[dict[str, Any]]) -> list[Entry]:
    """The entries whose surveys the dataset has; results scored on that dataset naming a survey it lacks are
    refused (that file only), naming the survey."""
    if dataset is None:
        return list(entries)
    kept = []
    for entry in entries:
        if entry.system.config.get("data_fingerprint") == dataset.fingerprint:
            unknown = [sid for sid in entry.system.survey_ids if not dataset.has_survey(int(sid))]
            if unknown:
                refused.append(refusal(entry, f"scores survey {unknown[0]}, which the dataset "
                                               f"{dataset.fingerprint} (--data) does not have"))
                continue
        kept.append(entry)
    return kept
