"""Official JSON records as Arrow column lists: the snake_case columns of a config, unknown fields folded into
``extra``, and the Arrow type of each id column (an integer or a string in the JSON, decided per column).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa

from surge_dataset.core.records import (
    EXTRA_COLUMN,
    FIELDS_BY_CONFIG,
    NODE_FIELDS,
    NODE_ID_FIELDS,
    dump_extra,
    id_column_type,
    stringify_ids,
)

__all__ = ["id_column_types", "node_id_types", "official_columns"]


def node_id_types(surveys: Sequence[dict[str, Any]]) -> dict[str, pa.DataType]:
    """The Arrow type of each structure id field, decided per field (see ``records.id_column_type``)."""
    return {
        name: id_column_type(node[name] for survey in surveys for node in survey["structure"])
        for name in NODE_ID_FIELDS
    }


def id_column_types(config: str, records: Sequence[dict[str, Any]]) -> dict[str, pa.DataType]:
    """The Arrow type of each ``id``-kind column of ``config`` (an integer or a string in the JSON)."""
    return {
        column: id_column_type(record[official] for record in records)
        for official, column, kind in FIELDS_BY_CONFIG[config]
        if kind == "id"
    }


def official_columns(
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
