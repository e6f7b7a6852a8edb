"""``surge import``: other systems' survey outputs -> the evaluator's layout, references resolved to the corpus.

Peer systems write surveys in their own shapes; ``surge evaluate`` reads ``OUT/<survey_id>/<file>.md``
with ``#`` headings, ``[n]`` citations and a reference list of ``[n] <title>`` lines. Readers per format:

``markdown``
    Any Markdown survey: ``DIR/<name>/<one file>`` (the released layout) or ``DIR/<name>.md``. The
    reference list is a References / Bibliography section (a heading or a bare ``References:`` line),
    else the trailing block of ``[n]`` lines. Citations are numeric (``[3]``, ``[1, 2]``, ``[1-3]``,
    ``[1; 2]``, ``[^3]``) when the entries are numbered, author-year (``(Smith et al., 2020; Lee, 2019)``,
    ``Smith and Lee (2020)``) when they are not; author-year citations are matched to entries by first
    author's surname and year (``2020a``/``2020b`` by suffix, else in list order).
``autosurvey`` / ``surveyforge``
    AutoSurvey's Markdown (SurveyForge writes AutoSurvey's format): as ``markdown``, and when there is no
    numbered reference list, bracketed paper titles ``[Title A; Title B]`` (AutoSurvey's draft before its
    numbering step) are citations of those titles.
``storm``
    ``DIR/<topic>/storm_gen_article_polished.txt`` (else ``storm_gen_article.txt``) with ``[1]``-style
    citations, and ``url_to_info.json`` beside it: ``url_to_unified_index`` gives each source's number,
    ``url_to_info[url].title`` its title. The topic is the folder name (``_`` for spaces).
``llmxmr``
    LLMxMapReduce-V2's JSONL (one survey per line): ``title``, ``content`` (Markdown, citations
    ``[1,3]``) and ``papers`` (citation n = ``papers[n-1]``), else the ``ref_str`` list.

Every survey is matched to a ground-truth survey by its folder name when that is a survey id, else by
title (normalised exactly, then fuzzily); every reference title resolves by the evaluator's exact rule
(``Corpus.resolve``: letters a-z, lower-cased), then by rapidfuzz ``fuzz.ratio`` on
``rapidfuzz.utils.default_process`` titles at or above ``threshold`` (default 90, recorded). A resolved
reference is written as the corpus spells its title (so a fuzzy match resolves in ``surge evaluate``
too); an unresolved one keeps its own title (and scores as hallucinated). The report lists every fuzzy match and every unresolved
reference with its nearest corpus title.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from .io import atomic_write_json, atomic_write_text
from .normalize import normalise_title
from .survey import decode_survey_bytes, parse_survey

__all__ = [
    "DEFAULT_THRESHOLD",
    "FORMATS",
    "ImportReport",
    "PeerDocument",
    "RefEntry",
    "TitleMatcher",
    "convert_document",
    "import_outputs",
    "read_documents",
    "report_path",
]

FORMATS = ("autosurvey", "storm", "llmxmr", "surveyforge", "markdown")
DEFAULT_THRESHOLD = 90.0
#: Unresolved titles whose best corpus candidate scores at least threshold - NEAR_MISS are reported with it.
NEAR_MISS = 15.0
STORM_ARTICLES = ("storm_gen_article_polished.txt", "storm_gen_article.txt")
TEXT_SUFFIXES = {".md", ".markdown", ".txt", ""}

# ------------------------------------------------------------------------------------------ records


@dataclass(frozen=True)
class RefEntry:
    """One reference of a peer output: the title to resolve and where it came from."""

    title: str
    raw: str
    surname: str = ""  # first author's surname, letters only, lower case (author-year matching)
    year: str = ""  # 4 digits plus an optional letter, e.g. 2020a


@dataclass
class PeerDocument:
    """One peer survey before conversion: Markdown text without its reference list, and the references.

    ``references`` maps a numeric citation key (``"3"``) to its entry; ``author_year`` holds unnumbered
    entries in list order; ``title_citations`` allows ``[Title; Title]`` citations (AutoSurvey drafts).
    """

    key: str  # the folder, file stem or record title that names the topic
    source: str
    title: str | None
    body: str
    references: dict[str, RefEntry] = field(default_factory=dict)
    author_year: list[RefEntry] = field(default_factory=list)
    title_citations: bool = False
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------------------ Markdown


_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_REF_WORDS = r"(?:references?|bibliography|works\s+cited|reference\s+list|literature\s+cited|sources|citations)"
_REF_TITLE_RE = re.compile(rf"^\W*(?:(?:\d+(?:\.\d+)*|[ivxlc]+)[.)]?\s+)?{_REF_WORDS}\W*$", re.I)
_BRACKET_ENTRY_RE = re.compile(r"^\s*(?:[-*+\u2022]\s+)?\[\^?\d{1,6}\]\s*:?\s*\S")
_NUMBERED_ENTRY_RE = re.compile(r"^\s*(?:[-*+\u2022]\s+)?(?:\[\^?(\d{1,6})\]|(\d{1,6})[.)])\s*:?\s*(.*\S)?\s*$")
_MARKER_RE = re.compile(r"^\s*(?:[-*+\u2022]\s+|\[\^?\d{1,6}\]|\d{1,6}[.)]\s)")
_BULLET_RE = re.compile(r"^\s*[-*+\u2022]\s+")
_MD_LINK_RE = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_URL_RE = re.compile(r"<?https?://\S+>?")
_FENCE_RE = re.compile(r"^ {0,3}(```|~~~)")


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
                and not _HEADING_RE.match(out[-1]) and not _MARKER_RE.match(out[-1])):
            out[-1] = ("# " if underline.group(1).startswith("=") else "## ") + previous
            continue
        out.append(line)
    return "\n".join(out)


def _is_reference_label(line: str) -> bool:
    """A line that only announces the list: ``References:``, ``**Bibliography**``, ``References``."""
    cleaned = line.replace("*", "").replace("_", " ").strip()
    return bool(cleaned) and len(cleaned) < 40 and bool(_REF_TITLE_RE.match(cleaned))


def _reference_regions(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) line ranges of reference sections: a References heading to the next heading of its
    level or higher, or a bare ``References:`` line to the next heading. Without one: the trailing block
    of ``[n]`` lines (a trailing ``1.`` list is more likely prose than a bibliography)."""
    regions: list[tuple[int, int]] = []
    in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE_RE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING_RE.match(line)
        opens = not in_fence and (
            bool(heading and _REF_TITLE_RE.match(_clean_heading(heading.group(2))))
            or (heading is None and _is_reference_label(line))
        )
        if opens:
            level = len(heading.group(1)) if heading else 7
            end = i + 1
            while end < len(lines):
                other = _HEADING_RE.match(lines[end])
                if other and len(other.group(1)) <= level:
                    break
                end += 1
            regions.append((i, end))
            i = end
            continue
        i += 1
    if regions:
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


