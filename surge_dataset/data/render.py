"""``surge data render``: write a ground-truth survey as a generated one, in the evaluator's Markdown.

Used to check the evaluator end to end (a GT survey scored against itself must reach recall 1,
Doc-Acc 1 and SHR ~ 1) and to show users the exact format ``surge evaluate`` reads: ``#`` x depth
headings, the section text, ``[n]`` citations and a reference list of exact corpus titles.
"""

from __future__ import annotations

import re
from pathlib import Path

from surge_dataset.core.io import atomic_write_text
from surge_dataset.core.output_folder import claim_output_folder
from surge_dataset.core.records import Survey
from surge_dataset.data.corpus import Corpus

# Numeric citation markers already in a GT text (e.g. SurveyGen paragraphs) refer to the source paper's
# own bibliography, not to the rendered reference list, so they are removed.
_SOURCE_CITATION = re.compile(r"\s?\[\d+(?:\s*[,;\u2013-]\s*\d+)*\]")


def render_survey(survey: Survey, corpus: Corpus) -> str:
    """The survey as Markdown; its ``all_cites`` are cited round-robin over the sections with content.

    SurGE does not record which section cites which paper, so each cited paper is attached, in
    ``all_cites`` order, to the next section with text (a closing sentence "See [3], [7].").
    """
    sections = [s for s in survey.tree().walk() if s.depth > 0]
    with_text = [i for i, s in enumerate(sections) if s.content.strip()] or list(range(len(sections)))
    papers = [p for p in corpus.get(survey.all_cites) if p is not None]
    numbers = {p.doc_id: n for n, p in enumerate(papers, start=1)}
    cited: dict[int, list[int]] = {}
    for k, paper in enumerate(papers):
        if with_text:
            cited.setdefault(with_text[k % len(with_text)], []).append(numbers[paper.doc_id])
    lines: list[str] = []
    for i, section in enumerate(sections):
        lines += ["#" * section.depth + " " + section.title, ""]
        text = _SOURCE_CITATION.sub("", section.content).strip()
        if text:
            lines += [text, ""]
        if i in cited:
            lines += ["See " + ", ".join(f"[{n}]" for n in cited[i]) + ".", ""]
    lines += ["# References", ""]
    lines += [f"[{numbers[p.doc_id]}] {p.title}" for p in papers]
    return "\n".join(lines) + "\n"


def render_surveys(surveys: list[Survey], corpus: Corpus, out: str | Path) -> list[Path]:
    """Write ``out/<survey_id>/survey.md`` for each survey (the layout ``surge evaluate`` reads).

    ``out`` is new, empty or an earlier rendering (whose files are replaced); never a folder of other files.
    """
    claim_output_folder(out, "rendered-surveys", "surge data render", inputs=[("--data", corpus.index_dir.parent)])
    written = []
    for survey in surveys:
        path = Path(out) / str(survey.survey_id) / "survey.md"
        atomic_write_text(path, render_survey(survey, corpus))
        written.append(path)
    return written
