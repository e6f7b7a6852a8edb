"""Title normalisation shared by reference resolution, the corpus index and every matcher.

The released SurGE evaluator keeps the ASCII letters ``[a-zA-Z]`` of a title and then lower-cases
them. The order matters for a few characters whose lower case is ASCII although they are not:
``İ`` (U+0130) and the Kelvin sign ``K`` (U+212A) are dropped by the released rule, while lower-casing
first would turn them into ``i`` and ``k``. Every place in this package that matches titles goes
through this one function so that our resolution and the published numbers agree.
"""

from __future__ import annotations

import re

_NOT_ASCII_LETTER = re.compile(r"[^A-Za-z]+")


def normalise_title(title: str | None) -> str:
    """Keep only the ASCII letters of ``title``, then lower-case them (the released evaluator's rule)."""
    if not title:
        return ""
    return _NOT_ASCII_LETTER.sub("", title).lower()