_YEAR_RE = re.compile(r"\b((?:19|20)\d{2})([a-z])?\b")
#: An author list opening a line: a capitalised name, no digit, then a comma / et al / & / and, then a year.
_AUTHORS_START_RE = re.compile(
    r"^(?!In\b|Proc)[A-Z][^\d,\n]{0,40}(?:,|\bet al\b|&|\band\b)[^\n]{0,200}?\b(?:19|20)\d{2}"
)


def _starts_author_year_entry(line: str, previous: str) -> bool:
    """An unmarked line that begins a new author-year entry (``Lee, K. (2019). ...``) rather than wrapping
    the previous one: it names authors before a year, and the previous entry already has its year."""
    return bool(_AUTHORS_START_RE.match(line.strip())) and bool(_YEAR_RE.search(previous))


def _entries(lines: list[str]) -> list[str]:
    """Reference entries of a region: each marked line starts one; an unmarked line continues the entry
    above it unless a blank line separates them or it starts a new author-year entry."""
    entries: list[str] = []
    blank = True
    for line in lines:
        if not line.strip():
            blank = True
            continue
        if _HEADING_RE.match(line):
            blank = True
            continue
        if entries and not blank and not _MARKER_RE.match(line) and not _starts_author_year_entry(line, entries[-1]):
            entries[-1] += " " + line.strip()
        else:
            entries.append(line.strip())
        blank = False
    return entries


