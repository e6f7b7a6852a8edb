"""Reading a Markdown survey: its title, its body, and its reference list (a References / Bibliography
section, else the trailing block of ``[n]`` lines), numbered or author-year."""

from __future__ import annotations

import re

from surge_dataset.core.normalise import normalise_title
from surge_dataset.importers.records import PeerDocument, RefEntry
from surge_dataset.importers.titles import entry_titles
from surge_dataset.survey.headings import ATX_HEADING_RE, is_references_label, is_references_title
from surge_dataset.survey.tree import FENCE_RE

# ------------------------------------------------------------------------------------------ Markdown


_SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_BRACKET_ENTRY_RE = re.compile(r"^\s*(?:[-*+\u2022]\s+)?\[\^?\d{1,6}\]\s*:?\s*\S")
_NUMBERED_ENTRY_RE = re.compile(r"^\s*(?:[-*+\u2022]\s+)?(?:\[\^?(\d{1,6})\]|(\d{1,6})[.)])\s*:?\s*(.*\S)?\s*$")
_MARKER_RE = re.compile(r"^\s*(?:[-*+\u2022]\s+|\[\^?\d{1,6}\]|\d{1,6}[.)]\s)")
_BULLET_RE = re.compile(r"^\s*[-*+\u2022]\s+")


def _clean_heading(title: str) -> str:
    return title.strip().strip("*_").strip().rstrip(":").strip()


def _atx(text: str) -> str:
    """Setext headings (a short line over ``===``/``---``) rewritten as ``#``/``##``: the evaluator reads
    ATX headings only. A long line or one ending like a sentence over ``---`` is a paragraph followed by a
    rule (what generated Markdown usually means), and stays as it is."""
    out: list[str] = []
    for line in text.split("\n"):
        underline = _SETEXT_RE.match(line)
        previous = out[-1].strip() if out else ""
        if (underline and re.search(r"[^\W\d_]", previous) and len(previous) <= 120
                and not previous.endswith((".", ",", ";", ":"))
                and not ATX_HEADING_RE.match(out[-1]) and not _MARKER_RE.match(out[-1])):
            out[-1] = ("# " if underline.group(1).startswith("=") else "## ") + previous
            continue
        out.append(line)
    return "\n".join(out)


#: Reference-list titles the evaluator's rule does not know, read by the importer only (the written survey says
#: ``# References``): DeepResearch Bench's Chinese reports close with ``## 参考文献`` or a bare ``参考文献：``.
def _label_opens_list(lines: list[str], at: int) -> bool:
    """Whether the bare label at ``at`` opens the reference list: only in the document's final block (something
    after it, no heading). A STORM lead section says ``References:`` in its prose, and sections follow it."""
    rest = [line for line in lines[at + 1:] if line.strip()]
    return bool(rest) and not any(ATX_HEADING_RE.match(line) for line in rest)


