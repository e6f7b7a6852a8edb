"""SurveyGen metrics with hand-computed values: citation P/R/F1, structural overlap, similarity."""

from __future__ import annotations

import numpy as np
import pytest

from surge_dataset.evaluation import compute
from surge_dataset.scoring.surveygen_metrics import (
    citation_prf,
    generated_top_level,
    greedy_matches,
    gt_top_level,
    is_non_content_section,
    structure_overlap,
    survey_similarity,
    title_key,
)
from surge_dataset.survey import parse_survey

from .test_judges import _survey


class KnownVectors:
    """An encoder with fixed vectors per text (unknown texts are an error)."""

    def __init__(self, table):
        self.table = {k: np.asarray(v, dtype=np.float64) for k, v in table.items()}
        self.seen = []

    def encode(self, texts):
        self.seen += list(texts)
        return np.stack([self.table[t] for t in texts])


def test_citation_prf_hand_computed():
    generated = [
        "Attention Is All You Need",
        "attention is all you need.",  # same after processing: counted once
        "Graph Neural Networks: A Review",  # vs "Graph neural networks - a review": equal once spaces collapse
        "Deep Residual Learning for Image Recognitio",  # ratio 2*43/87 = 98.9
        "Language Models are Few-Shot Learners",  # far from every GT title
    ]
    gt = [
        "Attention is all you need",
        "Graph neural networks - a review",
        "Deep Residual Learning for Image Recognition",
        "Language Models are Unsupervised Multitask Learners",
        "BERT: Pre-training of Deep Bidirectional Transformers",
    ]
    result = citation_prf(generated, gt)
    assert result["matched"] == 3 and result["generated"] == 4 and result["gt"] == 5
    assert result["precision"] == pytest.approx(3 / 4) and result["recall"] == pytest.approx(3 / 5)
    assert result["f1"] == pytest.approx(2 * 0.75 * 0.6 / 1.35)
    # the threshold: 19 vs 20 equal letters is 2*19/39 = 97.4 (match); 9 vs 10 is 2*9/19 = 94.7 (none)
    assert citation_prf(["a" * 19], ["a" * 20])["matched"] == 1
    assert citation_prf(["a" * 9], ["a" * 10])["matched"] == 0
    assert citation_prf([], gt) == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "matched": 0, "generated": 0, "gt": 5}
    assert citation_prf(generated, [])["recall"] is None


def test_citation_titles_are_reduced_to_single_spaces():
    """Catches comparing ``default_process`` output as is: it keeps the three spaces left by " - ", so
    "title   a study" vs "title a study" has ratio 2*13/28 = 92.9 and would not match."""
    assert title_key("title - a study") == title_key("TITLE A STUDY") == "title a study"
    assert citation_prf(["title - a study"], ["TITLE A STUDY"]) == {
        "precision": 1.0, "recall": 1.0, "f1": 1.0, "matched": 1, "generated": 1, "gt": 1}
    assert citation_prf(["TITLE A STUDY"], ["title - a study"])["matched"] == 1  # either side


def test_citation_prf_counts_a_gt_paper_once():
    """Two generated titles both within the threshold of one GT title (ratio 2*63/127 = 99.2 each, 98.4 to
    each other, so they stay two entries): |R_L ∩ R_H| = 1. Catches many-to-one matching (each generated
    title counted when it matches some GT title), which gives 2 matches: precision 2/2 and recall 2/2."""
    gcn = "Semi-Supervised Classification with Graph Convolutional Networks"
    generated = ["Semi-Supervised Classification with Graph Convolutional Network",
                 "Semisupervised Classification with Graph Convolutional Networks"]
    result = citation_prf(generated, [gcn, "Inductive Representation Learning on Large Graphs"])
    assert (result["matched"], result["generated"], result["gt"]) == (1, 2, 2)
    assert (result["precision"], result["recall"], result["f1"]) == (0.5, 0.5, 0.5)


def test_greedy_matching_is_one_to_one():
    sim = np.array([[0.95, 0.90], [0.96, 0.10]])
    assert greedy_matches(sim, 0.8) == [(1, 0, 0.96), (0, 1, 0.90)]
    assert greedy_matches(np.array([[0.8, 0.79]]), 0.8) == [(0, 0, 0.8)]
    assert greedy_matches(np.array([[0.8]]), 0.8, strict=True) == []


def test_structure_overlap_hand_computed():
    r = 1 / np.sqrt(2)
    encoder = KnownVectors({
        "Introduction": [1, 0, 0], "Overview": [0.95, 0.05, 0], "Methods": [0, 1, 0], "Applications": [0, 0, 1],
        "Intro": [0.9, 0.1, 0], "Approaches": [0, 0.85, 0.5268], "Uses": [0, 0.5, 0.866], "Future Work": [r, -r, 0],
    })
    gt = ["Introduction", "Overview", "Methods", "Applications"]
    generated = ["Intro", "Approaches", "Uses", "Future Work"]
    # Intro matches one of Introduction/Overview only; Approaches-Methods (0.85); Uses-Applications (0.866);
    # Future Work matches nothing (0.707): 3 matches -> 2*3 / (4 + 4)
    assert structure_overlap(gt, generated, encoder) == pytest.approx(0.75)
    assert structure_overlap(gt, [], encoder) == 0.0 and structure_overlap([], [], encoder) is None
    # through the engine, on Markdown and a GT record: non-content sections are left out on both sides
    markdown = "".join(f"# {h}\n\nText.\n" for h in [*generated, "References"])
    record = _record([(0, None, "root", ""), *[(i, 0, t, "") for i, t in enumerate([*gt, "Acknowledgements"], 1)]])
    result = compute("structure_overlap", [markdown], [record], encoder=encoder, protocol="paper")
    assert result["structure_overlap"] == pytest.approx(0.75)


