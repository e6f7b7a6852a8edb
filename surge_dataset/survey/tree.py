"""Lines -> heading tree, the one builder both parsers use (they differ only in what a heading line is)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from surge_dataset.survey.model import SurveyNode

#: A code fence (the ``paper`` parser reads no heading inside one).
FENCE_RE = re.compile(r"^ {0,3}(```|~~~)")
_MAX_NUMBER_DIGITS = 1000  # int() refuses very long digit strings; such "numbers" are ignored


def to_int(digits: str) -> int | None:
    """A citation or reference number, or None for a digit run too long to be one."""
    return int(digits) if len(digits) <= _MAX_NUMBER_DIGITS else None


class NodeBuilder:
    """Mutable node used while reading lines; frozen into a :class:`SurveyNode` at the end."""

    def __init__(self, title: str, level: int, line: int) -> None:
        self.title = title
        self.level = level
        self.line = line
        self.lines: list[tuple[int, str]] = []
        self.children: list[NodeBuilder] = []

    def freeze(self, keep: Callable[[int], bool] | None = None) -> SurveyNode:
        """Build the frozen tree bottom-up without recursion (a file may nest headings arbitrarily deep)."""
        order = list(self.walk())
        frozen: dict[int, SurveyNode] = {}
        for builder in reversed(order):
            content = "\n".join(text for number, text in builder.lines if keep is None or keep(number))
            children = [frozen.pop(id(child)) for child in builder.children]
            frozen[id(builder)] = SurveyNode(builder.title, builder.level, content, children, builder.line)
        return frozen[id(self)]

    def walk(self) -> Iterator[NodeBuilder]:
        """This node and its descendants, pre-order, iteratively."""
        stack: list[NodeBuilder] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def build_tree(
    lines: list[str], match_heading: Callable[[str], tuple[int, str] | None], fence_aware: bool
) -> tuple[NodeBuilder, int, set[int]]:
    """Heading tree from lines; returns (root, heading count, 1-based numbers of lines inside code fences).

    A heading closes every open node of the same or deeper level; every other line (blank ones too) goes
    to the current node; text before the first heading belongs to the root (title ``root``, level 0).
    """
    root = NodeBuilder("root", 0, 0)
    stack = [root]
    headings = 0
    fenced: set[int] = set()
    in_fence = False
    for number, line in enumerate(lines, 1):
        if fence_aware and FENCE_RE.match(line):
            in_fence = not in_fence
            fenced.add(number)
            stack[-1].lines.append((number, line))
            continue
        heading = None if in_fence else match_heading(line)
        if heading is None:
            if in_fence:
                fenced.add(number)
            stack[-1].lines.append((number, line))
            continue
        level, title = heading
        headings += 1
        while len(stack) > 1 and stack[-1].level >= level:
            stack.pop()
        node = NodeBuilder(title, level, number)
        stack[-1].children.append(node)
        stack.append(node)
    return root, headings, fenced