def _titles(entries: Sequence[str]) -> list[str]:
    """Titles of reference entries, read by the evaluator's own best-effort entry parser (paper protocol)."""
    if not entries:
        return []
    cleaned = [_URL_RE.sub("", _MD_LINK_RE.sub(r"\1", _BULLET_RE.sub("", e))).strip() for e in entries]
    text = "# References\n\n" + "\n".join(f"[{i}] {e}" for i, e in enumerate(cleaned, 1)) + "\n"
    parsed = parse_survey(text, protocol="paper").references
    return [parsed[i].title if i in parsed else cleaned[i - 1] for i in range(1, len(cleaned) + 1)]


_INITIAL_RE = re.compile(r"^(?:[A-Z]\.?){1,3}$|^[A-Z]\.(?:-?[A-Z]\.)*$")


def _first_surname(authors: str) -> str:
    """Letters of the first author's surname: the first chunk (before a comma, ``and`` or ``&``), its
    initials dropped, its last remaining word (``Smith, J.`` / ``J. Smith`` / ``Smith J`` -> smith)."""
    text = re.sub(r"\bet\s+al\.?", "", authors)
    text = re.sub(r"^\W*(?:e\.g\.|i\.e\.|see(?:\s+also)?|cf\.?|also)\W*", "", text, flags=re.I)
    chunk = re.split(r",|;|\band\b|&", text, maxsplit=1)[0]
    words = [w for w in re.findall(r"[^\W\d_][\w'\u2019.-]*", chunk) if not _INITIAL_RE.match(w.rstrip(","))]
    return normalise_title(words[-1]) if words else ""


def _author_year_entry(entry: str, title: str) -> RefEntry:
    entry = _BULLET_RE.sub("", entry)
    year = _YEAR_RE.search(entry)
    authors = entry[: year.start()] if year else entry.split(".", 1)[0]
    return RefEntry(title, entry, _first_surname(authors), (year.group(1) + (year.group(2) or "")) if year else "")


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
    entries = _entries(region_lines)
    doc = PeerDocument(key, source, _document_title(lines), body, title_citations=title_citations)
    numbered = [(m, e) for e in entries if (m := _NUMBERED_ENTRY_RE.match(e)) and m.group(3)]
    titles = _titles([m.group(3) for m, _ in numbered] if numbered else entries)
    if numbered:
        for (match, entry), title in zip(numbered, titles, strict=True):
            number = str(int(match.group(1) or match.group(2)))
            if number in doc.references:
                doc.notes.append(f"reference [{number}] listed twice; the first is kept")
                continue
            doc.references[number] = RefEntry(title, entry)
        if len(numbered) < len(entries):
            doc.notes.append(f"{len(entries) - len(numbered)} unnumbered line(s) in a numbered reference list ignored")
    else:
        doc.author_year = [_author_year_entry(e, t) for e, t in zip(entries, titles, strict=True)]
    return doc


def _is_marker_line(line: str) -> bool:
    """The References heading / label line that opens a region (not an entry)."""
    return bool(_HEADING_RE.match(line)) or _is_reference_label(line)


def _document_title(lines: list[str]) -> str | None:
    """The first level-1 heading if it is the document's first heading (AutoSurvey writes ``# Title``)."""
    for line in lines:
        heading = _HEADING_RE.match(line)
        if heading:
            return _clean_heading(heading.group(2)) if len(heading.group(1)) == 1 else None
    return None


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
MAX_RANGE = 50


def _expand(group: str) -> list[str]:
    numbers: list[str] = []
    for item in _ITEM_RE.finditer(group):
        low = int(item.group(1))
        high = int(item.group(2)) if item.group(2) else low
        span = [low, high] if high < low or high - low >= MAX_RANGE else list(range(low, high + 1))
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