def _reference_regions(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) line ranges of reference sections: a References heading to the next heading of its
    level or higher, or a bare ``References:`` line opening the document's final block of entries. Without one:
    the trailing block of ``[n]`` lines (a trailing ``1.`` list is more likely prose than a bibliography)."""
    regions: list[tuple[int, int]] = []
    in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if FENCE_RE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else ATX_HEADING_RE.match(line)
        opens = not in_fence and (
            bool(heading and is_references_title(heading.group(2)))
            or (heading is None and is_references_label(line) and _label_opens_list(lines, i))
        )
        if opens:
            level = len(heading.group(1)) if heading else 7
            end = i + 1
            while end < len(lines):
                other = ATX_HEADING_RE.match(lines[end])
                if other and len(other.group(1)) <= level:
                    break
                end += 1
            regions.append((i, end))
            i = end
            continue
        i += 1
    if regions or in_fence:  # lines after a fence left open are code (as the evaluator reads them), never entries
        return regions
    start = len(lines)
    for j in range(len(lines) - 1, -1, -1):
        if not lines[j].strip():
            continue
        if _BRACKET_ENTRY_RE.match(lines[j]):
            start = j
            continue
        break
    return [(start, len(lines))] if start < len(lines) else []


YEAR_RE = re.compile(r"\b((?:19|20)\d{2})([a-z])?\b")
#: An author list opening a line: a capitalised name, no digit, then a comma / et al / & / and, then a year.
_AUTHORS_START_RE = re.compile(
    r"^(?!In\b|Proc)[A-Z][^\d,\n]{0,40}(?:,|\bet al\b|&|\band\b)[^\n]{0,200}?\b(?:19|20)\d{2}"
)


def _starts_author_year_entry(line: str, previous: str) -> bool:
    """An unmarked line that begins a new author-year entry (``Lee, K. (2019). ...``) rather than wrapping
    the previous one: it names authors before a year, and the previous entry already has its year."""
    return bool(_AUTHORS_START_RE.match(line.strip())) and bool(YEAR_RE.search(previous))


#: A ``[n]`` inside a line of a numbered list (a PDF rendering puts several entries on one line).
_INNER_ENTRY_RE = re.compile(r"(?<=\S)(?=\s*\[\^?\d{1,6}\]\s*:?\s+\S)")
_ENTRY_NUMBER_RE = re.compile(r"^\s*(?:[-*+\u2022]\s+)?\[\^?(\d{1,6})\]")


def _split_inner(line: str, last: int) -> tuple[list[str], int]:
    """(the line cut before each inner ``[m]`` that numbers a later entry, the last entry number seen): ``[5] A.
    [6] B.`` is two entries (``[16] P. [18] Q.`` too: a list may skip a number), ``[6] Why [1] Is Not a Citation?``
    one (a title may hold a bracketed number)."""
    parts = _INNER_ENTRY_RE.split(line)
    opening = _ENTRY_NUMBER_RE.match(parts[0])
    last = int(opening.group(1)) if opening else last
    kept = [parts[0]]
    for part in parts[1:]:
        number = int(_ENTRY_NUMBER_RE.match(part).group(1))  # type: ignore[union-attr]  # the split's lookahead
        if number > last:
            kept.append(part)
            last = number
        else:
            kept[-1] += part
    return kept, last


def _entries(lines: list[str]) -> list[str]:
    """Reference entries of a region: each marked line starts one (in a numbered list, each ``[n]`` numbering a
    later entry, wherever it stands in its line); an unmarked line continues the entry above it unless a blank line
    separates them or it starts a new author-year entry."""
    entries: list[str] = []
    blank = True
    numbered = any(_BRACKET_ENTRY_RE.match(line) for line in lines)
    last = 0
    for line in lines:
        if not line.strip():
            blank = True
            continue
        if ATX_HEADING_RE.match(line):
            blank = True
            continue
        if numbered:
            (first, *others), last = _split_inner(line, last)
        else:
            first, others = line, []
        if entries and not blank and not _MARKER_RE.match(first) and not _starts_author_year_entry(first, entries[-1]):
            entries[-1] += " " + first.strip()
        elif first.strip():
            entries.append(first.strip())
        entries.extend(other.strip() for other in others)
        blank = False
    return entries


#: A line that stands in for references rather than being one: ``[Placeholder for references]``, ``(to be
#: added)``, ``Insert citations here``. Wholly bracketed text without a year, or text opening with
#: ``placeholder`` or an instruction and speaking of references.
_BRACKETED_RE = re.compile(r"^\W*(?:\[[^\[\]]*\]|\([^()]*\)|<[^<>]*>)\W*$")
_INSTRUCTION_RE = re.compile(
    r"^\W*(?:place-?\s?holder|insert|add|include|list|provide|populate|todo|tbd|to be (?:added|completed|filled))\b"
    r".*\b(?:references?|citations?|sources?|bibliograph\w*|place-?\s?holder)\b", re.I)


def _is_placeholder(entry: str) -> bool:
    """Whether a reference-list entry is a placeholder or an instruction, by :data:`_INSTRUCTION_RE`'s rule."""
    text = _BULLET_RE.sub("", entry).replace("*", "").strip()
    if _BRACKET_ENTRY_RE.match(text):
        return False
    return bool(_BRACKETED_RE.match(text) and not YEAR_RE.search(text)) or bool(_INSTRUCTION_RE.match(text))


_INITIAL_RE = re.compile(r"^(?:[A-Z]\.?){1,3}$|^[A-Z]\.(?:-?[A-Z]\.)*$")


def first_surname(authors: str) -> str:
    """Letters of the first author's surname: the first chunk (before a comma, ``and`` or ``&``), its
    initials dropped, its last remaining word (``Smith, J.`` / ``J. Smith`` / ``Smith J`` -> smith)."""
    text = re.sub(r"\bet\s+al\.?", "", authors)
    text = re.sub(r"^\W*(?:e\.g\.|i\.e\.|see(?:\s+also)?|cf\.?|also)\W*", "", text, flags=re.I)
    chunk = re.split(r",|;|\band\b|&", text, maxsplit=1)[0]
    words = [w for w in re.findall(r"[^\W\d_][\w'\u2019.-]*", chunk) if not _INITIAL_RE.match(w.rstrip(","))]
    return normalise_title(words[-1]) if words else ""


