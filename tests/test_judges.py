"""SQS/CQS/Rel_LLM/KPR core functions with a fake judge: inputs exactly as protocol.md §4 describes."""

from __future__ import annotations

import numpy as np
import pytest

from surge_dataset.core.records import Survey
from surge_dataset.evaluation import compute
from surge_dataset.llm import JudgeOutcome
from surge_dataset.llm.prompts import PROMPTS, PROMPTS_VERSION, PromptTemplate, get_prompt, register
from surge_dataset.scoring.judges import (
    content_quality,
    cqs_sample,
    cut_section,
    key_point_recall,
    rel_llm,
    render_gt_outline,
    structure_quality,
)
from surge_dataset.survey import parse_survey


class FakeJudge:
    """Answers every score request with ``value`` (or missing when None) and records what it was asked."""

    def __init__(self, value=4, points=("A point.", "Another point.")):
        self.value, self.points, self.asked = value, points, []

    def run(self, requests):
        self.asked += list(requests)
        out = []
        for r in requests:
            if r.kind == "points":
                out.append(JudgeOutcome(points=tuple(self.points) if self.points else None, tries=1,
                                        error=None if self.points else "no valid answer in 3 tries"))
            elif self.value is None:
                out.append(JudgeOutcome(tries=3, error="no valid answer in 3 tries"))
            else:
                out.append(JudgeOutcome(value=self.value, weighted=self.value - 0.25, tries=1))
        return out


def _survey(nodes) -> Survey:
    structure = [{"id": i, "parent_id": p, "title": t, "content": c} for i, p, t, c in nodes]
    return Survey(0, "A Survey of Graphs", [], "2020", None, None, None, structure, [], None)


SMALL_GT = _survey([
    (0, None, "root", ""),
    (1, 0, "Introduction", "x" * 150),
    (2, 0, "Methods", ""),
    (3, 2, "Message Passing", "short"),
    (4, 3, "Attention", ""),
    (5, 2, "Pooling", ""),
    (6, 0, "Conclusion", "done"),
])


def test_gt_outline_exact_string():
    assert render_gt_outline(SMALL_GT) == (
        "# Introduction\n"
        "\n"
        "# Methods\n"
        "## Message Passing\n"
        "### Attention\n"
        "\n"
        "\n"
        "## Pooling\n"
        "\n"
        "\n"
        "# Conclusion\n"
        "\n"
    )


def test_generated_outline_and_short_sqs():
    parsed = parse_survey("Intro text\n# A\n## B\n# Abstract: no\n## C\n")
    assert parsed.heading_markdown() == "## A\n### B\n### C\n"
    assert parse_survey("Intro text\n# A\n## B\n", "paper").heading_markdown() == "## A\n### B"
    judge = FakeJudge()
    score = structure_quality(render_gt_outline(SMALL_GT), parsed.heading_markdown(), judge)
    assert score.value == 4.0 and score.weighted == 3.75 and score.items == 1
    request = judge.asked[0]
    assert "# Methods\n## Message Passing" in request.conversation[-1][1] and "## A\n### B" in request.conversation[-1][1]
    # official: "## A\n" has 5 characters with its newline (the released string): judged
    boundary = structure_quality("# X\n", parse_survey("# A\n").heading_markdown(), judge)
    assert boundary.value == 4.0 and len(judge.asked) == 2
    # paper: "## A" has 4 characters: scored 0 without asking
    tiny = structure_quality("# X\n", parse_survey("# A\n", "paper").heading_markdown(), FakeJudge())
    assert tiny.value == 0.0 and tiny.items == 0 and tiny.diagnostics[0].code == "short_outline"
    none = structure_quality("# X\n", parse_survey("text only\n").heading_markdown(), FakeJudge())
    assert none.value == 0.0 and none.items == 0


def test_cut_section():
    assert cut_section("a" * 1000) == "a" * 1000
    assert cut_section("One. Two. " + "x" * 1200) == "One. Two"
    assert cut_section("y" * 999 + "." + "z" * 10) == "y" * 999 + "."
    assert cut_section("w" * 1500) == "w" * 999  # no '.': rfind gives -1, the last character goes


def test_cqs_sample_matches_the_legacy_global_generator():
    sections = [f"section {i} " + "." * 120 for i in range(30)]
    state = np.random.get_state()
    np.random.seed(7)
    before = np.random.random()
    np.random.seed(42)
    legacy = [str(s) for s in np.random.choice(sections, 20, replace=False)]
    assert cqs_sample(sections) == legacy
    np.random.seed(7)
    assert np.random.random() == before  # our sampling does not touch the global generator
    np.random.set_state(state)
    assert cqs_sample(sections[:3]) == [sections[i] for i in np.random.RandomState(42).permutation(3)]


