"""Is a quoted sentence in the section, and does it carry the answer? The checks every written question passes.

Words are compared as the retrieval code compares them: lower-cased, the bm25s English stop words dropped,
Snowball-stemmed (PyStemmer), so "polynomials" in an option matches "polynomial" in the quote.
"""

from __future__ import annotations

import functools
import re

__all__ = ["SUPPORT_SHARE", "content_words", "evidence_in", "normalise_quote", "support"]

#: A question is kept when at least this share of its correct option's content words are in its evidence.
SUPPORT_SHARE = 0.6

_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "‐": "-", "–": "-", "—": "-"})


@functools.cache
def _stemmer():  # noqa: ANN202 - PyStemmer's class
    import Stemmer

    return Stemmer.Stemmer("english")


@functools.cache
def _stop_words() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def content_words(text: str) -> set[str]:
    """The stems of the words that carry content: not stop words, and three letters or more unless a number."""
    words = [w for w in _WORD.findall(text.translate(_QUOTES).lower())
             if w not in _stop_words() and (len(w) >= 3 or any(ch.isdigit() for ch in w))]
    return set(_stemmer().stemWords(words))


def normalise_quote(text: str) -> str:
    """Lower-cased, typographic quotes and dashes made plain, white space collapsed, citation brackets and the
    quote's own surrounding quotes and final punctuation dropped: how a quote is looked for in its section."""
    text = re.sub(r"\[\d+(?:\s*[,-]\s*\d+)*\]", " ", text.translate(_QUOTES).lower())
    return " ".join(text.split()).strip(" \"'").rstrip(" .;:,!?")


def evidence_in(evidence: str, section: str) -> bool:
    """Whether the quote is in the section (after :func:`normalise_quote` of both)."""
    quote = normalise_quote(evidence)
    return bool(quote) and quote in normalise_quote(section)


def support(answer: str, evidence: str) -> float:
    """Share of the answer's content words that the evidence has (0 for an answer without content words)."""
    words = content_words(answer)
    return len(words & content_words(evidence)) / len(words) if words else 0.0
