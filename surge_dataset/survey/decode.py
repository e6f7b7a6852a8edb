"""Survey bytes -> text -> lines: encodings, byte-order mark and newlines, decided once for both parsers."""

from __future__ import annotations

import os

from surge_dataset.core.diagnostics import Diagnostic, diagnostic
from surge_dataset.core.errors import InputFileError

#: The largest survey file :func:`read_survey_file` reads, in bytes. Generated surveys are well under a megabyte; a
#: 10 MB one parses in seconds and a few hundred MB of memory under either protocol. A larger file (a generator
#: that looped, a stray data file) is refused from its size, before anything is read; pass ``max_bytes`` to read
#: one anyway.
MAX_SURVEY_BYTES = 32 * 1024 * 1024

#: Byte-order marks of the UTF-16 and UTF-32 encodings (UTF-32's first: its little-endian mark starts with UTF-16's).
_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
              (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


class SurveyTooLargeError(InputFileError):
    """A survey file larger than the reader's limit (:data:`MAX_SURVEY_BYTES`)."""


def decode_survey_bytes(data: bytes) -> tuple[str, list[Diagnostic]]:
    """Decode survey bytes: UTF-16/32 by byte-order mark, else UTF-8, else cp1252/latin-1 (reported); newlines
    made ``\\n``.

    A UTF-8 byte-order mark is kept as ``\\ufeff``: the released evaluator opens files as plain
    UTF-8, so its first line starts with it (a first-line heading is then no heading). The ``official``
    parser keeps it for that reason; the ``paper`` parser drops it.
    """
    diagnostics: list[Diagnostic] = []
    text: str | None = None
    wide = next((encoding for bom, encoding in _WIDE_BOMS if data.startswith(bom)), None)
    if wide is not None:
        try:
            text = data.decode(wide)
        except UnicodeDecodeError as err:  # a cut last character, a lone surrogate: the rest is still that encoding
            text = data.decode(wide, errors="replace")
            diagnostics.append(diagnostic("decode_fallback", f"{wide} byte-order mark but not valid {wide} (byte "
                                          f"{err.start}: {err.reason}); undecodable units replaced by U+FFFD"))
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
    nul = text.find("\x00")
    if nul >= 0:  # UTF-16 written without a byte-order mark reads so: no heading, no citation, all scores 0
        diagnostics.append(diagnostic("nul_characters", f"the text holds {text.count(chr(0)):,} NUL character(s) "
                                      "(a binary file, or UTF-16 without a byte-order mark?); read as they are",
                                      text.count("\n", 0, nul) + 1))
    return normalise_newlines(text, keep_bom=True), diagnostics


def read_survey_file(path: str | os.PathLike[str], *, max_bytes: int | None = MAX_SURVEY_BYTES
                     ) -> tuple[str, list[Diagnostic]]:
    """Read a generated survey from disk robustly (see :func:`decode_survey_bytes`); I/O errors propagate.

    A file over ``max_bytes`` (None: no limit) raises :class:`SurveyTooLargeError` naming it, unread.
    """
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if max_bytes is not None and size > max_bytes:
            raise _too_large(path, size, max_bytes)
        # one byte past the limit: a file whose size the system does not say (a pipe) is still cut there
        data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
    if max_bytes is not None and len(data) > max_bytes:
        raise _too_large(path, len(data), max_bytes)
    return decode_survey_bytes(data)


def _too_large(path: str | os.PathLike[str], size: int, limit: int) -> SurveyTooLargeError:
    return SurveyTooLargeError(
        f"{path}: {size:,} bytes, over the {limit:,}-byte limit on a survey file "
        "(surge_dataset.survey.decode.MAX_SURVEY_BYTES); refused unread. A generated survey is well under a "
        "megabyte: is this the right file?")


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
