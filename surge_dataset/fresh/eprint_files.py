"""An arXiv e-print's files, in memory: unpacking (tar, gzip, plain ``.tex``), choosing the main ``.tex`` and
expanding its ``\\input``-family commands. The rules are listed in ``latex.py``'s docstring (Archive, Main
file); :class:`SourceError` is raised here and by ``latex.read_eprint``.
"""

from __future__ import annotations

import io
import json
import posixpath
import re
import tarfile
import zlib
from collections.abc import Mapping

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.vocabulary import BROKEN_LATEX, MALFORMED_ARCHIVE, SourceProblem
from surge_dataset.fresh.latex_text import read_group_argument

__all__ = [
    "MAX_INPUT_DEPTH",
    "MAX_INPUT_EXPANSIONS",
    "MAX_UNCOMPRESSED_BYTES",
    "TEX_EXTENSIONS",
    "SourceError",
    "choose_main_file",
    "decode_text",
    "document_body",
    "expand_inputs",
    "unpack_eprint",
]

#: Cap on an e-print's unpacked size: a larger one (or a gzip bomb) is ``malformed_archive``.
MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024
#: How deep ``\\input`` may nest.
MAX_INPUT_DEPTH = 20
#: How many files ``\\input`` may pull in, all told: a file input many times by files input many times would
#: otherwise expand exponentially (``broken_latex`` past it, or past ``MAX_UNCOMPRESSED_BYTES`` of text).
MAX_INPUT_EXPANSIONS = 10_000
#: Extensions read as LaTeX sources.
TEX_EXTENSIONS = (".tex", ".ltx", ".latex")
_MAIN_NAMES = ("main", "ms", "paper", "manuscript", "article", "survey", "arxiv", "root")


class SourceError(SurgeError, ValueError):
    """Why an e-print cannot give a survey: ``reason`` is one of ``vocabulary.SOURCE_PROBLEMS``."""

    def __init__(self, reason: SourceProblem, name: str, detail: str) -> None:
        self.reason: SourceProblem = reason
        self.name = name
        super().__init__(f"{name}: {detail} ({reason})")


# ---------------------------------------------------------------------------------------------------------
# Archive
# ---------------------------------------------------------------------------------------------------------


def _gunzip(data: bytes, name: str) -> bytes:
    """Every gzip member of ``data`` unpacked, refusing to grow past the cap."""
    out = bytearray()
    rest = data
    while rest:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        chunk = rest
        try:
            while chunk:
                out += inflater.decompress(chunk, MAX_UNCOMPRESSED_BYTES + 1 - len(out))
                if len(out) > MAX_UNCOMPRESSED_BYTES:
                    raise SourceError(MALFORMED_ARCHIVE, name,
                                      f"unpacks to more than {MAX_UNCOMPRESSED_BYTES} bytes")
                chunk = inflater.unconsumed_tail
            out += inflater.flush()
        except zlib.error as exc:
            raise SourceError(MALFORMED_ARCHIVE, name, f"not a readable gzip file ({exc})") from None
        if not inflater.eof:
            raise SourceError(MALFORMED_ARCHIVE, name, "truncated gzip file")
        rest = inflater.unused_data.lstrip(b"\0")
        if rest[:2] != b"\x1f\x8b":
            break
    return bytes(out)


def _gzip_original_name(data: bytes) -> str | None:
    """The file name stored in a gzip header (FNAME), if any."""
    if len(data) < 10 or not data[3] & 0x08:
        return None
    at = 10
    if data[3] & 0x04:  # FEXTRA
        at += 2 + int.from_bytes(data[10:12], "little")
    end = data.find(b"\0", at)
    if end < 0:
        return None
    name = posixpath.basename(data[at:end].decode("latin-1").replace("\\", "/"))
    return name or None


