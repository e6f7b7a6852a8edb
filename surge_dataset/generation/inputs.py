"""What a generator is given per survey: its topic, the top-k papers of a run, or the GT outline."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.records import Paper, Survey
from surge_dataset.generation.draft import GuideSection, Topic

__all__ = ["guidance_of", "paper_lines", "read_run_topk", "topic_of", "usable_papers"]


def topic_of(survey: Survey) -> Topic:
    return Topic(survey.survey_id, survey.survey_title, survey.date)


def guidance_of(survey: Survey, queries: Iterable[Any]) -> tuple[GuideSection, ...]:
    """The GT outline with the papers each section cites (from ``queries.json``; no section text).

    A query's ``prefix_titles`` give the heading path of the section it was extracted from; its
    ``cites`` are that section's papers. Cited papers no query assigns stay unassigned here (the
    guided system places them by similarity).
    """
    cites_by_path: dict[tuple[str, ...], list[int]] = {}
    for query in queries:
        if query.survey_id != survey.survey_id:
            continue
        path = tuple(str(t) for _, t in query.prefix_titles[1:])
        bucket = cites_by_path.setdefault(path, [])
        bucket.extend(d for d in query.cites if d not in bucket)

    def build(section: Any, path: tuple[str, ...]) -> GuideSection:
        here = (*path, section.title)
        return GuideSection(
            title=section.title,
            doc_ids=tuple(cites_by_path.get(here, ())),
            children=tuple(build(child, here) for child in section.children),
        )

    return tuple(build(child, ()) for child in survey.tree().children)


def read_run_topk(run_path: str | Path, top_k: int) -> dict[int, list[int]]:
    """``{survey_id: [doc_id, ...]}``: the top-k of a survey-title run (query id = survey id)."""
    from surge_dataset.retrieval.runs import QUERY_TYPES, RunFormatError, read_run_metadata, read_trec_run

    meta = read_run_metadata(run_path)
    if meta.get("query_type") not in (None, QUERY_TYPES[0]):  # titles
        raise RunFormatError(
            f"{run_path}: a {meta.get('query_type')!r} run; generation needs a survey-title run "
            "(`surge retrieve --query-type titles`), whose query ids are survey ids"
        )
    ranked: dict[int, list[int]] = {}
    for qid, scores in read_trec_run(run_path).items():
        if not qid.strip().lstrip("-").isdigit():
            continue
        order = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        ranked[int(qid)] = [int(doc) for doc, _ in order[:top_k] if doc.strip().isdigit()]
    return ranked


def usable_papers(papers: Iterable[Paper | None]) -> list[Paper]:
    """Papers whose title can resolve (letters a-z present), without repeats, in the given order."""
    seen: set[int] = set()
    out = []
    for paper in papers:
        if paper is None or paper.doc_id in seen or not normalise_title(paper.title):
            continue
        seen.add(paper.doc_id)
        out.append(paper)
    return out


def all_queries(data: Any) -> list[Any]:
    """Every query of the dataset, or none when it was built without queries.json."""
    try:
        return list(data.queries())
    except (FileNotFoundError, KeyError):
        return []


def paper_lines(labelled: Sequence[tuple[str, Paper]], abstract_chars: int) -> str:
    """``[P3] Title. Abstract: ...`` lines (abstract cut to ``abstract_chars``; 0 = titles only): how the
    baselines and the Inspect task show the given papers to a model."""
    lines = []
    for label, paper in labelled:
        line = f"[{label}] {' '.join(paper.title.split())}"
        abstract = " ".join((paper.abstract or "").split())
        if abstract_chars > 0 and abstract:
            cut = abstract[:abstract_chars]
            line += f". Abstract: {cut}{'...' if len(abstract) > abstract_chars else ''}"
        lines.append(line)
    return "\n".join(lines) if lines else "(no papers)"
