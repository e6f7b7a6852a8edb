"""ALCE citation recall and precision: hand-computed cases with a scripted NLI, the judge backend, `surge evaluate`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.core.records import Paper
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
from surge_dataset.llm import Judge, make_llm
from surge_dataset.llm.judge import JudgeOutcome
from surge_dataset.scoring.alce import (
    JudgeEntailment,
    NLIEntailment,
    alce_citation_scores,
    alce_premise,
    alce_sentences,
    split_sentences,
)
from surge_dataset.survey import parse_survey
from tests.support.openai_server import ScriptedOpenAIServer

from .test_evaluate_run import ConstantNLI  # every pair entailed; counts model calls

SURVEY = """# Graph methods

Graph networks pass messages along edges [1]. Pooling shrinks graphs [2][3]. Attention weighs
neighbours [4, 5]. This sentence cites nothing. A claim about an invented paper [6].

# References

[1] Paper A
[2] Paper B
[3] Paper C
[4] Paper D
[5] Paper E
[6] Made Up Title
"""
REFERENCES = {1: 10, 2: 11, 3: 12, 4: 13, 5: 14, 6: None}
PAPERS = {10 + i: Paper(10 + i, f"Paper {name}", f"abstract {name}") for i, name in enumerate("ABCDE")}
# hypothesis -> the sets of cited titles that entail it (any superset entails too)
RULES = {
    "Graph networks pass messages along edges.": [{"Paper A"}],
    "Pooling shrinks graphs.": [{"Paper B"}],
    "Attention weighs neighbours.": [{"Paper D", "Paper E"}],
}



def _entailed(premise: str, hypothesis: str, rules=RULES) -> bool:
    titles = set(re.findall(r"^Title: (.*)$", premise, re.M))
    return any(rule <= titles for rule in rules.get(hypothesis, []))


class ScriptedNLI:
    """Entailment exactly where ``rules`` (default RULES) say so; records every batch it is asked."""

    label_order = ("contradiction", "entailment", "neutral")

    def __init__(self, rules=RULES):
        self.rules = rules
        self.batches: list[list[tuple[str, str]]] = []

    def logits(self, pairs):
        self.batches.append(list(pairs))
        return np.array([[0.0, 5.0, 1.0] if _entailed(p, h, self.rules) else [0.0, 1.0, 5.0] for p, h in pairs])


class ScriptedJudge:
    """A judge whose answer is 1/0 by RULES; hypotheses listed in ``unanswered`` get no answer."""

    def __init__(self, unanswered=()):
        self.unanswered = set(unanswered)
        self.asked = 0

    def run(self, requests):
        outcomes = []
        for request in requests:
            self.asked += 1
            text = request.conversation[-1][1]
            premise = text.split("<<<\n", 1)[1].split("\n>>>", 1)[0]
            claim = text.split("Claim:\n<<<\n", 1)[1].split("\n>>>", 1)[0]
            if claim in self.unanswered:
                outcomes.append(JudgeOutcome(error="no valid answer in 3 tries"))
            else:
                outcomes.append(JudgeOutcome(value=int(_entailed(premise, claim))))
        return outcomes


@pytest.mark.parametrize("protocol", ["official", "paper"])
def test_hand_computed_survey(protocol):
    sentences = alce_sentences(parse_survey(SURVEY, protocol=protocol))
    # the reference list is not text, whichever protocol read it
    assert [s.numbers for s in sentences] == [(1,), (2, 3), (4, 5), (), (6,)]
    assert sentences[2].hypothesis == "Attention weighs neighbours."
    nli = ScriptedNLI()
    result = alce_citation_scores(sentences, REFERENCES, PAPERS, NLIEntailment(nli), with_details=True)
    # supported: sentence 1 (A), 2 (B), 3 (D+E jointly); not 4 (no citation) nor 5 (unresolved) -> 3/5
    assert result.recall == pytest.approx(3 / 5)
    # citations: A ok; B ok, C over-cites (B alone entails); D and E both needed; [6] wrong -> 4/6
    assert result.precision == pytest.approx(4 / 6)
    assert (result.sentences, result.supported, result.citations, result.correct) == (5, 3, 6, 4)
    assert (result.multi_cited, result.overcited, result.unusable, result.undecided) == (2, 1, 1, 0)
    # one batch per stage: 3 joint premises, then 4 single citations; with two citations each
    # leave-one-out premise is the other citation alone, already asked, so no third batch
    assert [len(b) for b in nli.batches] == [3, 4]
    second = result.details[1]
    assert second["supported"] is True and second["citations_correct"] == [True, False]
    assert result.details[4]["doc_ids"] == [None] and "unresolved" in result.details[4]["why"]


def test_single_citation_cases():
    parsed = parse_survey("# S\n\nGraph networks pass messages along edges [1]. Pooling shrinks graphs [1].\n")
    result = alce_citation_scores(alce_sentences(parsed), {1: 10}, PAPERS, NLIEntailment(ScriptedNLI()))
    assert (result.recall, result.precision) == (0.5, 0.5)  # A supports the first sentence only


def test_joint_premise_format_and_citation_cap():
    text = "# S\n\nPooling shrinks graphs [1][2][3][4].\n"
    nli = ScriptedNLI()
    result = alce_citation_scores(alce_sentences(parse_survey(text)), {1: 10, 2: 11, 3: 12, 4: 13}, PAPERS,
                                  NLIEntailment(nli))
    premise = nli.batches[0][0][0]
    assert premise == "Title: Paper A\nabstract A\nTitle: Paper B\nabstract B\nTitle: Paper C\nabstract C"
    assert premise == alce_premise([PAPERS[10], PAPERS[11], PAPERS[12]])
    assert nli.batches[0][0][1] == "Pooling shrinks graphs."
    # only the first three citations count: B correct, A and C over-cite -> 1/3
    assert [len(b) for b in nli.batches] == [1, 3, 2]  # joint; A, B, C alone; B+C and A+B without A, C
    assert result.citations == 3 and result.correct == 1 and result.overcited == 2 and result.recall == 1.0


def test_every_citation_is_checked_before_the_cut_to_three():
    """ALCE's order (eval.py, compute_autoais): a citation of a number without text anywhere in the sentence,
    even past the third, makes it unsupported; only then are the citations cut to three."""
    nli = ScriptedNLI({"X holds.": [{"Paper A"}]})  # Paper A alone entails the sentence
    references = {1: 10, 2: 11, 3: 12}  # no [7] in the list

    def score(text, refs=references):
        return alce_citation_scores(alce_sentences(parse_survey(f"# S\n\n{text}\n")), refs, PAPERS,
                                    NLIEntailment(nli), with_details=True)

    # [7] is the 4th citation. Catches "cut to 3, then check": that reads [1][2][3], finds A in the joint
    # premise and scores recall 1, precision 1/3 (A needed; B and C over-cite).
    late = score("X holds [1][2][3][7].")
    assert (late.recall, late.precision) == (0.0, 0.0)
    # the three counted citations are all incorrect (our rule for an unsupported sentence; ALCE would leave
    # them out of the denominator); [7] is the unusable one
    assert (late.sentences, late.supported, late.citations, late.correct, late.unusable) == (1, 0, 3, 0, 1)
    assert late.details[0]["numbers"] == [1, 2, 3] and late.details[0]["unusable_numbers"] == [7]
    assert nli.batches == []  # rejected without asking the model, as ALCE does
    # [7] among the first three. Catches "drop the missing numbers, then cut to 3": that reads [1][2][3]
    # (the valid 4th citation moves up) and scores recall 1, precision 1/3 again.
    early = score("X holds [1][7][2][3].")
    assert (early.recall, early.precision, early.citations, early.unusable) == (0.0, 0.0, 3, 1)
    assert early.details[0]["numbers"] == [1, 7, 2] and nli.batches == []
    # an unresolved reference past the third (our addition to ALCE's "out of range") rejects it the same way
    unresolved = score("X holds [1][2][3][4].", {**references, 4: None})
    assert (unresolved.recall, unresolved.unusable, nli.batches) == (0.0, 1, [])
    # control: with every citation valid the 4th is simply not read, and A in the joint premise supports it
    valid = score("X holds [1][2][3][4].", {**references, 4: 13})
    assert (valid.recall, valid.precision, valid.citations, valid.unusable) == (1.0, pytest.approx(1 / 3), 3, 0)


def test_no_citation_at_all_scores_precision_zero_and_empty_text_undefined():
    uncited = alce_citation_scores(alce_sentences(parse_survey("# S\n\nJust prose here.\n")), {}, {},
                                   NLIEntailment(ScriptedNLI()))
    assert (uncited.recall, uncited.precision) == (0.0, 0.0)
    empty = alce_citation_scores(alce_sentences(parse_survey("# S\n")), {}, {}, NLIEntailment(ScriptedNLI()))
    assert (empty.recall, empty.precision) == (None, None)


def test_sentence_split_keeps_citations_and_abbreviations():
    assert split_sentences("Smith et al. showed it [1]. Fig. 2\nagrees. Then a list:\n- item one [2]\n| --- |") == [
        "Smith et al. showed it [1].", "Fig. 2 agrees.", "Then a list:", "- item one [2]"]
    assert split_sentences("Written after the stop. [3] Next one.") == ["Written after the stop. [3]", "Next one."]


def test_judge_backend_matches_nli_and_leaves_missing_answers_out():
    sentences = alce_sentences(parse_survey(SURVEY))
    by_nli = alce_citation_scores(sentences, REFERENCES, PAPERS, NLIEntailment(ScriptedNLI()))
    by_judge = alce_citation_scores(sentences, REFERENCES, PAPERS, JudgeEntailment(ScriptedJudge()))
    assert (by_judge.recall, by_judge.precision) == (by_nli.recall, by_nli.precision)
    # no decision for the pooling sentence: it and its two citations leave the means
    judge = ScriptedJudge(unanswered={"Pooling shrinks graphs."})
    partial = alce_citation_scores(sentences, REFERENCES, PAPERS, JudgeEntailment(judge))
    assert partial.undecided == 1 and partial.sentences == 4
    assert partial.recall == pytest.approx(2 / 4) and partial.precision == pytest.approx(3 / 4)


def test_judge_backend_through_a_real_judge_and_server(tmp_path):
    asked = []

    def respond(messages):
        text = messages[-1]["content"]
        asked.append(text)
        premise = text.split("<<<\n", 1)[1].split("\n>>>", 1)[0]
        claim = text.split("Claim:\n<<<\n", 1)[1].split("\n>>>", 1)[0]
        return "1" if _entailed(premise, claim) else "0"

    with ScriptedOpenAIServer(responder=respond) as server:
        llm = make_llm("openai:judge", base_url=server.base_url, cache_dir=tmp_path, concurrency=2, timeout=30.0)
        result = alce_citation_scores(alce_sentences(parse_survey(SURVEY)), REFERENCES, PAPERS,
                                      JudgeEntailment(Judge(llm)))
    assert result.recall == pytest.approx(3 / 5) and result.precision == pytest.approx(4 / 6)
    assert len(asked) == 7 and "Reply 1 if the premise entails the claim" in asked[0]


@pytest.fixture(scope="module")
def rendered(sample_dataset, tmp_path_factory) -> Path:
    data = SurgeData.open(sample_dataset)
    out = tmp_path_factory.mktemp("alce-rendered")
    render_surveys(data.surveys("test"), data.corpus, out)
    return out


def test_evaluate_run_alce_batches_the_whole_run(sample_dataset, rendered, tmp_path):
    nli = ConstantNLI()
    results = evaluate_run(SurgeData.open(sample_dataset), rendered, tmp_path / "r.json",
                           EvaluationSession(EvaluationConfig(metrics=["alce"], protocol="paper"), nli=nli),
                           details_path=tmp_path / "d.jsonl")
    assert nli.calls == 2  # joint premises of all surveys, then single citations (all entail: no 3rd stage)
    for record in results["surveys"].values():
        counts = record["counts"]
        # everything entails: every cited sentence is supported, multi-citation sentences over-cite
        assert record["alce_citation_recall"] == pytest.approx(counts["alce_supported"] / counts["alce_sentences"])
        assert record["alce_citation_precision"] == 1.0
        assert counts["alce_citations"] > 0 and counts["alce_unusable"] == 0
    lines = [json.loads(line) for line in (tmp_path / "d.jsonl").read_text().splitlines()]
    assert lines and all(line["kind"] == "alce_sentence" and "survey_id" in line for line in lines)
    assert set(results["average"]) == {"alce_citation_recall", "alce_citation_precision"}


class TitleRuleNLI:
    """Entails a (premise, hypothesis) pair only when the premise's titles include one of the hypothesis's
    rule sets (``rules``: hypothesis -> list of title sets); records every pair it is asked."""

    label_order = ("contradiction", "entailment", "neutral")

    def __init__(self, rules):
        self.rules = rules
        self.asked: list[tuple[str, str]] = []

    def logits(self, pairs):
        self.asked += list(pairs)
        return np.array([[0.0, 5.0, 1.0] if _entailed(p, h, self.rules) else [0.0, 1.0, 5.0] for p, h in pairs])


def test_evaluate_run_alce_with_an_nli_that_entails_only_some_pairs(sample_dataset, tmp_path):
    """The run tests above entail everything or nothing; here recall and precision differ and are worked
    out by hand, per survey and averaged, so a wrong rule anywhere between parsing and the mean shows."""
    data = SurgeData.open(sample_dataset)
    p, q, r = (paper.title for paper in data.corpus.get([0, 1, 2]))
    nli = TitleRuleNLI({
        "Claim one holds.": [{p}], "Claim two holds.": [{p}], "Claim three holds.": [{q, r}],
        "Claim five holds.": [{p}],  # "Claim four holds." is entailed by nothing
    })
    passages = tmp_path / "passages"
    for survey_id, body, cited in [
        (0, "Claim one holds [1]. Claim two holds [1][2]. Claim three holds [2][3]. Claim four holds [3]. "
            "A sentence without a citation. Claim five holds [1][2][3][7].", [p, q, r]),
        (1, "Claim one holds [1][2]. Claim four holds [2]. Claim two holds [1].", [p, q]),
    ]:
        (passages / str(survey_id)).mkdir(parents=True)
        references = "".join(f"[{i}] {title}\n" for i, title in enumerate(cited, 1))
        (passages / str(survey_id) / "s.md").write_text(f"# Findings\n\n{body}\n\n# References\n\n{references}")
    results = evaluate_run(data, passages, tmp_path / "r.json",
                           EvaluationSession(EvaluationConfig(metrics=["alce"], protocol="paper"), nli=nli))
    first, second = results["surveys"]["0"], results["surveys"]["1"]
    # survey 0, six sentences: one (P), two (P; Q over-cites), three (Q and R, each needed) are supported;
    # four (R does not entail it), the uncited one and five ([7] is not in the list: rejected before the
    # cut, its first three citations incorrect) are not. Recall 3/6; citations 1 + 2 + 2 + 1 + 3 = 9, of
    # which 1 + 1 + 2 are correct: precision 4/9.
    assert first["alce_citation_recall"] == pytest.approx(3 / 6)
    assert first["alce_citation_precision"] == pytest.approx(4 / 9)
    assert {k: first["counts"][f"alce_{k}"] for k in ("sentences", "supported", "citations", "correct",
                                                      "overcited", "unusable")} == {
        "sentences": 6, "supported": 3, "citations": 9, "correct": 4, "overcited": 1, "unusable": 1}
    # survey 1: one (P+Q; Q over-cites) and two (P) supported, four (Q) not: recall 2/3; precision
    # (1 + 0 + 1) / (2 + 1 + 1) = 1/2
    assert second["alce_citation_recall"] == pytest.approx(2 / 3)
    assert second["alce_citation_precision"] == pytest.approx(1 / 2)
    assert results["average"]["alce_citation_recall"] == pytest.approx((3 / 6 + 2 / 3) / 2)
    assert results["average"]["alce_citation_precision"] == pytest.approx((4 / 9 + 1 / 2) / 2)
    # each distinct pair is asked once: 7 joint premises, then 4 of the 6 single citations (P alone for
    # "Claim one holds." and "Claim two holds." were joint premises already); every leave-one-out premise
    # is one of those singles, so there is no third batch
    assert len(nli.asked) == len(set(nli.asked)) == 7 + 4


def test_cli_alce_with_tiny_nli_and_judge_flag_checks(sample_dataset, rendered, tiny_nli_path, tmp_path):
    runner = CliRunner()
    out = tmp_path / "r.json"
    done = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(rendered),
                               "--metrics", "alce", "--nli-model", str(tiny_nli_path), "--out", str(out)])
    assert done.exit_code == 0, done.output
    results = json.loads(out.read_text())
    assert results["config"]["alce_backend"] == "nli"
    assert all(0.0 <= r["alce_citation_recall"] <= 1.0 for r in results["surveys"].values())
    refused = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(rendered),
                                  "--metrics", "alce", "--alce-backend", "judge", "--out", str(out)])
    assert refused.exit_code == 2 and "--judge" in refused.output


def test_evaluate_run_alce_with_the_judge_backend(sample_dataset, rendered, tmp_path):
    judge = ScriptedJudge()
    config = EvaluationConfig(metrics=["alce"], protocol="paper", judge="openai:scripted", alce_backend="judge")
    results = evaluate_run(SurgeData.open(sample_dataset), rendered, tmp_path / "r.json",
                           EvaluationSession(config, judge=judge))
    assert judge.asked > 0 and results["config"]["alce_backend"] == "judge"
    for record in results["surveys"].values():  # RULES know none of these sentences: nothing is supported
        assert record["alce_citation_recall"] == 0.0 and record["alce_citation_precision"] == 0.0
    assert config.key("x") != EvaluationConfig(metrics=["alce"], protocol="paper", judge="openai:scripted").key("x")
