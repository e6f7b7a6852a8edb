"""One rule for "is this heading the references section?" (surge_dataset.survey.headings): the same headings fed to
every caller (the ``paper`` parser, ``surge import``'s Markdown reader, the generator's writer, the leaderboard's
survey viewer, the richness metric) get the same answer. The ``official`` protocol has no such rule by design (the
released evaluator reads a References heading as any other node): its parity tests pin that."""

from __future__ import annotations

import pytest

from surge_dataset.generation.draft import Draft, DraftSection
from surge_dataset.generation.markdown import render_markdown
from surge_dataset.importers.markdown import read_markdown
from surge_dataset.leaderboard.citations import marker_spans
from surge_dataset.scoring.richness import count_richness
from surge_dataset.survey import parse_survey
from surge_dataset.survey.headings import is_references_label, is_references_title

REFERENCES = ["References", "REFERENCES", "Reference", "7. References", "VII. Bibliography", "**Works Cited**",
              "References:", "Reference List", "Literature  Cited", "Cited Works", "Sources", "Citations", "_References_"]
CONTENT = ["Related Work", "Data Sources", "References and Notes", "Citation Analysis", "Reference Models",
           "Bibliometrics", "7. Results"]
LABELS = ["References", "References:", "**References:**", "__Bibliography__", "Works Cited", "Sources:"]
NO_LABELS = ["7. References", "- References", "Data Sources", "See the references below.", "Citation Analysis"]
TABLE = "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n"
ENTRY = "[1] Semi-Supervised Classification with Graph Convolutional Networks\n"


def _writer(title: str, text: str = "More text [P1].") -> str:
    draft = Draft("A Survey", [DraftSection("Introduction", "Text [P1]."), DraftSection(title, text)], {"P1": "A Paper"})
    return render_markdown(draft).markdown


def _heading_callers(heading: str) -> dict[str, bool]:
    """What each caller makes of a section headed ``heading``: is it the references section?"""
    text = f"# A Survey\n\n## Introduction\n\nGraph networks learn from graphs [1].\n\n## {heading}\n\n{TABLE}{ENTRY}"
    return {
        "paper parser": heading.strip("*_") not in [n.title for n in parse_survey(text, "paper").headings()],
        "surge import": f"## {heading}" not in read_markdown(text, "k", "test").body,
        "writer": "## Related Literature\n" in _writer(heading),  # renamed: the writer adds the only reference list
        "leaderboard viewer": bool(marker_spans(text)[1]),
        "richness": count_richness(text).tables == 0,  # the reference list is no part of the text
        "the rule": is_references_title(heading),
    }


def _label_callers(line: str) -> dict[str, bool]:
    """What each caller makes of a bare line ``line`` (no heading) before a table and an entry."""
    text = f"# A Survey\n\n## Introduction\n\nGraph networks learn from graphs [1].\n\n{line}\n\n{TABLE}{ENTRY}"
    section = next(n for n in parse_survey(text, "paper").headings() if n.title == "Introduction")
    return {
        "paper parser": line not in section.content,
        "surge import": line not in read_markdown(text, "k", "test").body,
        "writer": f"\n{line}\n" not in _writer("Discussion", f"More text [P1].\n\n{line}\n\nMore."),
        "leaderboard viewer": bool(marker_spans(text)[1]),
        "richness": count_richness(text).tables == 0,
        "the rule": is_references_label(line),
    }


@pytest.mark.parametrize("heading", REFERENCES + CONTENT)
def test_every_caller_reads_a_heading_alike(heading):
    answers = _heading_callers(heading)
    assert set(answers.values()) == {heading in REFERENCES}, answers


@pytest.mark.parametrize("line", LABELS + NO_LABELS)
def test_every_caller_reads_a_bare_line_alike(line):
    answers = _label_callers(line)
    assert set(answers.values()) == {line in LABELS}, answers
