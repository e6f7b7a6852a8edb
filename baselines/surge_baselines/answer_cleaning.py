"""An LLM's section answer reduced to prose: code fences, headings, a preamble and any reference list the model
wrote removed; the paper labels (``P3``) it cites; the head and tail of a text for the next prompt.
"""

from __future__ import annotations

import re

from surge_dataset.generation import is_references_title
from surge_dataset.survey.headings import atx_heading

__all__ = ["LABEL_RE", "clean_section_text", "head", "split_references", "tail"]

#: A paper label as the LLM writes it (``P3``); used to see which papers a text cites.
LABEL_RE = re.compile(r"\bP\s*(\d+)\b")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_PREAMBLE_RE = re.compile(r"^\s*(?:sure|certainly|here is|here's|of course)\b[^\n]*:\s*$", re.I)


def split_references(text: str) -> tuple[str, str]:
    """(body, reference list the model wrote) split at the first references heading line."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        heading = atx_heading(line)
        if is_references_title(heading[1] if heading else line):
            return "\n".join(lines[:i]), "\n".join(lines[i + 1 :])
    return text, ""


def clean_section_text(text: str | None, title: str = "") -> str:
    """An answer reduced to the section's prose: no fences, headings, preamble or reference list."""
    body, _ = split_references(text or "")
    kept: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        if _FENCE_RE.match(line) or _PREAMBLE_RE.match(line):
            continue
        if stripped.startswith("#"):
            continue  # the writer owns the headings
        plain = stripped.strip("*_: ").lower()
        if title and not kept and plain in (title.lower(), f"section {title.lower()}"):
            continue  # the model repeated the section title
        kept.append(line.rstrip())
    cleaned = "\n".join(kept).strip()
    return re.sub(r"\n{3,}", "\n\n", cleaned)


def tail(text: str, chars: int = 400) -> str:
    """The end of a text (for 'the previous section ended with ...' prompts)."""
    text = " ".join(text.split())
    return text if len(text) <= chars else "..." + text[-chars:]


def head(text: str, chars: int = 400) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else text[:chars] + "..."
