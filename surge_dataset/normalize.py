"""Title normalisation shared by reference resolution, the corpus index and every matcher.

The released SurGE evaluator compares titles after keeping only the ASCII letters a-z of the
lower-cased title; every place in this package that matches titles goes through this one function
so that our resolution and the published numbers agree.
"""

from __future__ import annotations

import re

_NOT_ASCII_LOWER = re.compile(r"[^a-z]+")


def normalise_title(title: str | None) -> str:
    """Lower-case ``title`` and keep only the letters ``a``-``z`` (the released evaluator's rule)."""
    if not title:
        return ""
    return _NOT_ASCII_LOWER.sub("", title.lower())
