"""An arXiv e-print (bytes) -> the survey's section tree, each node with its own text and ``\\cite`` keys, and
its bibliography (``bibliography.py``: titles and arXiv ids); then the survey's official ``structure`` list
(``structure_nodes``).

Pure and offline: nothing is written to disk and nothing is fetched. The rules, as ``read_eprint`` applies them:

**Archive.** The format is read from the bytes, never from the name: gzip (``1f 8b``) is unpacked in memory
(capped at ``MAX_UNCOMPRESSED_BYTES``) and is either a tar of several files or one ``.tex`` (its name from
the gzip header, else ``main.tex``); an uncompressed tar or a plain ``.tex`` is read as is. A PDF, anything
else, an archive over the cap -> ``malformed_archive``; a valid archive without a ``.tex`` -> ``no_tex``.
Only regular members are read; absolute paths, ``..`` and links are skipped with a warning.

**Main file.** ``00README.json``'s ``toplevel`` file if it names one; else the ``.tex`` with
``\\documentclass``, preferring one with ``\\begin{document}``, then a name like ``main``/``ms``/``paper``,
then the shallowest path, then the longest text. ``\\input{x}``, ``\\include{x}``, ``\\subfile{x}``
(its ``document`` body only) and ``\\import{dir}{x}`` are expanded (``.tex`` added when missing; relative to
the main file's folder, then to the including file's; at most ``MAX_INPUT_DEPTH`` deep, a file never inside
itself); a missing file is a warning; past ``MAX_INPUT_EXPANSIONS`` files pulled in, ``broken_latex``. Comments, ``verbatim``-like and ``comment`` environments and
``\\iffalse .. \\fi`` blocks are removed first (``latex_text.strip_comments``).

**Sections.** ``\\section``, ``\\subsection``, ``\\subsubsection``, ``\\paragraph``, ``\\subparagraph``
(``LEVELS``), starred or not; ``\\section[short]{Long}`` keeps the long title; an empty title is not a
heading. A node's parent is the nearest earlier heading of a shallower level, so depths are normalised
(top-level nodes have depth 1 whatever command opened them). The body is read from ``\\begin{document}``
and ends at the first ``\\appendix``, ``appendices`` environment, ``\\bibliography``,
``\\printbibliography``, ``thebibliography`` or ``\\end{document}``: SurGE's ground truth is the main body
(paper §3.1), so appendix sections are left out. Text before the first heading (title, abstract,
``\\maketitle``) is not a node. ``\\chapter`` and ``\\part`` are not headings.

**Citations.** ``\\cite`` and its variants: ``\\cite*``, ``\\citep``, ``\\citet``, ``\\citealp``,
``\\citealt``, ``\\citeauthor``, ``\\citeyear``, ``\\citenum``, ``\\Cite..``, biblatex's ``\\parencite``,
``\\textcite``, ``\\autocite``, ``\\footcite``, ``\\smartcite``, ``\\supercite``, ``\\fullcite`` and the
multi-cite forms (``\\cites[see][3]{a}{b}``), optional arguments skipped, keys split on commas and
trimmed. Every citation in a node's own body counts, including those in its tables, figures and footnotes;
``\\nocite`` does not. Citations are removed from ``content`` (with the spaces or ``~`` before them). A
citation in a heading counts for that heading's node.

**Text.** ``content``, titles and the abstract are plain text by ``latex_text``'s rules (inline math kept
as text, display math and floats removed, ``\\emph{x}`` -> x, ``\\label``/``\\ref`` dropped, ``~`` -> space,
whitespace collapsed).

**Broken LaTeX.** A heading whose braces never close takes the rest of its line as title; a heading with
no argument is skipped; an unmatched ``\\begin{x}`` or ``\\end{x}`` inside one node is dropped so the text
after it survives; a missing ``\\begin{document}`` or ``\\end{document}`` reads the whole file. Each is a
line in ``LatexSource.warnings``. ``broken_latex`` only when headings exist but none can be read, or no main
file can be told apart; no heading at all -> ``no_sections``; no bibliography with an entry ->
``no_bibliography``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from surge_dataset.core.vocabulary import (
    BIB,
    BROKEN_LATEX,
    NO_BIBLIOGRAPHY,
    NO_SECTIONS,
    NO_TEX,
    BibliographyKind,
)
from surge_dataset.fresh.bibliography import ParsedBibliography, find_bibliography
from surge_dataset.fresh.eprint_files import (
    MAX_INPUT_DEPTH,
    MAX_UNCOMPRESSED_BYTES,
    TEX_EXTENSIONS,
    SourceError,
    choose_main_file,
    decode_text,
    document_body,
    expand_inputs,
    unpack_eprint,
)
from surge_dataset.fresh.latex_text import (
    collapse_whitespace,
    document_macros,
    find_closing_brace,
    latex_to_text,
    read_bracket_argument,
    read_group_argument,
    strip_comments,
)

__all__ = [
    "LEVELS",
    "MAX_INPUT_DEPTH",
    "MAX_UNCOMPRESSED_BYTES",
    "ROOT_PARENT_ID",
    "CiteCommand",
    "LatexNode",
    "LatexSource",
    "SourceError",
    "extract_citations",
    "iter_citations",
    "read_eprint",
    "read_latex_files",
    "structure_nodes",
    "unpack_eprint",
]

#: Heading commands, shallowest first (depth 1..5 when all are used).
LEVELS: tuple[str, ...] = ("section", "subsection", "subsubsection", "paragraph", "subparagraph")
#: The root node's ``parent_id`` in ``structure``: the integer -1, as in SurGE's released ``surveys.json``
#: (string section ids, an integer on the root; see ``records.py``).
ROOT_PARENT_ID = -1

@dataclass
class LatexNode:
    """One heading of the survey with its own text (up to its first child heading) and citations."""

    title: str
    level: str
    depth: int
    content: str
    cite_keys: list[str]
    children: list[LatexNode] = field(default_factory=list)

    def walk(self) -> list[LatexNode]:
        """This node and its descendants, document order."""
        nodes = [self]
        for child in self.children:
            nodes.extend(child.walk())
        return nodes


@dataclass
class LatexSource:
    """What ``read_eprint`` read from one e-print."""

    title: str | None
    abstract: str | None
    nodes: list[LatexNode]
    bibliography: dict[str, str]
    bibliography_kind: BibliographyKind
    bibliography_entries: int
    main_file: str
    warnings: list[str] = field(default_factory=list)
    bibliography_file: str = ""  # the .bbl/.bib (comma-separated) or .tex the bibliography was read from
    #: cite key -> the normalised arXiv id its entry writes (``arxiv_ids``): resolved by id, no title search
    bibliography_ids: dict[str, str] = field(default_factory=dict)
    #: cite key -> where its arXiv id was read: ``bbl`` (the list itself) or ``bib`` (the archive's .bib, by key)
    bibliography_id_sources: dict[str, str] = field(default_factory=dict)
    #: cite key -> the DOI its entry writes (or its key has in the .bib)
    bibliography_dois: dict[str, str] = field(default_factory=dict)
    #: cite key -> a "title" that reads like a note, a venue or a field name (not used as the title; a warning)
    bibliography_note_titles: dict[str, str] = field(default_factory=dict)

    def all_nodes(self) -> list[LatexNode]:
        """Every node, document order."""
        return [node for top in self.nodes for node in top.walk()]

    def all_cite_keys(self) -> list[str]:
        """Every key cited anywhere, first-appearance order, once."""
        return list(dict.fromkeys(key for node in self.all_nodes() for key in node.cite_keys))


# ---------------------------------------------------------------------------------------------------------
# Citations
# ---------------------------------------------------------------------------------------------------------

_CITE = re.compile(
    r"\\((?:[Pp]aren|[Tt]ext|[Aa]uto|[Ff]oot|[Ss]mart|[Ss]uper|[Ff]ull|no)cites?|[Cc]ite[A-Za-z]*)"
    r"(?![A-Za-z@])\*?")


@dataclass(frozen=True)
class CiteCommand:
    """One citation command in LaTeX text: where it stands, its name and its keys (in order, as written)."""

    start: int
    end: int
    command: str
    keys: tuple[str, ...]


def iter_citations(latex: str) -> Iterator[CiteCommand]:
    """Every citation command of ``latex`` (``\\nocite`` included, see ``command``), in order, by the rules of
    the module docstring: optional arguments skipped, keys split on commas and trimmed."""
    at = 0
    for match in _CITE.finditer(latex):
        if match.start() < at:
            continue
        command = match.group(1)
        multi = command.endswith("cites")
        end = match.end()
        groups: list[str] = []
        while True:
            position = end
            for _ in range(2):
                option = read_bracket_argument(latex, position)
                if option is None:
                    break
                position = option[1]
            group = read_group_argument(latex, position)
            if group is None:
                break
            groups.append(group[0])
            end = group[1]
            if not multi:
                break
        if not groups:
            continue
        keys = tuple(key.strip() for text in groups for key in text.split(",") if key.strip())
        yield CiteCommand(match.start(), end, command, keys)
        at = end


def extract_citations(latex: str) -> tuple[list[str], str]:
    """(cite keys in order of appearance, each once, ``\\nocite`` left out; the text without its citations
    and the spaces or ``~`` before them)."""
    keys: list[str] = []
    pieces: list[str] = []
    at = 0
    for cite in iter_citations(latex):
        if cite.command != "nocite":
            keys.extend(cite.keys)
        start = cite.start
        while start > at and latex[start - 1] in " \t~":
            start -= 1
        pieces.append(latex[at:start])
        at = cite.end
    pieces.append(latex[at:])
    return list(dict.fromkeys(keys)), "".join(pieces)


# ---------------------------------------------------------------------------------------------------------
# Headings
# ---------------------------------------------------------------------------------------------------------

_HEADING = re.compile(r"\\(" + "|".join(LEVELS) + r")(?![A-Za-z@])(\*?)")
_BODY_END = re.compile(r"\\(?:appendix|bibliography|printbibliography|backmatter)(?![A-Za-z@])"
                       r"|\\begin\s*\{(?:thebibliography|appendices)\}")
_ENVIRONMENT = re.compile(r"\\(begin|end)\s*\{([^{}]*)\}")


@dataclass
class _Heading:
    level: str
    title_latex: str
    start: int
    end: int


def _headings(body: str, name: str, warnings: list[str]) -> tuple[list[_Heading], int]:
    """The readable headings of ``body`` and how many could not be read."""
    headings: list[_Heading] = []
    unreadable = 0
    for match in _HEADING.finditer(body):
        if headings and match.start() < headings[-1].end:
            continue
        at = match.end()
        short = read_bracket_argument(body, at)
        if short is not None:
            at = short[1]
        group = read_group_argument(body, at)
        if group is not None:
            headings.append(_Heading(match.group(1), group[0], match.start(), group[1]))
            continue
        opening = at
        while opening < len(body) and body[opening] in " \t\n":
            opening += 1
        if opening < len(body) and body[opening] == "{" and find_closing_brace(body, opening) is None:
            line_end = body.find("\n", opening)
            line_end = len(body) if line_end < 0 else line_end
            title = body[opening + 1:line_end]
            warnings.append(f"{name}: \\{match.group(1)}{{{title.strip()[:60]}: braces never close; "
                            "the rest of the line read as the title")
            headings.append(_Heading(match.group(1), title, match.start(), line_end))
            continue
        unreadable += 1
        following = collapse_whitespace(body[match.end():match.end() + 20])
        warnings.append(f"{name}: \\{match.group(1)} without a title, followed by \"{following}\"; skipped")
    return headings, unreadable


def _balance_environments(latex: str, where: str, warnings: list[str]) -> str:
    """``latex`` with each ``\\begin{x}`` that has no ``\\end{x}`` in it (and each stray ``\\end``) removed,
    so an unclosed environment does not swallow the text after it."""
    open_stack: list[re.Match[str]] = []
    unmatched: list[re.Match[str]] = []
    for match in _ENVIRONMENT.finditer(latex):
        if match.group(1) == "begin":
            open_stack.append(match)
        elif open_stack and open_stack[-1].group(2) == match.group(2):
            open_stack.pop()
        elif any(m.group(2) == match.group(2) for m in open_stack):
            while open_stack[-1].group(2) != match.group(2):
                unmatched.append(open_stack.pop())
            open_stack.pop()
        else:
            unmatched.append(match)
    unmatched.extend(open_stack)
    if not unmatched:
        return latex
    for match in unmatched:
        warnings.append(f"{where}: unmatched \\{match.group(1)}{{{match.group(2)}}} dropped")
    drop = sorted((m.start(), m.end()) for m in unmatched)
    pieces, at = [], 0
    for start, end in drop:
        pieces.append(latex[at:start])
        at = end
    pieces.append(latex[at:])
    return "".join(pieces)


def _title_text(latex: str, macros: Mapping[str, str], warnings: list[str], where: str) -> str:
    return latex_to_text(latex.replace("\\\\", " "), macros=macros, warnings=warnings, where=where)


def _build_tree(body: str, headings: list[_Heading], macros: Mapping[str, str], name: str,
                warnings: list[str]) -> list[LatexNode]:
    """Nodes (with own content and keys) nested by the nearest shallower earlier heading."""
    titled: list[tuple[_Heading, str, list[str]]] = []
    for number, heading in enumerate(headings):
        title_keys, title_latex = extract_citations(heading.title_latex)
        title = _title_text(title_latex, macros, warnings, f"{name}: heading {number + 1}")
        if title:  # an empty heading is no node: its text stays with the node before it
            titled.append((heading, title, title_keys))
    top: list[LatexNode] = []
    stack: list[tuple[int, LatexNode]] = []
    for number, (heading, title, title_keys) in enumerate(titled):
        stop = titled[number + 1][0].start if number + 1 < len(titled) else len(body)
        where = f"{name}: section {title[:60]!r}"
        keys, prose = extract_citations(body[heading.end:stop])
        prose = _balance_environments(_HEADING.sub(" ", prose), where, warnings)  # unreadable headings
        rank = LEVELS.index(heading.level)
        while stack and stack[-1][0] >= rank:
            stack.pop()
        node = LatexNode(title=title, level=heading.level, depth=len(stack) + 1,
                         content=latex_to_text(prose, macros=macros, warnings=warnings, where=where),
                         cite_keys=list(dict.fromkeys([*title_keys, *keys])))
        (stack[-1][1].children if stack else top).append(node)
        stack.append((rank, node))
    return top


# ---------------------------------------------------------------------------------------------------------
# The e-print
# ---------------------------------------------------------------------------------------------------------

_BEGIN_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
_TITLE = re.compile(r"\\title(?![A-Za-z@])\*?")
_ABSTRACT_ENV = re.compile(r"\\begin\s*\{abstract\}(.*?)\\end\s*\{abstract\}", re.DOTALL)
_ABSTRACT_COMMAND = re.compile(r"\\abstract(?![A-Za-z@])")
_DROP_IN_TITLE = re.compile(r"\\(?:thanks|footnote|footnotemark)(?![A-Za-z@])")


def _without_commands(latex: str, pattern: re.Pattern[str]) -> str:
    """``latex`` without the commands ``pattern`` finds and their ``{..}`` argument."""
    pieces, at = [], 0
    for match in pattern.finditer(latex):
        if match.start() < at:
            continue
        group = read_group_argument(latex, match.end())
        pieces.append(latex[at:match.start()])
        at = group[1] if group else match.end()
    pieces.append(latex[at:])
    return "".join(pieces)


def _document_title(document: str, macros: Mapping[str, str], warnings: list[str], name: str) -> str | None:
    for match in _TITLE.finditer(document):
        at = match.end()
        short = read_bracket_argument(document, at)
        group = read_group_argument(document, short[1] if short else at)
        if group is not None:
            text = _title_text(_without_commands(group[0], _DROP_IN_TITLE), macros, warnings, f"{name}: title")
            if text:
                return text
    return None


def _abstract(document: str, macros: Mapping[str, str], warnings: list[str], name: str) -> str | None:
    environment = _ABSTRACT_ENV.search(document)
    latex = environment.group(1) if environment else None
    if latex is None:
        command = _ABSTRACT_COMMAND.search(document)
        group = read_group_argument(document, command.end()) if command else None
        latex = group[0] if group else None
    if latex is None:
        return None
    text = latex_to_text(extract_citations(latex)[1], macros=macros, warnings=warnings, where=f"{name}: abstract")
    return text or None


def read_eprint(data: bytes, *, name: str = "<e-print>") -> LatexSource:
    """The survey in an arXiv e-print by the rules of the module docstring.

    Raises :class:`SourceError` (``malformed_archive``, ``no_tex``, ``broken_latex``, ``no_sections``,
    ``no_bibliography``) naming ``name``; problems it recovers from are ``LatexSource.warnings``.
    """
    files, warnings = unpack_eprint(data, name=name)
    return read_latex_files(files, name=name, warnings=warnings)


def read_latex_files(files: Mapping[str, bytes], *, name: str = "<LaTeX source>",
                     warnings: list[str] | None = None, require_bibliography: bool = True) -> LatexSource:
    """The survey in a LaTeX source given as its files (path -> bytes), by the rules of the module docstring.

    What :func:`read_eprint` reads once the archive is unpacked; ``surge import --format latex`` gives it the
    files of a folder. Raises the same :class:`SourceError` codes; ``warnings`` collects what it recovers from.
    ``require_bibliography=False``: a source without a bibliography is read with an empty one (kind ``bib``, 0
    entries) instead of raising ``no_bibliography`` (an importer still keeps its sections and text).
    """
    warnings = [] if warnings is None else warnings
    texts = {path: strip_comments(decode_text(blob)) for path, blob in files.items()
             if path.lower().endswith(TEX_EXTENSIONS)}
    if not texts:
        raise SourceError(NO_TEX, name, f"no .tex file among {len(files)} files")
    main_file = choose_main_file(files, texts, name, warnings)
    # a .bib is no LaTeX: "%" there is BibTeX's business (bibtex.py), a URL's "%2F" no comment
    support = {path: decode_text(blob) if path.lower().endswith(".bib") else strip_comments(decode_text(blob))
               for path, blob in files.items() if path.lower().endswith((".bbl", ".bib")) and path not in texts}
    all_texts = {**support, **texts}
    document = expand_inputs(all_texts, main_file, name=name, warnings=warnings)
    body, has_begin, has_end = document_body(document)
    if not has_begin:
        warnings.append(f"{name}: {main_file} has no \\begin{{document}}; the whole file read")
    elif not has_end:
        warnings.append(f"{name}: {main_file} has no \\end{{document}}; read to the end of the file")
    begin = _BEGIN_DOCUMENT.search(document)
    macros = document_macros(document[:begin.start()] if begin else "")
    stop = _BODY_END.search(body)
    main_body = body[:stop.start()] if stop else body

    headings, unreadable = _headings(main_body, name, warnings)
    if not headings:
        if unreadable:
            raise SourceError(BROKEN_LATEX, name, f"{unreadable} section commands and none can be read")
        raise SourceError(NO_SECTIONS, name, f"no \\section or lower heading in {main_file}")
    nodes = _build_tree(main_body, headings, macros, name, warnings)
    if not nodes:
        raise SourceError(NO_SECTIONS, name, f"every heading of {main_file} has an empty title")

    bibliography = find_bibliography(all_texts, document, main_file)
    if bibliography is None:
        if require_bibliography:
            raise SourceError(NO_BIBLIOGRAPHY, name, "no entry in a .bbl, a .bib or a thebibliography list")
        bibliography = ParsedBibliography(BIB)
    for key, text in bibliography.note_titles.items():
        warnings.append(f"{name}: {bibliography.file}: entry {key!r}: {text[:80]!r} reads like a note, a venue or a "
                        "field name, not a title; not used as its title")
    return LatexSource(
        title=_document_title(document, macros, warnings, name),
        abstract=_abstract(body if has_begin else document, macros, warnings, name),
        nodes=nodes,
        bibliography=bibliography.titles,
        bibliography_kind=bibliography.kind,
        bibliography_entries=bibliography.entries,
        main_file=main_file,
        warnings=warnings,
        bibliography_file=bibliography.file,
        bibliography_ids=bibliography.ids,
        bibliography_id_sources=bibliography.id_sources,
        bibliography_dois=bibliography.dois,
        bibliography_note_titles=bibliography.note_titles,
    )


# ---------------------------------------------------------------------------------------------------------
# structure
# ---------------------------------------------------------------------------------------------------------


def structure_nodes(source: LatexSource, cite_ids: Mapping[str, str | None]) -> list[dict[str, Any]]:
    """The survey's official ``structure`` list (protocol.md §1): flat, document order, string ids from "0".

    The root is ``{"id": "0", "parent_id": ROOT_PARENT_ID, "title": "root", "content": ""}``; each heading
    adds ``level``, ``cites`` (the arXiv ids ``cite_ids`` resolves its own keys to, key order, each once;
    unresolved and unknown keys left out), ``origin_cites_number`` (its own keys) and ``cite_extract_rate``
    (resolved keys / own keys, ``None`` when it cites nothing).
    """
    structure: list[dict[str, Any]] = [{"id": "0", "parent_id": ROOT_PARENT_ID, "title": "root", "content": ""}]

    def add(node: LatexNode, parent_id: str) -> None:
        node_id = str(len(structure))
        resolved = [cite_ids.get(key) for key in node.cite_keys]
        found = [arxiv_id for arxiv_id in resolved if arxiv_id]
        origin = len(node.cite_keys)
        structure.append({
            "id": node_id,
            "parent_id": parent_id,
            "title": node.title,
            "content": node.content,
            "level": node.level,
            "cites": list(dict.fromkeys(found)),
            "origin_cites_number": origin,
            "cite_extract_rate": len(found) / origin if origin else None,
        })
        for child in node.children:
            add(child, node_id)

    for top in source.nodes:
        add(top, "0")
    return structure
