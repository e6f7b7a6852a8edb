"""A fresh split's ``fresh_manifest.json`` (``surge data fresh``): its name, kind and version, the one reader that
checks it, and the one way its date window is written out (build notes, the card, ``surge report``, the leaderboard).

Light on purpose (no pyarrow): the report and the leaderboard read windows without loading the build.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from surge_dataset.core.io import reading_input
from surge_dataset.data.validate import SurgeDataError

__all__ = ["FRESH_KIND", "FRESH_MANIFEST", "FRESH_VERSION", "read_fresh_manifest", "window_text"]

#: What ``surge data fresh`` writes beside its official files: the date window, counts, versions and dropped
#: candidates of a fresh split. The build copies it into the dataset and its window into the build's metadata.
FRESH_MANIFEST = "fresh_manifest.json"
FRESH_KIND = "surge-fresh"
FRESH_VERSION = 1


def window_text(window: Mapping[str, Any], open_end: str = "open") -> str:
    """A fresh split's date window as every report names it: ``SINCE to UNTIL`` (``open_end`` without an end)."""
    return f"{window.get('since')} to {window.get('until') or open_end}"


def read_fresh_manifest(path: str | Path) -> dict[str, Any]:
    """A ``surge data fresh`` manifest, checked as far as the build, ``surge evaluate`` and ``surge report`` rely on
    it (its kind, version and window), so a stray or newer file fails here, naming itself, not later."""
    path = Path(path)
    with reading_input(path):
        manifest = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(manifest, dict) or manifest.get("kind") != FRESH_KIND:
        raise SurgeDataError(path, f'not a `surge data fresh` manifest (it lacks "kind": "{FRESH_KIND}")')
    if manifest.get("version") != FRESH_VERSION:
        raise SurgeDataError(path, f"manifest version {manifest.get('version')!r}; this surge-bench reads version "
                                   f"{FRESH_VERSION} (a newer surge-bench wrote it?)")
    window = manifest.get("window")
    if not (isinstance(window, dict) and isinstance(window.get("since"), str)
            and isinstance(window.get("until"), str | None)):
        raise SurgeDataError(path, '"window" must be {"since": "YYYY-MM-DD", "until": "YYYY-MM-DD" or null}',
                             field="window")
    return manifest
