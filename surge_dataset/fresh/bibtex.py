"""``.bib`` files read with ``bibtexparser`` (v2): each entry's key and fields, in file order.

``bibtexparser`` splits the database into blocks (entries, ``@string``, ``@comment``, ``@preamble``), recovers from
a malformed entry at the next ``@`` (a ``ParsingFailedBlock``; its key is still counted when it can be read) and
keeps the first of two entries with one key (the second is a ``DuplicateBlockKeyBlock``), as BibTeX does; an entry
that gives a field twice (a ``DuplicateFieldKeyBlock``, real in HL-LHC review's ``.bib``) is read with the first.

Measured on bibtexparser 2.1.0 before replacing the hand-written reader, on the cases of
``tests/test_fresh_latex.py::test_bib_reader_strings_concatenation_and_malformed_entries`` and on the three real
``.bib`` files of tests/fixtures/latex (23 + 140 + 57 entries): the same 220 keys in the same order, the same 35
arXiv ids, and 217 titles where the hand-written reader found 210 (it read no title after a ``%`` comment inside an
entry, ``@article{Alves:2017she, %used also in ...``). Two things bibtexparser does not do, done here on its
output: ``#`` concatenation (its ``ResolveStringReferencesMiddleware`` replaces a field only when the whole value is
one macro name, so ``"The " # conf`` stays as written) and the month macros ``jan``..``dec`` (not ``@string``
definitions of the file). Field
names are lower-cased (``TITLE = {..}``); values keep their LaTeX (the caller makes titles text). A ``%`` comment
inside an entry (``@article{k, %used also in ...``), which biber skips and bibtexparser would read into the next
field's name, is removed first; a ``%`` inside a word (a URL's ``%2F``) is text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import bibtexparser
from bibtexparser.model import (
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ParsingFailedBlock,
    String,
)

__all__ = ["BibEntry", "MONTHS", "read_bib_entries"]

#: BibTeX's predefined month macros.
MONTHS = {m: m.capitalize() for m in ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                      "dec")}
_FAILED_KEY = re.compile(r"@\s*[A-Za-z]+\s*[{(]\s*([^\s,{}()@]+)\s*,")
#: A comment as biber reads one: ``%`` at the start of a line or after white space or a comma, to the line's end
#: (a URL's ``%2F`` is kept; BibTeX itself has no comment character, and .bib files written for biber use these).
_COMMENT = re.compile(r"(?:(?<=^)|(?<=[\s,]))%[^\n]*", re.MULTILINE)
_NUMBER = re.compile(r"\d+")


@dataclass
class BibEntry:
    """One entry: its key, type and fields (lower-case names, values as LaTeX); ``fields`` is empty for a
    malformed entry whose key could still be read."""

    key: str
    entry_type: str
    fields: dict[str, str] = field(default_factory=dict)


def _parts(value: str) -> Iterator[str]:
    """The ``#``-separated parts of a raw field value, outside braces and quotes."""
    depth, quoted, start = 0, False, 0
    for at, char in enumerate(value):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0:
            quoted = not quoted
        elif char == "#" and depth == 0 and not quoted:
            yield value[start:at].strip()
            start = at + 1
    yield value[start:].strip()


def _resolve(value: str, macros: Mapping[str, str]) -> str:
    """A field value with its enclosing braces or quotes removed and ``#`` parts joined, macros expanded."""
    pieces = []
    for part in _parts(value):
        if len(part) >= 2 and part[0] + part[-1] in ("{}", '""'):
            pieces.append(part[1:-1])
        elif _NUMBER.fullmatch(part):
            pieces.append(part)
        else:
            pieces.append(macros.get(part.lower(), ""))
    return "".join(pieces)


def read_bib_entries(text: str, macros: dict[str, str] | None = None) -> list[BibEntry]:
    """Every entry of a BibTeX database in file order (module docstring); ``macros`` (name -> value, lower-case
    names) are the ``@string`` definitions seen so far, updated with this file's (so several files share them)."""
    macros = dict(MONTHS) if macros is None else macros
    library = bibtexparser.parse_string(_COMMENT.sub("", text), parse_stack=[])  # raw values: _resolve reads them
    entries: list[BibEntry] = []
    for block in library.blocks:
        if isinstance(block, String):
            macros[block.key.lower()] = _resolve(str(block.value), macros)
        elif isinstance(block, DuplicateBlockKeyBlock):
            continue
        elif isinstance(block, (Entry, DuplicateFieldKeyBlock)):
            entry = block if isinstance(block, Entry) else block.ignore_error_block  # a field given twice: the first
            fields: dict[str, str] = {}
            for f in entry.fields:
                fields.setdefault(f.key.lower(), _resolve(str(f.value), macros))
            entries.append(BibEntry(entry.key, entry.entry_type.lower(), fields))
        elif isinstance(block, ParsingFailedBlock):
            match = _FAILED_KEY.match(block.raw or "")
            if match and not (block.raw or "").lstrip("@ \t\n").lower().startswith(("comment", "preamble", "string")):
                entries.append(BibEntry(match.group(1), ""))
    return entries
