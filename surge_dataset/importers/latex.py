"""``--format latex``: LaTeX surveys, read by the fresh split's LaTeX reader.

SOURCE is one ``.tex`` file (its folder's files are the source: ``\\input`` files, ``.bib``, ``.bbl``; the
file named is the main file), a folder holding one LaTeX source (named by the folder), or a folder of such
folders (each named by its folder). Each source goes to
:func:`surge_dataset.fresh.latex.read_latex_files`, so the rules are the fresh split's: main file, ``\\input``
expansion, sections (``\\section`` .. ``\\subparagraph``, depths normalised; the body ends at the appendix
or the bibliography), plain text, and the bibliography (inline ``thebibliography``, then the ``.bbl``, then the
``.bib`` files).

What is written: the abstract as the text before the first heading, each section as a heading of its depth
(``#`` for the top level) with its text, and each citation command where it stood, as ``[@key; @key]`` that
:mod:`.convert` numbers by first use. A citation in a heading is put at the start of its section's text
(headings carry no citations in the evaluator's layout). Citations that are not in the text as read
(in an appendix, a figure, a table, a caption, a footnote) are counted as lost. The text's own brackets,
``$`` and backticks are escaped, so that no interval or leftover markup reads as a citation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from surge_dataset.fresh.eprint_files import decode_text
from surge_dataset.fresh.latex import LatexNode, SourceError, iter_citations, read_latex_files
from surge_dataset.fresh.latex_text import strip_comments
from surge_dataset.importers.records import PeerDocument, RefEntry, SourceNotFoundError

__all__ = ["LATEX_SUFFIXES", "read_latex_documents"]

#: The files of a LaTeX source that are read.
LATEX_SUFFIXES = (".tex", ".bib", ".bbl")
_MARK = "SURGECITEMARK{}Q"
_MARK_RE = re.compile(r"\s*SURGECITEMARK(\d+)Q")
_ESCAPE_RE = re.compile(r"([\\\[\]$`])")


def _source_files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.suffix.lower() in LATEX_SUFFIXES
            and not any(part.startswith(".") for part in p.relative_to(folder).parts)}


def _marked(files: dict[str, bytes]) -> tuple[dict[str, bytes], list[tuple[str, ...]]]:
    """The files with each citation command of each ``.tex`` (comments removed first) replaced by a mark the
    text reader keeps, and the keys of each mark."""
    cites: list[tuple[str, ...]] = []
    marked: dict[str, bytes] = {}
    for path, blob in files.items():
        if not path.lower().endswith(".tex"):
            marked[path] = blob
            continue
        text = strip_comments(decode_text(blob))
        pieces, at = [], 0
        for cite in iter_citations(text):
            if cite.command == "nocite" or not cite.keys:
                continue
            pieces += [text[at:cite.start], " " + _MARK.format(len(cites)) + " "]
            cites.append(cite.keys)
            at = cite.end
        pieces.append(text[at:])
        marked[path] = "".join(pieces).encode("utf-8")
    return marked, cites


def _markdown(text: str, cites: list[tuple[str, ...]], used: set[int]) -> str:
    """Reader text -> Markdown: its own brackets, ``$`` and backticks escaped, each mark a key citation."""

    def mark(match: re.Match[str]) -> str:
        used.add(int(match.group(1)))
        return " [" + "; ".join("@" + key for key in cites[int(match.group(1))]) + "]"

    return _MARK_RE.sub(mark, _ESCAPE_RE.sub(r"\\\1", text)).strip()


def _section(node: LatexNode, cites: list[tuple[str, ...]], used: set[int]) -> str:
    title_marks = [int(m) for m in _MARK_RE.findall(node.title)]
    title = " ".join(_MARK_RE.sub(" ", node.title).split())
    content = _markdown(node.content, cites, used)
    moved = _markdown(" ".join(_MARK.format(m) for m in title_marks), cites, used) if title_marks else ""
    heading = "#" * min(node.depth, 6) + " " + _ESCAPE_RE.sub(r"\\\1", title)
    text = " ".join(part for part in (moved, content) if part)
    return heading + "\n\n" + text if text else heading


def _read(folder: Path, files: dict[str, bytes], key: str, source: str) -> PeerDocument | tuple[str, str]:
    marked, cites = _marked(files)
    warnings: list[str] = []
    try:
        latex = read_latex_files(marked, name=source, warnings=warnings, require_bibliography=False)
    except SourceError as exc:
        return source, f"{exc} (read by the fresh split's LaTeX reader)"
    used: set[int] = set()
    parts = [_markdown(latex.abstract, cites, used)] if latex.abstract else []
    parts += [_section(node, cites, used) for node in latex.all_nodes()]
    doc = PeerDocument(key, source, latex.title, "\n\n".join(parts) + "\n", reference_list=latex.bibliography_entries > 0)
    where = latex.bibliography_file or ""
    doc.bibliography = {k: RefEntry(title, f"{k} ({where})") for k, title in latex.bibliography.items()}
    doc.bibliography_files = [str(folder / name) for name in where.split(",") if name]
    doc.notes += [f"main file {latex.main_file}", *warnings[:20]]
    unread = len(cites) - len(used)
    if unread:
        doc.lost.append(f"{unread} of {len(cites)} citation command(s) are not in the text as read (an appendix, "
                        "a figure, a table, a caption, a footnote, or a .tex file that is not \\input)")
    return doc


def read_latex_documents(root: Path) -> Iterator[PeerDocument | tuple[str, str]]:
    """Every LaTeX survey under ``root`` (see the module docstring)."""
    if root.is_file():
        if root.suffix.lower() != ".tex":
            raise SourceNotFoundError(f"{root}: --format latex reads a .tex file or a folder of LaTeX sources")
        files = _source_files(root.parent)
        files["00README.json"] = json.dumps({"sources": [{"filename": root.name, "usage": "toplevel"}]}).encode()
        item = _read(root.parent, files, root.stem, str(root))
        if isinstance(item, PeerDocument):
            item.aliases.append(root.resolve().parent.name)
        yield item
        return
    if any(p.is_file() and p.suffix.lower() == ".tex" for p in root.iterdir()):
        yield _read(root, _source_files(root), root.resolve().name, str(root))
        return
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        files = _source_files(folder)
        if not any(name.lower().endswith(".tex") for name in files):
            yield str(folder), "no .tex file in it"
            continue
        yield _read(folder, files, folder.name, str(folder))
