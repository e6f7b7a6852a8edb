"""Re-scorings kept by what they covered, so that a rebuild of the leaderboard re-scores only what it has not seen.

Re-scoring a submission (:mod:`.verify`) runs ``surge evaluate``'s engine on its surveys: minutes to hours for the
paper's NLI model on a CPU. What it computes depends on the survey files, the dataset, the models' weights, the
metrics (and their code's ``version``) and the settings that change numbers -- never on the submitted scores, which
are only compared with it. So the re-computation (values, counts, diagnostics, failures and citation verdicts) is kept
under the sha256 of exactly those inputs (:func:`rescore_key`), and a rebuild that meets the same inputs reuses it
and compares the submitted scores again. A changed dataset, model, metric version or survey file is another key: it
re-scores exactly the submissions it concerns.

The store is a folder of ``<key>.json`` files, written by the builder only: beside the Space's data
(``SPACE/verifications/``, carried from one build of the folder to the next) or a folder of the builder's choosing
(``--verifications DIR``). An entry is checked like any input before it is trusted: it must name the key it is
stored under, cover the inputs that key hashes, and carry the sha256 of its own content; one that does not (edited,
truncated, moved) is refused with a warning and the submission is re-scored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surge_dataset.core.io import atomic_write_text

__all__ = ["STORE_FOLDER", "RescoreStore", "rescore_key"]

#: The store's folder inside a Space folder.
STORE_FOLDER = "verifications"
#: What an entry says it is (a store written by a later layout is not read).
ENTRY_FORMAT = "surge-rescore-1"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def rescore_key(covers: Mapping[str, Any]) -> str:
    """The sha256 of what a re-scoring depends on: ``covers`` = survey fingerprints, dataset fingerprint, model
    weights fingerprints, metric versions and settings (built by :func:`.verify.verify_results`)."""
    return hashlib.sha256(_canonical(covers).encode("utf-8")).hexdigest()


@dataclass
class RescoreStore:
    """Entries read from ``sources`` (the previous build's store, or the chosen folder) and written to ``target``;
    ``reuse=False`` (``--reverify``) reads nothing. Counts what was reused and computed, and what was refused."""

    target: Path
    sources: Sequence[Path] = ()
    reuse: bool = True
    reused: list[str] = field(default_factory=list)
    computed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # one line per entry not trusted

    def get(self, key: str, covers: Mapping[str, Any]) -> dict[str, Any] | None:
        """The stored re-computation for ``key``, checked; None when there is none (or it is not trusted)."""
        if not self.reuse:
            return None
        for folder in (self.target, *self.sources):
            path = folder / f"{key}.json"
            if not path.is_file():
                continue
            entry = self._checked(path, key, covers)
            if entry is None:
                continue
            if folder != self.target:  # carried into this build's store, so the next rebuild finds it there
                self._write(key, entry)
            self.reused.append(key)
            return entry["rescored"]
        return None

    def put(self, key: str, covers: Mapping[str, Any], rescored: Mapping[str, Any]) -> None:
        """Keep a fresh re-computation (atomic: a killed build leaves no half entry)."""
        body = {"format": ENTRY_FORMAT, "key": key, "covers": dict(covers), "rescored": dict(rescored)}
        self._write(key, {**body, "sha256": hashlib.sha256(_canonical(body).encode("utf-8")).hexdigest()})
        self.computed.append(key)

    def _write(self, key: str, entry: Mapping[str, Any]) -> None:
        self.target.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.target / f"{key}.json", json.dumps(entry, ensure_ascii=False) + "\n")

    def _checked(self, path: Path, key: str, covers: Mapping[str, Any]) -> dict[str, Any] | None:
        why = None
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            entry, why = None, "not readable JSON"
        if why is None and (not isinstance(entry, dict) or entry.get("format") != ENTRY_FORMAT):
            why = "not a stored re-scoring"
        if why is None:
            body = {k: v for k, v in entry.items() if k != "sha256"}
            if entry.get("sha256") != hashlib.sha256(_canonical(body).encode("utf-8")).hexdigest():
                why = "its content does not match its sha256 (edited or truncated)"
            elif entry.get("key") != key or _canonical(entry.get("covers")) != _canonical(dict(covers)) \
                    or rescore_key(entry.get("covers") or {}) != key:
                why = "it covers other inputs than its name says"
            elif not isinstance(entry.get("rescored"), dict) or not isinstance(entry["rescored"].get("surveys"), dict):
                why = "no re-computed surveys in it"
        if why is not None:
            self.refused.append(f"stored verification {path.name[:16]}…: {why}: not trusted, re-scored")
            return None
        return entry
