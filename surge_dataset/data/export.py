"""``surge data export``: a built dataset -> the authors' official JSON files, losslessly.

Known columns go back to their official keys (in the official order), then the fields that were kept
in ``extra`` are restored; surveys and queries are written in their original file order (kept in
``surge_meta.json``), the corpus in shard order (which is file order).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..io import atomic_path
from ..output_folder import claim_output_folder
from ..records import EXTRA_COLUMN, FIELDS_BY_CONFIG, NODE_FIELDS, OFFICIAL_FILES, load_extra
from .dataset import SurgeData


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


def _write_array(path: Path, records: Any) -> int:
    """Stream a JSON array to ``path`` atomically, one object per line; returns the count."""
    count = 0
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as handle:
        handle.write("[")
        for record in records:
            handle.write(",\n" if count else "\n")
            handle.write(json.dumps(record, ensure_ascii=False))
            count += 1
        handle.write("\n]\n" if count else "]\n")
    return count


def export_dataset(data: str | Path, out: str | Path) -> dict[str, int]:
    """Write ``surveys.json``/``corpus.json``/``queries.json`` for every config the dataset has."""
    dataset = SurgeData.open(data)
    out = claim_output_folder(out, "official-json", "surge data export", inputs=[("--data", dataset.path)])
    written: dict[str, int] = {}
    for config, order_key, id_column in (("surveys", "survey_order", "survey_id"), ("queries", "query_order", "query_id")):
        if config not in dataset.configs:
            continue
        rows = dataset.table(config).to_pylist()
        by_id = {row[id_column]: row for row in rows}
        order = dataset.meta.get(order_key) or [row[id_column] for row in rows]
        written[config] = _write_array(out / OFFICIAL_FILES[config], (row_to_official(config, by_id[i]) for i in order))
    if "corpus" in dataset.configs:

        def corpus_records():
            for batch in dataset.iter_corpus_batches(batch_size=20_000):
                for row in batch.to_pylist():
                    yield row_to_official("corpus", row)

        written["corpus"] = _write_array(out / OFFICIAL_FILES["corpus"], corpus_records())
    return written