def _tar_members(payload: bytes, name: str, warnings: list[str]) -> dict[str, bytes] | None:
    """The regular files of a tar archive (``None`` if ``payload`` is not one); unsafe paths skipped."""
    try:
        archive = tarfile.open(fileobj=io.BytesIO(payload), mode="r:*")
    except (tarfile.TarError, EOFError, OSError, zlib.error):
        return None
    files: dict[str, bytes] = {}
    total = 0
    try:
        with archive:
            for member in archive:
                path = member.name.replace("\\", "/")
                parts = [p for p in path.split("/") if p not in ("", ".")]
                if path.startswith("/") or ".." in parts or not parts:
                    warnings.append(f"{name}: member {member.name!r} skipped (absolute path or '..')")
                    continue
                if not member.isfile():
                    if member.issym() or member.islnk():
                        warnings.append(f"{name}: link {member.name!r} skipped")
                    continue
                total += member.size
                if total > MAX_UNCOMPRESSED_BYTES:
                    raise SourceError(MALFORMED_ARCHIVE, name,
                                      f"unpacks to more than {MAX_UNCOMPRESSED_BYTES} bytes")
                extracted = archive.extractfile(member)
                if extracted is not None:
                    files["/".join(parts)] = extracted.read()
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise SourceError(MALFORMED_ARCHIVE, name, f"broken tar archive ({exc})") from None
    return files


def _looks_like_latex(payload: bytes) -> bool:
    head = payload[:65536]
    return b"\0" not in head and b"\\" in head


def unpack_eprint(data: bytes, *, name: str = "<e-print>") -> tuple[dict[str, bytes], list[str]]:
    """The files of an e-print, in memory: (path -> bytes, warnings). Raises :class:`SourceError`
    (``malformed_archive``) for a PDF, garbage, a broken or oversized archive."""
    warnings: list[str] = []
    if data[:4] == b"%PDF":
        raise SourceError(MALFORMED_ARCHIVE, name, "a PDF, not LaTeX source")
    if data[:2] == b"\x1f\x8b":
        payload = _gunzip(data, name)
        inner = _gzip_original_name(data) or "main.tex"
    else:
        payload = data
        inner = "main.tex"
    if len(payload) > MAX_UNCOMPRESSED_BYTES:
        raise SourceError(MALFORMED_ARCHIVE, name, f"larger than {MAX_UNCOMPRESSED_BYTES} bytes")
    files = _tar_members(payload, name, warnings)
    if files is not None:
        return files, warnings
    if payload[:4] == b"%PDF" or payload[:2] == b"%!":
        raise SourceError(MALFORMED_ARCHIVE, name, "a PDF or PostScript file, not LaTeX source")
    if not _looks_like_latex(payload):
        raise SourceError(MALFORMED_ARCHIVE, name, "neither a tar archive, gzip nor LaTeX text")
    if not inner.lower().endswith(TEX_EXTENSIONS):
        inner += ".tex"
    return {inner: payload}, warnings


def decode_text(data: bytes) -> str:
    """UTF-8 (a BOM dropped), else Latin-1, which reads any byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# ---------------------------------------------------------------------------------------------------------
# Main file and \input
# ---------------------------------------------------------------------------------------------------------

_DOCUMENTCLASS = re.compile(r"\\document(?:class|style)(?![A-Za-z@])")
_BEGIN_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
_END_DOCUMENT = re.compile(r"\\end\s*\{document\}")


def _readme_toplevel(files: Mapping[str, bytes], texts: Mapping[str, str]) -> str | None:
    """The main file arXiv's ``00README.json`` names (``usage: toplevel``), if it is one of ``texts``."""
    readme = files.get("00README.json")
    if readme is None:
        return None
    try:
        sources = json.loads(decode_text(readme)).get("sources", [])
        names = [s.get("filename") for s in sources if isinstance(s, dict) and s.get("usage") == "toplevel"]
    except (ValueError, AttributeError):
        return None
    return next((n for n in names if n in texts), None)


def choose_main_file(files: Mapping[str, bytes], texts: Mapping[str, str], name: str,
                      warnings: list[str]) -> str:
    """The main ``.tex`` by the rules of the module docstring."""
    readme = _readme_toplevel(files, texts)
    if readme:
        return readme
    with_class = [path for path, text in texts.items() if _DOCUMENTCLASS.search(text)]
    candidates = with_class or [path for path, text in texts.items() if _BEGIN_DOCUMENT.search(text)]
    if not candidates:
        if len(texts) == 1:
            only = next(iter(texts))
            warnings.append(f"{name}: {only} has no \\documentclass; read as the main file")
            return only
        raise SourceError(BROKEN_LATEX, name, f"no main file: none of {len(texts)} .tex files has "
                          "\\documentclass or \\begin{document}")

    def rank(path: str) -> tuple[bool, bool, int, int]:
        stem = posixpath.splitext(posixpath.basename(path))[0].lower()
        return (bool(_BEGIN_DOCUMENT.search(texts[path])), stem in _MAIN_NAMES, -path.count("/"),
                len(texts[path]))

    return max(sorted(candidates), key=rank)


