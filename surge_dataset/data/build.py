"""``surge data build``: the authors' official JSON files -> a HF dataset folder (Parquet + card + index).

The folder loads with ``datasets.load_dataset(<folder>, "<config>")`` locally and, once pushed, from the
Hub -- no loading script (``datasets`` >= 4 refuses them). Everything is written into a temporary
folder beside ``--out`` and renamed at the end, so a failed build leaves nothing half-written.
"""

from __future__ import annotations

import hashlib
import logging
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..io import atomic_directory, atomic_write_json
from ..normalise import normalise_title
from ..records import (
    EXTRA_COLUMN,
    FIELDS_BY_CONFIG,
    NODE_FIELDS,
    NODE_ID_FIELDS,
    OFFICIAL_FILES,
    arrow_schema,
    dump_extra,
    id_column_type,
    stringify_ids,
)
from .corpus import INDEX_DIR, PAPER_COLUMNS, write_corpus_index
from .validate import SurgeDataError, check_records, check_unique_ids, read_json_array

logger = logging.getLogger(__name__)

META_FILE = "surge_meta.json"
FORMAT_VERSION = 1
DEFAULT_TEST_IDS = range(0, 41)  # the released baseline outputs cover survey ids 0-40 (205 / 5 = 41)
CORPUS_SHARD_ROWS = 250_000
CHUNK_ROWS = 100_000


@dataclass
class BuildReport:
    """What a build produced: counts per config and split, absent files, unknown fields, warnings."""

    out: Path
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    absent: list[str] = field(default_factory=list)
    unknown_fields: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    empty_all_cites: list[int] = field(default_factory=list)


def sha256_file(path: Path, chunk: int = 1 << 22) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _node_id_types(surveys: Sequence[dict[str, Any]]) -> dict[str, pa.DataType]:
    """The Arrow type of each structure id field, decided per field (see ``records.id_column_type``)."""
    return {
        name: id_column_type(node[name] for survey in surveys for node in survey["structure"])
        for name in NODE_ID_FIELDS
    }


def _id_column_types(config: str, records: Sequence[dict[str, Any]]) -> dict[str, pa.DataType]:
    """The Arrow type of each ``id``-kind column of ``config`` (an integer or a string in the JSON)."""
    return {
        column: id_column_type(record[official] for record in records)
        for official, column, kind in FIELDS_BY_CONFIG[config]
        if kind == "id"
    }


def _rows(
    config: str,
    records: Iterable[dict[str, Any]],
    *,
    string_columns: Iterable[str] = (),
    string_node_fields: Iterable[str] = (),
) -> dict[str, list[Any]]:
    """Official records -> column lists (snake_case), unknown fields folded into ``extra`` as JSON.

    Integers in ``string_columns`` (and node fields ``string_node_fields``) are written as text, their
    JSON values kept in ``extra`` (a column that mixes integers and strings is stored as string).
    """
    fields = FIELDS_BY_CONFIG[config]
    known = {official for official, _, _ in fields}
    string_columns, string_node_fields = set(string_columns), tuple(string_node_fields)
    columns: dict[str, list[Any]] = {column: [] for _, column, _ in fields}
    columns[EXTRA_COLUMN] = []
    for record in records:
        extra = {k: v for k, v in record.items() if k not in known} if len(record) > len(known) else {}
        for official, column, kind in fields:
            value = record[official]
            if kind == "structure":
                nodes = []
                for node in value:
                    node_extra = {k: v for k, v in node.items() if k not in NODE_FIELDS}
                    row = {name: node[name] for name in NODE_FIELDS}
                    stringify_ids(row, string_node_fields, node_extra)
                    nodes.append({**row, EXTRA_COLUMN: dump_extra(node_extra)})
                value = nodes
            elif kind == "float" and value is not None:
                value = float(value)
            elif column in string_columns and isinstance(value, int) and not isinstance(value, bool):
                extra[official] = value
                value = str(value)
            columns[column].append(value)
        columns[EXTRA_COLUMN].append(dump_extra(extra))
    return columns


