"""Reading and checking the authors' official JSON files, record by record, with errors that say where.

Every problem names the file, the record (position and id) and the field, because a user with a
1M-record file cannot bisect it by hand.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.records import FIELDS_BY_CONFIG, ID_FIELD, NODE_FIELDS, ROOT_TITLE


class SurgeDataError(SurgeError, ValueError):
    """Invalid SurGE data: the message names the file, the record and the field."""

    def __init__(self, file: str | Path, problem: str, *, record: str | None = None, field: str | None = None):
        self.file = str(file)
        self.record = record
        self.field = field
        self.problem = problem
        where = self.file
        if record is not None:
            where += f": {record}"
        if field is not None:
            where += f": field '{field}'"
        super().__init__(f"{where}: {problem}")


class UnknownFieldsWarning(UserWarning):
    """The data has fields this version does not know; they are kept losslessly in ``extra``."""


def read_json_array(path: str | Path) -> list[Any]:
    """Parse a JSON file whose top level must be an array; truncated/invalid JSON names line and column."""
    path = Path(path)
    data = path.read_bytes()
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise SurgeDataError(
            path, f"invalid or truncated JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    finally:
        del data
    if not isinstance(value, list):
        raise SurgeDataError(path, f"the top level must be a JSON array, found {type(value).__name__}")
    return value


def describe_record(config: str, index: int, record: Any) -> str:
    """'record #3 (survey_id=12)': position in the array plus the id when there is one."""
    id_field = ID_FIELD[config]
    if isinstance(record, dict) and id_field in record:
        return f"record #{index} ({id_field}={record[id_field]!r})"
    return f"record #{index}"


def _type_error(kind: str, value: Any) -> str | None:
    """None when ``value`` fits ``kind``; otherwise what is wrong with it."""
    if value is None:
        return None if kind in ("str", "float") else f"must not be null (expected {kind})"
    if kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "str":
        ok = isinstance(value, str)
    elif kind == "id":
        ok = isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
    elif kind == "float":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif kind == "list_str":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    elif kind == "list_int":
        ok = isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    elif kind == "pairs":
        ok = isinstance(value, list) and all(
            isinstance(p, list) and all(isinstance(x, str) for x in p) for p in value
        )
    elif kind == "structure":
        ok = isinstance(value, list) and all(isinstance(n, dict) for n in value)
    else:  # pragma: no cover - programming error
        raise AssertionError(kind)
    if ok:
        return None
    expected = {
        "int": "an integer",
        "str": "a string",
        "id": "an integer or a string",
        "float": "a number",
        "list_str": "a list of strings",
        "list_int": "a list of integers",
        "pairs": "a list of [level, title] string pairs",
        "structure": "a list of node objects",
    }[kind]
    return f"expected {expected}, found {_short(value)}"


def _short(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"


def check_records(config: str, path: str | Path, records: Sequence[Any]) -> list[str]:
    """Validate every record of one official file; return the unknown field names (sorted, once).

    Raises :class:`SurgeDataError` on the first problem. Unknown fields produce one warning per file.
    """
    fields = FIELDS_BY_CONFIG[config]
    known = {official for official, _, _ in fields}
    unknown: set[str] = set()
    unknown_node: set[str] = set()
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise SurgeDataError(path, f"expected a JSON object, found {_short(record)}", record=f"record #{index}")
        where = describe_record(config, index, record)
        for official, _, kind in fields:
            if official not in record:
                raise SurgeDataError(path, "required field is missing", record=where, field=official)
            problem = _type_error(kind, record[official])
            if problem:
                raise SurgeDataError(path, problem, record=where, field=official)
        unknown.update(k for k in record if k not in known)
        if config == "surveys":
            unknown_node.update(_check_structure(path, where, record["structure"]))
    names = sorted(unknown) + sorted(f"structure[].{k}" for k in unknown_node)
    if names:
        warnings.warn(
            f"{path}: fields not in the documented schema, kept losslessly in the 'extra' column: {', '.join(names)}",
            UnknownFieldsWarning,
            stacklevel=2,
        )
    return names


def _check_structure(path: str | Path, where: str, nodes: list[dict[str, Any]]) -> set[str]:
    """Nodes have the known fields, ids are unique, one root exists and every parent_id resolves."""
    unknown: set[str] = set()
    ids: dict[Any, int] = {}
    for position, node in enumerate(nodes):
        for name in NODE_FIELDS:
            if name not in node:
                raise SurgeDataError(path, "required field is missing", record=where, field=f"structure[{position}].{name}")
        for name in ("title", "content"):
            if node[name] is not None and not isinstance(node[name], str):
                raise SurgeDataError(
                    path, f"expected a string, found {_short(node[name])}", record=where,
                    field=f"structure[{position}].{name}",
                )
        for name in ("id", "parent_id"):
            value = node[name]
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | str)):
                raise SurgeDataError(
                    path, f"expected an integer or string id, found {_short(value)}", record=where,
                    field=f"structure[{position}].{name}",
                )
        if node["id"] is None:
            raise SurgeDataError(path, "node id must not be null", record=where, field=f"structure[{position}].id")
        if node["id"] in ids:
            raise SurgeDataError(
                path, f"duplicate node id {node['id']!r} (also at structure[{ids[node['id']]}])",
                record=where, field=f"structure[{position}].id",
            )
        ids[node["id"]] = position
        unknown.update(k for k in node if k not in NODE_FIELDS)
    roots = [p for p, n in enumerate(nodes) if n["title"] == ROOT_TITLE]
    if not roots:
        raise SurgeDataError(path, "no node has title 'root', so the tree cannot be rebuilt", record=where,
                             field="structure")
    for position, node in enumerate(nodes):
        if position == roots[0]:
            continue
        if node["parent_id"] not in ids:
            raise SurgeDataError(
                path, f"parent_id {node['parent_id']!r} points to no node of this survey",
                record=where, field=f"structure[{position}].parent_id",
            )
    return unknown


def check_unique_ids(config: str, path: str | Path, records: Sequence[dict[str, Any]]) -> None:
    """Ids (doc_id, survey_id, query_id) must be unique; a duplicate names both positions."""
    id_field = ID_FIELD[config]
    seen: dict[int, int] = {}
    for index, record in enumerate(records):
        value = record[id_field]
        if value in seen:
            raise SurgeDataError(
                path, f"duplicate {id_field} {value} (first at record #{seen[value]})",
                record=describe_record(config, index, record), field=id_field,
            )
        seen[value] = index
