"""A survey's bibliography from its arXiv e-print: cite key -> title of the cited work, and its arXiv id.

Where it is read, first found wins (``find_bibliography``):

1. an inline ``thebibliography`` in the expanded document (what LaTeX typesets; this includes a ``.bbl``
   pulled in by ``\\input{main.bbl}``);
2. a ``.bbl`` file (what arXiv compiles with): the one named after the main file first, then the others by
   name. Two formats: ``thebibliography`` lists (BibTeX styles, natbib) and biblatex/biber's
   ``\\entry{key}{type}{} ... \\field{title}{...} ... \\endentry``;
3. ``.bib`` files: those named by ``\\bibliography{a,b}`` / ``\\addbibresource{a.bib}`` (relative to the main
   file), else every ``.bib`` in the archive; entries of several files are merged, the first definition of
   a key wins.

A source with no entry is skipped (an empty ``.bbl`` falls through to the ``.bib``); none at all -> ``None``
(the caller raises ``no_bibliography``).

Titles in a ``thebibliography`` list, in this order: ACM's ``\\showarticletitle{..}`` or
``\\bibinfo{title}{..}``; else the second ``\\newblock`` block (BibTeX styles put the authors first and the
title second); else, with no ``\\newblock``, a quoted ````Title,''`` (IEEE styles); else the entry has no
title. In ``.bib`` files the ``title`` field (braces, quotes, ``#`` concatenation and ``@string`` macros).
Titles are plain text (``latex_text.latex_to_text``: ``{BERT}`` -> BERT, ``\\"o`` -> ö), trailing ``.``/``,``
and surrounding quotes removed; an entry whose title is unknown or empty is counted but not stored.

arXiv ids (``ParsedBibliography.ids``, key -> normalised id; rules in :mod:`.arxiv_ids`): in a ``thebibliography``
item, the first id its text writes (``arXiv:2101.12345``, an arxiv.org URL, ``10.48550/arXiv.<id>``, ``CoRR
abs/<id>``, ``\\eprint{<id>}``, an old-style ``hep-th/9901001``); in a biblatex entry, ``eprint`` with
``eprinttype`` arxiv, else any of its fields' text; in a ``.bib`` entry, ``eprint`` with ``archivePrefix`` arXiv (or
none), else any field but the title. An entry with an id and no title keeps its id: the id alone resolves it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..vocabulary import BBL, BIB, BibliographyKind
from .arxiv_ids import bib_fields_arxiv_id, find_arxiv_id
from .latex_text import find_closing_brace, latex_to_text, read_bracket_argument, read_group_argument

__all__ = [
    "ParsedBibliography",
    "bibliography_names",
    "clean_title",
    "find_bibliography",
    "parse_bbl",
    "parse_bib",
    "parse_thebibliography",
]


@dataclass
class ParsedBibliography:
    """One bibliography: titles and arXiv ids by cite key, every entry's key (titled or not), where it came from."""

    kind: BibliographyKind
    titles: dict[str, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    file: str = ""

    @property
    def entries(self) -> int:
        """How many entries the bibliography had, titled or not."""
        return len(self.keys)


_TRAILING = " \t\n.,;:"
_QUOTES = "\"'“”‘’`"


def clean_title(latex: str) -> str:
    """A title as plain text: LaTeX converted, trailing punctuation and surrounding quotes removed."""
    text = latex_to_text(latex).strip(_TRAILING)
    while len(text) > 1 and text[0] in _QUOTES and text[-1] in _QUOTES + ",.":
        text = text.strip(_QUOTES).strip(_TRAILING)
    return text


# ---------------------------------------------------------------------------------------------------------
# thebibliography lists (.bbl files of BibTeX styles, inline lists)
# ---------------------------------------------------------------------------------------------------------

_BIBITEM = re.compile(r"\\bibitem(?![A-Za-z@])")
_END_LIST = re.compile(r"\\end\s*\{thebibliography\}")
_NEWBLOCK = re.compile(r"\\newblock(?![A-Za-z@])")
_ACM_TITLE = re.compile(r"\\showarticletitle(?![A-Za-z@])|\\bibinfo\s*\{title\}")
_QUOTED = re.compile(r"``(.+?)''", re.DOTALL)


def _entry_title(body: str) -> str:
    """The title of one ``\\bibitem``'s text by the rules of the module docstring ("" if unknown)."""
    acm = _ACM_TITLE.search(body)
    if acm:
        group = read_group_argument(body, acm.end())
        if group:
            return clean_title(group[0])
    blocks = _NEWBLOCK.split(body)
    if len(blocks) >= 2:
        return clean_title(blocks[1])
    quoted = _QUOTED.search(body)
    return clean_title(quoted.group(1)) if quoted else ""


def parse_thebibliography(text: str, *, file: str = "") -> ParsedBibliography:
    """Every ``\\bibitem[label]{key}`` of the first ``thebibliography`` list in ``text`` (or of ``text`` itself
    when it has none, as a bare ``.bbl`` fragment)."""
    begin = text.find("\\begin{thebibliography}")
    if begin >= 0:
        text = text[begin:]
    end = _END_LIST.search(text)
    if end:
        text = text[:end.start()]
    parsed = ParsedBibliography(BBL, file=file)
    items = list(_BIBITEM.finditer(text))
    for number, item in enumerate(items):
        at = item.end()
        label = read_bracket_argument(text, at)
        if label is not None:
            at = label[1]
        key = read_group_argument(text, at)
        if key is None:
            continue
        stop = items[number + 1].start() if number + 1 < len(items) else len(text)
        name = key[0].strip()
        if name in parsed.keys:
            continue
        parsed.keys.append(name)
        title = _entry_title(text[key[1]:stop])
        if title:
            parsed.titles[name] = title
        arxiv_id = find_arxiv_id(text[key[1]:stop])
        if arxiv_id:
            parsed.ids[name] = arxiv_id
    return parsed


_BIBLATEX_ENTRY = re.compile(r"\\entry\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_BIBLATEX_TITLE = re.compile(r"\\field\s*\{title\}")
_BIBLATEX_FIELD = re.compile(r"\\field\s*\{(eprint|eprinttype|doi|url)\}\s*\{([^{}]*)\}"
                             r"|\\verb\s*\{(eprint|doi|url)\}\s*\\verb\s+(.*?)\s*\\endverb", re.DOTALL)


def _biblatex_id(body: str) -> str | None:
    """The arXiv id of one biber entry: its ``eprint``/``eprinttype``/``doi``/``url`` fields and ``\\verb`` fields,
    else any id its text writes."""
    fields = {(m.group(1) or m.group(3)).lower(): (m.group(2) if m.group(1) else m.group(4)) or ""
              for m in _BIBLATEX_FIELD.finditer(body)}
    return (bib_fields_arxiv_id(fields) if fields else None) or find_arxiv_id(body)


def parse_bbl(text: str, *, file: str = "") -> ParsedBibliography:
    """A ``.bbl`` file: biblatex/biber entries if it has ``\\entry{..}{..}``, else a ``thebibliography`` list."""
    entries = list(_BIBLATEX_ENTRY.finditer(text))
    if not entries:
        return parse_thebibliography(text, file=file)
    parsed = ParsedBibliography(BBL, file=file)
    for entry in entries:
        key = entry.group(1).strip()
        stop = text.find("\\endentry", entry.end())
        body = text[entry.end():stop if stop >= 0 else len(text)]
        if key in parsed.keys:  # biber repeats an entry in each sorting list
            continue
        parsed.keys.append(key)
        title_at = _BIBLATEX_TITLE.search(body)
        group = read_group_argument(body, title_at.end()) if title_at else None
        title = clean_title(group[0]) if group else ""
        if title:
            parsed.titles[key] = title
        arxiv_id = _biblatex_id(body)
        if arxiv_id:
            parsed.ids[key] = arxiv_id
    return parsed


# ---------------------------------------------------------------------------------------------------------
# .bib files
# ---------------------------------------------------------------------------------------------------------

_MONTHS = {m: m.capitalize() for m in ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                       "nov", "dec")}
_ENTRY_START = re.compile(r"@\s*([A-Za-z]+)\s*([{(])")
_FIELD_NAME = re.compile(r"\s*,?\s*([^\s=,{}()\"#]+)\s*=\s*")
_BARE_VALUE = re.compile(r"[^\s,#{}()\"]+")


def _bib_value(text: str, at: int, macros: Mapping[str, str]) -> tuple[str, int] | None:
    """A field value at ``at`` (``{..}``, ``".."``, a number or a macro, joined by ``#``): (value, end)."""
    parts: list[str] = []
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return None
        char = text[at]
        if char == "{":
            end = find_closing_brace(text, at)
            if end is None:
                return None
            parts.append(text[at + 1:end])
            at = end + 1
        elif char == '"':
            end = at + 1
            depth = 0
            while end < len(text) and not (text[end] == '"' and depth == 0):
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                end += 1
            if end >= len(text):
                return None
            parts.append(text[at + 1:end])
            at = end + 1
        else:
            bare = _BARE_VALUE.match(text, at)
            if bare is None:
                return None
            word = bare.group(0)
            parts.append(word if word.isdigit() else macros.get(word.lower(), ""))
            at = bare.end()
        rest = at
        while rest < len(text) and text[rest].isspace():
            rest += 1
        if rest < len(text) and text[rest] == "#":
            at = rest + 1
            continue
        return "".join(parts), at


def _bib_fields(text: str, at: int, closing: str,
                macros: Mapping[str, str]) -> tuple[dict[str, str], int] | None:
    """``name = value`` pairs from ``at`` to the entry's ``closing`` bracket: (fields, index after it)."""
    fields: dict[str, str] = {}
    while True:
        while at < len(text) and (text[at].isspace() or text[at] == ","):
            at += 1
        if at >= len(text):
            return None
        if text[at] == closing:
            return fields, at + 1
        name = _FIELD_NAME.match(text, at)
        if name is None:
            return None
        value = _bib_value(text, name.end(), macros)
        if value is None:
            return None
        fields.setdefault(name.group(1).lower(), value[0])
        at = value[1]


def parse_bib(text: str, *, file: str = "", macros: dict[str, str] | None = None) -> ParsedBibliography:
    """Every entry of a BibTeX database (``@comment`` and ``@preamble`` skipped, ``@string`` macros applied);
    a malformed entry is counted when its key can be read and reading resumes at the next ``@``."""
    parsed = ParsedBibliography(BIB, file=file)
    macros = dict(_MONTHS) if macros is None else macros
    seen: set[str] = set()
    at = 0
    while True:
        start = _ENTRY_START.search(text, at)
        if start is None:
            return parsed
        kind = start.group(1).lower()
        closing = "}" if start.group(2) == "{" else ")"
        at = start.end()
        if kind in ("comment", "preamble"):
            end = find_closing_brace(text, start.end() - 1) if closing == "}" else text.find(")", at)
            at = (end + 1) if end is not None and end >= 0 else at
            continue
        if kind == "string":
            read = _bib_fields(text, at, closing, macros)
            if read is not None:
                macros.update(read[0])
                at = read[1]
            continue
        comma = text.find(",", at)
        if comma < 0:
            return parsed
        key = text[at:comma].strip()
        if not key or any(c in key for c in "{}@\n"):
            continue
        read = _bib_fields(text, comma + 1, closing, macros)
        if key not in seen:
            seen.add(key)
            parsed.keys.append(key)
            title = clean_title(read[0].get("title", "")) if read is not None else ""
            if title:
                parsed.titles[key] = title
            arxiv_id = bib_fields_arxiv_id(read[0]) if read is not None else None
            if arxiv_id:
                parsed.ids[key] = arxiv_id
        if read is not None:
            at = read[1]


# ---------------------------------------------------------------------------------------------------------
# Which one
# ---------------------------------------------------------------------------------------------------------

_BIB_COMMAND = re.compile(r"\\(bibliography|addbibresource|addglobalbib)(?![A-Za-z@])")


def bibliography_names(document: str) -> list[str]:
    """The ``.bib`` names a document asks for (``\\bibliography{a,b}``, ``\\addbibresource[..]{c.bib}``),
    in order, each with its ``.bib`` extension."""
    names: list[str] = []
    for match in _BIB_COMMAND.finditer(document):
        at = match.end()
        option = read_bracket_argument(document, at)
        group = read_group_argument(document, option[1] if option else at)
        if group is None:
            continue
        for name in group[0].split(","):
            name = name.strip()
            if name:
                names.append(name if name.endswith(".bib") else name + ".bib")
    return names


def _resolve(name: str, base: str, files: Mapping[str, str]) -> str | None:
    for candidate in (posixpath.normpath(posixpath.join(base, name)), posixpath.normpath(name)):
        if candidate in files:
            return candidate
    return None


def find_bibliography(files: Mapping[str, str], document: str, main_file: str) -> ParsedBibliography | None:
    """The survey's bibliography by the order of the module docstring; ``None`` when no source has an entry.

    ``files`` maps archive paths to their text (``.bbl`` and ``.bib`` files among them); ``document`` is the
    expanded main file (comments stripped).
    """
    if "\\begin{thebibliography}" in document:
        inline = parse_thebibliography(document, file=main_file)
        if inline.entries:
            return inline
    base = posixpath.dirname(main_file)
    stem = posixpath.splitext(main_file)[0]
    bbl_files = sorted((name for name in files if name.lower().endswith(".bbl")),
                       key=lambda name: (posixpath.splitext(name)[0] != stem, name))
    for name in bbl_files:
        parsed = parse_bbl(files[name], file=name)
        if parsed.entries:
            return parsed
    named = [resolved for name in bibliography_names(document)
             if (resolved := _resolve(name, base, files)) is not None]
    bib_files = named or sorted(name for name in files if name.lower().endswith(".bib"))
    bib_files = list(dict.fromkeys(bib_files))
    merged = ParsedBibliography(BIB, file=",".join(bib_files))
    macros = dict(_MONTHS)
    for name in bib_files:
        parsed = parse_bib(files[name], file=name, macros=macros)
        for key in parsed.keys:
            if key not in merged.titles and key not in merged.keys:
                merged.keys.append(key)
                if key in parsed.titles:
                    merged.titles[key] = parsed.titles[key]
                if key in parsed.ids:
                    merged.ids[key] = parsed.ids[key]
    return merged if merged.entries else None
