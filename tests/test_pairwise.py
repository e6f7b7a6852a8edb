"""pairwise_gt: the judge compares the generated survey with the human one in both orders.

Scripted judges with known behaviour run behind a real local OpenAI-compatible server: one that always answers
[[A]] (position bias: every pair a tie, consistency 0), one that prefers the longer survey, one that prefers
the GT. Unreadable answers are asked again and then missing (counted); a failing server is retried on the next
run, and nothing is cached wrongly.
"""

from __future__ import annotations

import pytest

from surge_dataset import SurgeData
from surge_dataset.data.render import render_survey, render_surveys
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, compute, evaluate_run
from surge_dataset.llm import Judge, JudgeOutcome, make_llm
from surge_dataset.scoring import judges
from surge_dataset.scoring.pairwise import PAIRWISE_MAX_CHARS, parse_verdict, reconcile
from tests.support.openai_server import HttpError, Reply, ScriptedOpenAIServer

SLACK = 30.0


def quoted(messages) -> tuple[str, str]:
    """Survey A and Survey B as the pairwise prompt quotes them."""
    text = messages[-1]["content"] if messages[-1]["role"] == "user" and "Survey A" in messages[-1]["content"] \
        else next(m["content"] for m in messages if "Survey A:" in m["content"])
    a = text.split("Survey A:\n<<<\n", 1)[1].split("\n>>>", 1)[0]
    b = text.split("Survey B:\n<<<\n", 1)[1].split("\n>>>", 1)[0]
    return a, b


def always_a(messages):
    return "[[A]]"


def longer(messages):
    a, b = quoted(messages)
    return "[[A]]" if len(a) > len(b) else "[[B]]" if len(b) > len(a) else "[[C]]"


@pytest.fixture(scope="module")
def data(sample_dataset):
    return SurgeData.open(sample_dataset)


def _judge(server, cache, **options) -> Judge:
    options = {"concurrency": 4, "timeout": SLACK, "max_retries": 1, "backoff_base": 0.001, **options}
    return Judge(make_llm("openai:pairwise-judge", base_url=server.base_url, cache_dir=cache, **options))


def _surveys(data):
    """A long survey (the GT rendered, plus more), the GT rendered, and a short one, all for survey 0."""
    rendered = render_survey(data.survey(0), data.corpus)
    return [rendered + "\n\n# Further Directions\n\n" + "More discussion of open problems. " * 200, rendered,
            "# Introduction\n\nGraph neural networks pass messages [1].\n"]


@pytest.mark.parametrize(("answer", "verdict"), [
    ("[[A]]", "A"), ("The second one. [[B]]", "B"), ("[[ c ]]", "C"), ("**Verdict:** [[A]] ... [[A]]", "A"),
    ("<think>maybe [[B]]</think>\nFinal: [[A]]", "A"), ("```\n[[B]]\n```", "B"), ("[[A]] or [[B]]", None),
    ("A", None), ("[A]", None), ("", None), (None, None), ("[[D]]", None),
])
def test_parse_verdict(answer, verdict):
    assert parse_verdict(answer) == verdict


def test_reconcile_both_orders():
    a, b, c, none = (JudgeOutcome(value=v) for v in (0, 1, 2, None))
    assert reconcile(a, b).outcome == 1.0 and reconcile(a, b).consistent  # first shown as A won, then as B won
    assert reconcile(b, a).outcome == 0.0 and reconcile(b, a).consistent
    assert reconcile(c, c).outcome == 0.5 and reconcile(c, c).consistent
    assert reconcile(a, a).outcome == 0.5 and reconcile(a, a).consistent is False  # position bias: a tie
    assert reconcile(a, c).outcome == 0.5 and reconcile(a, c).consistent is False
    assert reconcile(a, none).outcome is None and reconcile(a, none).missing == 1


def test_always_a_makes_every_pair_a_tie_with_consistency_zero(data, tmp_path):
    with ScriptedOpenAIServer(responder=always_a) as server:
        result = compute("pairwise_gt", _surveys(data), [0, 0, 0], data=data, judge=_judge(server, tmp_path))
        assert len(server.requests) == 6  # 3 surveys x 2 orders
    assert [r["pairwise_gt"] for r in result["per_survey"]] == [0.5, 0.5, 0.5]
    assert result["pairwise_gt_tie"] == 1.0 and result["pairwise_gt_consistency"] == 0.0
    assert result["counts"][0] == {**result["counts"][0], "pairwise_gt_judged": 2, "pairwise_gt_missing": 0}


def test_longer_survey_wins_and_the_gt_preferring_judge_beats_everything(data, tmp_path):
    with ScriptedOpenAIServer(responder=longer) as server:
        result = compute("pairwise_gt", _surveys(data), [0, 0, 0], data=data, judge=_judge(server, tmp_path / "a"))
    by_survey = result["per_survey"]
    assert by_survey[0]["pairwise_gt_win"] == 1.0 and by_survey[2]["pairwise_gt_loss"] == 1.0
    assert result["pairwise_gt_consistency"] == 1.0

    gt = judges.gt_text(data.survey(0))

    def prefers_gt(messages):
        a, b = quoted(messages)
        return "[[A]]" if a == gt else "[[B]]" if b == gt else "[[C]]"

    with ScriptedOpenAIServer(responder=prefers_gt) as server:
        result = compute("pairwise_gt", _surveys(data), [0, 0, 0], data=data, judge=_judge(server, tmp_path / "b"))
    assert result["pairwise_gt"] == 0.0 and result["pairwise_gt_loss"] == 1.0 and result["pairwise_gt_consistency"] == 1.0