# ------------------------------------------------------------------------------------------ resolution


class TitleMatcher:
    """Reference title -> corpus doc id: the evaluator's exact rule first, then rapidfuzz.

    The fuzzy index (processed corpus titles sorted by length) is built on the first miss; a query only
    scans titles whose length allows ``fuzz.ratio >= cutoff``, and each distinct title is searched once.
    """

    def __init__(self, data: Any, threshold: float = DEFAULT_THRESHOLD) -> None:
        if not 0 < threshold <= 100:
            raise ValueError(f"threshold must be in (0, 100], got {threshold}")
        self.data = data
        self.corpus = data.corpus
        self.threshold = float(threshold)
        self._choices: list[str] | None = None
        self._titles: list[str] = []
        self._lengths: list[int] = []
        self._memo: dict[str, tuple[str, float] | None] = {}

    def _build(self) -> None:
        from rapidfuzz.utils import default_process

        rows: list[tuple[int, str, str]] = []
        for batch in self.data.iter_corpus_batches(columns=["title"]):
            for title in batch.column("title").to_pylist():
                processed = default_process(title or "")
                if processed:
                    rows.append((len(processed), processed, title))
        rows.sort(key=lambda r: r[0])
        self._lengths = [r[0] for r in rows]
        self._choices = [r[1] for r in rows]
        self._titles = [r[2] for r in rows]

    def nearest(self, title: str) -> tuple[str, float] | None:
        """The corpus title closest to ``title`` with its score, if it scores >= threshold - NEAR_MISS."""
        from rapidfuzz import fuzz, process
        from rapidfuzz.utils import default_process

        query = default_process(title or "")
        if not query:
            return None
        if query in self._memo:
            return self._memo[query]
        if self._choices is None:
            self._build()
        assert self._choices is not None
        cutoff = max(1.0, self.threshold - NEAR_MISS)
        low = bisect.bisect_left(self._lengths, int(len(query) * cutoff / (200 - cutoff)))
        high = bisect.bisect_right(self._lengths, int(len(query) * (200 - cutoff) / cutoff) + 1)
        best = process.extractOne(query, self._choices[low:high], scorer=fuzz.ratio, processor=None,
                                  score_cutoff=cutoff)
        found = None if best is None else (self._titles[low + best[2]], round(float(best[1]), 2))
        self._memo[query] = found
        return found

    def resolve(self, titles: Sequence[str]) -> list[dict[str, Any]]:
        """Per title: ``doc_id`` (or None), ``method`` (exact / fuzzy / None), ``corpus_title``, ``score``."""
        exact = self.corpus.resolve(list(titles)) if titles else []
        found = [d for d in exact if d is not None]
        spelled = {p.doc_id: p.title for p in self.corpus.get(found) if p is not None} if found else {}
        out = []
        for title, doc_id in zip(titles, exact, strict=True):
            if doc_id is not None:
                out.append({"doc_id": doc_id, "method": "exact", "corpus_title": spelled.get(doc_id, title),
                             "score": 100.0})
                continue
            near = self.nearest(title)
            if near is not None and near[1] >= self.threshold:
                doc_id = self.corpus.resolve([near[0]])[0]
                out.append({"doc_id": doc_id, "method": "fuzzy", "corpus_title": near[0], "score": near[1]})
            else:
                out.append({"doc_id": None, "method": None, "corpus_title": near[0] if near else None,
                            "score": near[1] if near else None})
        return out


# ------------------------------------------------------------------------------------------ conversion


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
    lines, fuzzy, unresolved = [], [], []
    for (number, key), found in zip(listed, resolutions, strict=True):
        entry = entries[key]
        written = found["corpus_title"] if found["method"] else entry.title
        lines.append(f"[{number}] {' '.join(written.split())}")
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
        "notes": list(doc.notes),
    }
    return markdown, record


# ------------------------------------------------------------------------------------------ readers


def _read_text(path: Path) -> str:
    text, _ = decode_survey_bytes(path.read_bytes())
    return text


