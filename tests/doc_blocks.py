"""Reading the shell examples out of Markdown docs, for the tests that run them as written."""

from __future__ import annotations

import re


def section(text: str, title: str) -> str:
    """The body of the ``## title`` section of ``text`` (to the next ``## `` heading or the end)."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"no section {title!r}"
    return match.group(1)


def blocks(text: str, language: str = "bash") -> list[str]:
    """The fenced code blocks of ``language`` in ``text``."""
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def commands(block: str) -> list[str]:
    """Shell commands of a block: comments dropped, backslash continuations joined."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line.split("  #")[0].strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")]
