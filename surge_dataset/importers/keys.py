"""Citations by bibliography key and the bibliography that resolves them.

Forms read in a survey's text (outside math, code and link targets, as numeric citations):

* ``[@key]``, ``[@a; @b]``, ``[@a, @b]`` (pandoc): always citations;
* ``[key]``, ``[a, b]``, ``[a; b]``: citations when every key is in the survey's bibliography, or when there is
  no such entry but the key is shaped like one (letters, then a year that is no part of a longer number:
  ``gao2023retrieval``, ``Smith:2020``); a bracketed word such as ``[Structure]`` is text, and so is a bracketed
  address (``[https://pubmed.ncbi.nlm.nih.gov/15620689/]``: "2068" inside 15620689 is no year);
* ``\\cite{a,b}`` and its natbib / biblatex variants (``\\citep``, ``\\citet[p.~3]{a}``, ``\\parencite`` ...),
  read by the fresh split's LaTeX reader (:func:`surge_dataset.fresh.latex.iter_citations`); ``\\nocite`` is
  not a citation.

The bibliography: ``--bib FILE``, else the ``.bib`` files beside the survey (its folder under SOURCE, or
``<name>.bib`` beside ``<name>.md``), then ``.bbl`` files there for keys the ``.bib`` files lack; read by the
fresh split's readers (:mod:`surge_dataset.fresh.bibliography`: ``parse_bib``, ``parse_bbl``). Only cited
entries become references (a ``.bib`` is a database, not the survey's list); a cited key with no entry, or
with an entry without a title, is a citation without an entry (counted, and listed in the report).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from surge_dataset.fresh.bibliography import parse_bbl, parse_bib
from surge_dataset.fresh.eprint_files import decode_text
from surge_dataset.fresh.latex import iter_citations
from surge_dataset.fresh.latex_text import strip_comments
from surge_dataset.importers.records import RefEntry

__all__ = ["KEY_GROUP_RE", "Bibliography", "bibliography_beside", "cites_as_keys", "key_citation", "read_bibliography"]

#: A key may hold an apostrophe inside (Semantic Scholar's BibTeX writes ``Traor'e2020SequentialCO`` for Traoré).
_KEY = r"(?:@\w|[A-Za-z])[\w:.#&+/\-]*(?:'[\w:.#&+/\-]+)*"
#: A bracketed group of keys: ``[key]``, ``[@a; @b]``, ``[a, b]`` (not a link ``[text](url)``).
KEY_GROUP_RE = re.compile(rf"\[\s*({_KEY}(?:\s*[;,]\s*{_KEY})*)\s*\](?!\()")
#: What a key without an entry must look like to be taken for one: letters, then a year.
_KEY_SHAPE_RE = re.compile(r"^[A-Za-z][\w:.#&+/\-']*?(?<!\d)(?:19|20)\d{2}(?!\d)")
#: An address is never a key, whatever digits it holds (``https://pubmed.ncbi.nlm.nih.gov/15620689/``).
_ADDRESS_RE = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|www\.|doi:|10\.\d{4,9}/)", re.I)
BIB_SUFFIXES = (".bib", ".bbl")


@dataclass
class Bibliography:
    """Entries by cite key, and the files they were read from (``--bib`` or beside the survey)."""

    entries: dict[str, RefEntry] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)


def read_bibliography(paths: Iterable[Path]) -> Bibliography:
    """The entries of ``.bib`` files (merged, the first definition of a key wins), then of ``.bbl`` files for
    keys the ``.bib`` files lack. An entry without a title keeps an empty title."""
    paths = list(paths)
    found = Bibliography(files=[str(p) for p in paths])
    ordered = [p for p in paths if p.suffix.lower() != ".bbl"] + [p for p in paths if p.suffix.lower() == ".bbl"]
    for path in ordered:
        text = strip_comments(decode_text(path.read_bytes()))  # as the fresh split reads them
        read = parse_bbl if path.suffix.lower() == ".bbl" else parse_bib
        parsed = read(text, file=str(path))
        for key in parsed.keys:
            found.entries.setdefault(key, RefEntry(parsed.titles.get(key, ""), f"{key} ({path.name})"))
    return found


def bibliography_beside(survey: Path, *, own_folder: bool) -> list[Path]:
    """The ``.bib`` / ``.bbl`` files of a survey: every one in its folder when the folder is the survey's own
    (``SOURCE/<name>/``), else those named like it (``<name>.bib`` beside ``<name>.md``)."""
    folder = survey.parent
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in BIB_SUFFIXES)
    if own_folder:
        return files
    return [p for p in files if p.stem == survey.stem]


def cites_as_keys(text: str) -> str:
    """``text`` with each ``\\cite{a,b}`` (any variant) written as ``[@a; @b]``; ``\\nocite`` dropped."""
    pieces: list[str] = []
    at = 0
    for cite in iter_citations(text):
        pieces.append(text[at:cite.start])
        if cite.command != "nocite" and cite.keys:
            pieces.append("[" + "; ".join("@" + key for key in cite.keys) + "]")
        at = cite.end
    pieces.append(text[at:])
    return "".join(pieces)


def key_citation(group: str, bibliography: dict[str, RefEntry]) -> list[str] | None:
    """The keys a bracketed key group cites, or None when it is text (see the module docstring)."""
    items = [item.strip() for item in re.split(r"[;,]", group) if item.strip()]
    explicit = any(item.startswith("@") for item in items)
    keys = [item.removeprefix("@") for item in items]
    if any(_ADDRESS_RE.match(key) for key in keys):  # a bracketed URL is a link's text, not a key
        return None
    if explicit or all(key in bibliography or _KEY_SHAPE_RE.match(key) for key in keys):
        return keys
    return None
