"""Conversion to the evaluator's layout: citations (numeric, by bibliography key, author-year, bracketed titles)
renumbered by first use, and the reference list written with every title resolved to the corpus where possible.

Numeric citations are read by the rule the evaluator's ``paper`` reading uses (:mod:`surge_dataset.survey.citations`:
never in math, code or link targets, never citing 0); every other form is looked for only where that rule looks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from surge_dataset.core.normalise import normalise_title
from surge_dataset.importers.keys import KEY_GROUP_RE, cites_as_keys, key_citation
from surge_dataset.importers.links import AS_URL, LinkOptions, LinkResolver, link_counts
from surge_dataset.importers.markdown import YEAR_RE, first_surname
from surge_dataset.importers.marks import (
    FLAT_RE,
    SUP_RE,
    UNICODE_RE,
    LinkMarks,
    flat_numbers,
    has_numeric_citations,
    heading_spans,
    section_protected_spans,
    sup_numbers,
    unicode_numbers,
)
from surge_dataset.importers.quality import quality_notes
from surge_dataset.importers.records import PeerDocument, RefEntry
from surge_dataset.importers.resolution import TitleMatcher
from surge_dataset.survey.citations import CITATION_GROUP_RE, read_citation_group, split_at_spans
from surge_dataset.survey.headings import (
    ATX_HEADING_RE,
    is_references_title,
    paper_heading_skipped,
    strip_wrapping_emphasis,
)
from surge_dataset.survey.official_parse import official_reference
from surge_dataset.survey.tree import FENCE_RE

# ------------------------------------------------------------------------------------------ citations

_NAME = r"[A-Z][\w'\u2019-]+"
_NARRATIVE_RE = re.compile(
    rf"\b({_NAME}(?:\s+(?:et\s+al\.?|(?:and|&)\s+{_NAME}))?)\s+\(((?:19|20)\d{{2}}[a-z]?)\)"
)
#: ``[Smith et al.]``, ``[Smith and Lee, 2020]``: author citations in brackets (some LLM outputs).
_BRACKET_AUTHOR_RE = re.compile(
    rf"\[({_NAME}(?:\s+et\s+al\.?|\s+(?:and|&)\s+{_NAME})?)(?:,?\s+((?:19|20)\d{{2}}[a-z]?))?\](?!\()"
)
#: Not after a backslash: ``\(`` opens math, and ``\(Smith, 2020)`` written ``\[1]`` would open display math.
_PAREN_RE = re.compile(r"(?<!\\)\(([^()]*?\b(?:19|20)\d{2}[a-z]?\b[^()]*)\)")
_TITLE_CITE_RE = re.compile(r"\[([^\[\]\n]{12,400})\](?!\()")


class _Numbering:
    """New citation numbers by first use; keys without a reference entry get a number but no entry."""

    def __init__(self) -> None:
        self.number: dict[str, int] = {}

    def __call__(self, key: str) -> int:
        return self.number.setdefault(key, len(self.number) + 1)

    def marks(self, keys: Sequence[str]) -> str:
        """``[n][m]``: written straight away, the citation pass being one ``re.sub`` that never reads its own output
        (a placeholder character could be the source's own text)."""
        return "".join(f"[{self(k)}]" for k in keys)


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
    ay_index = _author_year_keys(doc) if doc.author_year else {}
    listed = sorted(int(k) for k in doc.references if k.isdecimal())
    links = LinkMarks()
    body, link_texts = links.take(doc.body)

    def cite_numbers(numbers: Sequence[int]) -> str:
        keys = [str(n) for n in numbers]
        stats["citations"] += len(keys)
        missing = [k for k in keys if k not in doc.references]
        stats["citations_without_entry"] += len(missing)
        stats["numbers_without_entry"].update(missing)
        return numbering.marks(keys)

    def linked(match: re.Match[str]) -> str:
        numbers, url, title = links.found[int(match.group(1))]
        keys: list[str] = []
        for n in numbers or [None]:  # the list's entry when it has one, else the link itself is the source
            key = str(n) if n is not None and str(n) in doc.references else "url:" + url
            if key.startswith("url:"):
                doc.references.setdefault(key, RefEntry(title or url, url))
            keys.append(key)
        keys = list(dict.fromkeys(keys))
        stats["citations"] += len(keys)
        return numbering.marks(keys)

    def superscript(match: re.Match[str]) -> str:
        numbers = sup_numbers(match.group(1))
        return match.group(0) if numbers is None else cite_numbers(numbers)

    def unicode_sup(match: re.Match[str]) -> str:
        numbers = unicode_numbers(match.string, match)
        if not numbers or not all(str(n) in doc.references for n in numbers):
            if numbers:  # digits the list cannot hold (``¹²`` over 4 entries): left as text, and said
                stats["unread_superscripts"].append(f"{match.group(0)} ({', '.join(map(str, numbers))})")
            return match.group(0)
        return cite_numbers(numbers)

    def flattened(match: re.Match[str]) -> str:
        numbers = flat_numbers(match.string, match, listed[-1] if listed else 0)
        if not numbers or not all(str(n) in doc.references for n in numbers):
            return match.group(0)
        before = match.string[max(0, match.start() - 40):match.start()].split("\n")[-1]
        read_as = "".join(f"[{n}]" for n in numbers)
        stats["guesses"].append(f"...{before}{match.group(0)} -> {read_as}")
        return cite_numbers(numbers)

    def numeric(match: re.Match[str]) -> str:
        read = read_citation_group(match.group(1))
        if read is None:  # [0], [0, 1]: an interval or an index
            return match.group(0)
        return cite_numbers(read[0])

    def keyed(match: re.Match[str]) -> str:
        keys = key_citation(match.group(1), doc.bibliography)
        if keys is None:  # "[Structure]": a bracketed word, not a key
            return match.group(0)
        stats["citations"] += len(keys)
        missing = [k for k in keys if not (k in doc.bibliography and doc.bibliography[k].title)]
        stats["citations_without_entry"] += len(missing)
        stats["keys_without_entry"].update(missing)
        return numbering.marks([f"key:{k}" for k in keys])

    def narrative(match: re.Match[str]) -> str:
        found = _match_author_year(ay_index, first_surname(match.group(1)), match.group(2))
        if found is None:
            stats["unmatched_citations"].append(match.group(0))
            return match.group(0)
        stats["citations"] += 1
        return f"{match.group(1)} {numbering.marks([f'ay:{found}'])}"

    def parenthetical(match: re.Match[str]) -> str:
        keys, unmatched = [], []
        for part in re.split(r";", match.group(1)):
            years = YEAR_RE.findall(part)
            name = YEAR_RE.split(part)[0]
            surname = first_surname(name)
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
        surname = first_surname(name)
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

    use_titles = doc.title_citations and not listed
    handlers: list[tuple[re.Pattern[str], Any]] = [(links.pattern, linked), (SUP_RE, superscript)]
    if doc.author_year:
        handlers += [(_NARRATIVE_RE, narrative), (_PAREN_RE, parenthetical)]
    handlers += [(CITATION_GROUP_RE, numeric), (KEY_GROUP_RE, keyed), (_BRACKET_AUTHOR_RE, bracketed_author)]
    if listed:  # superscript digits are citations only against a numbered list
        handlers.append((UNICODE_RE, unicode_sup))
        if not has_numeric_citations(doc.body):
            handlers.append((FLAT_RE, flattened))
    if use_titles:
        handlers.append((_TITLE_CITE_RE, titled))
    # One left-to-right pass over all citation forms, so numbers follow the order of first use.
    combined = re.compile("|".join(f"(?P<c{i}>{pattern.pattern})" for i, (pattern, _) in enumerate(handlers)),
                          re.M)
    in_context = {linked, superscript, unicode_sup, flattened}

    def dispatch(match: re.Match[str]) -> str:
        i = next(i for i in range(len(handlers)) if match.group(f"c{i}") is not None)
        pattern, handler = handlers[i]
        if handler in in_context:  # these read the text around the mark (a lookbehind, the word before)
            written = handler(pattern.match(match.string, match.start()))
        else:
            written = handler(pattern.fullmatch(match.group(0)))
        # "[2](" is a link's text, no citation: a mark written before "(" (``<sup>2</sup>(see``) gets a space
        if written != match.group(0) and written.endswith("]") and match.string.startswith("(", match.end()):
            written += " "
        return written

    # math, code, link targets, the texts of links that cite nothing and heading lines are left as they are
    pieces = split_at_spans(body, [*section_protected_spans(body), *heading_spans(body), *link_texts])
    return "".join(links.restore(piece) if protected
                   else combined.sub(dispatch, cites_as_keys(piece))
                   for piece, protected in pieces)


def _ends_in_code(text: str) -> bool:
    """Whether a code fence is open at the end of ``text`` (fence lines toggle, as the evaluator reads them)."""
    return sum(1 for line in text.split("\n") if FENCE_RE.match(line)) % 2 == 1


def count_headings(text: str) -> int:
    """The section headings of written Markdown, as the ``paper`` reading counts them: ATX headings outside
    code fences, less References and Abstract headings and empty ones."""
    count = 0
    for start, end in heading_spans(text):
        title = strip_wrapping_emphasis(ATX_HEADING_RE.match(text[start:end]).group(2))  # type: ignore[union-attr]
        count += not (paper_heading_skipped(title) or is_references_title(title))
    return count


# ------------------------------------------------------------------------------------------ conversion


def _official_title(line: str) -> str | None:
    """The title the released reference pattern reads from a written reference line (None: no title)."""
    parsed = official_reference(line.strip())
    return parsed[1] if parsed is not None else None


def _official_reads(line: str, title: str) -> bool:
    """Whether the released reference pattern reads ``line`` back as ``title`` (same normalised title)."""
    parsed = _official_title(line)
    return parsed is not None and normalise_title(parsed) == normalise_title(title)


def _shown(items: list[str], limit: int = 10) -> str:
    return ", ".join(items[:limit]) + (f" ... ({len(items)} in all)" if len(items) > limit else "")


def _losses(doc: PeerDocument, stats: dict[str, Any], listed: int) -> list[str]:
    """What the conversion could not keep, and why (the reader's losses first)."""
    lost = list(doc.lost)
    numbers = sorted(stats["numbers_without_entry"], key=int)
    if numbers:
        lost.append(f"{len(numbers)} cited number(s) with no entry in the reference list: "
                    f"{_shown([f'[{n}]' for n in numbers])} (written with a number and no reference line)")
    keys = sorted(stats["keys_without_entry"])
    if keys:
        why = ("no entry (or no title) in " + ", ".join(doc.bibliography_files) if doc.bibliography_files
               else "no .bib or .bbl beside the survey (give --bib FILE)")
        lost.append(f"{len(keys)} cited key(s) with {why}: {_shown(keys)} (written with a number and no reference line)")
    if stats["unmatched_citations"]:
        lost.append(f"{len(stats['unmatched_citations'])} author-year citation(s) match no entry, left as text: "
                    f"{_shown(stats['unmatched_citations'], 5)}")
    if not listed and not doc.reference_list and not doc.bibliography:
        lost.append("no reference list in the source: none is written")
    return lost


def _notes(stats: dict[str, Any], linked: dict[str, tuple[str, str]], links: LinkResolver | None) -> list[str]:
    """What the reader guessed or could not ask: flattened superscripts read as citations, link entries left as URLs."""
    notes = []
    if stats["guesses"]:
        notes.append(f"{len(stats['guesses'])} flattened superscript(s) read as citations (guesses, each listed in "
                     f"guessed_citations): {_shown(stats['guesses'], 3)}")
    if stats["unread_superscripts"]:
        notes.append(f"{len(stats['unread_superscripts'])} Unicode superscript(s) left as text, their numbers not all "
                     f"in the reference list: {_shown(stats['unread_superscripts'], 5)}")
    as_url = sum(1 for _, how in linked.values() if how == AS_URL)
    if as_url:
        why = "" if links is None or links.asks else f" (nothing was looked up: {links.why_not()})"
        notes.append(f"{as_url} reference(s) kept as their URL, no title found{why}: they resolve to no corpus paper")
    if links is not None and links.failures:
        notes.append(f"look-ups that failed (a rerun asks again): {_shown(links.failures, 3)}")
    return notes


def convert_document(doc: PeerDocument, matcher: TitleMatcher,
                     links: LinkResolver | None = None) -> tuple[str, dict[str, Any]]:
    """(evaluator Markdown, report record) of one peer survey: citations renumbered by first use, every
    entry listed (uncited ones after the cited; of a bibliography, only the cited), resolved titles written as
    the corpus spells them (as the baselines write them), unresolved ones as the peer wrote them. No
    References section is written when there is no entry."""
    stats: dict[str, Any] = {"citations": 0, "citations_without_entry": 0, "unmatched_citations": [],
                             "numbers_without_entry": set(), "keys_without_entry": set(), "guesses": [],
                             "unread_superscripts": []}
    numbering = _Numbering()
    own = [k for k in doc.references if k.isdecimal()] + [f"ay:{i}" for i in range(len(doc.author_year))]
    source_body = doc.body
    body = _rewrite(doc, numbering, stats)
    quality = quality_notes(source_body, len(own), sum(1 for k in own if k not in numbering.number))
    entries: dict[str, RefEntry] = dict(doc.references)
    entries.update({f"ay:{i}": e for i, e in enumerate(doc.author_year)})
    for key in entries:  # uncited entries keep a number after the cited ones, in list order
        numbering(key)
    entries.update({key: doc.bibliography[key[4:]] for key in numbering.number
                    if key.startswith("key:") and doc.bibliography.get(key[4:], RefEntry("", "")).title})
    listed = sorted(((numbering.number[k], k) for k in entries), key=lambda x: x[0])
    # an entry that is only an address (a URL, a DOI, an arXiv id) gets its title by id, else from its own words
    linked = (links or LinkResolver(LinkOptions(lookup=False, cache_dir=False))).titles(
        {k: entries[k] for _, k in listed})
    entries.update({k: replace(entries[k], title=title) for k, (title, _) in linked.items()})
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
    if lines and _ends_in_code(body):  # the list written after a fence left open would be code to the evaluator
        body = body.rstrip() + "\n```"
        fence_note = ["a code fence left open at the end of the text is closed before the reference list"]
    else:
        fence_note = []
    markdown = body.rstrip() + "\n" + ("\n# References\n\n" + "\n".join(lines) + "\n" if lines else "")
    methods = [r["method"] for r in resolutions]
    cited_keys = sum(1 for key in numbering.number if key.startswith("key:"))
    record = {
        "headings": count_headings(body),
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
        "keys_without_entry": sorted(stats["keys_without_entry"]),
        "bibliography": {"files": list(doc.bibliography_files), "entries": len(doc.bibliography),
                         "cited": cited_keys} if doc.bibliography_files else None,
        "lost": _losses(doc, stats, len(listed)),
        "notes": list(doc.notes) + fence_note + _notes(stats, linked, links),
        "guessed_citations": stats["guesses"][:200],
        "quality": quality,
        "link_entries": link_counts(linked),
    }
    return markdown, record
