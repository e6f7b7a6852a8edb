"""``surge data build``: the authors' official JSON files -> a HF dataset folder (Parquet + card + index).

The folder loads with ``datasets.load_dataset(<folder>, "<config>")`` locally and, once pushed, from the
Hub -- no loading script (``datasets`` >= 4 refuses them). Everything is written into a temporary
folder beside ``--out`` and renamed at the end, so a failed build leaves nothing half-written.
corpus.json is streamed (``jsonstream``): at 1.09M papers the build peaks near 0.7 GB, not 5.5 GB; the files
it writes, and its errors, are those of parsing the file whole.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from surge_dataset.core.io import atomic_write_json, file_sha256
from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.output_folder import replacing_output_folder
from surge_dataset.core.records import (
    OFFICIAL_FILES,
    QUIZ_CONFIG,
    QUIZ_FILE,
    arrow_schema,
)
from surge_dataset.data.columns import id_column_types, node_id_types, official_columns
from surge_dataset.data.corpus import INDEX_DIR, PAPER_COLUMNS, CorpusIndexWriter
from surge_dataset.data.fresh_manifest import FRESH_MANIFEST, read_fresh_manifest, window_text
from surge_dataset.data.jsonstream import iter_json_array
from surge_dataset.data.queries import (
    CITES_FROM_SECTION,
    CITES_FROM_SURVEY,
    DERIVATION_VERSION,
    QUESTION_TEMPLATE,
)
from surge_dataset.data.queries import derive_queries as derived_queries
from surge_dataset.data.validate import SurgeDataError, check_records, check_unique_ids, read_json_array

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


def survey_title_lookup(surveys: Sequence[dict[str, Any]], values: Sequence[Any]) -> dict[str, Any]:
    """Survey title -> its value (``values[i]`` for ``surveys[i]``), for :func:`survey_of_query`: exact titles, then
    normalised ones (``norm:`` keys); the first survey of a title wins."""
    lookup: dict[str, Any] = {}
    for survey, value in zip(surveys, values, strict=True):
        lookup.setdefault(survey["survey_title"].strip(), value)
    for survey, value in zip(surveys, values, strict=True):
        lookup.setdefault("norm:" + normalise_title(survey["survey_title"]), value)
    return lookup


def survey_of_query(query: dict[str, Any], lookup: dict[str, Any], default: Any = None) -> Any:
    """The value of the survey a query belongs to: the survey ``prefix_titles[0]`` names, by exact title, else by
    normalised title (queries.json has no survey id), else ``default``."""
    prefix = query.get("prefix_titles") or []
    title = str(prefix[0][1]) if prefix and isinstance(prefix[0], list | tuple) and len(prefix[0]) > 1 else ""
    return lookup.get(title.strip(), lookup.get("norm:" + normalise_title(title), default))


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
    derive_queries: bool = False,
    quizzes: str | Path | None = None,
) -> BuildReport:
    """Build the HF dataset folder ``out`` from the official files found in ``source``.

    Without ``queries.json`` (the authors' Drive folder lacks it), or with ``derive_queries``, the ``queries``
    config is derived from ``surveys.json`` (:mod:`.queries`) and marked as derived in the card and metadata.
    ``quizzes`` (default: a ``quizzes.jsonl`` beside the official files, if any) is pinned as the ``quizzes``
    config (:mod:`surge_dataset.data.quiz_sets`); it stays out of the data fingerprint, and has its own.
    """
    source, out = Path(source), Path(out)
    say = progress or (lambda message: logger.info(message))
    present = _official_files(source, derive_queries)
    derive = "surveys" in present and (derive_queries or "queries" not in present)
    from surge_dataset.data.quiz_sets import quiz_set_to_pin  # pydantic: only when building

    quiz_set = quiz_set_to_pin(source / QUIZ_FILE if quizzes is None else Path(quizzes), "surveys" in present,
                               given=quizzes is not None)
    manifest_path = source / FRESH_MANIFEST
    manifest = read_fresh_manifest(manifest_path) if manifest_path.is_file() else None
    if derive:
        present.pop("queries", None)  # a queries.json beside --derive-queries is not read
    report = BuildReport(out=out, absent=[name for name in OFFICIAL_FILES.values() if not (source / name).is_file()])
    meta: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "configs": sorted({*present, *(["queries"] if derive else [])}),
        "absent_files": report.absent,
        "source_files": {},
    }
    survey_lookup: dict[str, tuple[int, str]] = {}  # exact title, then normalised title -> (id, split)
    with replacing_output_folder(out, "dataset", "surge data build", inputs=[("--source", source)],
                                 overwrite=overwrite) as tmp:
        if "surveys" in present:
            survey_lookup = _build_surveys(present["surveys"], tmp, test_ids, quiz_set, derive, report, meta, say)
        if "corpus" in present:
            _build_corpus(present["corpus"], tmp, shard_rows, report, meta, say)
        if "queries" in present:
            _build_queries(present["queries"], tmp, survey_lookup, report, meta, say)
        _finish(source, tmp, manifest_path, manifest, report, meta)
    return report


def _official_files(source: Path, derive_queries: bool) -> dict[str, Path]:
    """Config -> its official file in ``source``; a clear error when there is nothing to build from."""
    present = {c: source / f for c, f in OFFICIAL_FILES.items() if (source / f).is_file()}
    if not source.is_dir():
        raise SurgeDataError(source, "source folder does not exist")
    if not present:
        raise SurgeDataError(source, f"none of {', '.join(OFFICIAL_FILES.values())} is in this folder")
    if derive_queries and "surveys" not in present:
        raise SurgeDataError(source, "deriving the queries needs surveys.json, which is not in this folder")
    return present


def _build_surveys(path: Path, tmp: Path, test_ids: Iterable[int], quiz_set: Any, derive: bool,
                   report: BuildReport, meta: dict[str, Any], say: Callable[[str], None]) -> dict[str, Any]:
    """The ``surveys`` config (and the quizzes and derived queries that hang on it); the title lookup that
    assigns queries to surveys."""
    say(f"reading {path}")
    surveys = read_json_array(path)
    report.unknown_fields["surveys"] = _checked(path, "surveys", surveys)
    node_types = node_id_types(surveys)
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
    table = pa.Table.from_pydict(official_columns("surveys", surveys, string_node_fields=string_nodes), schema=schema)
    split_array = pa.array(splits)
    report.counts["surveys"] = {}
    for split in ("train", "test"):
        part = table.filter(pc.equal(split_array, split))
        report.counts["surveys"][split] = part.num_rows
        if part.num_rows:
            _write_parquet(part, tmp / "surveys" / _shard_name(split, 0, 1))
    survey_lookup = survey_title_lookup(surveys, [(s["survey_id"], split) for s, split in zip(surveys, splits,
                                                                                              strict=True)])
    if quiz_set is not None:
        from surge_dataset.data.quiz_sets import pin_quiz_config  # pydantic: only when building

        report.counts[QUIZ_CONFIG], meta["quizzes"], note = pin_quiz_config(
            tmp, quiz_set, dict(zip(meta["survey_order"], splits, strict=True)))
        meta["configs"] = sorted({*meta["configs"], QUIZ_CONFIG})
        report.notes.append(note)
    meta["source_files"]["surveys.json"] = file_sha256(path)
    if derive:
        given = (path.parent / OFFICIAL_FILES["queries"]).is_file()
        say(f"deriving the queries from {path} ({'--derive-queries' if given else 'no queries.json'})")
        _derive_queries(tmp, surveys, dict(zip(meta["survey_order"], splits, strict=True)), given,
                        report, meta)
    return survey_lookup


def _build_corpus(path: Path, tmp: Path, shard_rows: int, report: BuildReport, meta: dict[str, Any],
                  say: Callable[[str], None]) -> None:
    """The ``corpus`` config, streamed; on any problem, the whole-file way, which says what the problem is."""
    say(f"reading {path} (streamed)")
    try:
        count, exemplars = _write_corpus(path, iter_json_array(path), tmp, shard_rows, say)
    except Exception as exc:  # any problem at all: the whole-file way says what it is
        # The error path is today's: parse the whole file (the JSON error names line and column),
        # check every record in order (the first problem, then duplicate ids), and if all of that
        # passes -- the streaming reader refused a file orjson accepts -- build from the list.
        logger.debug("streaming %s failed (%s); reading it whole", path, exc)
        for name in ("corpus", INDEX_DIR):
            shutil.rmtree(tmp / name, ignore_errors=True)
        corpus = read_json_array(path)
        report.unknown_fields["corpus"] = _checked(path, "corpus", corpus)
        count, _ = _write_corpus(path, _drain(corpus), tmp, shard_rows, say)
        del corpus
    else:
        # One record per unknown field name: the same warning and the same names as checking them all.
        report.unknown_fields["corpus"] = _checked(path, "corpus", exemplars)
    report.counts["corpus"] = {"train": count}
    meta["source_files"]["corpus.json"] = file_sha256(path)


def _build_queries(path: Path, tmp: Path, survey_lookup: dict[str, Any], report: BuildReport,
                   meta: dict[str, Any], say: Callable[[str], None]) -> None:
    """The ``queries`` config from queries.json, each query in the split of the survey it names."""
    say(f"reading {path}")
    queries = read_json_array(path)
    report.unknown_fields["queries"] = _checked(path, "queries", queries)
    meta["query_order"] = [q["query_id"] for q in queries]
    survey_ids, splits = [], []
    unmatched = 0
    for query in queries:
        survey_id, split = survey_of_query(query, survey_lookup, (None, "unassigned"))
        unmatched += survey_id is None
        survey_ids.append(survey_id)
        splits.append(split)
    if unmatched:
        note = (
            f"{unmatched} quer{'y' if unmatched == 1 else 'ies'} name no survey of surveys.json in "
            "prefix_titles[0]; they are in the 'unassigned' split"
        )
        report.notes.append(note)
        warnings.warn(f"{path}: {note}", stacklevel=3)  # attributed to build_dataset's caller
    _write_queries(tmp, queries, survey_ids, splits, report, meta)
    meta["source_files"]["queries.json"] = file_sha256(path)


def _finish(source: Path, tmp: Path, manifest_path: Path, manifest: dict[str, Any] | None, report: BuildReport,
            meta: dict[str, Any]) -> None:
    """SurveyGen's configs, a fresh split's manifest, the counts, the fingerprint, ``surge_meta.json`` and the card."""
    from surge_dataset.data.surveygen_meta import pin_surveygen_configs

    surveygen = pin_surveygen_configs(source, tmp)  # SurveyGen's quality indicators: their own configs
    if surveygen:
        meta["surveygen"] = surveygen
    if manifest is not None:  # a fresh split: its manifest travels with it (not part of the fingerprint)
        _carry_manifest(manifest_path, manifest, tmp, report, meta)
    report.counts = {config: report.counts[config] for config in (*OFFICIAL_FILES, QUIZ_CONFIG)
                     if config in report.counts}
    meta["counts"] = report.counts
    meta["unknown_fields"] = report.unknown_fields
    meta["fingerprint"] = hashlib.sha256(
        "".join(f"{k}={v};" for k, v in sorted(meta["source_files"].items())).encode()
    ).hexdigest()[:16]
    atomic_write_json(tmp / META_FILE, meta)
    from surge_dataset.data.card import write_card  # local import: the card module pulls in `datasets`

    write_card(tmp, meta)


def _carry_manifest(path: Path, manifest: dict[str, Any], tmp: Path, report: BuildReport,
                    meta: dict[str, Any]) -> None:
    """Copy a fresh split's manifest beside the shards; its window (and annotation summary) into ``meta``."""
    shutil.copyfile(path, tmp / FRESH_MANIFEST)
    window = manifest["window"]
    meta["fresh"] = {"manifest": FRESH_MANIFEST, "sha256": file_sha256(path), "window": window,
                     "categories": manifest.get("categories"), "created": manifest.get("created")}
    annotation = manifest.get("annotation")
    if isinstance(annotation, dict):
        kept = annotation.get("kept")
        meta["fresh"]["annotation"] = {"kappa": annotation.get("kappa"),
                                       "kept": len(kept) if isinstance(kept, list) else kept}
    report.notes.append(f"a fresh split: {FRESH_MANIFEST} copied into the dataset (window {window_text(window)})")


def _write_queries(tmp: Path, queries: list[dict[str, Any]], survey_ids: list[int | None], splits: list[str],
                   report: BuildReport, meta: dict[str, Any]) -> None:
    """The ``queries`` config: one Parquet file per split (``unassigned`` only when it has rows)."""
    id_types = id_column_types("queries", queries)
    meta["query_id_types"] = {name: str(t) for name, t in id_types.items()}
    columns = official_columns("queries", queries, string_columns=[c for c, t in id_types.items() if t == pa.string()])
    columns["survey_id"] = survey_ids
    table = pa.Table.from_pydict(columns, schema=arrow_schema("queries", id_types=id_types))
    split_array = pa.array(splits, type=pa.string())
    report.counts["queries"] = {}
    for split in ("train", "test", "unassigned"):
        part = table.filter(pc.equal(split_array, split))
        if part.num_rows or split != "unassigned":
            report.counts["queries"][split] = part.num_rows
        if part.num_rows:
            _write_parquet(part, tmp / "queries" / _shard_name(split, 0, 1))


def _derive_queries(tmp: Path, surveys: list[dict[str, Any]], split_of: dict[int, str], given: bool,
                    report: BuildReport, meta: dict[str, Any]) -> None:
    """The ``queries`` config derived from ``surveys.json`` (:mod:`.queries`), recorded as derived in ``meta``."""
    survey_ids, queries = [], []
    for survey_id, query in derived_queries(surveys):
        survey_ids.append(survey_id)
        queries.append(query)
    if not queries:  # no section qualifies: no config, as for an absent file
        meta["configs"].remove("queries")
        report.notes.append("no section of surveys.json qualifies as a query (none cites a paper): no 'queries' config")
        return
    meta["query_order"] = [q["query_id"] for q in queries]
    source_of = {sid: q["cites_from"] for sid, q in zip(survey_ids, queries, strict=True)}
    by_source = {kind: sum(v == kind for v in source_of.values()) for kind in (CITES_FROM_SECTION, CITES_FROM_SURVEY)}
    meta["queries_derived"] = {
        "from": "surveys.json",
        "reason": "--derive-queries (queries.json present, not read)" if given else "queries.json absent",
        "version": DERIVATION_VERSION,
        "queries": len(queries),
        "surveys_by_cites_source": {**by_source, "no_query": len(surveys) - len(source_of)},
        "question_template": QUESTION_TEMPLATE,
    }
    _write_queries(tmp, queries, survey_ids, [split_of[sid] for sid in survey_ids], report, meta)
    note = (
        f"{'--derive-queries' if given else 'queries.json is absent'}: the 'queries' config ({len(queries)} queries) "
        "was derived from surveys.json -- one per section with a resolved citation; prefix_titles as the authors "
        "define them, prefix_titles_query our template questions (the authors' were written by an LLM)"
    )
    if by_source[CITES_FROM_SURVEY]:
        note += (f"; {by_source[CITES_FROM_SURVEY]} survey(s) have no per-section cites in surveys.json, so their "
                 "queries use the survey's all_cites (sections with >= 100 characters of content)")
    report.notes.append(note)


def _drain(records: list[Any]) -> Iterator[list[Any]]:
    """``records`` in parts of ``CHUNK_ROWS``, each freed in the list once handed out."""
    for start in range(0, len(records), CHUNK_ROWS):
        part = records[start : start + CHUNK_ROWS]
        records[start : start + len(part)] = [None] * len(part)
        yield part


class _CorpusRecordsError(Exception):
    """A corpus record fails the checks (the whole-file path words the error)."""


def _write_corpus(
    path: Path, parts: Iterable[list[Any]], tmp: Path, shard_rows: int, say: Callable[[str], None]
) -> tuple[int, list[dict[str, Any]]]:
    """Check and write corpus records as they arrive: Parquet shards, then the title index.

    Rows are cut exactly as a whole-list build cuts them -- shards of ``shard_rows``, each written in
    tables of ``CHUNK_ROWS`` with row groups of 10,000 -- so the files are the same; at most one table
    of records is held at a time. Shards get their final ``-of-N`` names once N is known.

    Raises on the first problem without wording it for the user (the caller falls back to the whole-file
    checks for that). Returns the number of papers and one record per unknown field name.
    """
    schema = arrow_schema("corpus")
    folder = tmp / "corpus"
    folder.mkdir(parents=True, exist_ok=True)
    index = CorpusIndexWriter(tmp / INDEX_DIR)
    unknown: set[str] = set()
    exemplars: list[dict[str, Any]] = []
    buffer: list[Any] = []
    written = 0
    writer: pq.ParquetWriter | None = None
    shards: list[Path] = []

    def flush() -> None:
        nonlocal written, writer
        chunk = buffer[:]
        buffer.clear()
        with warnings.catch_warnings():  # unknown fields are reported once, at the end
            warnings.simplefilter("ignore")
            names = check_records("corpus", path, chunk)
        check_unique_ids("corpus", path, chunk)
        for name in names:  # keep a record that has it, to report it as a check of all records would
            if name not in unknown:
                exemplars.append(next(r for r in chunk if name in r))
                unknown.update(k for k in exemplars[-1] if k in names)
        if writer is None:
            shards.append(folder / f".train-{len(shards):05d}.partial")
            writer = pq.ParquetWriter(shards[-1], schema, compression="zstd")
        table = pa.Table.from_pydict(official_columns("corpus", chunk), schema=schema)
        del chunk
        writer.write_table(table, row_group_size=10_000)
        index.add(table)
        written += table.num_rows
        if written % shard_rows == 0:
            writer.close()
            writer = None

    try:
        for part in parts:
            position = 0
            while position < len(part):
                # the next cut: CHUNK_ROWS into the table, or the end of the shard, whichever comes first
                shard_end = (written // shard_rows + 1) * shard_rows
                room = min(CHUNK_ROWS, shard_end - written) - len(buffer)
                buffer.extend(part[position : position + room])
                position += room
                if len(buffer) == min(CHUNK_ROWS, shard_end - written):
                    flush()
            del part
        if buffer:
            flush()
        if writer is None and not shards:  # an empty corpus still gets its one (empty) shard
            shards.append(folder / f".train-{0:05d}.partial")
            writer = pq.ParquetWriter(shards[-1], schema, compression="zstd")
        if writer is not None:
            writer.close()
            writer = None
        ids = np.sort(index.doc_ids())
        if len(ids) > 1 and bool(np.any(ids[1:] == ids[:-1])):
            raise _CorpusRecordsError("duplicate doc_id across parts")
        say("building the title index")
        index.close(schema=pa.schema([schema.field(c) for c in PAPER_COLUMNS]))
    except BaseException:
        if writer is not None:
            writer.close()
        index.abort()
        raise
    for number, shard in enumerate(shards):
        shard.rename(folder / _shard_name("train", number, len(shards)))
    say(f"wrote {written:,} corpus papers in {len(shards)} shard(s)")
    return written, exemplars


def _checked(path: Path, config: str, records: list[Any]) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        unknown = check_records(config, path, records)
    for warning in caught:  # re-emit once, attributed to build_dataset's caller (through the config's phase)
        warnings.warn(warning.message, warning.category, stacklevel=4)
    check_unique_ids(config, path, records)
    return unknown
