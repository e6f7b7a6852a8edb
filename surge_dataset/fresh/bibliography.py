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

Titles in a ``thebibliography`` list, in this order: ACM's ``\\showarticletitle{..}`` or ``\\bibinfo{title}{..}``,
else ACM's ``\\bibinfo{booktitle}{..}`` (how ``ACM-Reference-Format`` writes a book's own title); else a quoted
````Title,''`` in the entry's first block (IEEE styles, ``ieeetr``/``IEEEtran``, quote the title after the authors and
print a ``note`` as a trailing ``\\newblock``, which must not become the title), or, in a first block followed by
another, its first emphasised group that is not "et al." (``ieeetr``'s books: ``Authors, {\\it Title}.`` then the
publisher); else the second ``\\newblock`` block (BibTeX's
plain and natbib styles put the authors first and the title second; a block that is only a date, apalike's
``(2020a).``, is skipped, and a date closing the block, natbib's ``Title, May 2020.``, is no part of the title); else a quoted title anywhere; else the entry
has no title. A quoted title ends at the ````,''``/``.''`` the style closes it with, at brace depth 0, so a title
that itself opens with a quoted name (``{``Name''}: rest``) is read whole. In ``.bib`` files the ``title`` field
(read with ``bibtexparser``, :mod:`.bibtex`). Titles are plain text (``latex_text.latex_to_text``: ``{BERT}`` ->
BERT, ``\\"o`` -> ö, ``\\bibinfo{x}{Y}`` -> Y), trailing ``.``/``,`` and surrounding quotes removed; an entry whose
title is unknown or empty is counted but not stored. A title that reads like a note, a venue or a field name
(:func:`note_like`: "Accepted to ...", "arXiv:...", "Proceedings of ...", "booktitle") is not stored either: it is
kept in ``ParsedBibliography.note_titles`` and the reader warns (its arXiv id, if any, then resolves the entry).

arXiv ids (``ParsedBibliography.ids``, key -> normalised id; rules in :mod:`.arxiv_ids`): in a ``thebibliography``
item, the first id its text writes (``arXiv:2101.12345``, an arxiv.org URL, ``10.48550/arXiv.<id>``, ``CoRR
abs/<id>``, ``\\eprint{<id>}``, an old-style ``hep-th/9901001``); in a biblatex entry, ``eprint`` with
``eprinttype`` arxiv, else any of its fields' text; in a ``.bib`` entry, ``eprint`` with ``archivePrefix`` arXiv (or
none), else any field but the title. An entry with an id and no title keeps its id: the id alone resolves it.
DOIs likewise (``ParsedBibliography.dois``: a ``doi`` field, ``\\doi{..}``/``\\showDOI{..}``, ``doi.org/`` URLs).

**Ids from the .bib by key.** Many styles drop ``eprint`` and ``doi`` from the ``.bbl`` (``ieeetr`` prints neither):
when the bibliography is a ``.bbl`` or an inline list and the archive also has ``.bib`` files (those the document
names, else all), an entry that writes no arXiv id (or DOI) takes the one its key has in the ``.bib``.
``ParsedBibliography.id_sources`` says, per key with an id, where it was read (``bbl``/``bib``: the list itself is
``bbl`` whether a file or inline).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from surge_dataset.core.vocabulary import BBL, BIB, BibliographyKind
from surge_dataset.fresh.arxiv_ids import bib_fields_arxiv_id, find_arxiv_id
from surge_dataset.fresh.bibtex import MONTHS, read_bib_entries
from surge_dataset.fresh.latex_text import latex_to_text, read_bracket_argument, read_group_argument

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
    """One bibliography: titles and arXiv ids by cite key, every entry's key (titled or not), where it came from;
    DOIs, where each id was read (``id_sources``: key -> ``bbl``/``bib``) and the titles that read like notes."""

    kind: BibliographyKind
    titles: dict[str, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    file: str = ""
    dois: dict[str, str] = field(default_factory=dict)
    id_sources: dict[str, str] = field(default_factory=dict)
    note_titles: dict[str, str] = field(default_factory=dict)

    def _add(self, key: str, title: str, arxiv_id: str | None, doi: str | None) -> None:
        """Record one entry (its key already in :attr:`keys`): the title unless it reads like a note."""
        if title and note_like(title):
            self.note_titles[key] = title
        elif title:
            self.titles[key] = title
        if arxiv_id:
            self.ids[key] = arxiv_id
            self.id_sources[key] = self.kind
        if doi:
            self.dois[key] = doi

    @property
    def entries(self) -> int:
        """How many entries the bibliography had, titled or not."""
        return len(self.keys)


_TRAILING = " \t\n.,;:"
_QUOTES = "\"'“”‘’`"
#: What a title that is really a note, a venue or a field name starts with (compared lower-cased).
_NOTE_LIKE = re.compile(
    r"^(?:accepted\b|to appear\b|in press\b|forthcoming\b|submitted\b|under review\b|preprint\b|arxiv\b|corr\b"
    r"|available (?:at|online|from)\b|\[online\]|online:|url\b|https?:|doi\b|retrieved\b|accessed\b|last accessed\b"
    r"|tech(?:nical|\.)? ?rep|ph\.? ?d\.? thesis|master'?s thesis|in proceedings\b|proceedings of\b|in proc\b"
    r"|advances in neural information processing systems\b|international conference on\b|ieee transactions on\b"
    r"|(?:booktitle|title|journal|note|howpublished|publisher|eprint)$)")
_ONLY_AN_ID = re.compile(r"^(?:arxiv\s*:?\s*)?\d{4}\.\d{4,5}(?:v\d+)?$", re.IGNORECASE)
_DOI = re.compile(r"(?:\\(?:doi|showDOI)\s*\{\s*|doi\.org/|\bdoi\s*[:=]?\s*\{?)(10\.\d{4,9}/[^\s{}\"',]+)",
                  re.IGNORECASE)


def note_like(title: str) -> bool:
    """Whether a title reads like a note, a venue or a field name rather than a work's title (module docstring)."""
    text = " ".join(title.split()).lower()
    return bool(_NOTE_LIKE.match(text) or _ONLY_AN_ID.match(text))


def find_doi(text: str) -> str | None:
    """The first DOI ``text`` writes as a DOI (``\\doi{..}``, ``\\showDOI{..}``, ``doi.org/..``, ``doi: ..``)."""
    match = _DOI.search(text or "")
    return match.group(1).rstrip(".;") if match else None


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
_ACM_BOOKTITLE = re.compile(r"\\bibinfo\s*\{booktitle\}")
#: ``{\it X}`` / ``{\em X}`` / ``\emph{X}`` / ``\textit{X}``: how ieeetr sets a book's title in the first block.
_EMPHASIS = re.compile(r"\{\\(?:it|em|itshape)(?![A-Za-z@])\s*|\\(?:emph|textit)\s*(?=\{)")
_ET_AL = re.compile(r"^\s*et[~\s]*al\.?\s*$", re.IGNORECASE)


def _emphasised(text: str) -> str | None:
    """The first emphasised group of ``text`` that is not "et al." (its LaTeX), else None."""
    for match in _EMPHASIS.finditer(text):
        if match.group(0).startswith("{"):
            group = read_group_argument(text, match.start())
            inner = group[0][match.end() - match.start() - 1:] if group else None
        else:
            group = read_group_argument(text, match.end())
            inner = group[0] if group else None
        if inner and not _ET_AL.match(latex_to_text(inner)):
            return inner
    return None


def quoted_title(text: str) -> str | None:
    """The LaTeX between the first opening quote (two backticks) and the two apostrophes that close it at brace
    depth 0: the first close preceded by ``,`` or ``.`` (how ``ieeetr``/``IEEEtran`` end a title), else the first
    close at depth 0; None without a quoted title."""
    start = text.find("``")
    if start < 0:
        return None
    depth, first_close = 0, None
    at = start + 2
    while at < len(text) - 1:
        char = text[at]
        if char == "\\":
            at += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif depth == 0 and text.startswith("''", at):
            if text[at - 1] in ",.":
                return text[start + 2:at - 1]
            first_close = at if first_close is None else first_close
        at += 1
    return text[start + 2:first_close] if first_close is not None else None


_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE = rf"(?:{_MONTH}\s+)?(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?(?:19|20)\d{{2}}[a-z]?"
#: A block that is only a date (apalike's ``\newblock (2020a).``), and a date closing a title block (natbib's
#: author-year styles print a misc entry's month and year after its title: ``Title, May 2020.``).
_DATE_ONLY = re.compile(rf"^\(?\s*{_DATE}\s*\)?$", re.IGNORECASE)
_TRAILING_DATE = re.compile(rf"(?:,\s*|\s+\(\s*){_DATE}\s*\)?$", re.IGNORECASE)


def _without_date(title: str) -> str:
    """A title block less a date that closes it; "" for a block that is only a date."""
    if _DATE_ONLY.match(title):
        return ""
    if note_like(title):  # a venue's year stays with it: the reader warns about the whole note
        return title
    return _TRAILING_DATE.sub("", title).strip(_TRAILING)


def _entry_title(body: str) -> str:
    """The title of one ``\\bibitem``'s text by the rules of the module docstring ("" if unknown)."""
    for pattern in (_ACM_TITLE, _ACM_BOOKTITLE):
        tagged = pattern.search(body)
        group = read_group_argument(body, tagged.end()) if tagged else None
        if group:
            return clean_title(group[0])
    blocks = _NEWBLOCK.split(body)
    quoted = quoted_title(blocks[0])
    if quoted is not None:
        return clean_title(quoted)
    emphasised = _emphasised(blocks[0]) if len(blocks) >= 2 else None
    if emphasised is not None:  # ieeetr's books: "Authors, {\it Title}." then the publisher
        return clean_title(emphasised)
    if len(blocks) >= 2:  # plain / natbib / apalike: the first block that is not only a date, less its date
        titles = [_without_date(clean_title(block)) for block in blocks[1:]]
        return next((title for title in titles if title), "")
    quoted = quoted_title(body)
    return clean_title(quoted) if quoted is not None else ""


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
        entry = text[key[1]:stop]
        parsed._add(name, _entry_title(entry), find_arxiv_id(entry), find_doi(entry))
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
        parsed._add(key, clean_title(group[0]) if group else "", _biblatex_id(body), find_doi(body))
    return parsed


# ---------------------------------------------------------------------------------------------------------
# .bib files
# ---------------------------------------------------------------------------------------------------------

def parse_bib(text: str, *, file: str = "", macros: dict[str, str] | None = None) -> ParsedBibliography:
    """Every entry of a BibTeX database (``@comment`` and ``@preamble`` skipped, ``@string`` macros applied, read
    with ``bibtexparser``: :mod:`.bibtex`); a malformed entry is counted when its key can be read."""
    parsed = ParsedBibliography(BIB, file=file)
    for entry in read_bib_entries(text, macros):
        if entry.key in parsed.keys:
            continue
        parsed.keys.append(entry.key)
        fields = entry.fields
        parsed._add(entry.key, clean_title(fields.get("title", "")), bib_fields_arxiv_id(fields) if fields else None,
                    find_doi("doi:" + fields["doi"]) if fields.get("doi") else None)
    return parsed


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


def _bib_files(files: Mapping[str, str], document: str, main_file: str) -> list[str]:
    """The ``.bib`` files the document names (relative to the main file), else every ``.bib`` of the archive."""
    base = posixpath.dirname(main_file)
    named = [resolved for name in bibliography_names(document)
             if (resolved := _resolve(name, base, files)) is not None]
    return list(dict.fromkeys(named or sorted(name for name in files if name.lower().endswith(".bib"))))


def _merged_bib(files: Mapping[str, str], names: list[str]) -> ParsedBibliography:
    """The entries of several ``.bib`` files, the first definition of a key winning (``@string`` macros shared)."""
    merged = ParsedBibliography(BIB, file=",".join(names))
    macros = dict(MONTHS)
    for name in names:
        parsed = parse_bib(files[name], file=name, macros=macros)
        for key in parsed.keys:
            if key in merged.keys:
                continue
            merged.keys.append(key)
            for mine, theirs in ((merged.titles, parsed.titles), (merged.ids, parsed.ids), (merged.dois, parsed.dois),
                                 (merged.id_sources, parsed.id_sources), (merged.note_titles, parsed.note_titles)):
                if key in theirs:
                    mine[key] = theirs[key]
    return merged


def _ids_from_bib(parsed: ParsedBibliography, bib: ParsedBibliography) -> ParsedBibliography:
    """``parsed`` (a list) with the arXiv ids and DOIs its entries lack taken from ``bib`` by key."""
    for key in parsed.keys:
        if key not in parsed.ids and key in bib.ids:
            parsed.ids[key] = bib.ids[key]
            parsed.id_sources[key] = BIB
        if key not in parsed.dois and key in bib.dois:
            parsed.dois[key] = bib.dois[key]
    return parsed


def find_bibliography(files: Mapping[str, str], document: str, main_file: str) -> ParsedBibliography | None:
    """The survey's bibliography by the order of the module docstring; ``None`` when no source has an entry.

    ``files`` maps archive paths to their text (``.bbl`` and ``.bib`` files among them); ``document`` is the
    expanded main file (comments stripped). A list (inline or ``.bbl``) takes the ids it lacks from the ``.bib``
    files by key.
    """
    bib_names = _bib_files(files, document, main_file)
    lists: list[ParsedBibliography] = []
    if "\\begin{thebibliography}" in document:
        lists.append(parse_thebibliography(document, file=main_file))
    stem = posixpath.splitext(main_file)[0]
    for name in sorted((name for name in files if name.lower().endswith(".bbl")),
                       key=lambda name: (posixpath.splitext(name)[0] != stem, name)):
        lists.append(parse_bbl(files[name], file=name))
        if lists[-1].entries:
            break
    chosen = next((parsed for parsed in lists if parsed.entries), None)
    if chosen is not None:
        return _ids_from_bib(chosen, _merged_bib(files, bib_names)) if bib_names else chosen
    merged = _merged_bib(files, bib_names)
    return merged if merged.entries else None
