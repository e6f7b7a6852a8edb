"""Stream the elements of a top-level JSON array in batches, so a 1M-record file never sits whole in memory.

``orjson.loads`` of the 1.09M-paper ``corpus.json`` costs several GB (the bytes plus every record as
Python objects). Here the file is read in blocks; a vectorised scan (numpy) finds the commas that
separate top-level elements -- outside strings, at array depth 1 -- and each run of complete elements
is parsed by orjson itself. The values are therefore exactly what ``orjson.loads`` of the whole file
gives, and a file is accepted only if every run parses: ``[run1,run2,...]`` is then valid JSON.

Anything this reader does not accept raises :class:`StreamError` without saying where or why; the
caller falls back to the whole-file parse, whose error message (line, column) is the authoritative one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import orjson

BLOCK_BYTES = 16 << 20  # read size; memory per batch is about this much JSON as Python objects
_QUOTE, _BACKSLASH, _COMMA = ord('"'), ord("\\"), ord(",")
_WHITESPACE = b" \t\n\r"
_STRUCTURAL = np.zeros(256, dtype=bool)
_STRUCTURAL[[ord("["), ord("]"), ord("{"), ord("}"), _COMMA]] = True
_DEPTH_STEP = np.zeros(256, dtype=np.int64)
_DEPTH_STEP[[ord("["), ord("{")]] = 1
_DEPTH_STEP[[ord("]"), ord("}")]] = -1


class StreamError(ValueError):
    """The file is not (or not only) one JSON array this reader can stream; parse it whole for the reason."""


def _real_quotes(data: np.ndarray) -> np.ndarray:
    """Positions of the quotes of ``data`` not escaped by an odd run of backslashes.

    ``data`` never starts right after a backslash (the reader carries trailing backslashes over).
    """
    quotes = np.flatnonzero(data == _QUOTE)
    candidates = quotes[(quotes > 0) & (data[np.maximum(quotes - 1, 0)] == _BACKSLASH)]
    if not len(candidates):
        return quotes
    escaped = []
    for q in candidates.tolist():  # rare in real text: \" inside a string
        run = 1
        while q - run - 1 >= 0 and data[q - run - 1] == _BACKSLASH:
            run += 1
        if run % 2:
            escaped.append(q)
    return np.setdiff1d(quotes, np.asarray(escaped, dtype=quotes.dtype), assume_unique=True)


class _Scanner:
    """Top-level element boundaries of one JSON array, block by block (state carried between blocks)."""

    def __init__(self) -> None:
        self.in_string = False
        self.depth = 0  # 1 inside the top-level array
        self.started = False
        self.ended = False

    def scan(self, data: np.ndarray) -> tuple[np.ndarray, int | None]:
        """Depth-1 separating commas in ``data`` (positions) and where the top-level array closes (or None)."""
        quotes = _real_quotes(data)
        marks = np.flatnonzero(_STRUCTURAL[data])
        before = np.searchsorted(quotes, marks) + int(self.in_string)
        marks = marks[before % 2 == 0]  # outside strings
        self.in_string ^= bool(len(quotes) % 2)
        if self.ended:
            if len(marks):
                raise StreamError("content after the top-level array")
            return marks, None
        if not self.started:
            if not len(marks) or data[marks[0]] != ord("["):
                raise StreamError("the top level is not an array")
            self.started = True
        depth_after = self.depth + np.cumsum(_DEPTH_STEP[data[marks]])
        closes = np.flatnonzero(depth_after <= 0)
        end = None
        if len(closes):
            first = int(closes[0])
            if depth_after[first] < 0 or data[marks[first]] != ord("]") or len(marks) > first + 1:
                raise StreamError("unbalanced or trailing content")
            end = int(marks[first])
            self.ended = True
        self.depth = int(depth_after[-1]) if len(depth_after) else self.depth
        commas = marks[(data[marks] == _COMMA) & (depth_after == 1)]
        return commas, end


def iter_json_array(path: str | Path, *, block_bytes: int | None = None) -> Iterator[list[Any]]:
    """The elements of the JSON array in ``path``, in order, as lists of up to about a block's worth.

    Raises :class:`StreamError` when the file is not a single well-formed JSON array (or orjson rejects
    any element): parse it whole to report why.
    """
    size = block_bytes or BLOCK_BYTES
    scanner = _Scanner()
    pending: list[bytes] = []  # bytes of the current run of elements (after the last separator), unparsed
    carry = b""  # trailing backslashes of the previous block: they may escape this block's first byte
    seen = 0
    with open(path, "rb") as handle:
        while block := handle.read(size):
            block = carry + block
            stripped = block.rstrip(b"\\")
            carry = block[len(stripped) :]
            if not stripped:
                continue
            if scanner.ended:  # after the array only whitespace may follow
                if stripped.strip(_WHITESPACE):
                    raise StreamError("content after the top-level array")
                continue
            was_started = scanner.started
            if not was_started and not stripped.strip(_WHITESPACE):
                continue  # leading whitespace
            data = np.frombuffer(stripped, dtype=np.uint8)
            commas, end = scanner.scan(data)
            start = 0
            if not was_started:
                opening = stripped.index(b"[")
                if stripped[:opening].strip(_WHITESPACE):
                    raise StreamError("content before the top-level array")
                start = opening + 1
            if end is not None:  # the last run ends at the closing bracket
                if stripped[end + 1 :].strip(_WHITESPACE):
                    raise StreamError("content after the top-level array")
                pending.append(stripped[start:end])
                batch = _parse_run(pending, len(commas), empty_ok=seen == 0)
                if batch:
                    yield batch
                continue
            if len(commas):  # complete elements: everything up to this block's last separator
                last = int(commas[-1])
                pending.append(stripped[start:last])
                batch = _parse_run(pending, len(commas) - 1, empty_ok=False)
                seen += len(batch)
                yield batch
                pending = [stripped[last + 1 :]]
            else:
                pending.append(stripped[start:])
    if carry or not scanner.ended:
        raise StreamError("truncated: the top-level array never closes, or a stray backslash ends the file")


def _parse_run(parts: list[bytes], commas: int, *, empty_ok: bool) -> list[Any]:
    """orjson-parse ``parts`` (elements separated by ``commas`` top-level commas) as one array.

    ``empty_ok``: the run may hold no element at all (the whole array is ``[]``).
    """
    text = b"".join(parts)
    parts.clear()
    if empty_ok and commas == 0 and not text.strip(_WHITESPACE):
        return []  # ``[]``
    try:
        values = orjson.loads(b"[" + text + b"]")
    except orjson.JSONDecodeError:
        raise StreamError("an element is not valid JSON") from None
    if len(values) != commas + 1:
        raise StreamError("an empty element")
    return values