_INPUT = re.compile(r"\\(input|include|subfile|import|subimport|inputfrom|subinputfrom)(?![A-Za-z@])\*?")
_BARE_INPUT_NAME = re.compile(r"\s*([^\s{}\\%]+)")


class _Expander:
    """``\\input``-family expansion over the archive's texts."""

    def __init__(self, texts: Mapping[str, str], main_file: str, name: str, warnings: list[str]) -> None:
        self.texts, self.name, self.warnings = texts, name, warnings
        self.root = posixpath.dirname(main_file)
        self.expansions = 0
        self.size = 0  # characters of every file expanded so far: a bound on the expanded text's length

    def _find(self, target: str, folders: list[str]) -> str | None:
        target = target.strip().strip('"')
        for folder in folders:
            path = posixpath.normpath(posixpath.join(folder, target))
            if path.startswith("../") or path == "..":
                continue
            for candidate in (path, path + ".tex"):
                if candidate in self.texts:
                    return candidate
        return None

    def expand(self, path: str, stack: tuple[str, ...] = ()) -> str:
        text = self.texts[path]
        self.expansions += 1
        self.size += len(text)
        if self.expansions > MAX_INPUT_EXPANSIONS or self.size > MAX_UNCOMPRESSED_BYTES:
            raise SourceError(BROKEN_LATEX, self.name, f"\\input expands to more than {MAX_INPUT_EXPANSIONS} files "
                              f"or {MAX_UNCOMPRESSED_BYTES} characters (files input over and over)")
        folder = posixpath.dirname(path)
        pieces: list[str] = []
        at = 0
        for match in _INPUT.finditer(text):
            if match.start() < at:
                continue
            command = match.group(1)
            end = match.end()
            sub_folder = ""
            if command in ("import", "subimport", "inputfrom", "subinputfrom"):
                first = read_group_argument(text, end)
                second = read_group_argument(text, first[1]) if first else None
                if second is None:
                    continue
                sub_folder, target, end = first[0].strip(), second[0], second[1]
            else:
                group = read_group_argument(text, end)
                if group is None:
                    bare = _BARE_INPUT_NAME.match(text, end) if command == "input" else None
                    if bare is None:
                        continue
                    target, end = bare.group(1), bare.end()
                else:
                    target, end = group[0], group[1]
            pieces.append(text[at:match.start()])
            at = end
            relative = command in ("subimport", "subinputfrom")
            folders = ([posixpath.join(folder, sub_folder)] if relative
                       else [posixpath.join(self.root, sub_folder), posixpath.join(folder, sub_folder)])
            found = self._find(target, folders)
            if found is None:
                self.warnings.append(f"{self.name}: \\{command}{{{target.strip()}}} in {path}: "
                                     "no such file in the archive, skipped")
                continue
            if found in stack or found == path or len(stack) >= MAX_INPUT_DEPTH:
                self.warnings.append(f"{self.name}: \\{command}{{{target.strip()}}} in {path}: "
                                     "inputs itself or nests too deep, skipped")
                continue
            inner = self.expand(found, (*stack, path))
            if command == "subfile":
                inner = document_body(inner)[0]
            pieces.append(inner)
        pieces.append(text[at:])
        return "".join(pieces)


def document_body(text: str) -> tuple[str, bool, bool]:
    """(the text between ``\\begin{document}`` and ``\\end{document}``, whether each was found)."""
    begin = _BEGIN_DOCUMENT.search(text)
    body = text[begin.end():] if begin else text
    end = _END_DOCUMENT.search(body)
    return (body[:end.start()] if end else body), begin is not None, end is not None


def expand_inputs(texts: Mapping[str, str], main_file: str, *, name: str, warnings: list[str]) -> str:
    """The main file with its ``\\input``/``\\include``/``\\subfile``/``\\import`` expanded; files that are
    missing, include themselves or nest past ``MAX_INPUT_DEPTH`` are warnings; more than ``MAX_INPUT_EXPANSIONS``
    expansions, or more text than ``MAX_UNCOMPRESSED_BYTES``, is a :class:`SourceError` (``broken_latex``)."""
    return _Expander(texts, main_file, name, warnings).expand(main_file)