def _author_year_entry(entry: str, title: str) -> RefEntry:
    entry = _BULLET_RE.sub("", entry)
    year = YEAR_RE.search(entry)
    authors = entry[: year.start()] if year else entry.split(".", 1)[0]
    return RefEntry(title, entry, first_surname(authors), (year.group(1) + (year.group(2) or "")) if year else "")


def read_markdown(text: str, key: str, source: str, *, title_citations: bool = False,
                  find_references: bool = True) -> PeerDocument:
    """A Markdown survey -> body without its reference list, and its references (numbered or author-year).

    ``find_references=False``: the text has no reference list (STORM keeps its sources in a JSON file).
    """
    text = _atx(text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = text.split("\n")
    regions = _reference_regions(lines) if find_references else []
    drop = {i for start, end in regions for i in range(start, end)}
    region_lines = [lines[i] for start, end in regions for i in range(start + 1 if _is_marker_line(lines[start]) else start, end)]
    body = "\n".join(line for i, line in enumerate(lines) if i not in drop).rstrip() + "\n"
    doc = PeerDocument(key, source, _document_title(lines), body, title_citations=title_citations,
                       reference_list=bool(regions))
    entries = []
    for entry in _entries(region_lines):
        if _is_placeholder(entry):
            doc.lost.append(f"{entry[:80]!r} in the reference list is a placeholder or an instruction, not a reference")
        else:
            entries.append(entry)
    numbered = [(m, e) for e in entries if (m := _NUMBERED_ENTRY_RE.match(e)) and m.group(3)]
    titles = entry_titles([m.group(3) for m, _ in numbered] if numbered else entries)
    if numbered:
        for (match, entry), title in zip(numbered, titles, strict=True):
            number = str(int(match.group(1) or match.group(2)))
            if number in doc.references:
                doc.lost.append(f"reference [{number}] listed twice; the first is kept")
                continue
            doc.references[number] = RefEntry(title, entry)
        unnumbered = [e for e in entries if not ((m := _NUMBERED_ENTRY_RE.match(e)) and m.group(3))]
        if unnumbered:
            shown = "; ".join(repr(e[:60]) for e in unnumbered[:5]) + (" ..." if len(unnumbered) > 5 else "")
            doc.lost.append(f"{len(unnumbered)} unnumbered line(s) in a numbered reference list ignored "
                            f"(no [n] to cite them by): {shown}")
    else:
        doc.author_year = [_author_year_entry(e, t) for e, t in zip(entries, titles, strict=True)]
    return doc


#: LaTeX markup that tells a LaTeX source from Markdown.
_LATEX_RE = re.compile(r"\\documentclass\b|\\begin\{document\}|^\s*\\(?:sub)*section\*?\{", re.M)


def text_problem(doc: PeerDocument) -> str | None:
    """Why ``doc`` is no survey to import, or None: LaTeX read as Markdown, or no text under any heading (a
    failed generation: a title and an empty References heading)."""
    if _LATEX_RE.search(doc.body):
        return "a LaTeX source (\\section, \\begin{document}), not Markdown: import it with --format latex"
    lines = [line for line in doc.body.split("\n") if line.strip()]
    headings = [_clean_heading(m.group(2)) for line in lines if (m := ATX_HEADING_RE.match(line))]
    if len(headings) < len(lines):
        return None
    shown = ", ".join(repr(h[:60]) for h in headings[:3]) + (" ..." if len(headings) > 3 else "")
    what = f"only {len(headings)} heading(s) ({shown})" if headings else "no text"
    listed = len(doc.references) + len(doc.author_year)
    refs = f"{listed} reference(s)" if listed else ("an empty reference list" if doc.reference_list else "no reference list")
    return f"an empty survey: {what} and {refs}, no text under any heading (did the generation run fail?)"


def _is_marker_line(line: str) -> bool:
    """The References heading / label line that opens a region (not an entry)."""
    return bool(ATX_HEADING_RE.match(line)) or is_references_label(line)


def _document_title(lines: list[str]) -> str | None:
    """The first level-1 heading if it is the document's first heading (AutoSurvey writes ``# Title``)."""
    for line in lines:
        heading = ATX_HEADING_RE.match(line)
        if heading:
            return _clean_heading(heading.group(2)) if len(heading.group(1)) == 1 else None
    return None