def test_cqs_without_qualifying_section_is_missing_not_an_error():
    parsed = parse_survey("# Intro\nToo short.\n# Body\nAlso short.\n")
    judge = FakeJudge()
    score = content_quality([n.content for n in parsed.content_sections(100)], judge)
    assert score.value is None and score.items == 0 and judge.asked == []
    assert score.diagnostics[0].code == "no_cqs_sections"


def test_cqs_mean_and_missing_counted():
    sections = ["A sentence that is long enough. " * 5, "Another long enough sentence here. " * 5]
    assert content_quality(sections, FakeJudge(5)).value == 5.0
    missing = content_quality(sections, FakeJudge(None))
    assert missing.value is None and missing.missing == 2 and missing.diagnostics[0].code == "judge_missing"


class ByKeyword:
    """A scripted judge: each score question is answered by the first keyword of ``answers`` found in its
    text (``None``: no valid answer); a points question gets ``points``. Records every question's text."""

    def __init__(self, answers, points=()):
        self.answers, self.points, self.asked = answers, tuple(points), []

    def run(self, requests):
        out = []
        for request in requests:
            text = request.conversation[-1][1]
            self.asked.append(text)
            if request.kind == "points":
                out.append(JudgeOutcome(points=self.points, tries=1))
                continue
            value = next(v for k, v in self.answers.items() if k in text)
            if value is None:
                out.append(JudgeOutcome(tries=3, error="no valid answer in 3 tries"))
            else:
                out.append(JudgeOutcome(value=value, weighted=value + 0.5, tries=1))
        return out


def _section(word: str) -> str:
    return f"This {word} section is long enough to be judged on its own merits. " * 3


def test_cqs_is_the_mean_of_different_answers():
    """Scores 1, 2 and 5 for three sections: mean 8/3, where max is 5, min 1 and median 2. Catches any of
    those as the aggregate (a constant judge cannot tell them apart); a missing answer is left out, not 0."""
    sections = [_section(w) for w in ("alpha", "beta", "gamma")]
    score = content_quality(sections, ByKeyword({"alpha": 1, "beta": 2, "gamma": 5}))
    assert score.value == pytest.approx(8 / 3) and score.items == 3 and score.missing == 0
    assert score.weighted == pytest.approx((1.5 + 2.5 + 5.5) / 3)
    # no answer for beta: the mean of 1 and 5 is 3 (scoring it 0 would give 2)
    partial = content_quality(sections, ByKeyword({"alpha": 1, "beta": None, "gamma": 5}))
    assert partial.value == 3.0 and partial.missing == 1
    # the same through the metric engine, on Markdown (three content sections of 100+ characters)
    markdown = "".join(f"# {w.title()}\n\n{_section(w)}\n\n" for w in ("alpha", "beta", "gamma"))
    record = {"survey_title": "T", "all_cites": [], "structure": [
        {"id": 0, "parent_id": None, "title": "root", "content": ""}]}
    result = compute("cqs", [markdown], [record], judge=ByKeyword({"alpha": 1, "beta": 2, "gamma": 5}),
                     protocol="paper")
    assert result["cqs"] == pytest.approx(8 / 3) and result["counts"][0]["cqs_judged"] == 3


def test_kpr_is_the_share_of_points_found_with_missing_left_out():
    """Four key points answered 1, 0, 1 and none: KPR = 2/3. Catches max (1), a missing answer counted as
    0 (2/4) and a denominator of all points asked (2/4)."""
    judge = ByKeyword({"Point one": 1, "Point two": 0, "Point three": 1, "Point four": None},
                      points=("Point one.", "Point two.", "Point three.", "Point four."))
    kpr = key_point_recall("T", "GT text", "generated text", judge)
    assert kpr.value == pytest.approx(2 / 3) and kpr.items == 4 and kpr.missing == 1


def test_rel_llm_and_kpr():
    gen = parse_survey("# Intro\n## Details\n").heading_markdown()
    assert rel_llm("T", "# Intro\n", gen, FakeJudge(5)).value == 5.0
    assert rel_llm("T", "# Intro\n", "", FakeJudge(5)).value == 1.0
    judge = FakeJudge(1)
    kpr = key_point_recall("T", "GT text", "generated text", judge)
    assert kpr.value == 1.0 and kpr.items == 2
    assert [r.kind for r in judge.asked] == ["points", "score", "score"]
    none = key_point_recall("T", "GT text", "generated text", FakeJudge(1, points=()))
    assert none.value is None and none.diagnostics[-1].code == "kpr_no_points"


def test_prompts_registry():
    assert PROMPTS_VERSION and {"sqs", "cqs", "rel_llm", "kpr_extract", "kpr_check"} <= set(PROMPTS)
    messages = get_prompt("cqs").render(section="Text {with braces}.")
    assert messages[0]["role"] == "system" and "Text {with braces}." in messages[-1]["content"]
    with pytest.raises(KeyError):
        get_prompt("sqs").render(reference_outline="x")
    with pytest.raises(KeyError):
        register(PromptTemplate("sqs", "again"))
