"""What a results file scored, by content: the sha256 of every survey file (``fingerprints.surveys``) and of the run
(``fingerprints.run``: the survey fingerprints, the dataset and the settings that change the numbers).

``surge evaluate`` records them; ``surge report`` and the leaderboard join two results files only when their survey
fingerprints agree (:func:`fingerprint_difference`), never by a folder's name alone, and the leaderboard computes
them itself from the surveys it has (:func:`survey_fingerprints`, the evaluator's own rule for which file of a folder
is the survey).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from surge_dataset.core.io import file_sha256
from surge_dataset.core.vocabulary import OFFICIAL
from surge_dataset.evaluation.prepare import discover_passages

__all__ = ["fingerprint_difference", "run_fingerprint", "survey_fingerprints"]


def survey_fingerprints(passages: str | Path, protocol: str = OFFICIAL,
                        survey_ids: Iterable[int | str] | None = None) -> dict[str, str]:
    """survey id -> sha256 of the bytes of the file ``surge evaluate`` reads as that survey in ``passages``
    (:func:`~.prepare.discover_passages`: a folder it cannot use has no fingerprint); only ``survey_ids`` when
    given. Raises :class:`~.prepare.PassagesNotFoundError` for a missing folder or the flat layout."""
    wanted = None if survey_ids is None else {str(i) for i in survey_ids}
    found, _failures = discover_passages(passages, protocol)
    return {str(sid): file_sha256(path) for sid, path in found if wanted is None or str(sid) in wanted}


def run_fingerprint(surveys: Mapping[str, str], data_fingerprint: str | None, settings: Mapping[str, Any]) -> str:
    """sha256 over the survey fingerprints (in survey id order), the dataset's fingerprint and ``settings`` (the
    ones that change the numbers: :meth:`~.config.EvaluationConfig.key_settings`)."""
    ordered = sorted(surveys.items(), key=lambda item: (not item[0].isdigit(), int(item[0]) if item[0].isdigit() else 0,
                                                        item[0]))
    text = json.dumps({"surveys": ordered, "data": data_fingerprint, "settings": dict(settings)}, sort_keys=True,
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def fingerprint_difference(first: Mapping[str, str], second: Mapping[str, str]) -> str | None:
    """None when two runs scored the same survey files: every survey both fingerprint has the same bytes, and they
    share at least one. Else why not, in a few words: ``survey 3 differs``, ``no survey in common``."""
    common = sorted(set(first) & set(second), key=lambda s: (not s.isdigit(), int(s) if s.isdigit() else 0, s))
    if not common:
        return "no survey in common"
    differing = [sid for sid in common if first[sid] != second[sid]]
    if not differing:
        return None
    more = len(differing) - 1
    return f"survey {differing[0]} differs" + (f", and {more} more" if more else "")
