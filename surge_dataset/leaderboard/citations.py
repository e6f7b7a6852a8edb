"""``surge evaluate --details`` records -> the viewer's rows: one per citation instance or reference entry,
with its verdict, its evidence and the place of its ``[n]`` in the survey's text.

Verdicts (the colours of the survey viewer), from the sentence-level item of a citation (Sent-Acc's;
section level when only that was scored) or the document-level item of a reference entry:

* ``supported``: the NLI item scored 1 (entailment on top);
* ``partly supported``: it scored 0.5 (neutral on top; under ``official`` only when entailment beats
  contradiction);
* ``not supported``: it scored 0;
* ``unresolved reference``: the reference's title matches no corpus paper (not in the corpus: made up, or a real paper outside it);
* ``missing number``: the citation's number is absent from the reference list;
* ``not scored``: resolved, but no NLI metric ran (the details hold the resolution only).

Placement: citation records come in document order, so each is matched to the next ``[...]`` group in
the text that holds its number (``[3]``, ``[1, 4]``, ``[2-5]``; under ``official`` the reference list's
own ``[n]`` are citation instances too); reference records to the ``[n]`` that starts a line of the
reference list. A record that cannot be placed keeps ``start = -1`` and is still
listed in the viewer's evidence table.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import orjson

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.io import reading_input
from surge_dataset.core.vocabulary import OFFICIAL, PAPER
from surge_dataset.survey.citations import CITATION_ITEM_RE, expand_citation_range
from surge_dataset.survey.headings import references_lines

SUPPORTED, PARTLY, NOT_SUPPORTED = "supported", "partly supported", "not supported"
UNRESOLVED, MISSING, NOT_SCORED = "unresolved reference", "missing number", "not scored"
VERDICTS = (SUPPORTED, PARTLY, NOT_SUPPORTED, UNRESOLVED, MISSING, NOT_SCORED)
#: The kinds of ``--details`` records the viewer shows (ALCE's per-sentence records are left out).
KINDS = ("citation", "reference")

#: How the protocol turns NLI logits into a score (scoring/citations.py ``nli_item_score``), per level.
NLI_RULES: dict[str, str] = {
    OFFICIAL: ("official protocol (the released evaluator): 1 if entailment is strictly the top NLI logit, 0.5 if "
               "neutral is strictly top and entailment beats contradiction, else 0; {level}-level pair"),
    PAPER: "paper protocol: the arg-max NLI label scores entailment 1, neutral 0.5, contradiction 0; {level}-level pair",
}
LEVEL_NAMES = {"sent": "sentence", "sec": "section", "doc": "document"}

#: Any bracketed group of numbers, a link's ``[3](...)`` too: the ``official`` protocol counts every ``[n]`` (so the
#: viewer must place those), the ``paper`` protocol its citation groups (:mod:`surge_dataset.survey.citations`).
_GROUP_RE = re.compile(r"\[\^?\s*(\d+(?:\s*[-\u2013\u2014,;]\s*\d+)*)\s*\]")


def read_details(path: Path, survey_ids: Iterable[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """survey id -> its citation/reference records, in file order. A broken line, a record the details schema does
    not hold (:class:`~.schema.DetailsRecord`) or one about a survey not in ``survey_ids`` is refused naming the
    file and the line."""
    from pydantic import ValidationError

    from surge_dataset.evaluation.schema import DetailsRecord, refusal

    known = None if survey_ids is None else set(survey_ids)
    by_survey: dict[str, list[dict[str, Any]]] = {}
    with reading_input(path), open(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise InputFileError(f"{path}: line {number} is not JSON ({exc}): truncated or not a "
                                     "`surge evaluate --details` file") from None
            if not isinstance(record, dict) or "survey_id" not in record:
                raise InputFileError(f"{path}: line {number} has no 'survey_id': not a `surge evaluate --details` file")
            try:
                DetailsRecord.model_validate(record)
            except ValidationError as exc:
                raise InputFileError(refusal(f"{path}: line {number}", exc)) from None
            if known is not None and str(record["survey_id"]) not in known:
                raise InputFileError(f"{path}: line {number} is about survey {record['survey_id']}, which its results "
                                     "do not score: pass the --details file of the same run")
            if record.get("kind") in KINDS and record.get("metric") != "reference_existence":  # its own records
                by_survey.setdefault(str(record["survey_id"]), []).append(record)
    return by_survey


def _level(record: Mapping[str, Any]) -> str | None:
    for level in ("sent", "sec", "doc"):
        if f"{level}_score" in record or f"{level}_why" in record:
            return level
    return None


def verdict(record: Mapping[str, Any]) -> str:
    level = _level(record)
    why = str((record.get(f"{level}_why") if level else record.get("why")) or "")
    if why.startswith("reference number missing"):
        return MISSING
    if record.get("doc_id") is None:
        return UNRESOLVED
    score = record.get(f"{level}_score") if level else None
    if score is None:
        return NOT_SCORED
    return SUPPORTED if score >= 1 else PARTLY if score >= 0.5 else NOT_SUPPORTED


def rule(record: Mapping[str, Any], protocol: str) -> str:
    """The protocol rule that gave this item its score, in words."""
    level = _level(record)
    why = str((record.get(f"{level}_why") if level else record.get("why")) or "")
    if why == "nli" and level:
        return NLI_RULES.get(protocol, NLI_RULES[OFFICIAL]).format(level=LEVEL_NAMES[level])
    score = record.get(f"{level}_score") if level else None
    prefix = f"scored {score:g} without the model: " if isinstance(score, (int, float)) else ""
    return prefix + (why or "resolution only")


def _entailment(record: Mapping[str, Any], level: str) -> float | None:
    probs = record.get(f"{level}_probs")
    return float(probs["entailment"]) if isinstance(probs, dict) and "entailment" in probs else None


def marker_spans(text: str) -> tuple[list[tuple[int, int, list[int]]], list[tuple[int, int, int]]]:
    """(citation spans, reference-list spans): where each number of each ``[...]`` group stands.

    A reference-list line's ``[n]`` is in both lists: the ``official`` protocol counts it as a citation
    instance too (the released evaluator's quirk), and it is where the reference entry itself stands.
    """
    starts = list(references_lines(text))  # the parser's rule: a References heading or a bare References: line
    refs_from = starts[-1].end() if starts else len(text)
    citations, references = [], []
    for group in _GROUP_RE.finditer(text):
        inner, offset = group.group(1), group.start(1)
        if inner.isdigit():  # the common case, [12]: no item loop
            items = [(offset, offset + len(inner), int(inner), int(inner))]
        else:
            items = [(offset + m.start(), offset + m.end(), int(m.group(1)), int(m.group(2) or m.group(1)))
                     for m in CITATION_ITEM_RE.finditer(inner)]
        if group.start() >= refs_from and (group.start() == 0 or text[group.start() - 1] == "\n"):
            references.append((items[0][0], items[0][1], items[0][2]))
        for start, end, first, last in items:
            citations.append((start, end, expand_citation_range(first, last)))
    return citations, references


def _place(records: list[dict[str, Any]], text: str | None) -> list[tuple[int, int]]:
    if not text:
        return [(-1, -1)] * len(records)
    citations, references = marker_spans(text)
    at: dict[int, deque[int]] = {}  # number -> the spans holding it, in text order, each used once
    for j, (_, _, numbers) in enumerate(citations):
        for number in numbers:
            at.setdefault(number, deque()).append(j)
    ref_at = {number: (start, end) for start, end, number in references}
    cursor, places = 0, []
    for record in records:
        number = record.get("number")
        if record.get("kind") == "reference":
            places.append(ref_at.get(number, (-1, -1)))
            continue
        queue = at.get(number) if isinstance(number, int) else None
        while queue and queue[0] < cursor:
            queue.popleft()
        if not queue:
            places.append((-1, -1))
            continue
        cursor = queue.popleft()
        places.append(citations[cursor][:2])
    return places


#: The columns of ``citations.parquet``: one row per citation instance / reference entry. ``verdict_counts`` is set
#: on each survey's first row only: the verdicts of *all* its records (JSON), exact when rows were capped.
COLUMNS = ("system", "survey_id", "seq", "kind", "number", "heading", "sentence", "sentence_from", "sentence_len",
           "doc_id", "verdict", "score", "entailment", "sec_score", "sec_entailment", "rule", "start", "length",
           "verdict_counts")
#: Rows stored per survey: the first ones in document order. A details file may hold hundreds of thousands of records
#: for one survey; the viewer shows a page of them at a time, and storing them all made the Space (and the survey's
#: read) grow with the submission while adding nothing a person pages through. The verdict counts stay exact.
MAX_ROWS_PER_SURVEY = 5_000


def citation_rows(
    columns: dict[str, list[Any]], system: str, survey_id: str, records: list[dict[str, Any]], text: str | None,
    protocol: str, *, limit: int = MAX_ROWS_PER_SURVEY,
) -> int:
    """Append one survey's rows to ``columns`` (:data:`COLUMNS`), at most ``limit`` of them; returns how many records
    the survey has (all of them, stored or not).

    A sentence found verbatim around its marker is stored as offsets into the survey's text (the text is
    in the Space anyway; this halves the data), otherwise as a string.
    """
    counts: dict[str, int] = {}
    for record in records:
        name = verdict(record)
        counts[name] = counts.get(name, 0) + 1
    kept = records[: max(0, limit)]  # placement is sequential: the first rows are placed as in the whole survey
    rules: dict[tuple[Any, str, Any], str] = {}
    for seq, (record, (start, end)) in enumerate(zip(kept, _place(kept, text), strict=True)):
        level = _level(record) or "sent"
        doc_id, sentence = record.get("doc_id"), record.get("sentence")
        back = size = None
        if text is not None and start >= 0 and isinstance(sentence, str) and sentence:
            found = text.find(sentence, max(0, start - len(sentence)), end + len(sentence))
            if 0 <= found <= start and found + len(sentence) >= end:
                back, size, sentence = start - found, len(sentence), None
        why_key = (record.get(f"{level}_why", record.get("why")), level, record.get(f"{level}_score"))
        if why_key not in rules:
            rules[why_key] = rule(record, protocol)
        values = (system, survey_id, seq, record.get("kind"), record.get("number"), record.get("heading"), sentence,
                  back, size, doc_id if isinstance(doc_id, int) else None, verdict(record),
                  record.get(f"{level}_score"), _entailment(record, level), record.get("sec_score"),
                  _entailment(record, "sec"), rules[why_key], start, end - start if start >= 0 else 0,
                  orjson.dumps(counts).decode() if seq == 0 else None)
        for name, value in zip(COLUMNS, values, strict=True):
            columns[name].append(value)
    return len(records)


def reference_titles(records: Iterable[dict[str, Any]]) -> dict[int, str]:
    """doc id -> the title the survey gave it (resolution-only details carry it), for when no corpus is at hand."""
    return {int(r["doc_id"]): str(r["title"]) for r in records
            if isinstance(r.get("doc_id"), int) and isinstance(r.get("title"), str)}