def test_unreadable_answers_are_asked_again_then_missing_and_counted(data, tmp_path):
    with ScriptedOpenAIServer(responder=lambda messages: "Survey A is better.") as server:
        judge = _judge(server, tmp_path)
        result = compute("pairwise_gt", _surveys(data)[2:], [0], data=data, judge=judge, judge_max_tries=3)
        assert len(server.requests) == 2 * 3  # both orders, three answers each
        follow_up = server.requests[-1].messages
        assert follow_up[-2]["role"] == "assistant" and "[[A]], [[B]] or [[C]]" in follow_up[-1]["content"]
    assert result["per_survey"][0]["pairwise_gt"] is None and result["pairwise_gt"] is None
    assert result["counts"][0]["pairwise_gt_missing"] == 2
    assert judge.stats.as_dict() == {"requests": 2, "invalid_answers": 6, "missing_invalid": 2, "missing_failed": 0}
    assert any(d["code"] == "judge_missing" for d in result["diagnostics"][0])
    with ScriptedOpenAIServer(responder=lambda messages: "[[A]]") as server:  # the invalid answers were cached ...
        again = compute("pairwise_gt", _surveys(data)[2:], [0], data=data, judge=_judge(server, tmp_path))
        assert len(server.requests) == 0 and again["pairwise_gt"] is None  # ... as the answers they were


def test_a_failing_server_is_retried_on_the_next_run_and_nothing_is_cached_wrongly(data, sample_dataset, tmp_path):
    passages = tmp_path / "passages"
    render_surveys(data.surveys("test"), data.corpus, passages)
    config = EvaluationConfig(metrics=["pairwise_gt"], judge="openai:pairwise-judge")
    down = {"on": True}

    def flaky(messages):
        a, _ = quoted(messages)
        return HttpError(503) if down["on"] and a.startswith("#") and len(a) % 2 else Reply("[[C]]")

    with ScriptedOpenAIServer(responder=flaky) as server:
        first = evaluate_run(data, passages, tmp_path / "r.json",
                             EvaluationSession(config, factories={"judge": lambda: _judge(server, tmp_path / "cache")}))
        failed = [i for i, r in first["surveys"].items() if r["pairwise_gt"] is None]
        assert failed and all(first["surveys"][i]["counts"]["pairwise_gt_failed"] >= 1 for i in failed)
        sent = len(server.requests)
        down["on"] = False
        second = evaluate_run(data, passages, tmp_path / "r.json",
                              EvaluationSession(config, factories={"judge": lambda: _judge(server, tmp_path / "cache")}))
        retried = len(server.requests) - sent
        assert 0 < retried <= 2 * len(failed)  # only the failed requests are sent again (bounded)
    assert all(r["pairwise_gt"] == 0.5 and "pairwise_gt_failed" not in r["counts"] for r in second["surveys"].values())
    assert second["judge"]["judge"]["missing_failed"] == 0


def test_long_surveys_are_cut_like_cqs_and_the_cut_is_recorded(data, tmp_path):
    long = "# Overview\n\n" + "A sentence about graphs. " * 2000
    with ScriptedOpenAIServer(responder=always_a) as server:
        result = compute("pairwise_gt", [long], [0], data=data, judge=_judge(server, tmp_path))
        asked = [quoted(request.messages) for request in server.requests]
    gt = judges.gt_text(data.survey(0))
    assert len(asked) == 2 and {texts.index(gt) for texts in asked} == {0, 1}  # both orders; the two run concurrently
    for texts in asked:
        generated = texts[1 - texts.index(gt)]  # the GT is short enough: not cut
        assert PAIRWISE_MAX_CHARS - 30 < len(generated) <= PAIRWISE_MAX_CHARS and generated.endswith("graphs")
    cut = [d for d in result["diagnostics"][0] if d["code"] == "pairwise_truncated"]
    assert cut and "generated survey" in cut[0]["message"]


def test_empty_survey_is_a_loss_without_asking(data, tmp_path):
    with ScriptedOpenAIServer(responder=always_a) as server:
        result = compute("pairwise_gt", [""], [0], data=data, judge=_judge(server, tmp_path))
        assert not server.requests
    assert result["per_survey"][0]["pairwise_gt"] == 0.0 and result["per_survey"][0]["pairwise_gt_consistency"] is None


def test_dry_run_counts_both_orders_and_the_cache(data, tmp_path):
    from surge_dataset.evaluation import prepare_text
    from surge_dataset.evaluation.cost import estimate_judge_requests

    prepared = [prepare_text(text, data.survey(0), data.corpus, "official", survey_id=i)
                for i, text in enumerate(_surveys(data) + [""])]
    config = EvaluationConfig(metrics=["pairwise_gt"], judge="openai:pairwise-judge")
    before = estimate_judge_requests(prepared, config, cache_dir=tmp_path)["metrics"]["pairwise_gt"]
    assert before["calls"] == 6 and before["cached"] == 0  # 3 surveys x 2 orders; the empty one is not asked
    with ScriptedOpenAIServer(responder=always_a) as server:
        compute("pairwise_gt", _surveys(data), [0, 0, 0], data=data, judge=_judge(server, tmp_path))
    after = estimate_judge_requests(prepared, config, cache_dir=tmp_path)["metrics"]["pairwise_gt"]
    assert after["cached"] == 6  # the estimate looks up the very cache entries the run wrote
