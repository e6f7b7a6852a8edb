"""Survey bytes -> text -> lines: encodings, byte-order mark and newlines, decided once for both parsers."""

from __future__ import annotations

import os

from surge_dataset.core.diagnostics import Diagnostic, diagnostic


def decode_survey_bytes(data: bytes) -> tuple[str, list[Diagnostic]]:
    """Decode survey bytes: UTF-8 else cp1252/latin-1 (reported), newlines made ``\\n``.

    A UTF-8 byte-order mark is kept as ``\\ufeff``: the released evaluator opens files as plain
    UTF-8, so its first line starts with it (a first-line heading is then no heading). The ``official``
    parser keeps it for that reason; the ``paper`` parser drops it.
    """
    diagnostics: list[Diagnostic] = []
    text: str | None = None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            text = None
    if text is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            for encoding in ("cp1252", "latin-1"):
                try:
                    text = data.decode(encoding)
                except UnicodeDecodeError:
                    continue
                line = data.count(b"\n", 0, err.start) + 1
                diagnostics.append(
                    diagnostic(
                        "decode_fallback",
                        f"not valid UTF-8 (byte {err.start}: {data[err.start : err.start + 1]!r}); "
                        f"decoded as {encoding}",
                        line,
                    )
                )
                break
    assert text is not None  # latin-1 decodes every byte string
    return normalise_newlines(text, keep_bom=True), diagnostics


def read_survey_file(path: str | os.PathLike[str]) -> tuple[str, list[Diagnostic]]:
    """Read a generated survey from disk robustly (see :func:`decode_survey_bytes`); I/O errors propagate."""
    with open(path, "rb") as handle:
        return decode_survey_bytes(handle.read())


def normalise_newlines(text: str, *, keep_bom: bool = False) -> str:
    """``\\r\\n`` and ``\\r`` -> ``\\n`` (what Python's text mode does); a leading BOM dropped unless ``keep_bom``."""
    if text.startswith("\ufeff") and not keep_bom:
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_lines(text: str) -> list[str]:
    """Right-stripped lines, as iterating a text file gives them (no phantom line after a final newline)."""
    if not text:
        return []
    parts = text.split("\n")
    if text.endswith("\n"):
        parts.pop()
    return [part.rstrip() for part in parts]
