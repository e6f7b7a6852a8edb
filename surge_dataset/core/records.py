"""Typed records of the SurGE data and the one mapping between the official JSON and our Arrow schema.

The authors publish three JSON arrays (protocol.md §1). We keep their content unchanged but give it
snake_case, typed columns; this module is the single place that knows both spellings, so build,
export, the evaluator and the baselines can never disagree about a field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

# --------------------------------------------------------------------------------------------------
# Official field names -> our column names, in the official key order, with the value kind we accept.
# Kinds: int, str, float, list_str, list_int, pairs (list of [str, str]), structure (list of nodes),
# id (an integer or a string, whichever the file uses: the column type is decided per build, see
# ``id_column_type``).
# --------------------------------------------------------------------------------------------------

SURVEY_FIELDS: list[tuple[str, str, str]] = [
    ("survey_id", "survey_id", "int"),
    ("survey_title", "survey_title", "str"),
    ("authors", "authors", "list_str"),
    ("year", "year", "str"),
    ("date", "date", "str"),
    ("category", "category", "str"),
    ("abstract", "abstract", "str"),
    ("structure", "structure", "structure"),
    ("all_cites", "all_cites", "list_int"),
    ("Bertopic_CD", "bertopic_cd", "float"),
]

CORPUS_FIELDS: list[tuple[str, str, str]] = [
    ("Title", "title", "str"),
    ("Authors", "authors", "list_str"),
    ("Year", "year", "str"),
    ("Date", "date", "str"),
    ("Abstract", "abstract", "str"),
    ("Category", "category", "str"),
    ("doc_id", "doc_id", "int"),
]

QUERY_FIELDS: list[tuple[str, str, str]] = [
    ("original_id", "original_id", "id"),  # a UUID string in the released queries.json
    ("query_id", "query_id", "int"),
    ("date", "date", "str"),
    ("year", "year", "str"),
    ("category", "category", "str"),
    ("content", "content", "str"),
    ("prefix_titles", "prefix_titles", "pairs"),
    ("prefix_titles_query", "prefix_titles_query", "str"),
    ("cites", "cites", "list_int"),
    ("cite_extract_rate", "cite_extract_rate", "float"),
    ("origin_cites_number", "origin_cites_number", "int"),
]

# Structure nodes: id/parent_id keep the JSON type the authors used (int or str), decided per field and build.
NODE_FIELDS: list[str] = ["id", "parent_id", "title", "content"]
NODE_ID_FIELDS: tuple[str, ...] = ("id", "parent_id")

FIELDS_BY_CONFIG: dict[str, list[tuple[str, str, str]]] = {
    "surveys": SURVEY_FIELDS,
    "corpus": CORPUS_FIELDS,
    "queries": QUERY_FIELDS,
}
OFFICIAL_FILES: dict[str, str] = {
    "surveys": "surveys.json",
    "corpus": "corpus.json",
    "queries": "queries.json",
}
#: Not an official file: the quiz set (``surge data quiz``) a build pins as the ``quizzes`` config, picked up
#: beside the official files (surge_dataset.data.quiz_sets).
QUIZ_CONFIG = "quizzes"
QUIZ_FILE = "quizzes.jsonl"
# Identity field per config, used to name a record in error messages.
ID_FIELD: dict[str, str] = {"surveys": "survey_id", "corpus": "doc_id", "queries": "query_id"}

EXTRA_COLUMN = "extra"  # JSON text of fields the authors may add that we do not know; null when none.
ROOT_TITLE = "root"
#: A section "has content" from this many characters on (protocol.md §4, the released evaluator's
#: ``len(content) >= 100``): GT sections for SHR and ROUGE/BLEU, generated sections for ROUGE/BLEU and CQS.
CONTENT_MIN_CHARS = 100

_ARROW_KIND: dict[str, pa.DataType] = {
    "int": pa.int64(),
    "str": pa.string(),
    "float": pa.float64(),
    "list_str": pa.list_(pa.string()),
    "list_int": pa.list_(pa.int64()),
    "pairs": pa.list_(pa.list_(pa.string())),
}


def id_column_type(values: Iterable[Any]) -> pa.DataType:
    """int64 when every non-null value is an integer, else string.

    A field that mixes integers and strings (the real data can: string section ids with an integer
    ``parent_id`` on the root) is stored as string; each integer is written as its decimal text and
    its JSON value kept in the record's ``extra`` under the same name, so export and the typed records
    restore it (see :func:`stringify_ids`).
    """
    return pa.string() if any(isinstance(v, str) for v in values) else pa.int64()


def stringify_ids(record: dict[str, Any], names: Iterable[str], extra: dict[str, Any]) -> None:
    """In place: integer values of ``names`` become strings; their JSON values go to ``extra``."""
    for name in names:
        value = record.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            record[name] = str(value)
            extra[name] = value


def node_struct_type(id_type: pa.DataType, parent_id_type: pa.DataType | None = None) -> pa.DataType:
    """Arrow type of one structure node; each id field is int64 or string, whichever the data uses."""
    return pa.struct(
        [
            pa.field("id", id_type),
            pa.field("parent_id", parent_id_type or id_type),
            pa.field("title", pa.string()),
            pa.field("content", pa.string()),
            pa.field(EXTRA_COLUMN, pa.string()),
        ]
    )


def arrow_schema(
    config: str,
    *,
    node_id_type: pa.DataType = pa.int64(),
    node_parent_id_type: pa.DataType | None = None,
    id_types: dict[str, pa.DataType] | None = None,
) -> pa.Schema:
    """The Parquet schema of one config (queries also get ``survey_id``).

    ``id_types``: the type of each ``id``-kind column (default int64), decided per build.
    """
    fields = []
    for _, column, kind in FIELDS_BY_CONFIG[config]:
        if kind == "structure":
            dtype = pa.list_(node_struct_type(node_id_type, node_parent_id_type))
        elif kind == "id":
            dtype = (id_types or {}).get(column, pa.int64())
        else:
            dtype = _ARROW_KIND[kind]
        fields.append(pa.field(column, dtype))
    if config == "queries":
        fields.append(pa.field("survey_id", pa.int64()))
    fields.append(pa.field(EXTRA_COLUMN, pa.string()))
    return pa.schema(fields)


def dump_extra(extra: dict[str, Any]) -> str | None:
    """Unknown fields as compact JSON (lossless for any JSON value), or None when there are none."""
    return json.dumps(extra, ensure_ascii=False, separators=(",", ":")) if extra else None


def load_extra(text: str | None) -> dict[str, Any]:
    return json.loads(text) if text else {}


# --------------------------------------------------------------------------------------------------
# Typed records (what library users, the evaluator and the baselines work with).
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """One node of a ground-truth survey's ``structure``."""

    id: int | str
    parent_id: int | str | None
    title: str
    content: str
    depth: int = 0  # 0 for root, 1 for top-level sections, ...
    children: tuple[Section, ...] = ()

    def walk(self) -> Iterator[Section]:
        """This node and its descendants, pre-order (document order)."""
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(frozen=True)
class Survey:
    """A ground-truth survey (one element of ``surveys.json``)."""

    survey_id: int
    survey_title: str
    authors: list[str]
    year: str | None
    date: str | None
    category: str | None
    abstract: str | None
    structure: list[dict[str, Any]]
    all_cites: list[int]
    bertopic_cd: float | None
    split: str = "test"
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Survey:
        """From a row of the ``surveys`` config (Arrow/`datasets` dict)."""
        nodes = []
        for node in row["structure"] or []:
            record = {k: node[k] for k in NODE_FIELDS}
            record.update(load_extra(node.get(EXTRA_COLUMN)))
            nodes.append(record)
        return cls(
            survey_id=row["survey_id"],
            survey_title=row["survey_title"],
            authors=list(row["authors"] or []),
            year=row["year"],
            date=row["date"],
            category=row["category"],
            abstract=row["abstract"],
            structure=nodes,
            all_cites=list(row["all_cites"] or []),
            bertopic_cd=row["bertopic_cd"],
            split=row.get("split", "test"),
            extra=load_extra(row.get(EXTRA_COLUMN)),
        )

    @classmethod
    def from_official(cls, record: dict[str, Any]) -> Survey:
        """From one object of the official ``surveys.json`` (official keys; missing optional ones are None).

        Lets a caller score against a GT survey it holds as JSON, without a built dataset.
        """
        if "structure" not in record or "survey_title" not in record:
            raise ValueError("a GT survey record needs at least 'survey_title' and 'structure' (surveys.json form)")
        known = {official for official, _, _ in SURVEY_FIELDS}
        nodes = [{k: node.get(k) for k in NODE_FIELDS} | {k: v for k, v in node.items() if k not in NODE_FIELDS}
                 for node in record["structure"]]
        return cls(
            survey_id=record.get("survey_id", -1),
            survey_title=record["survey_title"],
            authors=list(record.get("authors") or []),
            year=record.get("year"),
            date=record.get("date"),
            category=record.get("category"),
            abstract=record.get("abstract"),
            structure=nodes,
            all_cites=list(record.get("all_cites") or []),
            bertopic_cd=record.get("Bertopic_CD"),
            split=record.get("split", "test"),
            extra={k: v for k, v in record.items() if k not in known and k != "split"},
        )

    def tree(self) -> Section:
        """The heading tree rebuilt from ``parent_id`` links, starting at the node titled ``root``.

        Built once per record (the tree is immutable; every metric of a run walks it).
        """
        cached = self.__dict__.get("_tree")
        if cached is None:
            cached = self.__dict__["_tree"] = self._build_tree()
        return cached

    def _build_tree(self) -> Section:
        by_parent: dict[Any, list[dict[str, Any]]] = {}
        root = None
        for node in self.structure:
            if node["title"] == ROOT_TITLE and root is None:
                root = node
            else:
                by_parent.setdefault(node["parent_id"], []).append(node)
        if root is None:
            raise ValueError(f"survey {self.survey_id}: structure has no node titled 'root'")

        def build(node: dict[str, Any], depth: int, seen: frozenset) -> Section:
            kids = [] if node["id"] in seen else by_parent.get(node["id"], [])
            seen = seen | {node["id"]}
            return Section(
                id=node["id"],
                parent_id=node["parent_id"],
                title=node["title"],
                content=node["content"] or "",
                depth=depth,
                children=tuple(build(k, depth + 1, seen) for k in kids),
            )

        return build(root, 0, frozenset())

    def sections(self, *, min_content_chars: int = 0) -> list[Section]:
        """Non-root sections in document order, optionally only those with enough content."""
        return [s for s in self.tree().walk() if s.depth > 0 and len(s.content) >= min_content_chars]


