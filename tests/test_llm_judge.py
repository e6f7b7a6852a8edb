"""The LLM layer's server path against a real scripted OpenAI-compatible server on 127.0.0.1.

Covers: bounded transport retries (429, 500, a hang past the timeout), invalid answers asked again and
finally recorded as missing, the on-disk cache (a rerun sends nothing), and the API key never reaching
logs or results.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import (
    EvaluationConfig,
    EvaluationSession,
    evaluate_run,
    journal_path,
    parse_metrics,
    skipped_without_judge,
)
from surge_dataset.llm import Judge, JudgeRequest, LLMConfigurationError, make_llm, parse_points, parse_score
from surge_dataset.llm.parse import parse_choice, parse_items
from surge_dataset.llm.prompts import PROMPTS_VERSION
from tests.support.openai_server import Hang, HttpError, Reply, ScriptedOpenAIServer

SECRET = "sk-test-THIS-MUST-NOT-LEAK-0042"


def _request(i: int) -> JudgeRequest:
    return JudgeRequest.score([{"role": "user", "content": f"question {i}"}], 0, 5)


# Tests that count server requests but do not test timeouts use a generous timeout, so a loaded CI
# machine cannot turn a slow answer into an extra (retried) request.
SLACK = 30.0


def _llm(server: ScriptedOpenAIServer, cache_dir: Path, **options):
    options = {"concurrency": 1, "timeout": 0.3, "max_retries": 3, "backoff_base": 0.001, **options}
    return make_llm("openai:judge-model", base_url=server.base_url, cache_dir=cache_dir, **options)


def _never(messages):
    raise AssertionError(f"the server was asked again: {messages}")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("4", 4), ("**4**", 4), ("4/5", 4), ("Score: 4", 4), ("The outline is close, so the score is 3.", 3),
     ("I would rate this 3 out of 5.", 3), ('{"score": 2}', 2), ("7", None), ("3.5", None), ("", None),
     (None, None), ("between 2 and 3", None), ("No idea.", None)],
)
def test_parse_score(answer, expected):
    assert parse_score(answer, 0, 5) == expected


def test_parse_yes_no_and_points():
    assert parse_score("Yes, it is covered.", 0, 1) == 1 and parse_score("No.", 0, 1) == 0
    assert parse_score("Yes", 0, 5) is None
    assert parse_points("Key points:\n- Alpha.\n2. Beta\n* Alpha.\nplain line") == ["Alpha.", "Beta"]
    assert parse_points("nothing here") is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("C", 2), ("C.", 2), ("(C)", 2), ("**C**", 2), ("C: the survey does not say", 2), ("B) Chebyshev", 1),
     ("Answer: D", 3), ("The answer is (E).", 4), ("<think>A looks wrong</think> B", 1), ("a", None),
     ("answer: a", None), ("A or B", None), ("The answer is A, or the answer is B.", None), ("ABC", None),
     ("I think it is B because", None), ("", None), (None, None)],
)
def test_parse_choice(answer, expected):
    assert parse_choice(answer, "ABCDE") == expected


def test_parse_items():
    assert parse_items('Here: ```json\n[{"q": 1}, {"q": 2}, 3]\n```') == [{"q": 1}, {"q": 2}]
    assert parse_items('{"questions": [{"q": 1}]}') == [{"q": 1}] and parse_items('{"question": "x", "options": []}') \
        == [{"question": "x", "options": []}]
    assert parse_items('[{"q": 1}, {"q": 2}]', max_items=1) == [{"q": 1}]
    assert parse_items("[1, 2]") is None and parse_items("no json") is None and parse_items("[{broken") is None


def test_choice_and_items_questions_follow_up_then_count_missing(tmp_path):
    choice = JudgeRequest.choice([{"role": "user", "content": "Pick one."}], 5)
    items = JudgeRequest.items([{"role": "user", "content": "List them."}])
    answers = {"Pick one.": ["maybe", "E"], "List them.": ["nothing", "still nothing", '[{"a": 1}]']}

    def respond(messages):  # the n-th answer of a conversation after n - 1 follow-up turns
        return answers[messages[0]["content"]][len(messages) // 2]

    with ScriptedOpenAIServer(responder=respond) as server:
        judge = Judge(_llm(server, tmp_path, timeout=SLACK), max_tries=3)
        picked, listed = judge.run([choice, items])
        follow_ups = [r.messages[-1]["content"] for r in server.requests if len(r.messages) > 1]
    assert (picked.value, picked.tries, picked.items) == (4, 2, None)  # "maybe", then "E" after the follow-up
    assert (listed.items, listed.value, listed.points, listed.tries) == (({"a": 1},), None, None, 3)
    assert any("exactly one of the letters A, B, C, D, E" in text for text in follow_ups)
    assert any("not a JSON array of objects" in text for text in follow_ups)
    assert JudgeRequest.choice([{"role": "user", "content": "x"}], 4).letters == "ABCD"
    with pytest.raises(ValueError, match="2 to 26"):
        JudgeRequest.choice([{"role": "user", "content": "x"}], 1)


def test_retries_missing_scores_cache_and_no_key_leak(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("SURGE_LLM_API_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    script = [
        "4",  # r0 valid
        "The outline mirrors the reference closely. Score: 3",  # r1 prose around a score
        "7",  # r2 out of range -> asked again below
        "",  # r3 empty -> asked again below
        HttpError(429, retry_after=0.01), HttpError(500), Hang(2.0), "1",  # r4: three retries, then valid
        "9",  # r5 out of range, then two more invalid answers -> missing
        HttpError(500), HttpError(500), HttpError(500), HttpError(500),  # r6: fails 1 + 3 retries -> missing
        "5", "2", "",  # second round: r2, r3, r5
        "maybe later",  # third round: r5
    ]
    with ScriptedOpenAIServer(script, responder=_never) as server:
        llm = _llm(server, tmp_path / "cache")
        judge = Judge(llm, max_tries=3)
        outcomes = judge.run([_request(i) for i in range(7)])
        sent_first = len(server.requests)

        assert [o.value for o in outcomes] == [4, 3, 5, 2, 1, None, None]
        assert [o.tries for o in outcomes] == [1, 1, 2, 2, 1, 3, 1]
        assert outcomes[5].answers == ("9", "", "maybe later")
        assert outcomes[5].error == "no valid answer in 3 tries"
        assert outcomes[6].error.startswith("request failed: HTTP 500")
        assert judge.stats.as_dict() == {"requests": 7, "invalid_answers": 5, "missing_invalid": 1, "missing_failed": 1}
        assert llm.stats.retries == 6 and llm.stats.failed == 1
        assert sent_first == 17 == llm.stats.sent
        # the follow-up turn carries the invalid answer and asks for the range again
        retry = server.requests[13].messages
        assert retry[-2] == {"role": "assistant", "content": "7"} and "from 0 to 5" in retry[-1]["content"]
        assert all(r.has_authorization for r in server.requests)

        # Rerun with a fresh judge on the same cache: every answered request comes from disk. Only the request
        # whose transport failed (never cached) is sent again.
        server.responder = lambda messages: Reply("4")
        rerun_llm = _llm(server, tmp_path / "cache")
        again = Judge(rerun_llm, max_tries=3).run([_request(i) for i in range(7)])
        assert len(server.requests) == sent_first + 1
        assert server.requests[-1].messages[-1]["content"] == "question 6"
        assert [o.value for o in again] == [4, 3, 5, 2, 1, None, 4]
        assert rerun_llm.stats.cache_hits == rerun_llm.stats.requested - 1

        server.responder = _never
        third = Judge(_llm(server, tmp_path / "cache"), max_tries=3).run([_request(i) for i in range(7)])
        assert len(server.requests) == sent_first + 1  # the server sees no further request
        assert [o.value for o in third] == [4, 3, 5, 2, 1, None, 4]
    assert "retry" in caplog.text and SECRET not in caplog.text


def test_concurrency_and_dedup(tmp_path):
    with ScriptedOpenAIServer(latency=0.05) as server:
        llm = _llm(server, False, concurrency=16, timeout=SLACK)
        outcomes = Judge(llm).run([_request(i % 20) for i in range(40)])
        assert [o.value for o in outcomes] == [3] * 40
        assert len(server.requests) == 20  # duplicates asked once


def test_key_only_from_environment(tmp_path, monkeypatch):
    for name in ("SURGE_LLM_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    llm = make_llm("openai:gpt-4o", cache_dir=tmp_path)
    with pytest.raises(LLMConfigurationError, match="OPENAI_API_KEY"):
        Judge(llm).run([_request(0)])


def test_unauthorised_stops_with_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with ScriptedOpenAIServer([HttpError(401)] * 3) as server:
        with pytest.raises(LLMConfigurationError, match="HTTP 401") as info:
            Judge(_llm(server, tmp_path, concurrency=4)).run([_request(i) for i in range(3)])
    assert SECRET not in str(info.value)


def _responder(messages):
    text = messages[-1]["content"]
    if "list its key points" in text:
        return "- Graph networks pass messages.\n- Pooling summarises graphs.\n- Benchmarks are small."
    if text.startswith("Key point:"):
        return "1" if "messages" in text.split("Generated survey")[0] else "0"
    if "Rate the writing quality" in text:
        return "Score: 4"
    return "3"


@pytest.fixture(scope="module")
def rendered(sample_dataset, tmp_path_factory) -> Path:
    data = SurgeData.open(sample_dataset)
    out = tmp_path_factory.mktemp("rendered-judge")
    render_surveys(data.surveys("test"), data.corpus, out)
    return out


def test_evaluate_run_with_a_server_judge(sample_dataset, rendered, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    data = SurgeData.open(sample_dataset)
    # our judge style (its lenient reader takes "Score: 4"); the released style is pinned in test_official_fidelity
    config = EvaluationConfig(metrics=["sqs", "cqs", "rel_llm", "kpr"], judge="openai:judge-model", judge_style="surge")
    out = tmp_path / "results.json"
    with ScriptedOpenAIServer(responder=_responder) as server:

        def factory():
            return Judge(_llm(server, tmp_path / "cache", concurrency=8, timeout=SLACK))

        results = evaluate_run(data, rendered, out, EvaluationSession(config, factories={"judge": factory}))
        sent = len(server.requests)
        assert results["config"]["judge"] == "openai:judge-model"
        assert results["config"]["prompts_version"] == PROMPTS_VERSION
        for record in results["surveys"].values():
            assert record["sqs"] == 3.0 and record["cqs"] == 4.0 and record["rel_llm"] == 3.0
            assert record["kpr"] == pytest.approx(1 / 3)
            assert record["counts"]["sqs_missing"] == record["counts"]["cqs_missing"] == 0
            assert 1 <= record["counts"]["cqs_judged"] <= 20
        assert results["average"]["kpr"] == pytest.approx(1 / 3)
        assert results["judge"]["llm"]["sent"] == sent and results["judge"]["base_url"] == server.base_url
        # KPR extraction is asked once per GT survey; SQS once per survey
        extractions = [r for r in server.requests if "list its key points" in r.messages[-1]["content"]]
        assert len(extractions) == len(results["surveys"])

        # A fresh run (journal removed) is answered from the cache: the server sees nothing new.
        journal_path(out).unlink()
        again = evaluate_run(data, rendered, out, EvaluationSession(config, factories={"judge": factory}))
        assert len(server.requests) == sent
        assert again["surveys"] == results["surveys"]
        assert again["judge"]["llm"]["cache_hits"] == again["judge"]["llm"]["requested"]
    assert SECRET not in out.read_text() and SECRET not in journal_path(out).read_text()


def test_all_means_objective_metrics_without_a_judge():
    assert parse_metrics("all") == ["recall", "citation_accuracy", "shr", "rouge_bleu"]
    assert parse_metrics("all", judge=True)[-2:] == ["sqs", "cqs"]
    assert skipped_without_judge("all") == ["sqs", "cqs"]
    assert parse_metrics("surveygen") == ["citation_prf", "reference_existence", "structure_overlap", "sim",
                                          "rouge_whole"]
    with pytest.raises(ValueError, match="--judge"):
        parse_metrics("sqs")
    # journals written before judges existed keep their key
    assert EvaluationConfig().key("x") == EvaluationConfig(judge=None).key("x")
    assert EvaluationConfig(judge="openai:gpt-4o").key("x") != EvaluationConfig().key("x")


def test_cli_evaluate_with_judge(sample_dataset, rendered, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("SURGE_LLM_API_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    out = tmp_path / "cli.json"
    with ScriptedOpenAIServer(responder=_responder) as server:
        result = CliRunner().invoke(app, [
            "evaluate", "--data", str(sample_dataset), "--passages", str(rendered), "--out", str(out),
            "--metrics", "sqs,cqs", "--judge", "openai:judge-model", "--base-url", server.base_url,
            "--judge-concurrency", "4", "--cache-dir", str(tmp_path / "cache"),
        ])
    assert result.exit_code == 0, result.output
    saved = json.loads(out.read_text())
    assert saved["average"]["sqs"] == 3.0 and saved["config"]["prompts_version"] == PROMPTS_VERSION
    assert SECRET not in result.output and SECRET not in out.read_text() and SECRET not in caplog.text


def test_cli_note_when_all_has_no_judge(tmp_path):
    result = CliRunner().invoke(app, ["evaluate", "--data", str(tmp_path / "absent"), "--passages", str(tmp_path),
                                      "--metrics", "recall,surveygen,all"])
    assert "skipped" in result.output and "sqs, cqs, rel_llm, rel_llm_sections, kpr" in result.output
    result = CliRunner().invoke(app, ["evaluate", "--data", str(tmp_path / "absent"), "--passages", str(tmp_path),
                                      "--metrics", "sqs"])
    assert result.exit_code == 2 and "needs an LLM judge" in result.output


def test_transport_failures_are_retried_on_the_next_run(sample_dataset, rendered, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    data = SurgeData.open(sample_dataset)
    config = EvaluationConfig(metrics=["sqs"], judge="openai:judge-model")
    out = tmp_path / "results.json"
    down = {"on": True}

    def flaky(messages):
        return HttpError(503) if down["on"] and "Message Passing" in messages[-1]["content"] else Reply("2")

    with ScriptedOpenAIServer(responder=flaky) as server:

        def factory():
            return Judge(_llm(server, tmp_path / "cache", concurrency=4, max_retries=1, timeout=SLACK))

        first = evaluate_run(data, rendered, out, EvaluationSession(config, factories={"judge": factory}))
        failed = [i for i, r in first["surveys"].items() if r["sqs"] is None]
        assert failed, "the sample GT outlines mention Message Passing"
        for i in failed:
            assert first["surveys"][i]["counts"] == {**first["surveys"][i]["counts"], "sqs_missing": 1, "sqs_failed": 1}
            assert first["surveys"][i]["diagnostics"][-1]["code"] == "judge_missing"
        assert first["average_counts"]["sqs"] == len(first["surveys"]) - len(failed)
        sent = len(server.requests)

        down["on"] = False
        second = evaluate_run(data, rendered, out, EvaluationSession(config, factories={"judge": factory}))
        assert len(server.requests) == sent + len(failed)  # only the failed surveys' request is sent again
        assert all(r["sqs"] == 2.0 and "sqs_failed" not in r["counts"] for r in second["surveys"].values())