def _write_parquet(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd", row_group_size=10_000)


def _shard_name(split: str, index: int, total: int) -> str:
    return f"{split}-{index:05d}-of-{total:05d}.parquet"


def _survey_splits(surveys: Sequence[dict[str, Any]], test_ids: Iterable[int]) -> tuple[list[str], str]:
    """Split per survey and the rule used: the data's own ``split`` field if every survey has one."""
    if surveys and all(s.get("split") in ("train", "test") for s in surveys):
        return [s["split"] for s in surveys], "the 'split' field of surveys.json"
    ids = set(test_ids)
    lo, hi = (min(ids), max(ids)) if ids else (0, -1)
    rule = (
        f"survey_id {lo}-{hi} is test (the surveys of the released baseline outputs), the rest train"
        if ids == set(range(lo, hi + 1)) else f"survey_id in {sorted(ids)} is test, the rest train"
    )
    return ["test" if s["survey_id"] in ids else "train" for s in surveys], rule


def build_dataset(
    source: str | Path,
    out: str | Path,
    *,
    overwrite: bool = False,
    test_ids: Iterable[int] = DEFAULT_TEST_IDS,
    shard_rows: int = CORPUS_SHARD_ROWS,
    progress: Callable[[str], None] | None = None,
) -> BuildReport:
    """Build the HF dataset folder ``out`` from the official files found in ``source``."""
    source, out = Path(source), Path(out)
    say = progress or (lambda message: logger.info(message))
    present = {c: source / f for c, f in OFFICIAL_FILES.items() if (source / f).is_file()}
    if not source.is_dir():
        raise SurgeDataError(source, "source folder does not exist")
    if not present:
        raise SurgeDataError(source, f"none of {', '.join(OFFICIAL_FILES.values())} is in this folder")
    report = BuildReport(out=out, absent=[OFFICIAL_FILES[c] for c in OFFICIAL_FILES if c not in present])
    meta: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "configs": sorted(present),
        "absent_files": report.absent,
        "source_files": {},
    }
    survey_lookup: dict[str, tuple[int, str]] = {}  # exact title, then normalised title -> (id, split)

    with atomic_directory(out, overwrite=overwrite) as tmp:
        if "surveys" in present:
            path = present["surveys"]
            say(f"reading {path}")
            surveys = read_json_array(path)
            report.unknown_fields["surveys"] = _checked(path, "surveys", surveys)
            node_types = _node_id_types(surveys)
            splits, rule = _survey_splits(surveys, test_ids)
            meta["split_rule"] = rule
            meta["structure_id_types"] = {name: str(t) for name, t in node_types.items()}
            meta["survey_order"] = [s["survey_id"] for s in surveys]
            report.empty_all_cites = [s["survey_id"] for s in surveys if not s["all_cites"]]
            if report.empty_all_cites:
                report.notes.append(
                    f"{len(report.empty_all_cites)} survey(s) have an empty all_cites (valid; recall is "
                    f"undefined for them): {report.empty_all_cites}"
                )
            schema = arrow_schema("surveys", node_id_type=node_types["id"], node_parent_id_type=node_types["parent_id"])
            string_nodes = [name for name, t in node_types.items() if t == pa.string()]
            table = pa.Table.from_pydict(_rows("surveys", surveys, string_node_fields=string_nodes), schema=schema)
            split_array = pa.array(splits)
            report.counts["surveys"] = {}
            for split in ("train", "test"):
                part = table.filter(pc.equal(split_array, split))
                report.counts["surveys"][split] = part.num_rows
                if part.num_rows:
                    _write_parquet(part, tmp / "surveys" / _shard_name(split, 0, 1))
            for survey, split in zip(surveys, splits, strict=True):
                survey_lookup.setdefault(survey["survey_title"].strip(), (survey["survey_id"], split))
            for survey, split in zip(surveys, splits, strict=True):
                survey_lookup.setdefault("norm:" + normalise_title(survey["survey_title"]), (survey["survey_id"], split))
            meta["source_files"]["surveys.json"] = sha256_file(path)
            del surveys, table

        if "corpus" in present:
            path = present["corpus"]
            say(f"reading {path}")
            corpus = read_json_array(path)
            report.unknown_fields["corpus"] = _checked(path, "corpus", corpus)
            say(f"writing {len(corpus):,} corpus papers")
            n_shards = max(1, -(-len(corpus) // shard_rows))
            schema = arrow_schema("corpus")
            index_parts = []
            for shard in range(n_shards):
                lo, hi = shard * shard_rows, min(len(corpus), (shard + 1) * shard_rows)
                target = tmp / "corpus" / _shard_name("train", shard, n_shards)
                target.parent.mkdir(parents=True, exist_ok=True)
                with pq.ParquetWriter(target, schema, compression="zstd") as writer:
                    for start in range(lo, hi, CHUNK_ROWS):
                        chunk = corpus[start : min(hi, start + CHUNK_ROWS)]
                        table = pa.Table.from_pydict(_rows("corpus", chunk), schema=schema)
                        writer.write_table(table, row_group_size=10_000)
                        index_parts.append(table.select(PAPER_COLUMNS))
                        for i in range(start, start + len(chunk)):
                            corpus[i] = None  # free the Python objects as soon as they are in Arrow
            report.counts["corpus"] = {"train": sum(p.num_rows for p in index_parts)}
            del corpus
            say("building the title index")
            write_corpus_index(pa.concat_tables(index_parts), tmp / INDEX_DIR)
            del index_parts
            meta["source_files"]["corpus.json"] = sha256_file(path)

        if "queries" in present:
            path = present["queries"]
            say(f"reading {path}")
            queries = read_json_array(path)
            report.unknown_fields["queries"] = _checked(path, "queries", queries)
            meta["query_order"] = [q["query_id"] for q in queries]
            survey_ids, splits = [], []
            unmatched = 0
            for query in queries:
                prefix = query["prefix_titles"]
                title = prefix[0][1] if prefix and len(prefix[0]) > 1 else ""
                survey_id, split = survey_lookup.get(
                    title.strip(), survey_lookup.get("norm:" + normalise_title(title), (None, "unassigned"))
                )
                unmatched += survey_id is None
                survey_ids.append(survey_id)
                splits.append(split)
            if unmatched:
                note = (
                    f"{unmatched} quer{'y' if unmatched == 1 else 'ies'} name no survey of surveys.json in "
                    "prefix_titles[0]; they are in the 'unassigned' split"
                )
                report.notes.append(note)
                warnings.warn(f"{path}: {note}", stacklevel=2)
            id_types = _id_column_types("queries", queries)
            meta["query_id_types"] = {name: str(t) for name, t in id_types.items()}
            columns = _rows("queries", queries, string_columns=[c for c, t in id_types.items() if t == pa.string()])
            columns["survey_id"] = survey_ids
            table = pa.Table.from_pydict(columns, schema=arrow_schema("queries", id_types=id_types))
            split_array = pa.array(splits)
            report.counts["queries"] = {}
            for split in ("train", "test", "unassigned"):
                part = table.filter(pc.equal(split_array, split))
                if part.num_rows or split != "unassigned":
                    report.counts["queries"][split] = part.num_rows
                if part.num_rows:
                    _write_parquet(part, tmp / "queries" / _shard_name(split, 0, 1))
            meta["source_files"]["queries.json"] = sha256_file(path)
            del queries, table

        meta["counts"] = report.counts
        meta["unknown_fields"] = report.unknown_fields
        meta["fingerprint"] = hashlib.sha256(
            "".join(f"{k}={v};" for k, v in sorted(meta["source_files"].items())).encode()
        ).hexdigest()[:16]
        atomic_write_json(tmp / META_FILE, meta)
        from .card import write_card  # local import: the card module pulls in `datasets`

        write_card(tmp, meta)
    return report


def _checked(path: Path, config: str, records: list[Any]) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        unknown = check_records(config, path, records)
    for warning in caught:  # re-emit once, attributed to the build
        warnings.warn(warning.message, warning.category, stacklevel=3)
    check_unique_ids(config, path, records)
    return unknown
