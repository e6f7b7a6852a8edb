"""Reference titles read whole, under either protocol: what metrics outside the released evaluator read.

The ``official`` reading reproduces the released evaluator for SurGE's own metrics, title pattern included: a
reference line keeps only the run of word/space/``:,.-`` characters that ends it, so ``[5] How Powerful are Graph
Neural Networks?`` is no entry at all and ``[6] BERT (Bidirectional ...) Revisited`` keeps `` Revisited``. A metric
the released evaluator does not have (SurveyGen's ``reference_existence``) must not inherit that cut: it would
call real papers fabricated. :func:`whole_reference_titles` gives, for the same survey and protocol, every reference
entry with its whole title:

* ``paper``: the entries and titles of the ``paper`` reading (already whole);
* ``official``: every line the released evaluator reads as a reference line (stripped, starting with ``[n]`` and
  text; a repeated number keeps the last, as there), with the released title when the pattern kept the whole
  entry text, else (a cut title, or a line the pattern gives no title) the title the ``paper`` reading takes from
  the same text. Entries the released pattern reads whole keep exactly its title, so only cut titles change.
"""

from __future__ import annotations

from dataclasses import dataclass

from surge_dataset.core.vocabulary import OFFICIAL
from surge_dataset.survey.decode import decode_survey_bytes, normalise_newlines, split_lines
from surge_dataset.survey.model import GeneratedSurvey
from surge_dataset.survey.official_parse import OFFICIAL_NUMBERED_LINE_RE, official_reference
from surge_dataset.survey.paper_parse import PAPER_REFERENCE_RE, paper_reference_title
from surge_dataset.survey.tree import to_int

__all__ = ["WholeTitle", "whole_reference_titles"]


@dataclass(frozen=True)
class WholeTitle:
    """One reference entry's whole title; ``protocol_title`` is the protocol's own reading when it differs
    (``None`` with ``cut`` set: the released pattern gave the line no title at all)."""

    number: int
    title: str
    line: int
    cut: bool = False
    protocol_title: str | None = None


def _released_title_is_whole(stripped: str) -> tuple[int, str, bool] | None:
    """(number, released title, whether the released pattern kept the whole entry text), or None."""
    parsed = official_reference(stripped)
    if parsed is None:
        return None
    number, title, start, prefix_end = parsed
    before_at = start - 2 if stripped[start - 1] == "*" else start - 1
    before = stripped[before_at] if before_at >= prefix_end else ""
    return number, title, not (before and not before.isspace())


def whole_reference_titles(text: str | bytes, parsed: GeneratedSurvey) -> dict[int, WholeTitle]:
    """Reference number -> its whole title (module docstring); ``text`` is the survey ``parsed`` was read from."""
    if parsed.protocol != OFFICIAL:
        return {n: WholeTitle(n, r.title, r.line) for n, r in parsed.references.items()}
    if isinstance(text, (bytes, bytearray)):
        text = decode_survey_bytes(bytes(text))[0]
    found: dict[int, WholeTitle] = {}
    for line_number, line in enumerate(split_lines(normalise_newlines(text, keep_bom=True)), 1):
        stripped = line.strip()
        prefix = OFFICIAL_NUMBERED_LINE_RE.match(stripped) if stripped.startswith("[") else None
        number = to_int(prefix.group(1)) if prefix else None
        if prefix is None or number is None or not stripped[prefix.end():].strip():
            continue
        released = _released_title_is_whole(stripped)
        if released is not None and released[2]:
            found[number] = WholeTitle(number, released[1], line_number)
            continue
        entry = PAPER_REFERENCE_RE.match(stripped)
        whole = paper_reference_title(entry.group(2) if entry else stripped[prefix.end():])
        if whole:
            found[number] = WholeTitle(number, whole, line_number, cut=True,
                                       protocol_title=released[1] if released is not None else None)
    return found
