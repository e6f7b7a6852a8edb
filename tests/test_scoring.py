"""Hand-computed values for citation recall, the NLI scoring rules of both protocols, and SHR."""

from __future__ import annotations

import math

import numpy as np
import pytest

from surge_dataset.core.records import Paper
from surge_dataset.scoring.citations import (
    CitationInstance,
    citation_accuracy,
    citation_recall,
    nli_item_score,
    premise,
)
from surge_dataset.scoring.shr import soft_cardinality, soft_heading_recall

# canonical logit columns: (contradiction, entailment, neutral)
ENTAIL = [0.0, 3.0, 1.0]
NEUTRAL_E_GT_C = [0.2, 0.5, 2.0]  # neutral top, entailment logit > contradiction logit
NEUTRAL_C_GT_E = [1.0, 0.5, 2.0]  # neutral top, contradiction logit > entailment logit
CONTRA = [3.0, 0.0, 1.0]


@pytest.mark.parametrize(
    ("logits", "official", "paper"),
    [(ENTAIL, 1.0, 1.0), (NEUTRAL_E_GT_C, 0.5, 0.5), (NEUTRAL_C_GT_E, 0.0, 0.5), (CONTRA, 0.0, 0.0)],
)
def test_nli_rule_both_protocols(logits, official, paper):
    assert nli_item_score(logits, "official") == official
    assert nli_item_score(logits, "paper") == paper


def test_recall_by_hand():
    assert citation_recall([3, 7, None, 11, 3], [3, 7, 8, 9]) == 0.5
    assert citation_recall([], [1]) == 0.0
    assert citation_recall([1, 2], []) is None  # empty all_cites: undefined, reported, never a crash


class ScriptedNLI:
    """Logits chosen by which paper title and which context the pair mentions; records what it saw."""

    def __init__(self, table):
        self.table = table  # list of ((title, context-substring), logits)
        self.seen = []

    def logits(self, pairs):
        self.seen.extend(pairs)
        rows = []
        for first, second in pairs:
            text = first + " || " + second
            for (title, context), logits in self.table:
                if f"'{title}'" in text and context in text:
                    rows.append(logits)
                    break
            else:
                rows.append(CONTRA)
        return np.asarray(rows, dtype=float)


PAPERS = {
    10: Paper(doc_id=10, title="Alpha", abstract="About alpha."),
    11: Paper(doc_id=11, title="Beta", abstract="About beta."),
    12: Paper(doc_id=12, title="Gamma", abstract="About gamma."),
}


def _case():
    # Reference list: [1] Alpha (in GT all_cites), [2] Beta (resolved, not in GT), [3] hallucinated.
    references = {1: 10, 2: 11, 3: None}
    citations = [
        CitationInstance(1, "Methods", "Alpha does things [1]."),
        CitationInstance(2, "Methods", "Beta is neutral here [2]."),
        CitationInstance(3, "Results", "Invented work [3]."),
        CitationInstance(9, "Results", "Number missing from the list [9]."),
        CitationInstance(2, "Results", "Beta again [2]."),
    ]
    nli = ScriptedNLI(
        [
            (("Alpha", "section: 'Methods'"), ENTAIL),
            (("Alpha", "sentence: 'Alpha does"), ENTAIL),
            (("Beta", "paper: 'GT survey'"), NEUTRAL_C_GT_E),  # doc level of Beta
            (("Beta", "section: 'Methods'"), NEUTRAL_E_GT_C),
            (("Beta", "sentence: 'Beta is neutral"), NEUTRAL_C_GT_E),
            (("Beta", "section: 'Results'"), ENTAIL),
            (("Beta", "sentence: 'Beta again"), CONTRA),
        ]
    )
    return references, citations, nli


def test_citation_accuracy_official_by_hand():
    references, citations, nli = _case()
    result = citation_accuracy(references, citations, PAPERS, "GT survey", [10, 99], nli, protocol="official")
    # doc level over the 3 reference entries: Alpha in all_cites -> 1 (no model); Beta neutral with
    # c > e -> 0 under official; hallucinated -> 0.  (1 + 0 + 0) / 3
    assert result.doc_acc == pytest.approx(1 / 3)
    # sec over 5 instances: Alpha/Methods 1, Beta/Methods neutral e>c 0.5, hallucinated 0, missing 0,
    # Beta/Results 1  -> 2.5 / 5
    assert result.sec_acc == pytest.approx(0.5)
    # sent: Alpha 1, Beta neutral c>e 0, 0, 0, Beta-again contradiction 0 -> 1 / 5
    assert result.sent_acc == pytest.approx(0.2)
    assert result.n_doc_items == 3 and result.n_citations == 5
    # section/sentence pairs go in as (hypothesis, premise) under the official protocol
    sec_pairs = [p for p in nli.seen if "relevant to the section" in p[0] + p[1]]
    assert sec_pairs and all(p[1] == premise(PAPERS[11 if "Beta" in p[0] else 10]) for p in sec_pairs)
    doc_pairs = [p for p in nli.seen if "could be cited in the paper" in p[1]]
    assert doc_pairs and all(p[0].startswith("There is a paper.") for p in doc_pairs)


