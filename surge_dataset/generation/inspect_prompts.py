"""The prompts of the Inspect task, registered in :mod:`surge_dataset.llm.prompts` (named, versioned).

Two templates, one per input mode: ``inspect.survey.papers`` (a TREC run's top-k papers are shown as
``[P3] Title. Abstract: ...`` lines and cited back by label, as the baselines do) and
``inspect.survey.topic`` (the topic only, Fully-LLMGen: the model cites ``[n]`` and lists its own
``[n] Title`` references). Both ask for the evaluator's Markdown (protocol.md §2); the writer of the
baselines (:func:`~surge_dataset.generation.render_markdown`) then numbers the citations and writes
the reference list. A change to either template must bump :data:`INSPECT_PROMPTS_VERSION`, which
every sample and every results file records.
"""

from __future__ import annotations

from collections.abc import Sequence

from surge_dataset.core.records import Paper
from surge_dataset.generation.inputs import paper_lines as generation_paper_lines
from surge_dataset.llm.prompts import PROMPTS, PromptTemplate, register

__all__ = ["ABSTRACT_CHARS", "INSPECT_PROMPTS_VERSION", "PAPERS_PROMPT", "TOPIC_PROMPT", "paper_lines"]

#: Bump when a template below changes.
INSPECT_PROMPTS_VERSION = "surge-inspect-1"
PAPERS_PROMPT = "inspect.survey.papers"
TOPIC_PROMPT = "inspect.survey.topic"
#: Abstract characters shown per paper: the baselines' default (``abstract_chars``).
ABSTRACT_CHARS = 500

_SYSTEM = (
    "You are an expert researcher writing a scientific literature survey. You write formal, precise "
    "academic prose in Markdown: the survey's title as a '# ' heading, its main sections as '## ' "
    "headings and their subsections as '### ' headings, each heading followed by paragraphs of text. "
    "You write headings as plain titles (no numbering, no bold), no abstract, no table of contents, "
    "and nothing before the title or after the survey."
)

_TEMPLATES = [
    PromptTemplate(
        name=PAPERS_PROMPT,
        description="Inspect task: a whole survey from the topic and a retrieval run's top-k papers, cited by label.",
        system=_SYSTEM,
        user=(
            "Write a comprehensive survey titled \"{topic}\". These are the papers available to it, each "
            "with its label:\n{papers}\n\n"
            "Organise the papers into a clear structure of sections and subsections. Every paragraph must "
            "cite the papers that support its statements, by their labels in square brackets placed before "
            "the full stop, as in: \"Spectral filters generalise convolution to graphs [P2, P5].\" Cite only "
            "labels from the list above, and do not write a reference list: it is added from your labels."
        ),
    ),
    PromptTemplate(
        name=TOPIC_PROMPT,
        description="Inspect task: a whole survey from the topic alone (Fully-LLMGen), with its own reference list.",
        system=_SYSTEM,
        user=(
            "Write a comprehensive survey titled \"{topic}\" from your own knowledge of the literature (no "
            "papers are given). Cite the papers that support each statement by numbers in square brackets "
            "placed before the full stop, as in: \"Spectral filters generalise convolution to graphs [2, 5].\" "
            "End with a '## References' section that lists every cited paper once, one per line, as "
            "'[n] Exact title of the paper'."
        ),
    ),
]

for _template in _TEMPLATES:
    if PROMPTS.get(_template.name) != _template:  # importing twice (a reloaded module) is not a clash
        register(_template)


def paper_lines(labelled: Sequence[tuple[str, Paper]], abstract_chars: int = ABSTRACT_CHARS) -> str:
    """The given papers as the baselines show them (:func:`surge_dataset.generation.inputs.paper_lines`)."""
    return generation_paper_lines(labelled, abstract_chars)
