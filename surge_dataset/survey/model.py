"""The data model of a parsed generated survey: heading tree, reference list, citation instances, diagnostics.

The protocol-specific choices the model needs (which headings count, which nodes are content) come from
:mod:`.headings`, so the model and both parsers read one definition of each skip rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from surge_dataset.core.diagnostics import Diagnostic
from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.records import CONTENT_MIN_CHARS
from surge_dataset.core.vocabulary import OFFICIAL
from surge_dataset.survey.headings import is_references_node, official_skipped, paper_heading_skipped


@dataclass(frozen=True)
class SurveyNode:
    """One heading and the text under it; the root (level 0, title ``root``) holds text before any heading."""

    title: str
    level: int
    content: str
    children: list[SurveyNode] = field(default_factory=list)
    line: int = 0  # 1-based line of the heading; 0 for the root


@dataclass(frozen=True)
class Reference:
    """One reference-list entry: the number the text cites it by and the title extracted from it."""

    number: int
    title: str
    raw: str
    line: int

    @property
    def normalised_title(self) -> str:
        """The title as resolution compares it (letters a-z only, lower-cased)."""
        return normalise_title(self.title)


@dataclass(frozen=True)
class Citation:
    """One citation instance: the cited number, the node whose content holds it, and its sentence."""

    number: int
    node_title: str
    sentence: str
    position: int  # character offset of the citation's bracket in that node's content


@dataclass(frozen=True)
class GeneratedSurvey:
    """A parsed generated survey; the helpers apply the protocol's own skip rules."""

    root: SurveyNode
    references: dict[int, Reference]
    citations: list[Citation]
    diagnostics: list[Diagnostic]
    protocol: str

    def nodes(self) -> list[SurveyNode]:
        """Every node in document order (pre-order), root first."""
        return [node for node, _depth in walk_nodes(self.root)]

    def headings(self) -> list[SurveyNode]:
        """The generated headings (SHR's H_P, SQS's tree) in document order, skip rule applied."""
        return [node for node, _depth in self._heading_walk()]

    def heading_titles(self) -> list[str]:
        """Titles of :meth:`headings`, the strings SHR embeds."""
        return [node.title for node in self.headings()]

    def content_sections(self, min_chars: int = CONTENT_MIN_CHARS) -> list[SurveyNode]:
        """Nodes, root included, whose content has at least ``min_chars`` characters (CQS, ROUGE, BLEU)."""
        return [node for node in self._content_nodes() if len(node.content) >= min_chars]

    def heading_markdown(self) -> str:
        """The generated tree as the SQS judge sees it: ``#`` x (depth + 1), one line per kept heading.

        ``official`` ends every line with ``\n`` as the released evaluator does (so its "< 5 characters"
        cut counts the newlines too); ``paper`` joins the lines with ``\n``.
        """
        lines = ["#" * (depth + 1) + " " + node.title for node, depth in self._heading_walk()]
        if self.protocol == OFFICIAL:
            return "".join(line + "\n" for line in lines)
        return "\n".join(lines)

    def _heading_walk(self) -> Iterator[tuple[SurveyNode, int]]:
        if self.protocol == OFFICIAL:
            return ((n, d) for n, d in walk_nodes(self.root) if d > 0 and not official_skipped(n.title))
        return (
            (n, d)
            for n, d in walk_nodes(self.root, prune=is_references_node)
            if d > 0 and not paper_heading_skipped(n.title)
        )

    def _content_nodes(self) -> list[SurveyNode]:
        if self.protocol == OFFICIAL:
            return self.nodes()
        return [n for n, _d in walk_nodes(self.root, prune=is_references_node)]


def walk_nodes(
    node: SurveyNode, depth: int = 0, prune: Callable[[SurveyNode], bool] | None = None
) -> Iterator[tuple[SurveyNode, int]]:
    """Pre-order (node, depth) pairs; ``prune`` drops a node together with its subtree."""
    stack: list[tuple[SurveyNode, int]] = [(node, depth)]
    while stack:
        current, current_depth = stack.pop()
        if prune is not None and current_depth > 0 and prune(current):
            continue
        yield current, current_depth
        stack.extend((child, current_depth + 1) for child in reversed(current.children))
