"""The record types of the sample's hand-written tables: topics, survey specifications and their nodes."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    """One research area: its arXiv category, abstract vocabulary and title parts for generated papers."""

    name: str
    category: str
    contexts: tuple[str, ...]
    metrics: tuple[str, ...]
    methods: tuple[str, ...]
    tasks: tuple[str, ...]
    n_generated: int


# Survey nodes: (id, parent_id, title, cited keys, retrieval question or None, content).
Node = tuple[int, int, str, tuple[str, ...], "str | None", str]


@dataclass(frozen=True)
class SurveySpec:
    """A hand-written ground-truth survey; ``all_cites`` is derived from its nodes' cited keys."""

    survey_id: int
    title: str
    date: dt.date
    category: str
    bertopic_cd: float
    abstract: str
    nodes: tuple[Node, ...]
    empty_all_cites: bool = False
