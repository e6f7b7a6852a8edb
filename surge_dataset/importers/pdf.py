"""``surge import --format pdf``: a survey saved as PDF, read with pypdf (the optional extra ``pdf``).

The text of each page in order (pypdf's ``extract_text``), then Markdown headings: from the PDF's outline (its
bookmarks) when it has one, each bookmark's title made a heading of its depth at the line of its page that says it
(else at the top of that page); without an outline, from lines that look like numbered section headings (``2``
``Methods``, ``3.1 Message passing``: a number, a capitalised title, no end punctuation, short) and a bare
``References`` / ``Bibliography`` line. The result is read as Markdown (:func:`read_markdown`): the numbered
reference list split per entry (each ``[n]`` / ``n.`` starts one, the lines a page wraps continue it; a word the
line end hyphenated is joined).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from surge_dataset.importers.markdown import read_markdown
from surge_dataset.importers.records import PeerDocument
from surge_dataset.survey.headings import is_references_title

__all__ = ["pdf_markdown", "read_pdf_documents"]

#: ``3 Methods``, ``3.1. Message passing``: a numbered section heading as a PDF's text has it (2-4 levels).
_NUMBERED_HEADING_RE = re.compile(r"^((?:\d{1,2})(?:\.\d{1,2}){0,3})\.?\s+([A-Z][^\n]{1,90})$")
_HYPHEN_RE = re.compile(r"(?<=[a-z])-\n(?=[a-z])")


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


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _numbered_heading(line: str) -> str | None:
    match = _NUMBERED_HEADING_RE.match(line.strip())
    if match is None or match.group(2).rstrip().endswith((".", ",", ";", ":")) or len(match.group(2).split()) > 12:
        return None
    if re.search(r"\d{3,}|\bet al\b", match.group(2)):
        return None
    return "#" * (match.group(1).count(".") + 1) + f" {match.group(1)} {match.group(2).strip()}"


def pdf_markdown(pages: list[str], outline: list[tuple[str, int, int]]) -> str:
    """The Markdown of a PDF's page texts: headings from ``outline`` (title, depth, page) when given, else from
    numbered heading lines; a bare References line becomes ``# References``."""
    lines_per_page = [_HYPHEN_RE.sub("", text).split("\n") for text in pages]
    if outline:
        for title, depth, page in reversed(outline):
            if page >= len(lines_per_page):
                continue
            lines = lines_per_page[page]
            at = next((i for i, line in enumerate(lines) if _words(line) == _words(title)), None)
            heading = "#" * min(depth, 6) + " " + title
            if at is None:
                lines.insert(0, heading)
            else:
                lines[at] = heading
    out: list[str] = []
    for lines in lines_per_page:
        for line in lines:
            stripped = line.strip()
            if not outline and (heading := _numbered_heading(stripped)) is not None:
                out += ["", heading, ""]
            elif not stripped.startswith("#") and is_references_title(stripped) and len(stripped) < 40:
                out += ["", "# References", ""]
            elif stripped.startswith("#") and outline:
                out += ["", stripped, ""]
            else:
                out.append(line.rstrip())
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
