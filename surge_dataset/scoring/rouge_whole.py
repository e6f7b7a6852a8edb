"""Whole-survey ROUGE-L (SurveyGen's "R-L"): the generated survey's text against the human survey's, in one piece.

SurveyGen (arXiv 2508.17647, §3.2 and its Tables 2-4) reports ROUGE between the LLM-generated and the
human-written survey as wholes, through pyrouge (ROUGE-1.5.5 with pyrouge's default options: no stemming). Here
ROUGE-L is rouge-score's ``rougeL`` F-measure without stemming -- the longest common subsequence of the two token
sequences, rouge-score's tokenizer (lower-cased, every run of characters other than a-z and 0-9 a separator) --
computed exactly as ``RougeScorer(["rougeL"], use_stemmer=False).score(reference, generated).fmeasure`` but with the
LCS in compiled code (rapidfuzz): two surveys of 10,000 words each are a 10^8-cell table in rouge-score's Python.

SurGE's own ROUGE-L (:mod:`.rouge_bleu`, key ``rougeL``) is another quantity: the best match of each generated
section among the GT sections, stemmed, averaged over the sections.
"""

from __future__ import annotations

import re

from rapidfuzz.distance import LCSseq
from rouge_score import scoring, tokenize

__all__ = ["CITATION_MARKER", "strip_citation_markers", "whole_rouge_l"]

#: ``[12]``, ``[3, 4]``, ``[5-7]``: a numeric citation marker, not words of the survey.
CITATION_MARKER = re.compile(r"\[\d+(?:\s*[,;–-]\s*\d+)*\]")


def strip_citation_markers(text: str) -> str:
    """``text`` without its numeric citation markers (the human survey's text carries none)."""
    return CITATION_MARKER.sub(" ", text)


def whole_rouge_l(generated: str, reference: str) -> float | None:
    """ROUGE-L F-measure (unstemmed) of ``generated`` against ``reference``; None when either has no token."""
    vocab: dict[str, int] = {}
    gen, ref = ([vocab.setdefault(t, len(vocab)) for t in tokenize.tokenize(text, None)] for text in (generated,
                                                                                                     reference))
    if not gen or not ref:
        return None
    lcs = LCSseq.similarity(ref, gen)
    return float(scoring.fmeasure(lcs / len(gen), lcs / len(ref)))