def test_citation_accuracy_paper_by_hand():
    references, citations, nli = _case()
    result = citation_accuracy(references, citations, PAPERS, "GT survey", [10, 99], nli, protocol="paper")
    # doc level over the 5 citation instances: Alpha 1 (all_cites), Beta neutral -> 0.5 (paper rule),
    # hallucinated 0, missing number 0, Beta 0.5 -> 2 / 5
    assert result.doc_acc == pytest.approx(0.4)
    # sec: 1, 0.5, 0, 0, 1 -> 2.5 / 5 ; sent: 1, 0.5 (neutral always 0.5), 0, 0, 0 -> 1.5 / 5
    assert result.sec_acc == pytest.approx(0.5)
    assert result.sent_acc == pytest.approx(0.3)
    assert all(p[0].startswith("There is a paper.") for p in nli.seen)  # premise first everywhere


def test_citation_accuracy_details_explain_each_score():
    references, citations, nli = _case()
    result = citation_accuracy(references, citations, PAPERS, "GT survey", [10], nli, protocol="official",
                               with_details=True)
    kinds = [d["kind"] for d in result.details]
    assert kinds.count("reference") == 3 and kinds.count("citation") == 5
    missing = next(d for d in result.details if d["number"] == 9)
    assert missing["sec_why"] == "reference number missing from the reference list" and missing["doc_id"] is None
    not_in_corpus = next(d for d in result.details if d["kind"] == "reference" and d["number"] == 3)
    assert "not_in_corpus" in not_in_corpus["doc_why"]
    beta = next(d for d in result.details if d["kind"] == "citation" and d["sentence"].startswith("Beta is"))
    assert beta["sec_score"] == 0.5 and set(beta["sec_probs"]) == {"contradiction", "entailment", "neutral"}


def test_citation_accuracy_without_items_is_none():
    result = citation_accuracy({}, [], {}, "T", [1], ScriptedNLI([]), protocol="official")
    assert (result.doc_acc, result.sec_acc, result.sent_acc) == (None, None, None)


class FixedEncoder:
    def __init__(self, vectors):
        self.vectors = vectors
        self.calls = []

    def encode(self, texts):
        self.calls.append(list(texts))
        return np.asarray([self.vectors[t] for t in texts], dtype=float)


def test_shr_by_hand():
    r = 1 / math.sqrt(2)
    encoder = FixedEncoder({"a": [1, 0], "b": [0, 1], "c": [r, r]})
    # S(GT={a,b}) = 2; S(P={a,c}) = 2/(1+r); S(U={a,b,c}) = 2/(1+r) + 1/(1+2r)
    # SHR = (2 + 2/(1+r) - 2/(1+r) - 1/(1+2r)) / 2 = 1 - 1/(2(1+2r))
    expected = 1 - 1 / (2 * (1 + 2 * r))
    assert soft_heading_recall(["a", "b"], ["a", "c"], encoder) == pytest.approx(expected, abs=1e-12)
    assert soft_heading_recall(["a", "b"], ["a", "b"], encoder) == pytest.approx(1.0)
    assert soft_heading_recall(["a", "b"], [], encoder) == 0.0
    assert soft_heading_recall([], ["a"], encoder) is None
    assert soft_cardinality(np.asarray([[1.0, 0.0], [1.0, 0.0]])) == pytest.approx(1.0)  # duplicates count once


def test_shr_union_deduplicates_exact_strings_and_cuts_to_512_chars():
    long_heading = "x" * 600
    encoder = FixedEncoder({"a": [1, 0], "x" * 512: [0, 1]})
    assert soft_heading_recall(["a"], ["a", long_heading], encoder) == pytest.approx(1.0)
    assert encoder.calls == [["a", "x" * 512]]  # union de-duplicated, headings cut to 512 characters
