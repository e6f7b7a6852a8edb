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
#: The word a citation command becomes while the text reader runs: ``SURGECITEMARK<i>Q``, longer (``...MARKX<i>Q``)
#: when a source holds it, so that no text of the source is taken for a mark.
_MARK_WORD = "SURGECITEMARK"
_ESCAPE_RE = re.compile(r"([\\\[\]$`])")


def _source_files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.suffix.lower() in LATEX_SUFFIXES
            and not any(part.startswith(".") for part in p.relative_to(folder).parts)}


class _Marks:
    """The citation commands of a source (their keys, in order) and the mark word its text does not hold."""

    def __init__(self, texts: list[str]) -> None:
        self.cites: list[tuple[str, ...]] = []
        self.word = _MARK_WORD
        while any(self.word in text for text in texts):
            self.word += "X"
        self.pattern = re.compile(rf"\s*{self.word}(\d+)Q")

    def mark(self, i: int) -> str:
        return f"{self.word}{i}Q"


def _marked(files: dict[str, bytes]) -> tuple[dict[str, bytes], _Marks]:
    """The files with each citation command of each ``.tex`` (comments removed first) replaced by a mark the
    text reader keeps, and the marks (the keys of each)."""
    texts = {path: strip_comments(decode_text(blob)) for path, blob in files.items() if path.lower().endswith(".tex")}
    marks = _Marks(list(texts.values()))
    cites = marks.cites
    marked: dict[str, bytes] = {}
    for path, blob in files.items():
        if path not in texts:
            marked[path] = blob
            continue
        text = texts[path]
        pieces, at = [], 0
        for cite in iter_citations(text):
            if cite.command == "nocite" or not cite.keys:
                continue
            pieces += [text[at:cite.start], " " + marks.mark(len(cites)) + " "]
            cites.append(cite.keys)
            at = cite.end
        pieces.append(text[at:])
        marked[path] = "".join(pieces).encode("utf-8")
    return marked, marks


def _markdown(text: str, marks: _Marks, used: set[int]) -> str:
    """Reader text -> Markdown: its own brackets, ``$`` and backticks escaped, each mark a key citation."""

    def mark(match: re.Match[str]) -> str:
        used.add(int(match.group(1)))
        return " [" + "; ".join("@" + key for key in marks.cites[int(match.group(1))]) + "]"

    return marks.pattern.sub(mark, _ESCAPE_RE.sub(r"\\\1", text)).strip()


def _section(node: LatexNode, marks: _Marks, used: set[int]) -> str:
    title_marks = [int(m) for m in marks.pattern.findall(node.title)]
    title = " ".join(marks.pattern.sub(" ", node.title).split())
    content = _markdown(node.content, marks, used)
    moved = _markdown(" ".join(marks.mark(m) for m in title_marks), marks, used) if title_marks else ""
    heading = "#" * min(node.depth, 6) + " " + _ESCAPE_RE.sub(r"\\\1", title)
    text = " ".join(part for part in (moved, content) if part)
    return heading + "\n\n" + text if text else heading


def _read(folder: Path, files: dict[str, bytes], key: str, source: str) -> PeerDocument | tuple[str, str]:
    marked, marks = _marked(files)
    warnings: list[str] = []
    try:
        latex = read_latex_files(marked, name=source, warnings=warnings, require_bibliography=False)
    except SourceError as exc:
        return source, f"{exc} (read by the fresh split's LaTeX reader)"
    used: set[int] = set()
    parts = [_markdown(latex.abstract, marks, used)] if latex.abstract else []
    parts += [_section(node, marks, used) for node in latex.all_nodes()]
    doc = PeerDocument(key, source, latex.title, "\n\n".join(parts) + "\n", reference_list=latex.bibliography_entries > 0)
    where = latex.bibliography_file or ""
    doc.bibliography = {k: RefEntry(title, f"{k} ({where})") for k, title in latex.bibliography.items()}
    doc.bibliography_files = [str(folder / name) for name in where.split(",") if name]
    doc.notes += [f"main file {latex.main_file}", *warnings[:20]]
    unread = len(marks.cites) - len(used)
    if unread:
        doc.lost.append(f"{unread} of {len(marks.cites)} citation command(s) are not in the text as read (an appendix, "
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