def _pick_file(folder: Path) -> tuple[Path | None, str | None]:
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")
                   and p.suffix.lower() in TEXT_SUFFIXES)
    markdown = [p for p in files if p.suffix.lower() in (".md", ".markdown")]
    if len(files) == 1:
        return files[0], None
    if len(markdown) == 1:
        return markdown[0], None
    return None, f"{len(files)} text files and {len(markdown)} Markdown files: cannot tell which is the survey"


def _markdown_documents(root: Path, title_citations: bool) -> Iterator[PeerDocument | tuple[str, str]]:
    for entry in sorted(root.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            path, problem = _pick_file(entry)
            if path is None:
                yield str(entry), problem or "no file"
                continue
            key = entry.name
        elif entry.suffix.lower() in TEXT_SUFFIXES:
            path, key = entry, entry.stem
        else:
            continue
        yield read_markdown(_read_text(path), key, str(path), title_citations=title_citations)


def _storm_documents(root: Path) -> Iterator[PeerDocument | tuple[str, str]]:
    folders = [root] if any((root / name).is_file() for name in STORM_ARTICLES) else sorted(
        p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    for folder in folders:
        article = next((folder / name for name in STORM_ARTICLES if (folder / name).is_file()), None)
        if article is None:
            yield str(folder), f"no {' or '.join(STORM_ARTICLES)}"
            continue
        doc = read_markdown(_read_text(article), folder.name, str(article), find_references=False)
        doc.title = folder.name.replace("_", " ")
        info_path = folder / "url_to_info.json"
        if not info_path.is_file():
            doc.notes.append("url_to_info.json is absent: citations have no titles")
        else:
            info = json.loads(_read_text(info_path))
            sources = info.get("url_to_info", {})
            for url, number in info.get("url_to_unified_index", {}).items():
                title = (sources.get(url) or {}).get("title") or url
                doc.references[str(int(number))] = RefEntry(str(title), url)
        yield doc


def _llmxmr_records(path: Path) -> Iterator[dict[str, Any]]:
    text = _read_text(path)
    if path.suffix == ".json":
        value = json.loads(text)
        yield from (value if isinstance(value, list) else [value])
        return
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def _llmxmr_documents(root: Path) -> Iterator[PeerDocument | tuple[str, str]]:
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.suffix in (".jsonl", ".json"))
    for path in files:
        try:
            records = list(_llmxmr_records(path))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            yield str(path), f"not JSON lines: {exc}"
            continue
        for i, record in enumerate(records):
            source = f"{path}#{i}"
            if not isinstance(record, dict) or not isinstance(record.get("content"), str):
                yield source, "record without a 'content' string"
                continue
            title = str(record.get("title") or "").strip()
            doc = read_markdown(record["content"], title or f"{path.stem}-{i}", source)
            doc.title = title or doc.title
            papers = record.get("papers")
            if isinstance(papers, list) and papers:
                doc.references = {str(n): RefEntry(str(p.get("title") or ""), str(p.get("url") or ""))
                                  for n, p in enumerate(papers, 1) if isinstance(p, dict)}
            elif isinstance(record.get("ref_str"), str):
                refs = read_markdown("x\n\n" + record["ref_str"], doc.key, source).references
                doc.references = refs or doc.references
            yield doc


def read_documents(fmt: str, source: str | Path) -> Iterator[PeerDocument | tuple[str, str]]:
    """Every peer survey under ``source`` in format ``fmt``; a ``(path, reason)`` pair for each input that
    cannot be read as one."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    root = Path(source)
    if not root.exists():
        raise FileNotFoundError(f"{root}: no such file or folder")
    if fmt == "storm":
        return _storm_documents(root)
    if fmt == "llmxmr":
        return _llmxmr_documents(root)
    if root.is_file():
        return iter([read_markdown(_read_text(root), root.stem, str(root), title_citations=fmt != "markdown")])
    return _markdown_documents(root, title_citations=fmt in ("autosurvey", "surveyforge"))


# ------------------------------------------------------------------------------------------ the import


def _survey_matcher(data: Any, threshold: float):
    from rapidfuzz import fuzz, process
    from rapidfuzz.utils import default_process

    surveys = data.surveys()
    exact: dict[str, int] = {}
    for s in surveys:
        exact.setdefault(normalise_title(s.survey_title), s.survey_id)
    processed = [default_process(s.survey_title) for s in surveys]

    def match(doc: PeerDocument) -> tuple[int | None, str]:
        if doc.key.isdigit() and data.has_survey(int(doc.key)):
            return int(doc.key), "folder name is the survey id"
        names = [n for n in (doc.title, doc.key.replace("_", " ").strip()) if n]
        for name in names:
            if normalise_title(name) in exact:
                return exact[normalise_title(name)], f"title {name!r} (exact)"
        for name in names:
            best = process.extractOne(default_process(name), processed, scorer=fuzz.ratio, processor=None,
                                      score_cutoff=threshold)
            if best is not None:
                return surveys[best[2]].survey_id, f"title {name!r} (fuzzy {best[1]:.1f})"
        return None, f"no survey id or ground-truth title matches {names}"

    return match


@dataclass
class ImportReport:
    """What ``surge import`` did: settings, one record per imported survey, and what was skipped."""

    format: str
    source: str
    out: str
    data: str
    data_fingerprint: str
    fuzzy: dict[str, Any]
    surveys: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)

    @property
    def totals(self) -> dict[str, int]:
        keys = ("references", "resolved_exact", "resolved_fuzzy", "unresolved", "citations",
                "citations_without_entry", "unmatched_citation_count")
        return {"surveys": len(self.surveys), "skipped": len(self.skipped),
                **{k: sum(s[k] for s in self.surveys) for k in keys}}

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "totals": self.totals}


def report_path(out: str | Path) -> Path:
    """Default report location: beside ``OUT`` (inside it, ``surge evaluate`` would list it as a failure)."""
    out = Path(out)
    return out.with_name(out.name + ".import_report.json")


def import_outputs(
    fmt: str,
    source: str | Path,
    data: Any,
    out: str | Path,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    report: str | Path | None = None,
) -> ImportReport:
    """Convert every peer survey under ``source`` into ``out/<survey_id>/survey.md``; write the report."""
    out = Path(out)
    matcher = TitleMatcher(data, threshold)
    match_survey = _survey_matcher(data, threshold)
    try:
        rapidfuzz_version = metadata.version("rapidfuzz")
    except metadata.PackageNotFoundError:  # pragma: no cover - a dependency
        rapidfuzz_version = "unknown"
    result = ImportReport(
        format=fmt, source=str(source), out=str(out), data=str(getattr(data, "path", data)),
        data_fingerprint=getattr(data, "fingerprint", ""),
        fuzzy={"scorer": "rapidfuzz.fuzz.ratio", "processor": "rapidfuzz.utils.default_process",
               "threshold": float(threshold), "rapidfuzz": rapidfuzz_version,
               "exact_rule": "letters a-z of the lower-cased title (Corpus.resolve)"},
    )
    taken: dict[int, str] = {}
    for item in read_documents(fmt, source):
        if isinstance(item, tuple):
            result.skipped.append({"source": item[0], "reason": item[1]})
            continue
        survey_id, how = match_survey(item)
        if survey_id is None:
            result.skipped.append({"source": item.source, "reason": how})
            continue
        if survey_id in taken:
            result.skipped.append({"source": item.source, "reason": f"survey {survey_id} already imported from {taken[survey_id]}"})
            continue
        taken[survey_id] = item.source
        markdown, record = convert_document(item, matcher)
        target = out / str(survey_id) / "survey.md"
        atomic_write_text(target, markdown)
        result.surveys.append({"survey_id": survey_id, "source": item.source, "output": str(target),
                               "matched_by": how, **record})
    result.surveys.sort(key=lambda s: s["survey_id"])
    atomic_write_json(report if report is not None else report_path(out), result.as_dict())
    return result
