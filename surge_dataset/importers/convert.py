"""Conversion to the evaluator's layout: citations (numeric, author-year, bracketed titles) renumbered by
first use, and the reference list written with every title resolved to the corpus where possible."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..normalise import normalise_title
from ..survey.official_parse import official_reference
from ..survey.paper_parse import expand_citation_range
from .markdown import _FENCE_RE, _HEADING_RE, _YEAR_RE, _first_surname
from .records import PeerDocument, RefEntry
from .resolution import TitleMatcher

# ------------------------------------------------------------------------------------------ citations

_NUMERIC_RE = re.compile(
    r"\[\^?\s*(\d{1,6}(?:\s*[-\u2013\u2014]\s*\d{1,6})?(?:\s*[,;]\s*\d{1,6}(?:\s*[-\u2013\u2014]\s*\d{1,6})?)*)\s*\](?!\()"
)
_ITEM_RE = re.compile(r"(\d+)(?:\s*[-\u2013\u2014]\s*(\d+))?")
_NAME = r"[A-Z][\w'\u2019-]+"
_NARRATIVE_RE = re.compile(
    rf"\b({_NAME}(?:\s+(?:et\s+al\.?|(?:and|&)\s+{_NAME}))?)\s+\(((?:19|20)\d{{2}}[a-z]?)\)"
)
#: ``[Smith et al.]``, ``[Smith and Lee, 2020]``: author citations in brackets (some LLM outputs).
_BRACKET_AUTHOR_RE = re.compile(
    rf"\[({_NAME}(?:\s+et\s+al\.?|\s+(?:and|&)\s+{_NAME})?)(?:,?\s+((?:19|20)\d{{2}}[a-z]?))?\](?!\()"
)
_PAREN_RE = re.compile(r"\(([^()]*?\b(?:19|20)\d{2}[a-z]?\b[^()]*)\)")
_PLACEHOLDER_RE = re.compile("\x00(\\d+)\x01")
_TITLE_CITE_RE = re.compile(r"\[([^\[\]\n]{12,400})\](?!\()")


def _expand(group: str) -> list[str]:
    numbers: list[str] = []
    for item in _ITEM_RE.finditer(group):
        low = int(item.group(1))
        high = int(item.group(2)) if item.group(2) else low
        span = expand_citation_range(low, high)
        numbers.extend(str(n) for n in span)
    return list(dict.fromkeys(numbers))


class _Numbering:
    """New citation numbers by first use; keys without a reference entry get a number but no entry."""

    def __init__(self) -> None:
        self.number: dict[str, int] = {}

    def __call__(self, key: str) -> int:
        return self.number.setdefault(key, len(self.number) + 1)

    def marks(self, keys: Sequence[str]) -> str:
        """Placeholders, turned into ``[n]`` once a line is done, so no later pass re-reads them."""
        return "".join(f"\x00{self(k)}\x01" for k in keys)


def _author_year_keys(doc: PeerDocument) -> dict[tuple[str, str], list[int]]:
    index: dict[tuple[str, str], list[int]] = {}
    for i, entry in enumerate(doc.author_year):
        if entry.surname and entry.year:
            index.setdefault((entry.surname, entry.year), []).append(i)
            index.setdefault((entry.surname, entry.year[:4]), []).append(i)
    return index


def _match_author_year(index: dict[tuple[str, str], list[int]], surname: str, year: str) -> int | None:
    exact = [i for i in index.get((surname, year), [])]
    if year[4:] and exact:
        return exact[0]
    candidates = list(dict.fromkeys(index.get((surname, year[:4]), [])))
    if not candidates:
        return None
    if year[4:] and len(candidates) > 1:  # 2020b without suffixed entries: the second of that year
        position = ord(year[4]) - ord("a")
        return candidates[position] if position < len(candidates) else None
    return candidates[0]


def _rewrite(doc: PeerDocument, numbering: _Numbering, stats: dict[str, Any]) -> str:
    """The body with every recognised citation written as ``[n][m]`` (new numbers by first use)."""
    out_lines: list[str] = []
    in_fence = False
    ay_index = _author_year_keys(doc) if doc.author_year else {}

    def numeric(match: re.Match[str]) -> str:
        keys = _expand(match.group(1))
        stats["citations"] += len(keys)
        missing = [k for k in keys if k not in doc.references]
        stats["citations_without_entry"] += len(missing)
        return numbering.marks(keys)

    def narrative(match: re.Match[str]) -> str:
        found = _match_author_year(ay_index, _first_surname(match.group(1)), match.group(2))
        if found is None:
            stats["unmatched_citations"].append(match.group(0))
            return match.group(0)
        stats["citations"] += 1
        return f"{match.group(1)} {numbering.marks([f'ay:{found}'])}"

    def parenthetical(match: re.Match[str]) -> str:
        keys, unmatched = [], []
        for part in re.split(r";", match.group(1)):
            years = _YEAR_RE.findall(part)
            name = _YEAR_RE.split(part)[0]
            surname = _first_surname(name)
            if not years or not surname:
                unmatched.append(part.strip())
                continue
            for year, suffix in years:
                found = _match_author_year(ay_index, surname, year + suffix)
                if found is None:
                    unmatched.append(part.strip())
                else:
                    keys.append(f"ay:{found}")
        if not keys:
            if any(re.search(_NAME, u) for u in unmatched):
                stats["unmatched_citations"].append(match.group(0))
            return match.group(0)
        stats["citations"] += len(keys)
        if unmatched:
            stats["unmatched_citations"].append(match.group(0))
            return f"{match.group(0)} {numbering.marks(keys)}"
        return numbering.marks(keys)

    def bracketed_author(match: re.Match[str]) -> str:
        name, year = match.group(1), match.group(2) or ""
        if not year and not re.search(r"\bet\s+al|\band\b|&", name):
            return match.group(0)  # "[Note]", "[Appendix]": not a citation
        surname = _first_surname(name)
        found = None
        if year:
            found = _match_author_year(ay_index, surname, year)
        else:
            same = [i for i, e in enumerate(doc.author_year) if e.surname == surname]
            found = same[0] if len(same) == 1 else None
        if found is None:
            stats["unmatched_citations"].append(match.group(0))
            return match.group(0)
        stats["citations"] += 1
        return numbering.marks([f"ay:{found}"])

    def titled(match: re.Match[str]) -> str:
        parts = [p.strip() for p in match.group(1).split(";") if p.strip()]
        if not parts or not all(len(re.findall(r"[^\W\d_]+", p)) >= 2 for p in parts):
            return match.group(0)
        keys = []
        for part in parts:
            key = "title:" + normalise_title(part)
            doc.references.setdefault(key, RefEntry(part, part))
            keys.append(key)
        stats["citations"] += len(keys)
        return numbering.marks(keys)

    use_titles = doc.title_citations and not any(k.isdigit() for k in doc.references)
    handlers: list[tuple[re.Pattern[str], Any]] = []
    if doc.author_year:
        handlers += [(_NARRATIVE_RE, narrative), (_PAREN_RE, parenthetical)]
    handlers += [(_NUMERIC_RE, numeric), (_BRACKET_AUTHOR_RE, bracketed_author)]
    if use_titles:
        handlers.append((_TITLE_CITE_RE, titled))
    # One left-to-right pass over all citation forms, so numbers follow the order of first use.
    combined = re.compile("|".join(f"(?P<c{i}>{pattern.pattern})" for i, (pattern, _) in enumerate(handlers)))

    def dispatch(match: re.Match[str]) -> str:
        i = next(i for i in range(len(handlers)) if match.group(f"c{i}") is not None)
        pattern, handler = handlers[i]
        return handler(pattern.fullmatch(match.group(0)))

    for line in doc.body.split("\n"):
        if _FENCE_RE.match(line):
            in_fence = not in_fence
        if in_fence or _HEADING_RE.match(line):
            out_lines.append(line)
            continue
        out_lines.append(_PLACEHOLDER_RE.sub(r"[\1]", combined.sub(dispatch, line)))
    return "\n".join(out_lines)


# ------------------------------------------------------------------------------------------ conversion


def _official_title(line: str) -> str | None:
    """The title the released reference pattern reads from a written reference line (None: no title)."""
    parsed = official_reference(line.strip())
    return parsed[1] if parsed is not None else None


def _official_reads(line: str, title: str) -> bool:
    """Whether the released reference pattern reads ``line`` back as ``title`` (same normalised title)."""
    parsed = _official_title(line)
    return parsed is not None and normalise_title(parsed) == normalise_title(title)


def convert_document(doc: PeerDocument, matcher: TitleMatcher) -> tuple[str, dict[str, Any]]:
    """(evaluator Markdown, report record) of one peer survey: citations renumbered by first use, every
    entry listed (uncited ones after the cited), resolved titles written as the corpus spells them (as the
    baselines write them), unresolved ones as the peer wrote them."""
    stats: dict[str, Any] = {"citations": 0, "citations_without_entry": 0, "unmatched_citations": []}
    numbering = _Numbering()
    body = _rewrite(doc, numbering, stats)
    entries: dict[str, RefEntry] = dict(doc.references)
    entries.update({f"ay:{i}": e for i, e in enumerate(doc.author_year)})
    for key in entries:  # uncited entries keep a number after the cited ones, in list order
        numbering(key)
    listed = sorted(((numbering.number[k], k) for k in entries), key=lambda x: x[0])
    resolutions = matcher.resolve([entries[k].title for _, k in listed])
    lines, fuzzy, unresolved, unreadable = [], [], [], []
    for (number, key), found in zip(listed, resolutions, strict=True):
        entry = entries[key]
        written = found["corpus_title"] if found["method"] else entry.title
        lines.append(f"[{number}] {' '.join(written.split())}")
        if not _official_reads(lines[-1], written):
            unreadable.append({"number": number, "title": written, "resolved": found["method"] is not None,
                               "doc_id": found["doc_id"], "official_reads": _official_title(lines[-1])})
        if found["method"] == "fuzzy":
            fuzzy.append({"number": number, "title": entry.title, "corpus_title": found["corpus_title"],
                          "doc_id": found["doc_id"], "score": found["score"]})
        elif found["method"] is None:
            unresolved.append({"number": number, "title": entry.title, "raw": entry.raw[:300],
                               "nearest_corpus_title": found["corpus_title"], "nearest_score": found["score"]})
    markdown = body.rstrip() + "\n\n# References\n\n" + "\n".join(lines) + ("\n" if lines else "")
    methods = [r["method"] for r in resolutions]
    record = {
        "references": len(listed),
        "resolved_exact": methods.count("exact"),
        "resolved_fuzzy": methods.count("fuzzy"),
        "unresolved": methods.count(None),
        "citations": stats["citations"],
        "citations_without_entry": stats["citations_without_entry"],
        "unmatched_citations": stats["unmatched_citations"][:50],
        "unmatched_citation_count": len(stats["unmatched_citations"]),
        "doc_ids": [r["doc_id"] for r in resolutions],
        "fuzzy": fuzzy,
        "unresolved_references": unresolved,
        # written titles the released reference pattern cuts or loses (one ending in ?, ', ), / ...), resolved
        # or not: under --protocol official a resolved one is not found in the corpus (as in the released
        # evaluator), and what it does read ("official_reads") may even match another paper
        "unreadable_by_official": unreadable,
        "notes": list(doc.notes),
    }
    return markdown, record
