"""LLM-judged metrics: SQS and CQS (SurGE, protocol.md §4), Rel_LLM (whole outline and per section) and KPR
(SurveyGen, §8).

Each metric is split in two pure parts: building the judge requests from the surveys, and turning the
judge's outcomes into a number plus diagnostics. The judge is injected (anything with
``run(requests) -> outcomes``, normally :class:`surge_dataset.llm.Judge`), so ``surge evaluate`` can
send the requests of a whole run at once and tests can use a fake judge. A judge answer that could not
be obtained is *missing*: counted and reported, never turned into 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from surge_dataset.core.diagnostics import Diagnostic, diagnostic
from surge_dataset.core.records import CONTENT_MIN_CHARS, Section, Survey
from surge_dataset.core.vocabulary import OFFICIAL, PAPER
from surge_dataset.llm.judge import JudgeOutcome, JudgeRequest
from surge_dataset.llm.prompts import get_prompt
from surge_dataset.scoring.surveygen_metrics import generated_top_level_nodes, is_non_content_section
from surge_dataset.survey import GeneratedSurvey
from surge_dataset.survey.model import walk_nodes

__all__ = [
    "CQS_MAX_CHARS",
    "CQS_PAPER_MAX_CHARS",
    "CQS_SAMPLE_SIZE",
    "CQS_SEED",
    "JudgeScore",
    "SQS_MIN_OUTLINE_CHARS",
    "ScoreJudge",
    "content_quality",
    "cqs_requests",
    "cqs_sample",
    "cqs_texts",
    "cut_section",
    "generated_text",
    "gt_text",
    "is_short_outline",
    "key_point_recall",
    "kpr_check_requests",
    "kpr_extract_request",
    "rel_llm",
    "rel_llm_request",
    "rel_llm_section_requests",
    "rel_llm_sections",
    "relevance_sections",
    "render_gt_outline",
    "sqs_request",
    "structure_quality",
]

#: The released evaluator scores SQS 0 without asking when the generated outline string is shorter.
SQS_MIN_OUTLINE_CHARS = 5
CQS_SAMPLE_SIZE = 20
CQS_SEED = 42
CQS_MAX_CHARS = 1000
KPR_MAX_POINTS = 20
#: Surveys are cut to this many characters in KPR prompts (about 8k tokens), so open judges with a 32k
#: context fit; the cut is recorded as a diagnostic.
KPR_MAX_SURVEY_CHARS = 30_000
#: Under ``--protocol paper`` CQS reads every section whole (the paper's text samples nothing and cuts nothing);
#: only a section the judge could not take is cut, to the budget KPR uses (about 8k tokens: with the rubric and
#: the answer it fits an open judge's 32k context), with a ``cqs_truncated`` diagnostic.
CQS_PAPER_MAX_CHARS = KPR_MAX_SURVEY_CHARS
#: Rel_LLM per section quotes a section's heading and the first this-many characters of its text (about 500
#: tokens: enough to tell what the section is about, and one survey's questions stay cheap); the cut is recorded
#: as a diagnostic, as KPR's is.
REL_SECTION_MAX_CHARS = 2_000


class ScoreJudge(Protocol):
    def run(self, requests: Sequence[JudgeRequest]) -> list[JudgeOutcome]: ...


@dataclass
class JudgeScore:
    """A judged metric of one survey: the value (None when undefined or all answers missing) and counts."""

    value: float | None
    weighted: float | None = None
    items: int = 0  # judge questions the value is built from
    missing: int = 0  # of those, how many got no usable answer
    failed: int = 0  # of the missing, how many because the request itself failed (retried on a rerun)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _aggregate(name: str, outcomes: Sequence[JudgeOutcome]) -> JudgeScore:
    """Mean of the answered scores; missing ones are left out and counted."""
    values = [o.value for o in outcomes if o.value is not None]
    weighted = [o.weighted for o in outcomes if o.weighted is not None]
    missing = sum(1 for o in outcomes if o.value is None)
    diagnostics = []
    if missing:
        reasons = sorted({o.error or "no answer" for o in outcomes if o.value is None})
        diagnostics.append(diagnostic("judge_missing", f"{name}: {missing} of {len(outcomes)} judge answers missing ({'; '.join(reasons)})"))
    return JudgeScore(
        value=float(np.mean(values)) if values else None,
        weighted=float(np.mean(weighted)) if weighted else None,
        items=len(outcomes),
        missing=missing,
        failed=sum(1 for o in outcomes if o.value is None and o.failed),
        diagnostics=diagnostics,
    )


# ------------------------------------------------------------------------------------------- outlines


def render_gt_outline(gt: Survey | Section) -> str:
    """The GT heading tree as the released evaluator showed it to the SQS judge (protocol.md §4).

    From the root's children down, every node (content or not) as ``'#' * depth + ' ' + title`` and a
    line break, and one more line break after each node's subtree.
    """
    root = gt.tree() if isinstance(gt, Survey) else gt
    parts: list[str] = []

    def visit(node: Section, depth: int) -> None:
        parts.append("#" * depth + " " + node.title + "\n")
        for child in node.children:
            visit(child, depth + 1)
        parts.append("\n")

    for child in root.children:
        visit(child, 1)
    return "".join(parts)


def gt_text(gt: Survey) -> str:
    """The GT survey as Markdown (headings ``#`` x depth, then content): what KPR extracts points from."""
    lines = []
    for node in gt.tree().walk():
        if node.depth > 0:
            lines.append("#" * node.depth + " " + node.title)
        if node.content.strip():
            lines.append(node.content.strip())
    return "\n\n".join(lines)


def generated_text(parsed: GeneratedSurvey) -> str:
    """The generated survey re-assembled from its parsed tree (headings and content)."""
    lines = []
    for node in parsed.nodes():
        if node.level > 0:
            lines.append("#" * node.level + " " + node.title)
        if node.content.strip():
            lines.append(node.content.strip())
    return "\n\n".join(lines)


# ------------------------------------------------------------------------------------------------ SQS


def is_short_outline(generated_outline: str) -> bool:
    """The released "< 5 characters" rule: such an outline is scored without asking (SQS 0, Rel_LLM 1)."""
    return len(generated_outline) < SQS_MIN_OUTLINE_CHARS


def sqs_request(gt_outline: str, generated_outline: str, *, style: str | None = None) -> JudgeRequest | None:
    """The SQS question, or None when the generated outline is under 5 characters (scored 0, not asked).

    ``style``: the judge settings (``released`` under ``--protocol official``; see ``llm.judge``).
    """
    if is_short_outline(generated_outline):
        return None
    messages = get_prompt("sqs").render(reference_outline=gt_outline, generated_outline=generated_outline)
    return JudgeRequest.score(messages, 0, 5, style=style)


def structure_quality(gt_outline: str, generated_outline: str, judge: ScoreJudge, *, style: str | None = None) -> JudgeScore:
    """SQS of one survey: one integer 0-5 from the judge; 0 below 5 characters of generated headings."""
    request = sqs_request(gt_outline, generated_outline, style=style)
    if request is None:
        return JudgeScore(0.0, 0.0, diagnostics=[diagnostic("short_outline", "generated headings under 5 characters: SQS = 0")])
    return _aggregate("sqs", judge.run([request]))


# ------------------------------------------------------------------------------------------------ CQS


def cut_section(text: str, max_chars: int = CQS_MAX_CHARS) -> str:
    """Longer than ``max_chars``: cut there, then (unless it ends with '.') back to before its last '.'.

    With no '.' at all ``rfind`` gives -1 and the last character goes, as in the released evaluator.
    """
    if len(text) <= max_chars:
        return text
    text = text[:max_chars]
    if not text.endswith("."):
        text = text[: text.rfind(".")]
    return text


def cqs_sample(sections: Sequence[str], n: int = CQS_SAMPLE_SIZE, seed: int = CQS_SEED) -> list[str]:
    """min(n, len) sections drawn without replacement, then cut (protocol.md §4).

    ``RandomState(seed).choice(len, k, replace=False)`` draws the same indices as the released
    evaluator's ``np.random.seed(42); np.random.choice(sections, k, replace=False)`` (both take the
    first k of one legacy permutation), without touching numpy's global generator.
    """
    if not sections:
        return []
    k = min(n, len(sections))
    indices = np.random.RandomState(seed).choice(len(sections), k, replace=False)
    return [cut_section(sections[int(i)]) for i in indices]


def cqs_texts(sections: Sequence[str], protocol: str = OFFICIAL) -> list[str]:
    """What the CQS judge reads, one text per question: under ``official`` the released sample
    (:func:`cqs_sample`: at most 20 sections, each cut to 1,000 characters); under ``paper`` every section, in
    order, cut only past :data:`CQS_PAPER_MAX_CHARS` (what the judge's context cannot take)."""
    if protocol == PAPER:
        return [cut_section(text, CQS_PAPER_MAX_CHARS) for text in sections]
    return cqs_sample(sections)


def cqs_requests(sections: Sequence[str], *, style: str | None = None, protocol: str = OFFICIAL) -> list[JudgeRequest]:
    """One 0-5 question per text of :func:`cqs_texts` (``sections``: contents with >= 100 characters)."""
    return [JudgeRequest.score(get_prompt("cqs").render(section=text), 0, 5, style=style)
            for text in cqs_texts(sections, protocol)]


def content_quality(sections: Sequence[str], judge: ScoreJudge, *, style: str | None = None,
                    protocol: str = OFFICIAL) -> JudgeScore:
    """CQS of one survey: mean judge score over the texts of :func:`cqs_texts`; None (with a reason) if no
    section qualifies. Under ``paper`` a section cut to fit the judge is named in a ``cqs_truncated`` diagnostic."""
    requests = cqs_requests(sections, style=style, protocol=protocol)
    if not requests:
        return JudgeScore(None, None, diagnostics=[diagnostic(
            "no_cqs_sections", f"no section (root included) has {CONTENT_MIN_CHARS} characters of content: CQS is undefined")])
    score = _aggregate("cqs", judge.run(requests))
    cut = sum(len(text) > CQS_PAPER_MAX_CHARS for text in sections) if protocol == PAPER else 0
    if cut:
        score.diagnostics.insert(0, diagnostic("cqs_truncated", (
            f"{cut} of {len(sections)} sections longer than {CQS_PAPER_MAX_CHARS:,} characters were cut there (back "
            "to their last '.') to fit the judge's context; the rest were scored whole")))
    return score


# -------------------------------------------------------------------------------------------- Rel_LLM


def rel_llm_request(title: str, gt_outline: str, generated_outline: str) -> JudgeRequest | None:
    if is_short_outline(generated_outline):
        return None
    messages = get_prompt("rel_llm").render(title=title, reference_outline=gt_outline, generated_outline=generated_outline)
    return JudgeRequest.score(messages, 1, 5)


def rel_llm(title: str, gt_outline: str, generated_outline: str, judge: ScoreJudge) -> JudgeScore:
    """Rel_LLM: the judge's 1-5 rating of structural alignment; 1 without generated headings (not asked)."""
    request = rel_llm_request(title, gt_outline, generated_outline)
    if request is None:
        return JudgeScore(1.0, 1.0, diagnostics=[diagnostic("short_outline", "generated headings under 5 characters: Rel_LLM = 1")])
    return _aggregate("rel_llm", judge.run([request]))


# ------------------------------------------------------------------------------------ Rel_LLM per section


def relevance_sections(parsed: GeneratedSurvey) -> list[tuple[str, str]]:
    """The sections S of SurveyGen's Relevance_LLM (Appendix D.1), as (heading, text) pairs.

    S is the generated survey's top-level sections, as structural overlap reads them
    (:func:`~surge_dataset.scoring.surveygen_metrics.generated_top_level_nodes`: a lone title heading is read
    one level down, so the survey's own title is not a section), without:

    * non-content sections (references, bibliography, acknowledgements, funding...): they say nothing about the
      topic, so asking whether they are relevant would only measure whether a survey has a reference list;
    * empty headings (a blank title, or no text in the section nor in any of its subsections): a bare heading
      is an outline entry, which Rel_LLM (the whole outline) already judges, not a section to read.

    The text is the section's own content, then each subsection as a Markdown heading and its content
    (non-content subsections left out).
    """
    sections = []
    for node in generated_top_level_nodes(parsed):
        parts, has_text = [], False
        for sub, depth in walk_nodes(node, prune=lambda n: is_non_content_section(n.title)):
            if depth > 0:
                parts.append("#" * (depth + 1) + " " + sub.title)
            if sub.content.strip():
                parts.append(sub.content.strip())
                has_text = True
        if node.title.strip() and has_text:
            sections.append((node.title.strip(), "\n\n".join(parts)))
    return sections


def _section_quote(heading: str, text: str, max_chars: int) -> str:
    return f"# {heading}\n\n{_cut(text, max_chars)[0]}"


def rel_llm_section_requests(title: str, gt_outline: str, sections: Sequence[tuple[str, str]], *,
                             max_chars: int = REL_SECTION_MAX_CHARS) -> list[JudgeRequest]:
    """One 0/1 question per section of :func:`relevance_sections`: is it relevant to the human survey?"""
    prompt = get_prompt("rel_llm_section")
    return [JudgeRequest.score(prompt.render(title=title, reference_outline=gt_outline,
                                             section=_section_quote(heading, text, max_chars)), 0, 1)
            for heading, text in sections]


def rel_llm_sections(title: str, gt_outline: str, sections: Sequence[tuple[str, str]], judge: ScoreJudge, *,
                     max_chars: int = REL_SECTION_MAX_CHARS) -> JudgeScore:
    """Relevance_LLM = (1/|S|) Σ_s I_relevant(s, H): the share of the sections the judge finds relevant.

    0 (not asked) without sections, with a ``no_sections`` diagnostic; an unreadable answer is missing, left
    out of the share and counted (as KPR's).
    """
    if not sections:
        return JudgeScore(0.0, None, diagnostics=[diagnostic(
            "no_sections", "no generated section with a heading and text (references excluded): rel_llm_sections = 0")])
    score = _aggregate("rel_llm_sections", judge.run(rel_llm_section_requests(title, gt_outline, sections,
                                                                              max_chars=max_chars)))
    score.weighted = None  # a 0/1 answer has no meaningful weighted variant here
    cut = sum(len(text) > max_chars for _, text in sections)
    if cut:
        score.diagnostics.insert(0, diagnostic("rel_llm_sections_truncated", (
            f"{cut} of {len(sections)} sections longer than {max_chars:,} characters: the judge read their first "
            f"{max_chars:,}")))
    return score


# ------------------------------------------------------------------------------------------------ KPR


def _cut(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit], True)