def gt_content_sections(gt: Survey) -> list[tuple[str, str]]:
    """(title, content) of the GT nodes with content (:data:`CONTENT_MIN_CHARS`), root included: SHR's
    H_GT and ROUGE/BLEU's references (protocol.md §4).

    Read off the flat ``structure`` list in its order, as the released evaluator does: for a well-formed
    survey that is the tree's node set, and a node the tree cannot reach still counts.
    """
    return [(node["title"], node["content"] or "") for node in gt.structure
            if len(node["content"] or "") >= CONTENT_MIN_CHARS]


@dataclass(frozen=True)
class Paper:
    """A corpus paper (one element of ``corpus.json``)."""

    doc_id: int
    title: str
    abstract: str | None = None
    date: str | None = None
    year: str | None = None
    authors: list[str] = field(default_factory=list)
    category: str | None = None


@dataclass(frozen=True)
class Query:
    """A retrieval query: one survey section with good citation extraction (``queries.json``)."""

    query_id: int
    original_id: int | str  # a UUID string in the released queries.json
    survey_id: int | None
    split: str
    content: str | None
    prefix_titles: list[list[str]]
    prefix_titles_query: str | None
    cites: list[int]
    date: str | None = None
    year: str | None = None
    category: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any], split: str) -> Query:
        return cls(
            query_id=row["query_id"],
            original_id=load_extra(row.get(EXTRA_COLUMN)).get("original_id", row["original_id"]),
            survey_id=row.get("survey_id"),
            split=split,
            content=row["content"],
            prefix_titles=[list(p) for p in row["prefix_titles"] or []],
            prefix_titles_query=row["prefix_titles_query"],
            cites=list(row["cites"] or []),
            date=row["date"],
            year=row["year"],
            category=row["category"],
        )
