"""Reading judge answers: a score in a range, or a list of points; ``None`` when the answer cannot be read.

Deliberately strict: a wrong number is worse than a missing one. An answer is accepted when it is just
the number (``4``, ``4.``, ``**4**``, ``4/5``, ``Score: 4``), names it explicitly (``score is 4``,
``{"score": 4}``, ``rating: 4``), or holds exactly one number besides scale mentions (``0-5``,
``out of 5``). Fractions (``3.5``), out-of-range values and answers with two candidate numbers are
rejected; the caller then asks again and finally records the score as missing.
"""

from __future__ import annotations

import json
import re

__all__ = ["parse_choice", "parse_items", "parse_points", "parse_score", "parse_score_strict"]

_NUMBER = r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w]|\.\d)"
_BARE_RE = re.compile(r"^\W*(?:score|rating|answer|grade)?\W*(\d+)\s*(?:/\s*\d+|out of \d+)?\W*$", re.I)
_EXPLICIT_RE = re.compile(
    r"(?:score|rating|grade|answer)[\"'*\s]*(?:is|of|would be|=|:)?[\"'*\s:]*(\d+(?:\.\d+)?)(?!\.\d)", re.I
)
_SCALE_RE = re.compile(
    r"(?:\b(?:from|between)\s+)?\d+\s*(?:-|–|to|and)\s*\d+(?!\.\d)|(?:/|out of)\s*\d+|scale of \d+", re.I
)
_NUMBER_RE = re.compile(_NUMBER)
_YES_NO_RE = re.compile(r"^\W*(yes|no)\b", re.I)
_THINKING_RE = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.S | re.I)
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\(\d+\))\s+(.*\S)\s*$")


def _as_score(text: str, low: int, high: int) -> int | None:
    value = float(text)
    if not value.is_integer():
        return None
    score = int(value)
    return score if low <= score <= high else None


def parse_score_strict(answer: str | None, low: int, high: int) -> int | None:
    """The released evaluator's reading: the whole answer is one digit in ``[low, high]``.

    ``re.match(r"^[0-5]$", answer)`` in the released code: ``$`` also matches before one final
    newline, so ``"4\n"`` is accepted and ``" 4"``, ``"4."`` or ``"Score: 4"`` are not.
    """
    if answer is None or not (0 <= low <= high <= 9):
        return None
    match = re.match(rf"^[{low}-{high}]$", answer)
    return int(match.group(0)) if match else None


def parse_score(answer: str | None, low: int, high: int) -> int | None:
    """The integer score in ``[low, high]`` an answer gives, or ``None`` if there is no single clear one."""
    if answer is None:
        return None
    text = answer.strip()
    if not text:
        return None
    bare = _BARE_RE.match(text)
    if bare:
        return _as_score(bare.group(1), low, high)
    if (low, high) == (0, 1):
        yes_no = _YES_NO_RE.match(text)
        if yes_no:
            return 1 if yes_no.group(1).lower() == "yes" else 0
    explicit = _EXPLICIT_RE.findall(text)
    if explicit:
        values = {_as_score(v, low, high) for v in explicit}
        return values.pop() if len(values) == 1 else None
    remaining = _SCALE_RE.sub(" ", text)
    numbers = set(_NUMBER_RE.findall(remaining))
    if len(numbers) == 1:
        return _as_score(numbers.pop(), low, high)
    return None


def parse_points(answer: str | None, max_points: int | None = None) -> list[str] | None:
    """Bulleted or numbered lines -> the points (at most ``max_points``); ``None`` when there are none."""
    if not answer:
        return None
    points = []
    for line in answer.splitlines():
        match = _BULLET_RE.match(line)
        if match:
            point = match.group(1).strip().strip("*").strip()
            if point and point not in points:
                points.append(point)
    if not points:
        return None
    return points[:max_points] if max_points else points


def parse_choice(answer: str | None, letters: str) -> int | None:
    """The index into ``letters`` (e.g. ``"ABCDE"``) of the one option an answer picks, or ``None``.

    Accepted: the letter alone (``C``, ``C.``, ``(C)``, ``**C**``), the letter opening the answer before its
    option text (``C: the survey does not say``, ``C) Chebyshev polynomials``), or named explicitly (``Answer: C``,
    ``the answer is (C)``), a reasoning block ``<think>...</think>`` not read. Letters are upper-case only (a lone
    ``a`` is an English word); two different letters named explicitly, or none, give ``None``.
    """
    if not answer:
        return None
    text = _THINKING_RE.sub(" ", answer).strip()
    options = re.escape(letters)
    alone = re.fullmatch(rf"[\W_]*([{options}])[\W_]*", text)
    if alone:
        return letters.index(alone.group(1))
    explicit = {m for m in re.findall(rf"\b(?:answer|option|choice)(?:\s+is)?\s*[:=]?\s*\(?([{options}])\b(?!-)",
                                      text, re.I) if m in letters}
    if len(explicit) == 1:
        return letters.index(explicit.pop())
    if explicit:
        return None
    opening = re.match(rf"[*_(\[\s]*([{options}])\s*[).:\]*_-]+(?:\s|$)", text)
    return letters.index(opening.group(1)) if opening else None


def parse_items(answer: str | None, max_items: int | None = None) -> list[dict[str, object]] | None:
    """The JSON objects of an answer that is (or holds, e.g. in a code fence) a JSON array of objects, at most
    ``max_items`` of them; ``None`` when there is no such array. A lone object counts as an array of one, and an
    object whose only list holds the objects (``{"questions": [...]}``) as that list."""
    if not answer:
        return None
    text = _THINKING_RE.sub(" ", answer)
    start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError:
        return None
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        value = lists[0] if len(lists) == 1 and not {"question", "options"} <= set(value) else [value]
    items = [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
    if not items:
        return None
    return items[:max_items] if max_items else items
