"""The draft model: what a generator is asked to write about (:class:`Topic`) and what it returns (:class:`Draft`).

A draft cites papers by *label*: the label of the i-th given paper is ``P<i+1>`` (:func:`label_of`); the
Markdown writer (:mod:`.markdown`) turns labels into numbered citations and a reference list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Draft", "DraftSection", "GuideSection", "Topic", "label_of"]


@dataclass(frozen=True)
class GuideSection:
    """A node of a ground-truth outline given to the ``guided`` system: heading, its cited papers, children.

    Content is deliberately absent: the guided system sees the human outline, never the human text.
    """

    title: str
    doc_ids: tuple[int, ...] = ()
    children: tuple[GuideSection, ...] = ()


@dataclass(frozen=True)
class Topic:
    """What a generator is asked to write about: a survey of the dataset, by id, title and date."""

    survey_id: int
    title: str
    date: str | None = None
    #: Ground-truth outline with cited papers per section (only for systems with ``inputs="ground_truth"``).
    guidance: tuple[GuideSection, ...] | None = None


@dataclass
class DraftSection:
    """One heading with its text (citing by label) and its subsections."""

    title: str
    text: str = ""
    children: list[DraftSection] = field(default_factory=list)


@dataclass
class Draft:
    """A generated survey before rendering: citations are labels, ``sources`` maps label -> title."""

    title: str
    sections: list[DraftSection]
    #: label (``P3``) -> the title written in the reference list (the exact corpus title for papers).
    sources: dict[str, str] = field(default_factory=dict)
    #: Fallbacks the generator took (empty outline, unparseable answer ...), recorded in the sidecar.
    notes: list[str] = field(default_factory=list)
    #: Anything else worth keeping (e.g. QUAL-SG's selected papers), recorded in the sidecar as ``system_info``.
    extra: dict[str, Any] = field(default_factory=dict)
    #: Labels listed in the references even when the text never cites them (``llm_only``: the model's
    #: own reference list is its output), after the cited ones.
    listed: list[str] = field(default_factory=list)


def label_of(index: int) -> str:
    """The citation label of the ``index``-th (0-based) given paper."""
    return f"P{index + 1}"
