"""A fresh split through ``surge data export`` and the dataset card: the manifest travels, the card says so.

The fresh source folder is the shipped sample (examples/sample/*.json) plus a small ``fresh_manifest.json``
written here, in the shape ``surge data fresh`` (and ``surge data annotate --merge``) writes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.core.errors import SurgeError
from surge_dataset.data.build import FRESH_MANIFEST, build_dataset
from surge_dataset.data.dataset import SurgeData
from surge_dataset.data.export import export_dataset
from surge_dataset.data.validate import SurgeDataError

from .conftest import SAMPLE_DIR

NAMES = ("surveys.json", "corpus.json", "queries.json")


def manifest(*, until: str | None = "2025-08-31", annotation: bool = True) -> dict[str, Any]:
    """A small manifest as ``surge data fresh`` writes it (3 candidates dropped, 6 kept), annotated or not."""
    record: dict[str, Any] = {
        "kind": "surge-fresh", "version": 1,
        "window": {"since": "2025-06-01", "until": until},
        "categories": ["cs.CL", "cs.LG"],
        "created": "2025-09-02T10:00:00+00:00",
        "counts": {"searched": 40, "surveys_by_rule": 9, "kept": 6, "dropped": 3, "queries": 54, "corpus": 341},
        "dropped": [{"arxiv_id": f"2506.0000{i}", "stage": "source", "code": "no-source", "reason": "404"}
                    for i in range(3)],
        "surveys": [{"survey_id": i, "arxiv_id": f"2507.0000{i}", "title": f"Survey {i}"} for i in (0, 1, 2, 41, 42, 43)],
        "versions": {"surge-bench": "test"},
        "settings": {"since": "2025-06-01", "min_citations": 0},
    }
    if annotation:
        record["annotation"] = {"kappa": 0.79234, "agreement": 0.9, "kept": [0, 1, 2, 41, 42], "dropped": [
            {"survey_id": 43, "usable": ["no", "no"]}]}
    return record


def export_layout(records: list[Any]) -> str:
    """A JSON array as ``surge data export`` writes one (one object per line), so the bytes, hence the
    fingerprint, of a source folder and of its export can be the same."""
    return "[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n]\n" if records else "[]\n"


def fresh_source(folder: Path, record: dict[str, Any]) -> Path:
    """The sample's three files (in the export's layout) plus ``record`` as the manifest."""
    folder.mkdir(parents=True)
    for name in NAMES:
        records = json.loads((SAMPLE_DIR / name).read_text(encoding="utf-8"))
        (folder / name).write_text(export_layout(records), encoding="utf-8")
    (folder / FRESH_MANIFEST).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return folder


def test_export_then_build_keeps_the_window_and_the_fingerprint(tmp_path):
    src = fresh_source(tmp_path / "fresh-src", manifest())
    build_dataset(src, tmp_path / "built")
    first = SurgeData.open(tmp_path / "built")
    assert first.window == {"since": "2025-06-01", "until": "2025-08-31"}

    written = export_dataset(tmp_path / "built", tmp_path / "back")
    assert written == {"surveys": 6, "queries": 54, "corpus": 341}
    assert (tmp_path / "back" / FRESH_MANIFEST).read_bytes() == (src / FRESH_MANIFEST).read_bytes()
    for name in NAMES:
        assert (tmp_path / "back" / name).read_bytes() == (src / name).read_bytes(), name

    build_dataset(tmp_path / "back", tmp_path / "again")
    again = SurgeData.open(tmp_path / "again")
    assert again.window == first.window == {"since": "2025-06-01", "until": "2025-08-31"}
    # the fingerprint is that of the three official files' bytes (not the manifest's), the same both times
    files = "".join(f"{n}={hashlib.sha256((src / n).read_bytes()).hexdigest()};" for n in sorted(NAMES))
    assert again.fingerprint == first.fingerprint == hashlib.sha256(files.encode()).hexdigest()[:16]
    assert again.meta["fresh"] == first.meta["fresh"]
    assert again.meta["fresh"]["annotation"] == {"kappa": 0.79234, "kept": 5}
    assert (tmp_path / "again" / "README.md").read_text(encoding="utf-8") == (
        tmp_path / "built" / "README.md").read_text(encoding="utf-8")


def test_the_cli_export_writes_the_manifest_too(tmp_path):
    src = fresh_source(tmp_path / "fresh-src", manifest(until=None, annotation=False))
    build_dataset(src, tmp_path / "built")
    result = CliRunner().invoke(app, ["data", "export", "--data", str(tmp_path / "built"), "--out",
                                      str(tmp_path / "back")])
    assert result.exit_code == 0, result.output
    assert "fresh_manifest.json: the fresh split's manifest" in " ".join(result.output.split())
    assert json.loads((tmp_path / "back" / FRESH_MANIFEST).read_text(encoding="utf-8")) == manifest(
        until=None, annotation=False)
    build_dataset(tmp_path / "back", tmp_path / "again")
    assert SurgeData.open(tmp_path / "again").window == {"since": "2025-06-01", "until": None}


def test_official_data_exports_no_manifest_and_drops_a_stale_one(sample_dataset, tmp_path):
    """Exporting official data into a folder an earlier fresh export wrote must not leave that manifest: the
    next build would call the official data a fresh split."""
    build_dataset(fresh_source(tmp_path / "fresh-src", manifest()), tmp_path / "built")
    export_dataset(tmp_path / "built", tmp_path / "back")
    assert (tmp_path / "back" / FRESH_MANIFEST).is_file()
    written = export_dataset(sample_dataset, tmp_path / "back")
    assert written == {"surveys": 6, "queries": 54, "corpus": 341}
    assert not (tmp_path / "back" / FRESH_MANIFEST).exists()
    build_dataset(tmp_path / "back", tmp_path / "again")
    data = SurgeData.open(tmp_path / "again")
    assert data.window is None and "fresh" not in data.meta
    # same records in the same layout as the fresh source: the fingerprint ignores the manifest
    assert data.fingerprint == SurgeData.open(tmp_path / "built").fingerprint


def test_a_changed_or_missing_manifest_in_the_dataset_is_refused_naming_it(tmp_path):
    build_dataset(fresh_source(tmp_path / "fresh-src", manifest()), tmp_path / "built")
    copied = tmp_path / "built" / FRESH_MANIFEST
    copied.write_text(json.dumps(manifest(until="2025-12-31")), encoding="utf-8")
    with pytest.raises(SurgeDataError, match="changed since the build") as raised:
        export_dataset(tmp_path / "built", tmp_path / "back")
    assert isinstance(raised.value, SurgeError) and str(copied) in str(raised.value)
    assert not (tmp_path / "back").exists()  # checked before anything is written
    copied.unlink()
    with pytest.raises(SurgeDataError, match=r"fresh_manifest\.json: missing: surge_meta\.json says") as raised:
        export_dataset(tmp_path / "built", tmp_path / "back2")
    assert str(copied) in str(raised.value)


def _section(card: str) -> str:
    return card.split("## Fresh split\n", 1)[1].split("\n## ", 1)[0]


def test_the_card_of_a_fresh_split_says_so(tmp_path):
    build_dataset(fresh_source(tmp_path / "fresh-src", manifest()), tmp_path / "built")
    card = (tmp_path / "built" / "README.md").read_text(encoding="utf-8")
    section = _section(card)
    assert section.startswith("\nThis is not the authors' release: `surge data fresh` built these surveys")
    assert section.strip().splitlines()[-5:] == [
        "- Date window: 2025-06-01 to 2025-08-31",
        "- arXiv categories: cs.CL, cs.LG",
        "- Created: 2025-09-02T10:00:00+00:00",
        "- Surveys kept by `surge data fresh`: 6; candidates dropped: 3",
        "- Expert annotation (`surge data annotate --merge`): Cohen's κ 0.792; surveys both annotators marked "
        "usable (kept): 5",
    ]
    # placed before the configs table, once
    assert card.count("## Fresh split") == 1 and card.index("## Fresh split") < card.index("## Configs and splits")


def test_the_card_of_an_open_unannotated_fresh_split(tmp_path):
    record = manifest(until=None, annotation=False)
    del record["categories"], record["counts"]
    build_dataset(fresh_source(tmp_path / "fresh-src", record), tmp_path / "built")
    section = _section((tmp_path / "built" / "README.md").read_text(encoding="utf-8"))
    assert section.strip().splitlines()[-4:] == [
        "- Date window: 2025-06-01 to open (no end date)",
        "- arXiv categories: not recorded",
        "- Created: 2025-09-02T10:00:00+00:00",
        "- Surveys kept by `surge data fresh`: not recorded; candidates dropped: not recorded",
    ]
    assert "Expert annotation" not in section


def test_the_official_card_has_no_fresh_section(sample_dataset, tmp_path):
    card = (sample_dataset / "README.md").read_text(encoding="utf-8")
    assert "Fresh split" not in card and "fresh_manifest" not in card
    src = fresh_source(tmp_path / "fresh-src", manifest())
    (src / FRESH_MANIFEST).unlink()
    build_dataset(src, tmp_path / "plain")
    fresh_src = fresh_source(tmp_path / "fresh-src2", manifest())
    build_dataset(fresh_src, tmp_path / "fresh")
    fresh_card = (tmp_path / "fresh" / "README.md").read_text(encoding="utf-8")
    plain_card = (tmp_path / "plain" / "README.md").read_text(encoding="utf-8")
    # the fresh card is the official one plus its section, nothing else changed
    start = fresh_card.index("## Fresh split")
    end = fresh_card.index("## Configs and splits")
    assert fresh_card[:start] + fresh_card[end:] == plain_card
