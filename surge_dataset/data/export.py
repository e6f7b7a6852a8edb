"""``surge data export``: a built dataset -> the authors' official JSON files, losslessly.

Known columns go back to their official keys (in the official order), then the fields that were kept
in ``extra`` are restored; surveys and queries are written in their original file order (kept in
``surge_meta.json``), the corpus in shard order (which is file order). A fresh split's
``fresh_manifest.json`` is copied back byte for byte, so building the export again keeps its date window, and a
pinned quiz set is written back as ``quizzes.jsonl``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from surge_dataset.core.io import atomic_path, atomic_write_json_array, naming_errors, reading_input
from surge_dataset.core.output_folder import claim_output_folder
from surge_dataset.core.records import (
    EXTRA_COLUMN,
    FIELDS_BY_CONFIG,
    NODE_FIELDS,
    OFFICIAL_FILES,
    QUIZ_CONFIG,
    QUIZ_FILE,
    load_extra,
)
from surge_dataset.data.dataset import SurgeData
from surge_dataset.data.fresh_manifest import FRESH_MANIFEST, read_fresh_manifest
from surge_dataset.data.validate import SurgeDataError


def row_to_official(config: str, row: dict[str, Any]) -> dict[str, Any]:
    """One Arrow row -> one official JSON object (inverse of the build's conversion)."""
    record: dict[str, Any] = {}
    for official, column, kind in FIELDS_BY_CONFIG[config]:
        value = row[column]
        if kind == "structure":
            value = [
                {**{name: node[name] for name in NODE_FIELDS}, **load_extra(node.get(EXTRA_COLUMN))}
                for node in value or []
            ]
        record[official] = value
    record.update(load_extra(row.get(EXTRA_COLUMN)))
    return record


def _fresh_manifest(dataset: SurgeData) -> bytes | None:
    """A fresh split's manifest, read and checked before anything is exported: the build that reads the export
    back would refuse a changed or foreign one, later and with a less useful message. None for official data."""
    fresh = dataset.meta.get("fresh")
    if not isinstance(fresh, dict):
        return None
    source = dataset.path / str(fresh.get("manifest") or FRESH_MANIFEST)
    if not source.is_file():
        raise SurgeDataError(source, f"missing: surge_meta.json says this dataset is a fresh split, but its "
                                     f"{FRESH_MANIFEST} is gone (rebuild the dataset from its source folder)")
    read_fresh_manifest(source)
    with reading_input(source):
        content = source.read_bytes()
    recorded = fresh.get("sha256")
    if recorded and hashlib.sha256(content).hexdigest() != recorded:
        raise SurgeDataError(source, "changed since the build (its sha256 differs from the one in surge_meta.json); "
                                     "rebuild the dataset from its source folder")
    return content


def export_dataset(data: str | Path, out: str | Path) -> dict[str, int]:
    """Write ``surveys.json``/``corpus.json``/``queries.json`` for every config the dataset has, and a fresh split's
    ``fresh_manifest.json`` so the export builds into the same split. Returns the records written per config."""
    dataset = SurgeData.open(data)
    manifest = _fresh_manifest(dataset)
    out = claim_output_folder(out, "official-json", "surge data export", inputs=[("--data", dataset.path)])
    stale = out / FRESH_MANIFEST
    if manifest is None and stale.is_file():  # an earlier export's: it would make the next build call this fresh
        with naming_errors(stale):
            stale.unlink()
    written: dict[str, int] = {}
    for config, order_key, id_column in (("surveys", "survey_order", "survey_id"), ("queries", "query_order", "query_id")):
        if config not in dataset.configs:
            continue
        rows = dataset.table(config).to_pylist()
        by_id = {row[id_column]: row for row in rows}
        order = dataset.meta.get(order_key) or [row[id_column] for row in rows]
        written[config] = atomic_write_json_array(out / OFFICIAL_FILES[config], (row_to_official(config, by_id[i]) for i in order))
    if "corpus" in dataset.configs:

        def corpus_records():
            for batch in dataset.iter_corpus_batches(batch_size=20_000):
                for row in batch.to_pylist():
                    yield row_to_official("corpus", row)

        written["corpus"] = atomic_write_json_array(out / OFFICIAL_FILES["corpus"], corpus_records())
    if manifest is not None:  # byte for byte: the rebuilt dataset records the same sha256 and window
        with atomic_path(out / FRESH_MANIFEST) as tmp:
            tmp.write_bytes(manifest)
    _export_quizzes(dataset, out)
    return written


def _export_quizzes(dataset: SurgeData, out: Path) -> None:
    """The pinned quiz set back as ``quizzes.jsonl`` (the next build picks it up); an earlier export's removed
    when this dataset has none."""
    target = out / QUIZ_FILE
    if QUIZ_CONFIG in dataset.configs:
        from surge_dataset.data.quiz_sets import load_quiz_set, write_quiz_file

        write_quiz_file(target, load_quiz_set(dataset.path).questions)
    elif target.is_file():
        with naming_errors(target):
            target.unlink()