def test_structure_overlap_threshold_is_exclusive():
    """SurveyGen §3.2: sections match when their similarity *exceeds* the threshold (0.8, Appendix D.1).
    [4, 3] and [5, 0] have cosine 4/5, exactly 0.8 in floating point. Catches ``>=``, which would match it
    and score 1.0; just above matches, just below does not."""
    encoder = KnownVectors({"Intro": [5, 0], "at": [4, 3], "above": [4.001, 3], "below": [3.999, 3]})
    at = np.array([4.0, 3.0]) / 5.0
    assert float(at @ np.array([1.0, 0.0])) == 0.8  # the boundary is exact, not a rounding away from it
    assert structure_overlap(["Intro"], ["at"], encoder) == 0.0
    assert structure_overlap(["Intro"], ["above"], encoder) == 1.0  # cosine 0.80007
    assert structure_overlap(["Intro"], ["below"], encoder) == 0.0  # cosine 0.79993
    # the same through the engine, with GT and generated sections from a record and Markdown
    record = _record([(0, None, "root", ""), (1, 0, "Intro", "")])
    result = compute("structure_overlap", ["# at\n\nText.\n", "# above\n\nText.\n"], [record, record],
                     encoder=encoder, protocol="paper")
    assert [r["structure_overlap"] for r in result["per_survey"]] == [0.0, 1.0]


def test_top_level_sections_and_non_content():
    for title in ("Funding", "Acknowledgements", "6. Acknowledgments", "Author Contributions", "Competing interests",
                  "Declaration of competing interest", "Supplementary Material", "**References**", "Bibliography"):
        assert is_non_content_section(title), title
    for title in ("Funding models for open science", "Introduction", "References in legal texts"):
        assert not is_non_content_section(title), title
    parsed = parse_survey("# A Survey of Graphs\n## Intro\n### Deep\n## Methods\n# References\n[1] X\n", protocol="paper")
    assert generated_top_level(parsed) == ["Intro", "Methods"]  # lone title heading: read one level down
    assert generated_top_level(parse_survey("# One\n# Two\n## Sub\n# Funding\n")) == ["One", "Two"]
    gt = _survey([(0, None, "root", ""), (1, 0, "Intro", ""), (2, 1, "Deep", ""), (3, 0, "Acknowledgements", "")])
    assert gt_top_level(gt) == ["Deep"]


def test_survey_similarity_hand_computed():
    encoder = KnownVectors({"a": [1, 0], "b": [0, 1], "c": [2, 0]})
    assert survey_similarity(["a", "b"], ["c"], encoder) == pytest.approx(1 / np.sqrt(2))
    assert survey_similarity(["a"], [], encoder) == 0.0 and survey_similarity([], ["a"], encoder) is None


def _record(nodes) -> dict:
    """A GT survey in the official surveys.json form (what compute() takes as a reference)."""
    return {"survey_title": "T", "all_cites": [], "structure": [
        {"id": i, "parent_id": p, "title": t, "content": c} for i, p, t, c in nodes]}


class BagOfWords:
    """Word counts hashed into 64 dimensions: equal texts embed equally, unrelated texts far apart."""

    def encode(self, texts):
        import zlib

        out = np.zeros((len(texts), 64))
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, zlib.crc32(word.encode()) % 64] += 1
        return out


def test_sim_on_markdown_against_a_gt_record():
    body = "Graph neural networks pass messages along edges to learn node representations."
    text = f"# Graph networks\n{body}"
    other = "# Cooking\nA good risotto needs patience, stock added slowly and constant stirring."
    record = _record([(0, None, "root", ""), (1, 0, "Graph networks", body)])
    result = compute("sim", [text, other, ""], [record] * 3, encoder=BagOfWords(), protocol="paper")
    sims = [r["sim"] for r in result["per_survey"]]
    assert sims[0] == pytest.approx(1.0) and sims[1] < 0.5 and sims[2] == 0.0


def test_evaluate_run_surveygen_metrics_on_gt_as_generated(sample_dataset, tmp_path):
    from surge_dataset import SurgeData
    from surge_dataset.data.render import render_surveys
    from surge_dataset.evaluation import EvaluationConfig, evaluate_run, parse_metrics

    data = SurgeData.open(sample_dataset)
    render_surveys(data.surveys("test"), data.corpus, tmp_path / "gt")
    config = EvaluationConfig(metrics=parse_metrics("surveygen"), protocol="paper")
    results = evaluate_run(data, tmp_path / "gt", tmp_path / "r.json", config, encoder=BagOfWords())
    for record in results["surveys"].values():
        assert record["cite_precision"] == record["cite_recall"] == record["cite_f1"] == 1.0
        assert record["structure_overlap"] == 1.0 and record["sim"] > 0.95
        assert "rel_llm" not in record and "kpr" not in record
        # every reference of a rendered GT is a corpus paper; its body is the GT's own text, citation markers aside
        assert record["reference_existence"] == 1.0 and record["rougeL_whole"] > 0.95
    assert set(results["average"]) == {"cite_precision", "cite_recall", "cite_f1", "structure_overlap", "sim",
                                       "reference_existence", "rougeL_whole"}
