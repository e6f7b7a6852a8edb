"""The Inspect task's inputs and its model answers, without Inspect: topics -> prompts, answers -> Markdown.

One sample per survey topic of a split. Its prompt is rendered by the prompt registry
(:mod:`.inspect_prompts`); its metadata carries the survey id and, with a retrieval run, the labelled papers with
their exact corpus titles, so that a log alone is enough to write the survey again (the importer does).

A model answer becomes the evaluator's Markdown by the baselines' writer: the answer is read by the
``paper`` parser (:func:`~surge_dataset.survey.parse_survey`) into a :class:`~surge_dataset.generation.Draft`
(its ``#`` title is the topic's, its headings and text are the model's, any reference list it wrote is
dropped), then :func:`~surge_dataset.generation.render_markdown` numbers the ``[P<n>]`` labels by first
use and lists their exact corpus titles. Without a run (Fully-LLMGen) the labels' titles are the ones
the model listed itself, as ``llm_only`` does. An answer with no heading and no citation still renders
(its text under one "Introduction" section, no reference): it scores 0 recall, never an error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import SettingError
from surge_dataset.core.vocabulary import ALL_SPLITS, PAPER, parse_ids
from surge_dataset.generation import (
    Draft,
    DraftSection,
    RenderedSurvey,
    is_references_title,
    label_of,
    render_markdown,
)
from surge_dataset.generation.inputs import read_run_topk, usable_papers
from surge_dataset.generation.inspect_prompts import (
    INSPECT_PROMPTS_VERSION,
    PAPERS_PROMPT,
    TOPIC_PROMPT,
    paper_lines,
)
from surge_dataset.llm.prompts import get_prompt
from surge_dataset.survey import SurveyNode, parse_survey

__all__ = ["INFO_KEY", "MARKDOWN_KEY", "RENDER_INFO_KEYS", "draft_of", "render_answer", "render_info", "sample_markdown",
           "survey_inputs"]

#: What :func:`render_answer` reports beside the Markdown (kept in each sample's store).
RENDER_INFO_KEYS = ("references", "citations", "dropped_citations", "dropped_labels")
_FENCED_RE = re.compile(r"^\s*(```|~~~)[^\n]*\n(.*?)\n[ \t]*\1\s*$", re.S)


def survey_inputs(
    data: Any, split: str | None = "test", survey_ids: str | Sequence[int] | int | None = None,
    run: str | Path | None = None, top_k: int = 100,
) -> list[tuple[list[dict[str, str]], dict[str, Any]]]:
    """One ``(messages, metadata)`` per survey topic: the chat prompt and what scoring and importing need.

    ``split``: a split of the dataset (``None`` or ``"all"``: every survey); ``survey_ids``: ids or ranges
    (``"0-9,12"``), in the dataset's order; ``run``: a survey-title TREC run whose top ``top_k`` papers
    of each topic go into the prompt (each topic must have a ranking).
    """
    ids = parse_ids([survey_ids] if isinstance(survey_ids, int) else survey_ids)
    surveys = data.surveys(None if split in (None, ALL_SPLITS) else split)
    if not surveys:
        raise SettingError(f"split {split!r} of {data.path} has no surveys (its splits: "
                         f"{', '.join(data.splits('surveys'))})")
    if ids:
        unknown = sorted(set(ids) - {s.survey_id for s in surveys})
        if unknown:
            raise SettingError(f"survey ids {unknown} are not in split {split!r} of {data.path}")
        surveys = [s for s in surveys if s.survey_id in set(ids)]
    ranked = read_run_topk(run, top_k) if run is not None else None
    inputs = []
    for survey in surveys:
        metadata: dict[str, Any] = {"survey_id": survey.survey_id, "title": survey.survey_title,
                                    "date": survey.date, "prompts_version": INSPECT_PROMPTS_VERSION}
        if ranked is None:
            metadata["prompt"] = TOPIC_PROMPT
            messages = get_prompt(TOPIC_PROMPT).render(topic=survey.survey_title)
        else:
            if survey.survey_id not in ranked:
                raise SettingError(f"the run {run} has no ranking for survey {survey.survey_id}")
            papers = usable_papers(data.corpus.get(ranked[survey.survey_id]))
            labelled = [(label_of(i), paper) for i, paper in enumerate(papers)]
            metadata["prompt"] = PAPERS_PROMPT
            metadata["papers"] = [{"label": label, "doc_id": p.doc_id, "title": p.title} for label, p in labelled]
            messages = get_prompt(PAPERS_PROMPT).render(topic=survey.survey_title, papers=paper_lines(labelled))
        inputs.append((messages, metadata))
    return inputs


def _unfence(text: str) -> str:
    """An answer wrapped whole in a code fence (```markdown ... ```) without the fence: headings inside a
    fence are not headings to the parser."""
    match = _FENCED_RE.match(text)
    return match.group(2) if match else text


def _section(node: SurveyNode) -> DraftSection:
    return DraftSection(node.title, node.content,
                        [_section(child) for child in node.children if not is_references_title(child.title)])


def draft_of(answer: str, title: str, sources: Mapping[str, str], listed: Sequence[str] = ()) -> Draft:
    """The model's Markdown answer as a draft titled ``title``: its headings nested as written (one ``#``
    heading over everything is the model's title, and its sections become the survey's), text before the
    first section under "Introduction", any references section dropped."""
    root = parse_survey(_unfence(answer or ""), PAPER).root
    nodes = [n for n in root.children if not is_references_title(n.title)]
    preface = [root.content]
    if len(nodes) == 1 and nodes[0].children:
        preface.append(nodes[0].content)
        nodes = [n for n in nodes[0].children if not is_references_title(n.title)]
    text = "\n\n".join(part.strip() for part in preface if part.strip())
    sections = [DraftSection("Introduction", text)] if text else []
    return Draft(title=title, sections=sections + [_section(n) for n in nodes], sources=dict(sources),
                 listed=list(listed))


def render_answer(answer: str, metadata: Mapping[str, Any]) -> RenderedSurvey:
    """The evaluator's Markdown of one sample's answer (``metadata`` as :func:`survey_inputs` made it).

    With papers, a label's title is the paper's exact corpus title and any list the model wrote is
    ignored; without, the model's own ``[n] Title`` list names the papers (every entry listed, as
    ``llm_only`` does), and citations of numbers it never listed are dropped and counted.
    """
    papers = metadata.get("papers")
    if papers is not None:
        sources = {str(p["label"]): str(p["title"]) for p in papers}
        listed: list[str] = []
    else:
        references = parse_survey(_unfence(answer or ""), PAPER).references
        sources = {f"P{n}": ref.title for n, ref in sorted(references.items()) if ref.title.strip()}
        listed = list(sources)
    return render_markdown(draft_of(answer, str(metadata.get("title") or "Survey"), sources, listed))


def render_info(rendered: RenderedSurvey) -> dict[str, Any]:
    """What the writer did, for the sample's store: references written, citations kept and dropped."""
    return {"references": len(rendered.references), "citations": rendered.citations,
            "dropped_citations": rendered.dropped_citations, "dropped_labels": list(rendered.dropped_labels)}


#: Where the Inspect task's solver (:func:`surge_dataset.inspect.task.write_survey`) keeps the evaluator's Markdown (and what the writer did) in a sample's store.
MARKDOWN_KEY = "surge:markdown"
INFO_KEY = "surge:render"


def sample_markdown(store: Any, completion: str, sample_metadata: dict[str, Any]) -> str:
    """The evaluator's Markdown of a sample: what the task's solver stored, else the answer rendered now."""
    stored = store.get(MARKDOWN_KEY) if store is not None else None
    return stored if isinstance(stored, str) else render_answer(completion, sample_metadata).markdown
