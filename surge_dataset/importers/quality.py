"""Quality notes on a peer survey as it came (its body, before citations are renumbered), for the import report:
what a reader of the source would flag and the evaluator's counts do not show.

* **Headings written twice**: the same heading title (case, emphasis and numbering aside) more than once.
* **Sections cut mid-sentence**: a section whose last line of prose (before the next heading, or the survey's end:
  where a token limit cuts) ends without end punctuation (``.`` ``!`` ``?`` ``:`` ``。`` ...; its trailing citation marks aside); list items, table rows, code,
  images and quotes are no prose.
* **Citations restarted per section**: a later section whose citations, in order of first use, begin again at
  ``[1]`` ``[2]`` after earlier sections cited several numbers (a writer numbering each section on its own; the
  merged list then cites the wrong entries).
* **Uncited entries**: entries of the survey's own reference list that no citation names.
* **Citations that name no source**: ChatGPT's ``citeturn0search3`` / ``fileciteturn22file0L1-L1`` tokens, which
  its deep-research Markdown download keeps while dropping the sources they point to.

Notes only: nothing here changes what is written or counted.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from surge_dataset.survey.citations import CITATION_GROUP_RE, read_citation_group
from surge_dataset.survey.headings import ATX_HEADING_RE, strip_wrapping_emphasis
from surge_dataset.survey.tree import FENCE_RE

__all__ = ["quality_notes"]

_END_RE = re.compile(r"[.!?:;\u3002\uff01\uff1f\uff1a\uff1b\u2026\"'\u201d\u2019)\]\uff09\u300d\u300f>]$")
#: Citation marks and emphasis that may close a sentence's line (``. [3]``, ``.[1][2]``, ``.[[3]](url)``, ``<sup>2</sup>``,
#: ``.**``), matched on the line REVERSED from its start: anchored at the line's end, a run of marks would be tried
#: from every position of the line (a line of 40 ``*`` then a letter took minutes).
_TRAILING_REVERSED_RE = re.compile(r"(?:\s*(?:(?:\)[^()\s]*\()?\]\]?[\d,;\s\-\u2013]+\[?\[|>pus/<[^<]*>pus<|[*_]))*\s*")
#: Lines that are no prose: list items, table rows, quotes, images, HTML, rules.
_NOT_PROSE_RE = re.compile(r"^\s*(?:[-*+\u2022]\s|\d+[.)]\s|\||>|!\[|<|[-*_=]{3,}\s*$)")
#: White space a PDF rendering leaves at a line's end (zero-width space, no-break space, BOM) besides ``\s``.
_INVISIBLE = " \t\r\u00a0\u200b\u200c\u200d\ufeff"
_NUMBERING_RE = re.compile(r"^(?:\d+(?:\.\d+)*|[ivxlc]+)[.)]?\s+", re.I)
#: One ChatGPT citation token: ``cite`` then one or more ``turn<n><kind><m>`` (a file's lines ``L1-L9`` after it).
_TOKEN_RE = re.compile(r"(?:file)?cite(?:turn\d+[a-z]+\d+(?:L\d+(?:-L\d+)?)?)+")


def _title(raw: str) -> str:
    return " ".join(_NUMBERING_RE.sub("", strip_wrapping_emphasis(raw).strip()).lower().split())


def _sections(body: str) -> list[tuple[str, list[str]]]:
    """(heading title, its lines up to the next heading) in order; the text before the first heading has title ''."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    in_fence = False
    for line in body.split("\n"):
        if FENCE_RE.match(line):
            in_fence = not in_fence
            sections[-1][1].append("```")
            continue
        heading = None if in_fence else ATX_HEADING_RE.match(line)
        if heading:
            sections.append((strip_wrapping_emphasis(heading.group(2)), []))
        else:
            sections[-1][1].append("```" if in_fence else line)
    return sections


def _cut(lines: list[str]) -> str | None:
    """The section's last prose line when it ends without end punctuation, else None."""
    last = next((line for line in reversed(lines) if line.strip(_INVISIBLE)), None)
    if last is None or last.strip() == "```" or _NOT_PROSE_RE.match(last) or last.rstrip(_INVISIBLE).endswith("$"):
        return None  # no prose, or display math closing
    last = last.rstrip(_INVISIBLE)
    marks = _TRAILING_REVERSED_RE.match(last[::-1])
    text = last[: len(last) - marks.end()].rstrip()  # type: ignore[union-attr]  # ``*``: it always matches
    return None if not text or _END_RE.search(text) else text


def _first_uses(lines: list[str]) -> list[int]:
    seen: dict[int, None] = {}  # in order of first use; a dict, as a list's "in" made 50,000 citations take seconds
    for match in CITATION_GROUP_RE.finditer("\n".join(lines)):
        read = read_citation_group(match.group(1))
        seen.update(dict.fromkeys(read[0] if read else []))
    return list(seen)


def quality_notes(body: str, entries: int, uncited: int) -> dict[str, Any]:
    """The notes on one survey's ``body`` (its reference list taken out): ``entries`` in its own list, ``uncited``
    of them cited by nothing. ``notes`` says each finding in a sentence."""
    sections = _sections(body)
    titles = Counter(_title(t) for t, _ in sections[1:] if _title(t))
    twice = sorted(t for t, n in titles.items() if n > 1)
    # the last section too: a generator stopped by its token limit cuts the survey's end, the commonest cut
    cut = [{"section": title, "ends": text[-80:]} for title, lines in sections if (text := _cut(lines)) is not None]
    restarted, cited_before = [], 0
    for title, lines in sections:
        uses = _first_uses(lines)
        if cited_before >= 2 and uses[:2] == [1, 2]:
            restarted.append(title)
        cited_before = max(cited_before, max(uses, default=0))
    notes = []
    if twice:
        notes.append(f"{len(twice)} heading(s) written twice or more: {', '.join(repr(t) for t in twice[:5])}")
    if cut:
        notes.append(f"{len(cut)} section(s) end mid-sentence (before the next heading or the survey's end): "
                     + "; ".join(f"{c['section'] or '(before the first heading)'!r} ends '...{c['ends'][-40:]}'"
                                 for c in cut[:3]))
    if restarted:
        notes.append(f"citations restart at [1] in {len(restarted)} later section(s) ({', '.join(map(repr, restarted[:3]))}):"
                     " numbered per section, they cite the wrong entries of the merged list")
    if uncited:
        notes.append(f"{uncited} of {entries} entries of the reference list are cited by no citation")
    tokens = len(_TOKEN_RE.findall(body))
    if tokens:
        notes.append(f"{tokens} ChatGPT citation token(s) ('citeturn0search3') name no source: the Markdown download "
                     "of a deep-research report drops the sources they point to (its .docx or PDF export keeps them "
                     "as links); not read as citations")
    return {"headings_twice": twice, "cut_mid_sentence": cut, "citations_restarted": restarted,
            "uncited_entries": uncited, "sourceless_citation_tokens": tokens, "notes": notes}
