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
    from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run, parse_metrics

    data = SurgeData.open(sample_dataset)
    render_surveys(data.surveys("test"), data.corpus, tmp_path / "gt")
    config = EvaluationConfig(metrics=parse_metrics("surveygen"), protocol="paper")
    results = evaluate_run(data, tmp_path / "gt", tmp_path / "r.json",
                           EvaluationSession(config, encoder=BagOfWords()))
    for record in results["surveys"].values():
        assert record["cite_precision"] == record["cite_recall"] == record["cite_f1"] == 1.0
        assert record["structure_overlap"] == 1.0 and record["sim"] > 0.95
        assert "rel_llm" not in record and "kpr" not in record
        # every reference of a rendered GT is a corpus paper; its body is the GT's own text, citation markers aside
        assert record["reference_existence"] == 1.0 and record["rougeL_whole"] > 0.95
    assert set(results["average"]) == {"cite_precision", "cite_recall", "cite_f1", "structure_overlap", "sim",
                                       "reference_existence", "rougeL_whole"}


# ------------------------------------------------------------------------- Rel_LLM per section (Appendix D.1)

SECTIONED = (
    "# Introduction\n\nGraph neural networks pass messages along edges [1].\n\n"
    "# Cooking\n\nA good risotto needs patience and stock added slowly.\n\n"
    "# Pooling\n\nPooling summarises a graph into one vector [1].\n\n"
    "# References\n\n[1] Not A Real Paper\n"
)
GRAPHS = _record([(0, None, "root", ""), (1, 0, "Message Passing", "x"), (2, 0, "Readout", "y")])


def _judge(model):
    from surge_dataset.llm import LLM, Judge

    return Judge(LLM(model, cache_dir=False))


def test_rel_llm_sections_hand_computed():
    """Three sections answered 1, 0, 1: 2/3. The references are no section (three questions, not four), and
    each question quotes the GT outline as rel_llm renders it and one section's heading and text."""
    from surge_dataset.core.records import Survey
    from surge_dataset.scoring.judges import render_gt_outline
    from surge_dataset.testing import ScriptedChat

    model = ScriptedChat(["1", "0", "1"])
    result = compute("rel_llm_sections", [SECTIONED], [GRAPHS], judge=_judge(model))
    assert result["rel_llm_sections"] == pytest.approx(2 / 3)
    assert result["counts"][0]["rel_llm_sections_judged"] == 3 and result["counts"][0]["rel_llm_sections_missing"] == 0
    asked = [messages[-1]["content"] for messages in model.requests]
    assert len(asked) == 3 and not any("Not A Real Paper" in text for text in asked)
    outline = render_gt_outline(Survey.from_official(GRAPHS))
    assert all(f"<<<\n{outline}\n>>>" in text for text in asked)
    for text, heading in zip(asked, ("Introduction", "Cooking", "Pooling"), strict=True):
        assert f"Generated section:\n<<<\n# {heading}\n\n" in text


def test_rel_llm_sections_asks_every_section_in_one_batch():
    """requests() returns every section's question, so the run prefetches them together (as KPR's checks)."""
    from surge_dataset.evaluation import EvaluationConfig, get_metric, prepare_text

    gt = _survey([(0, None, "root", ""), (1, 0, "Message Passing", "x")])
    prepared = prepare_text(SECTIONED, gt, None, "official")
    config = EvaluationConfig(metrics=["rel_llm_sections"], judge="openai:j")
    assert len(get_metric("rel_llm_sections").requests(prepared, config).judge) == 3
    config = EvaluationConfig(metrics=["rel_llm_sections"], judge="openai:j", judge_repeats=2)
    assert len(get_metric("rel_llm_sections").requests(prepared, config).judge) == 6


def test_rel_llm_sections_which_sections_count():
    """Top-level sections only (a lone title heading read one level down), their subsections' text included
    (headed one level below the section's own ``#``);
    references, acknowledgements and headings with no text left out; long text cut to the budget, noted."""
    from surge_dataset.scoring.judges import REL_SECTION_MAX_CHARS, rel_llm_sections, relevance_sections

    text = ("# A Survey of Graphs\n\n## Intro\n\nGraphs are everywhere.\n\n## Methods\n\n### Message passing\n\n"
            "Nodes exchange vectors.\n\n## Outlook\n\n### Open problems\n\n## Acknowledgements\n\nWe thank X.\n\n"
            "## References\n\n[1] A Paper\n")
    for protocol in ("official", "paper"):
        sections = relevance_sections(parse_survey(text, protocol=protocol))
        assert sections == [("Intro", "Graphs are everywhere."),
                            ("Methods", "## Message passing\n\nNodes exchange vectors.")], protocol
    long = [("Intro", "word " * REL_SECTION_MAX_CHARS), ("Methods", "short")]

    class Yes:
        def __init__(self):
            self.asked = []

        def run(self, requests):
            from surge_dataset.llm.judge import JudgeOutcome

            self.asked += requests
            return [JudgeOutcome(value=1, tries=1) for _ in requests]

    judge = Yes()
    score = rel_llm_sections("T", "# Intro\n", long, judge)
    assert score.value == 1.0 and score.items == 2
    assert [d.code for d in score.diagnostics] == ["rel_llm_sections_truncated"]
    quoted = judge.asked[0].conversation[-1][1]
    assert ("word " * REL_SECTION_MAX_CHARS)[:REL_SECTION_MAX_CHARS] in quoted
    assert ("word " * REL_SECTION_MAX_CHARS)[:REL_SECTION_MAX_CHARS + 1] not in quoted


def test_rel_llm_sections_without_sections_is_zero_with_a_diagnostic():
    from surge_dataset.testing import ScriptedChat

    model = ScriptedChat()
    texts = ["", "# Introduction\n\n# References\n\n[1] A Paper\n", "Text before any heading, and no heading."]
    result = compute("rel_llm_sections", texts, [GRAPHS] * 3, judge=_judge(model))
    assert [r["rel_llm_sections"] for r in result["per_survey"]] == [0.0, 0.0, 0.0] and model.requests == []
    assert all("no_sections" in [d["code"] for d in diagnostics] for diagnostics in result["diagnostics"])


def test_rel_llm_sections_unreadable_answer_is_missing_not_zero():
    """The Cooking section's answer cannot be read (on every try): it is missing, left out of the share and
    counted, so the value is 2/2, not 2/3."""
    from surge_dataset.testing import ScriptedChat

    model = ScriptedChat(responder=lambda messages: "perhaps" if "# Cooking" in messages[1]["content"] else "1")
    result = compute("rel_llm_sections", [SECTIONED], [GRAPHS], judge=_judge(model))
    assert result["rel_llm_sections"] == 1.0
    assert result["counts"][0]["rel_llm_sections_judged"] == 3 and result["counts"][0]["rel_llm_sections_missing"] == 1
    assert "judge_missing" in [d["code"] for d in result["diagnostics"][0]]
