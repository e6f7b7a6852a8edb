"""Derive the ``queries`` config from ``surveys.json`` when the authors' ``queries.json`` is missing.

The authors' Google Drive folder and their download script (``src/download.py``) provide ``surveys.json``
and ``corpus.json`` only, so retriever training (the ``queries`` config's train split) would have no
input. ``queries.json`` is, by its definition (protocol.md §1; the authors' README), "one survey section
with good citation extraction": the section's text, its heading path, a question, the doc ids it cites
and how many of its citations resolved. Everything but the question is a projection of a ``structure``
node and its survey, so :func:`derive_queries` rebuilds it from ``surveys.json``, pure and one survey at
a time (no pass over all surveys per survey).

Rule, field by field (``survey`` is the surveys.json object, ``node`` a ``structure`` entry, walked in
file order; the root -- the node titled ``root`` -- and nodes the root cannot reach are never queries):

* **Which sections.** Neither the paper nor protocol.md publishes a threshold for "good citation
  extraction": the paper (§3) does not describe the queries at all, the README defines
  ``cite_extract_rate`` as resolved / all citations of the section and shows one query at 0.83, and the
  shipped sample (which has both files) keeps every section with content and a citation, down to a rate
  of 1/3. So a section is a query when it has at least :data:`MIN_CITES` resolved citation (and, for
  library callers, a rate of at least ``min_extract_rate``, default 0):

  - *section cites* -- when the survey's nodes carry their own ``cites`` list (the per-section citation
    extraction the authors built ``queries.json`` from; such node fields are kept in ``extra`` by the
    build), a node is a query when its ``cites`` has at least one doc id. ``origin_cites_number`` and
    ``cite_extract_rate`` are the node's own when it has them, else ``len(cites)`` and
    ``len(cites) / origin_cites_number``.
  - *survey cites* (fallback) -- when no node of the survey carries ``cites``, the section's own
    citations are not in the data. The closest the data allows: every section with content (at least
    :data:`~surge_dataset.core.records.CONTENT_MIN_CHARS` characters, protocol.md §4's "sections with
    content") of a survey with a non-empty ``all_cites`` is a query, and its ``cites`` are the survey's
    ``all_cites`` (survey-level qrels, a superset of the section's); ``origin_cites_number`` is
    ``len(all_cites)`` and ``cite_extract_rate`` is null (unknown).

* ``original_id`` -- the node's ``id`` (the README: "the identifier for the section where this query is
  from"). ``query_id`` counts from ``first_query_id`` over all derived queries, in file order.
* ``date``, ``year``, ``category`` -- the survey's. ``content`` -- the node's, unchanged.
* ``prefix_titles`` -- the node's own when it carries a valid one, else ``[["title", survey title]]``
  followed by ``[level, heading]`` for each heading from the top-level section down to the node;
  ``level`` is the node's ``level`` field when it has one, else ``section``, ``subsection``,
  ``subsubsection``, ``paragraph``, ``subparagraph`` by depth. Headings are kept verbatim.
* ``prefix_titles_query`` -- our own deterministic question (:func:`question_from_titles`). The authors'
  questions were written by a language model (free-form, e.g. "What are the future research directions
  for robust and fair training in the context of learning from noisy labels with deep neural
  networks?"; no prompt is published), so ours differ in wording; the title path they were written from,
  ``prefix_titles``, is the same.
* Two fields beyond the schema go to the build's ``extra`` column (and back into an exported file):
  ``derived_from`` (``"surveys.json"``) and ``cites_from`` (``"section"`` or ``"all_cites"``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from typing import Any

from surge_dataset.core.records import CONTENT_MIN_CHARS, ROOT_TITLE
from surge_dataset.data.validate import SurgeDataError

DERIVATION_VERSION = 1
MIN_CITES = 1
LEVEL_NAMES = ("section", "subsection", "subsubsection", "paragraph", "subparagraph")
CITES_FROM_SECTION = "section"
CITES_FROM_SURVEY = "all_cites"
QUESTION_TEMPLATE = (
    "'What does research on <topic> say about <heading>[ in the context of <parent heading>]?', where <topic> "
    "is the survey title without its survey wording ('A Survey of', ': A Review', ...); introductions, "
    "conclusions, backgrounds and future-direction sections get a fixed question about <topic>"
)

# --------------------------------------------------------------------------------------------------
# The question template
# --------------------------------------------------------------------------------------------------

_SURVEY_WORD = re.compile(r"\b(surveys?|reviews?|overview|tutorial|primer)\b", re.IGNORECASE)
_LEADING_SURVEY = re.compile(
    r"^(?:an?\s+|the\s+)?(?:(?:comprehensive|systematic|brief|short|critical|contemporary|literature|structured|"
    r"concise|recent|extensive|position|unified|general)\s+)*(?:surveys?|reviews?|overview|tutorial|primer)\s+"
    r"(?:of|on|for|about|in|to|into)\s+",
    re.IGNORECASE,
)
_PART_SEPARATOR = re.compile(r"\s*:\s*|\s+[-\u2013\u2014]{1,2}\s+|\?\s+")
_NUMBERING = re.compile(r"^\s*(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVXLC]+\.)\s+(?=\S)")  # "2.3 ", "IV. "; not "2019 "
_LETTER = re.compile(r"[^\W\d_]")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+\*?")
_GENERIC: tuple[tuple[re.Pattern[str], str], ...] = (  # whole top-level headings (lower-cased) with a fixed question
    (re.compile(r"introduction|motivation"), "What are the motivation and scope of research on {topic}?"),
    (re.compile(r"background|preliminaries|basics|fundamentals|basic concepts|definitions"),
     "What background is needed to understand research on {topic}?"),
    (re.compile(r"((conclusions?|summary) and )?((open|future|remaining|key|research) )*(challenges|problems|issues|"
                r"questions|directions|work|outlook|perspectives)( and ((open|future|research) )*(challenges|problems|"
                r"directions|work|outlook|opportunities|perspectives))?"),
     "What open challenges and future directions remain in {topic}?"),
    (re.compile(r"conclusions?|concluding remarks|summary|discussion"),
     "What are the main conclusions of research on {topic}?"),
)


def clean_heading(text: str) -> str:
    """A heading as plain words: no LaTeX commands or braces, no leading numbering, single spaces."""
    text = _LATEX_COMMAND.sub(" ", text or "").replace("~", " ")
    text = re.sub(r"[{}$]", "", text)
    text = _NUMBERING.sub("", " ".join(text.split()))
    return text.strip(" .:;,")


@functools.lru_cache(maxsize=8192)  # a survey's headings recur in every path below them
def _phrase(text: str) -> str:
    """Lower-case Title-Case words for use inside a sentence; acronyms (``BERT``, ``GNNs``, ``IoT``, ``5G``) stay."""
    def word(part: str) -> str:
        keep = sum(ch.isupper() for ch in part) > 1 or any(ch.isdigit() for ch in part)
        return part if keep else part.lower()

    return " ".join("-".join(word(p) for p in w.split("-")) for w in clean_heading(text).split(" "))


@functools.lru_cache(maxsize=1024)
def survey_topic(title: str) -> str:
    """The subject of a survey title: ``"Graph Neural Networks: A Survey of ..."`` -> ``graph neural networks``,
    ``"A Survey on Edge Computing Systems"`` -> ``edge computing systems``."""
    text = clean_heading(title)
    for part in _PART_SEPARATOR.split(text):
        leading = _LEADING_SURVEY.match(part)
        if leading and part[leading.end():].strip():
            return _phrase(part[leading.end():])
        if part.strip() and not _SURVEY_WORD.search(part):
            return _phrase(part)
    return _phrase(text)


def question_from_titles(prefix_titles: list[list[str]]) -> str:
    """A retrieval question from a heading path ``[["title", survey title], [level, heading], ...]``."""
    title = prefix_titles[0][-1] if prefix_titles else ""
    topic = survey_topic(title) or "this topic"
    headings: list[str] = []  # the last two headings with letters (a bare "2.3.1" says nothing), last first
    for pair in reversed(prefix_titles[1:]):
        phrase = _phrase(pair[-1]) if pair else ""
        if _LETTER.search(phrase):
            headings.append(phrase)
            if len(headings) == 2:
                break
    if not headings:
        return f"What does research on {topic} cover?"
    last = headings[0]
    if len(headings) == 1:
        for pattern, question in _GENERIC:
            if pattern.fullmatch(last.lower()):
                return question.format(topic=topic)
    context = f" in the context of {headings[1]}" if len(headings) > 1 and headings[1] != last else ""
    return f"What does research on {topic} say about {last}{context}?"


# --------------------------------------------------------------------------------------------------
# Sections -> queries
# --------------------------------------------------------------------------------------------------


def _paths(structure: list[dict[str, Any]]) -> dict[int, list[int]]:
    """Position of each node the root reaches -> positions of its headings, top-level section first.

    One parent lookup per heading level (depth <= 4 in SurGE); a node whose parent chain loops or ends
    anywhere but at the root is left out, as the tree (``Survey.tree()``) leaves it out.
    """
    root = next((i for i, node in enumerate(structure) if node.get("title") == ROOT_TITLE), None)
    if root is None:
        return {}
    position = {node.get("id"): i for i, node in enumerate(structure)}
    paths: dict[int, list[int]] = {root: []}

    def path(i: int) -> list[int] | None:
        chain: list[int] = []
        seen = set()
        while i not in paths:
            if i in seen:
                return None
            seen.add(i)
            chain.append(i)
            parent = position.get(structure[i].get("parent_id"))
            if parent is None:
                return None
            i = parent
        found = paths[i]
        for j in reversed(chain):
            found = paths[j] = [*found, j]
        return found

    for i in range(len(structure)):
        path(i)
    del paths[root]
    return {i: paths[i] for i in sorted(paths)}  # file order, whatever order the parents were found in


def _pairs(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in value)


def _doc_ids(value: Any, source: str, where: str, field: str) -> list[int]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise SurgeDataError(source, f"expected a list of doc ids (integers), found {value!r:.60}", record=where,
                             field=field)
    return list(value)


def survey_queries(survey: dict[str, Any], *, first_query_id: int = 0, min_cites: int = MIN_CITES,
                   min_extract_rate: float = 0.0, source: str = "surveys.json") -> list[dict[str, Any]]:
    """The queries of one survey (official ``queries.json`` objects plus ``derived_from`` / ``cites_from``)."""
    structure = survey.get("structure") or []
    where = f"survey_id={survey.get('survey_id')!r}"
    by_section = any("cites" in node for node in structure)
    all_cites = _doc_ids(survey.get("all_cites"), source, where, "all_cites")
    if not by_section and len(all_cites) < max(min_cites, 1):
        return []
    queries = []
    for i, chain in _paths(structure).items():
        node = structure[i]
        content = node.get("content") or ""
        if by_section:
            cites = _doc_ids(node.get("cites"), source, where, f"structure[{i}].cites")
            origin = node.get("origin_cites_number")
            origin = origin if isinstance(origin, int) and not isinstance(origin, bool) else len(cites)
            rate = node.get("cite_extract_rate")
            if not isinstance(rate, int | float) or isinstance(rate, bool):
                rate = len(cites) / origin if origin else None
            if len(cites) < min_cites or (rate is not None and rate < min_extract_rate):
                continue
        else:
            if len(content) < CONTENT_MIN_CHARS:
                continue
            cites, origin, rate = list(all_cites), len(all_cites), None
        prefix = node.get("prefix_titles")
        if not _pairs(prefix):
            prefix = [["title", survey.get("survey_title") or ""]]
            for depth, j in enumerate(chain):
                level = structure[j].get("level")
                if not isinstance(level, str) or not level or level == ROOT_TITLE:
                    level = LEVEL_NAMES[min(depth, len(LEVEL_NAMES) - 1)]
                prefix.append([level, structure[j].get("title") or ""])
        queries.append({
            "original_id": node.get("id"),
            "query_id": first_query_id + len(queries),
            "date": survey.get("date"),
            "year": survey.get("year"),
            "category": survey.get("category"),
            "content": content,
            "prefix_titles": [list(p) for p in prefix],
            "prefix_titles_query": question_from_titles(prefix),
            "cites": cites,
            "cite_extract_rate": None if rate is None else float(rate),
            "origin_cites_number": origin,
            "derived_from": "surveys.json",
            "cites_from": CITES_FROM_SECTION if by_section else CITES_FROM_SURVEY,
        })
    return queries


def derive_queries(surveys: Iterable[dict[str, Any]], *, first_query_id: int = 0, min_cites: int = MIN_CITES,
                   min_extract_rate: float = 0.0, source: str = "surveys.json"
                   ) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(survey_id, query)`` for every derived query, surveys in the order given (see the module docstring)."""
    next_id = first_query_id
    for survey in surveys:
        for query in survey_queries(survey, first_query_id=next_id, min_cites=min_cites,
                                    min_extract_rate=min_extract_rate, source=source):
            next_id += 1
            yield survey["survey_id"], query
