"""``surge import --format pdf``: a survey saved as PDF, read with pypdf (the optional extra ``pdf``).

The text of each page in order (pypdf's ``extract_text``, which follows a two-column layout's columns), cleaned of
what typesetting adds: ligature characters (``ﬁ``) spelled out, a word hyphenated at a line end joined, and the
running headers and footers dropped (a line, digits aside, at the top or bottom of most pages: page numbers, a
banner). Then Markdown headings: from the PDF's outline (its bookmarks) when it has one, each bookmark's title
made a heading of its depth at the line that says it (after its section number, maybe wrapped over two or three
lines; else at the place of the page the bookmark points to); without an outline, from lines that look like
numbered section headings (``2`` ``Methods``, ``3.1 Message passing``: a number, a capitalised title, no end
punctuation, short) and a bare ``References`` / ``Bibliography`` line. The reference list's wrapped lines are
joined into one line per entry (an entry starts at each ``[n]``, or at the next number's ``n.``: a wrapped line
that opens with ``2024.`` starts none), and the result is read as Markdown (:func:`read_markdown`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from surge_dataset.importers.markdown import read_markdown
from surge_dataset.importers.records import PeerDocument
from surge_dataset.survey.headings import is_references_title

__all__ = ["clean_pages", "pdf_markdown", "read_pdf_documents"]

#: ``3 Methods``, ``3.1. Message passing``: a numbered section heading as a PDF's text has it (2-4 levels).
_NUMBERED_HEADING_RE = re.compile(r"^((?:\d{1,2})(?:\.\d{1,2}){0,3})\.?\s+([A-Z][^\n]{1,90})$")
#: The section number before a heading's title on its line (``2``, ``3.1.``, an appendix's ``A.2``).
_SECTION_NUMBER_RE = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}|[A-Z](?:\.\d{1,2}){0,3})\.?\s+(?=\S)")
#: A word broken at a line end: ``rec-`` / ``ommendation`` is one word; after a capital or digit (``LLM-`` /
#: ``based``) the hyphen belongs to a compound and stays.
_HYPHEN_RE = re.compile(r"(?<=[a-z])-\n(?=[a-z])")
_COMPOUND_HYPHEN_RE = re.compile(r"(?<=[A-Z0-9])-\n(?=[a-z])")
#: Typographic ligatures a PDF's text layer keeps as one character (``ﬁ`` in ``ﬁne-tuning``).
_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                            "\ufb05": "st", "\ufb06": "st"})
#: How many lines at the top and at the bottom of a page may hold a running header or footer.
_EDGE_LINES = 3
_BRACKET_MARK_RE = re.compile(r"^\[(\d{1,4})\]")
_DOT_MARK_RE = re.compile(r"^(\d{1,4})[.)]\s")


def _outline(reader: Any) -> list[tuple[str, int, int]]:
    """(title, depth, page index) of every bookmark, depth-first; [] without an outline."""
    found: list[tuple[str, int, int]] = []

    def walk(items: list[Any], depth: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
            except Exception:  # noqa: BLE001 - a bookmark without a page (pypdf raises several kinds)
                continue
            if getattr(item, "title", None) and page is not None and page >= 0:
                found.append((str(item.title).strip(), depth, page))

    try:
        walk(list(reader.outline), 1)
    except Exception:  # noqa: BLE001 - a broken outline is no outline
        return []
    return found


def _shape(line: str) -> str:
    """A line with its numbers made ``#``: page 3's footer ``3`` and page 4's ``4`` have one shape."""
    return re.sub(r"\d+", "#", " ".join(line.split()))