def kpr_extract_request(title: str, gt_survey_text: str, *, max_chars: int = KPR_MAX_SURVEY_CHARS,
                        max_points: int = KPR_MAX_POINTS) -> JudgeRequest:
    """The key-point extraction question for a GT survey (identical for every system: cached once)."""
    text, _ = _cut(gt_survey_text, max_chars)
    messages = get_prompt("kpr_extract").render(title=title, survey=text, max_points=max_points)
    return JudgeRequest.points(messages, max_points)


def kpr_check_requests(points: Sequence[str], generated_survey_text: str, *,
                       max_chars: int = KPR_MAX_SURVEY_CHARS) -> list[JudgeRequest]:
    text, _ = _cut(generated_survey_text, max_chars)
    return [JudgeRequest.score(get_prompt("kpr_check").render(key_point=p, survey=text), 0, 1) for p in points]


def key_point_recall(title: str, gt_survey_text: str, generated_survey_text: str, judge: ScoreJudge, *,
                     max_chars: int = KPR_MAX_SURVEY_CHARS, max_points: int = KPR_MAX_POINTS) -> JudgeScore:
    """KPR = share of the GT's key points (extracted by the judge) the judge finds in the generated survey.

    None with a diagnostic when no key points could be extracted; 0 for an empty generated survey.
    """
    extraction = judge.run([kpr_extract_request(title, gt_survey_text, max_chars=max_chars, max_points=max_points)])[0]
    diagnostics = []
    if len(gt_survey_text) > max_chars or len(generated_survey_text) > max_chars:
        diagnostics.append(diagnostic("kpr_truncated", f"a survey longer than {max_chars} characters was cut for KPR"))
    if not extraction.points:
        diagnostics.append(diagnostic("kpr_no_points", f"no key points extracted from the GT survey ({extraction.error})"))
        return JudgeScore(None, None, items=1, missing=1, failed=int(extraction.failed), diagnostics=diagnostics)
    if not generated_survey_text.strip():
        return JudgeScore(0.0, None, diagnostics=diagnostics + [diagnostic("empty_survey", "empty generated survey: KPR = 0")])
    score = _aggregate("kpr", judge.run(kpr_check_requests(extraction.points, generated_survey_text, max_chars=max_chars)))
    score.weighted = None  # a 0/1 check has no meaningful weighted variant here
    score.diagnostics = diagnostics + score.diagnostics
    return score
