"""Surveys that address their judge: text that tries to instruct an LLM judge instead of being judged.

A generated survey is data, not instructions. The judge templates quote it between delimiters and tell the
judge to ignore instructions found there (:mod:`surge_dataset.llm.prompts`); this module *flags* the surveys
that try anyway, so a leaderboard row that games its judge is visible. The judged metrics (SQS, CQS,
Rel_LLM, KPR, pairwise) scan the text they quote and add one diagnostic per finding kind, code
:data:`INJECTION_CODE`; ``surge report`` lists the flagged surveys per system (``injection.md``).

What is looked for (case-insensitive, after removing zero-width and bidi-control characters, Unicode NFKC
folding and collapsing white space):

``instruction``  an order to drop the rules: "ignore / disregard / forget / override ... instructions
                 (prompt, rules, rubric, criteria, guidelines)";
``score``        a request for a score or verdict: "give / assign / award / rate this survey (paper, text,
                 section, ...) a 5", "... deserves a 5 / full marks", "you must rate / prefer / choose ...";
``address``      a message to the judge: "dear / attention / note to the AI (LLM, judge, grader, evaluator,
                 reviewer)", "if you are an AI / a language model / a judge";
``verdict``      a pairwise verdict token (``[[A]]``, ``[[B]]``, ``[[C]]``) planted in the text;
``answer``       a quiz answer key planted in the text: "the answer is B", "answers: C", "Q3: D, Q4: A" (an
                 upper-case option letter A-E standing alone after it, so "Question 3: A survey of ..." is not one).

A finding is *hidden* when it sits in an HTML comment or an element styled ``display:none`` / ``hidden``
(invisible when the Markdown is rendered), or when zero-width characters split the phrase or surround it.
A flag is a diagnostic, never a change of score: a survey *about* prompt injection may quote such phrases
legitimately, and the reader of the report decides.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from surge_dataset.core.diagnostics import Diagnostic, diagnostic

__all__ = ["INJECTION_CODE", "InjectionFinding", "find_injections", "injection_diagnostics"]

#: The diagnostic code of a survey whose quoted text addresses the judge.
INJECTION_CODE = "judge_injection"

#: Zero-width characters, soft hyphen, word joiner, BOM and the bidi controls: invisible when rendered.
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_HIDDEN_BLOCKS = (
    ("html_comment", re.compile(r"<!--(.*?)(?:-->|$)", re.S)),
    ("hidden_html", re.compile(r"<(\w+)\b[^>]*(?:display\s*:\s*none|\bhidden\b)[^>]*>(.*?)</\1\s*>", re.S | re.I)),
)
_WINDOW = 40  # characters around a phrase searched for zero-width characters

_WORDS = r"(?:\W+\w+){0,4}?"
_JUDGE = r"(?:ai|a\.i\.|llm|large language model|language model|judge|grader|evaluator|reviewer|assistant|model)s?"
_OBJECT = (r"(?:this|the|my|our)\s+(?:survey|paper|article|text|section|outline|passage|work|review|response|answer"
           r"|submission|document)")
_LETTER = r"\(?(?-i:[A-E])\)?(?=\s*(?:[.,;:)\]]|$|q(?:uestion)?\s*#?\d))"
_TOP = r"(?:\d+(?:\.\d+)?(?:\s*/\s*\d+)?|five|ten|full marks|top marks|a perfect score|the (?:highest|maximum|best)\b)"
PATTERNS: dict[str, re.Pattern[str]] = {
    "instruction": re.compile(
        rf"\b(?:ignore|disregard|forget|override|bypass)\b{_WORDS}\W+(?:instructions?|prompts?|rules|rubrics?|"
        r"criteria|guidelines|directions|system message)\b", re.I),
    "score": re.compile(
        rf"\b(?:give|assign|award|rate|score|grade|mark)\s+(?:{_OBJECT}|it|me|us)\s+(?:an?\s+)?"
        rf"(?:(?:score|rating|grade|mark)\s+(?:of\s+)?)?{_TOP}"
        rf"|\b{_OBJECT}\s+(?:deserves|merits|should (?:get|receive|be given|be rated|be scored))\s+(?:an?\s+)?{_TOP}"
        r"|\byou (?:must|should|will|have to) (?:now )?(?:rate|score|grade|prefer|choose|select|pick|answer|reply"
        r"|respond|output)\b", re.I),
    "address": re.compile(
        rf"\b(?:dear|attention|note (?:to|for)|message (?:to|for))\s+(?:the\s+|any\s+)?{_JUDGE}\b"
        rf"|\bif you are an?\s+{_JUDGE}\b", re.I),
    "verdict": re.compile(r"\[\[\s*[ABC]\s*\]\]"),
    "answer": re.compile(
        rf"\b(?:(?:the\s+)?(?:correct\s+|right\s+)?answers?(?:\s+to\s+(?:every|each|all|the)\s+questions?)?"
        rf"\s*(?:is|are|would be|:|=|->)\s*{_LETTER}|\bq(?:uestion)?\s*#?\d+\s*(?:[:=.)]|->|-)\s*{_LETTER})", re.I),
}


@dataclass(frozen=True)
class InjectionFinding:
    """One phrase that addresses the judge: its kind (see the module docstring), the phrase as found (after
    normalising, at most 80 characters) and how it was hidden (``html_comment``, ``hidden_html``,
    ``zero_width``) or None when it is plain visible text."""

    kind: str
    phrase: str
    hidden: str | None = None


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def _scan(text: str, hidden: str | None) -> list[InjectionFinding]:
    """Findings in ``text`` (invisible characters kept: a phrase they split is then not found here)."""
    found = []
    for kind, pattern in PATTERNS.items():
        for match in pattern.finditer(text):
            window = text[max(0, match.start() - _WINDOW): match.end() + _WINDOW]
            how = hidden or ("zero_width" if _INVISIBLE.search(window) else None)
            found.append(InjectionFinding(kind, _INVISIBLE.sub("", match.group(0))[:80], how))
    return found


def find_injections(text: str) -> list[InjectionFinding]:
    """Every phrase of ``text`` that addresses a judge, each (kind, phrase, hidden) once, in order found."""
    findings: list[InjectionFinding] = []
    visible = text
    for how, block in _HIDDEN_BLOCKS:
        for match in block.finditer(visible):
            findings += [InjectionFinding(f.kind, f.phrase, how)
                         for f in _scan(_INVISIBLE.sub("", _fold(match.group(match.lastindex or 1))), how)]
        visible = block.sub(" ", visible)
    folded = _fold(visible)
    seen_plain = _scan(folded, None)
    findings += seen_plain
    plain_phrases = {(f.kind, f.phrase.lower()) for f in seen_plain}
    findings += [InjectionFinding(f.kind, f.phrase, "zero_width") for f in _scan(_INVISIBLE.sub("", folded), None)
                 if (f.kind, f.phrase.lower()) not in plain_phrases]  # found only once the invisible ones are gone
    return list(dict.fromkeys(findings))


def injection_diagnostics(metric: str, texts: Iterable[str]) -> list[Diagnostic]:
    """One ``judge_injection`` diagnostic per finding kind in the ``texts`` a metric quotes to its judge."""
    by_kind: dict[str, list[InjectionFinding]] = {}
    for text in texts:
        for finding in find_injections(text or ""):
            by_kind.setdefault(finding.kind, []).append(finding)
    diagnostics: list[Diagnostic] = []
    for kind, findings in by_kind.items():
        shown = "; ".join(f"{f.phrase!r}" + (f" (hidden: {f.hidden})" if f.hidden else "")
                          for f in list(dict.fromkeys(findings))[:3])
        diagnostics.append(diagnostic(
            INJECTION_CODE, f"{metric}: the text quoted to the judge addresses it ({kind}: {shown}); "
            "the judge was told to ignore it, the score is not changed",
            kind=kind, hidden=sorted({f.hidden for f in findings if f.hidden})))
    return diagnostics