def clean_pages(pages: list[str]) -> list[list[str]]:
    """Each page's lines: ligatures spelled out, line-end hyphens joined, running headers and footers dropped.

    A running line is one whose shape (:func:`_shape`) stands among the first or last few lines of at least
    three pages and half of them; a line with a bracket never is (a citation could stand there)."""
    texts = [_COMPOUND_HYPHEN_RE.sub("-", _HYPHEN_RE.sub("", text.translate(_LIGATURES))) for text in pages]
    lines_per_page = [text.split("\n") for text in texts]
    edges = Counter()
    for lines in lines_per_page:
        filled = [line for line in lines if line.strip()]
        edges.update({_shape(line) for line in filled[:_EDGE_LINES] + filled[-_EDGE_LINES:]})
    needed = max(3, (len(pages) + 1) // 2)
    running = {shape for shape, count in edges.items() if count >= needed and "[" not in shape}
    cleaned = []
    for lines in lines_per_page:
        filled = [i for i, line in enumerate(lines) if line.strip()]
        edge = set(filled[:_EDGE_LINES] + filled[-_EDGE_LINES:])
        cleaned.append([line for i, line in enumerate(lines) if i not in edge or _shape(line) not in running])
    return cleaned


def _squash(text: str) -> str:
    """Letters and digits only, lower-cased: a title as the text layer spells it (``F unctional``, a line break)
    compares equal to the bookmark's."""
    return re.sub(r"[\W_]+", "", text.lower())


def _title_lines(lines: list[str], start: int, title: str) -> tuple[int, int] | None:
    """(first, end) of the lines from ``start`` on that say ``title`` (after a section number, maybe wrapped
    over up to three lines); a line with a section number first, as a paper's title may repeat its first
    section's. None when no line does."""
    want = _squash(title)
    if not want:
        return None
    plain = None
    for i in range(start, len(lines)):
        first = lines[i].strip()
        unnumbered = _SECTION_NUMBER_RE.sub("", first, count=1)
        for numbered, head in ((unnumbered != first, unnumbered), (False, first)):
            said = ""
            for j in range(i, min(i + 3, len(lines))):
                said += _squash(head if j == i else lines[j])
                if said == want:
                    if numbered:
                        return i, j + 1
                    plain = plain or (i, j + 1)
                if not said or not want.startswith(said):
                    break
    return plain


def _place_outline(lines_per_page: list[list[str]], outline: list[tuple[str, int, int]]) -> None:
    """Each bookmark's title made a heading in place of the lines that say it, in outline order on each page."""
    found: dict[int, list[tuple[int, int, str]]] = {}
    after: dict[int, int] = {}
    for title, depth, page in outline:
        if page >= len(lines_per_page):
            continue
        heading = "#" * min(depth, 6) + " " + title
        at = _title_lines(lines_per_page[page], after.get(page, 0), title)
        if at is None:  # not said on its page: where the bookmark points, after the page's earlier headings
            at = (after.get(page, 0), after.get(page, 0))
        found.setdefault(page, []).append((at[0], at[1], heading))
        after[page] = at[1]
    for page, places in found.items():
        lines = lines_per_page[page]
        for first, end, heading in reversed(places):
            lines[first:end] = [heading]


def _numbered_heading(line: str) -> str | None:
    match = _NUMBERED_HEADING_RE.match(line.strip())
    if match is None or match.group(2).rstrip().endswith((".", ",", ";", ":")) or len(match.group(2).split()) > 12:
        return None
    if re.search(r"\d{3,}|\bet al\b", match.group(2)):
        return None
    return "#" * (match.group(1).count(".") + 1) + f" {match.group(1)} {match.group(2).strip()}"


def _join_entries(lines: list[str]) -> list[str]:
    """A reference list's lines joined into one line per entry. In a ``[n]`` list each ``[n]`` starts an entry;
    in an ``n.`` list the next number does (a wrapped line opening with ``2024.`` or ``10.`` continues). A list
    without either mark keeps its lines (an author-year list is split by its own rule)."""
    texts = [line.strip() for line in lines if line.strip()]
    bracketed = any(_BRACKET_MARK_RE.match(text) for text in texts)
    if not bracketed and not any((m := _DOT_MARK_RE.match(text)) and m.group(1) == "1" for text in texts):
        return lines
    entries: list[str] = []
    last = 0
    for text in texts:
        mark = (_BRACKET_MARK_RE if bracketed else _DOT_MARK_RE).match(text)
        if mark is not None and (bracketed or int(mark.group(1)) == last + 1):
            last = int(mark.group(1))
            entries.append(text)
        elif entries:
            entries[-1] += " " + text
        else:
            entries.append(text)
    return entries


def _line_heading(line: str, from_outline: bool, list_after: int | None) -> str | None:
    """The heading a stripped page line is, or None. ``list_after``: inside the reference list, the number of the
    last section above it; there a numbered line heads a section only when it numbers on past that section and
    is not marked like an entry (``2. Chen. Cluster sampling. In`` is entry 2)."""
    if from_outline:
        if line.startswith("#"):
            return line
    elif (numbered := _numbered_heading(line)) is not None:
        if list_after is None:
            return numbered
        entry_like = _DOT_MARK_RE.match(line) is not None
        return numbered if not entry_like and int(re.match(r"\d+", line).group(0)) > list_after else None
    if not line.startswith("#") and is_references_title(line) and len(line) < 40:
        return "# References"
    return None


def pdf_markdown(pages: list[str], outline: list[tuple[str, int, int]]) -> str:
    """The Markdown of a PDF's page texts: headings from ``outline`` (title, depth, page) when given, else from
    numbered heading lines; a bare References line becomes ``# References`` over one line per entry."""
    lines_per_page = clean_pages(pages)
    if outline:
        _place_outline(lines_per_page, outline)
    out: list[str] = []
    listed: list[str] | None = None  # the reference list's lines, from a References line to the next heading
    section = 0  # the top-level number of the last numbered heading
    for line in (line for lines in lines_per_page for line in lines):
        stripped = line.strip()
        heading = _line_heading(stripped, bool(outline), section if listed is not None else None)
        if heading is None:
            (out if listed is None else listed).append(line.rstrip())
            continue
        if listed is not None:
            out += _join_entries(listed)
            listed = None
        out += ["", heading, ""]
        if is_references_title(heading.lstrip("#").strip()):
            listed = []
        elif not outline:
            section = int(re.match(r"#+ (\d+)", heading).group(1))
    if listed is not None:
        out += _join_entries(listed)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def _read_pdf(path: Path) -> tuple[list[str], list[tuple[str, int, int]]]:
    try:
        from pypdf import PdfReader
    except ImportError as exc:  # pragma: no cover - the extra is not installed
        raise RuntimeError("--format pdf needs pypdf: pip install 'surge-bench[pdf]'") from exc
    reader = PdfReader(str(path))
    return [page.extract_text() or "" for page in reader.pages], _outline(reader)


def read_pdf_documents(root: Path) -> Iterator[PeerDocument | tuple[str, str]]:
    """Each PDF: ``root`` itself, or ``root/<name>.pdf`` and ``root/<name>/<one .pdf>``, named by that name."""
    if root.is_file():
        found = [(root.stem, root)]
    else:
        found = [(p.stem, p) for p in sorted(root.glob("*.pdf"))]
        for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
            pdfs = sorted(folder.glob("*.pdf"))
            if len(pdfs) == 1:
                found.append((folder.name, pdfs[0]))
            elif pdfs:
                yield str(folder), f"{len(pdfs)} PDF files: cannot tell which is the survey"
    for key, path in found:
        try:
            pages, outline = _read_pdf(path)
        except RuntimeError:
            raise
        except Exception as exc:  # noqa: BLE001 - pypdf's errors on a damaged file have many kinds
            yield str(path), f"not a readable PDF ({type(exc).__name__}: {exc})"
            continue
        if not "".join(pages).strip():
            yield str(path), "a PDF without a text layer (scanned pages?): nothing to import; run OCR first"
            continue
        doc = read_markdown(pdf_markdown(pages, outline), key, str(path))
        doc.notes.append(f"read from a PDF ({len(pages)} page(s)); headings from its "
                         + ("outline" if outline else "numbered heading lines (it has no outline)"))
        if root.is_file():
            doc.aliases.append(root.resolve().parent.name)
        yield doc
