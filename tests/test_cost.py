"""Cost before and after a run: ``--dry-run`` estimates (nothing sent) and server-reported ``usage``.

Hand-computed expectations: the scripted server's ``usage`` counts whitespace-separated words; without
a tokenizer an estimate is max(1, round(characters / 4)) of the prompt's message contents joined by a
newline; output tokens of a dry run are each call's answer budget.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run, journal_path
from surge_dataset.evaluation.cost import estimate_evaluation
from surge_dataset.evaluation.runner import prepare_folder
from surge_dataset.llm import Judge, make_llm
from surge_dataset.llm.usage import estimate_tokens, parse_price, price
from surge_dataset.retrieval import build_bm25_index, run_retrieval
from surge_dataset.scoring import judges
from tests.support.openai_server import ScriptedOpenAIServer, word_usage

KEY = "sk-test-cost"


def _answer(messages):
    text = messages[-1]["content"]
    if "list its key points" in text:
        return "- Graph networks pass messages.\n- Pooling summarises graphs."
    return "1" if text.startswith("Key point:") else "3"


def _words(text: str) -> int:
    return len(text.split())


@pytest.fixture(scope="module")
def rendered(sample_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = SurgeData.open(sample_dataset)
    out = tmp_path_factory.mktemp("rendered-cost")
    render_surveys(data.surveys("test"), data.corpus, out)
    return out


def _estimate(text_conversation) -> int:
    return estimate_tokens("\n".join(content for _, content in text_conversation))


def test_price_parsing():
    assert parse_price("0.0025,0.01") == (0.0025, 0.01) and parse_price(None) is None
    assert price(2000, 500, (1.0, 4.0)) == pytest.approx(2.0 + 2.0)
    for bad in ("1", "a,b", "1,-2", "1,2,3"):
        with pytest.raises(ValueError, match="IN,OUT"):
            parse_price(bad)


def test_server_usage_is_recorded_else_estimated_and_marked(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    conversations = [[{"role": "user", "content": "rate this outline please"}], [{"role": "user", "content": "x"}]]
    with ScriptedOpenAIServer(["four words of answer", "two words"]) as server:
        llm = make_llm("openai:m", base_url=server.base_url, cache_dir=tmp_path / "c", concurrency=1)
        llm.generate(conversations)
        stats = llm.stats.as_dict()
        assert stats["prompt_tokens"] == 4 + 1 and stats["completion_tokens"] == 4 + 2
        assert stats["usage_reported"] == 2 and stats["usage_estimated"] == 0
        llm.generate(conversations)  # cached: costs nothing, counts nothing
        assert llm.stats.as_dict()["prompt_tokens"] == 5
    with ScriptedOpenAIServer(["four words of answer"], usage=False) as server:
        llm = make_llm("openai:m", base_url=server.base_url, cache_dir=tmp_path / "d", concurrency=1)
        llm.generate(conversations[:1])
        stats = llm.stats.as_dict()
        assert stats["prompt_tokens"] == 0 and stats["usage_reported"] == 0 and stats["usage_estimated"] == 1
        assert stats["estimated_prompt_tokens"] == round(len("rate this outline please") / 4)
        assert stats["estimated_completion_tokens"] == round(len("four words of answer") / 4)


def test_evaluate_records_server_usage(sample_dataset, rendered, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    data = SurgeData.open(sample_dataset)
    config = EvaluationConfig(metrics=["sqs", "cqs"], judge="openai:m", judge_style="surge")
    with ScriptedOpenAIServer(responder=_answer) as server:
        judge = Judge(make_llm("openai:m", base_url=server.base_url, cache_dir=tmp_path / "c", timeout=30))
        results = evaluate_run(data, rendered, tmp_path / "r.json", EvaluationSession(config, judge=judge))
        expected = [word_usage(r.messages, r.step.text) for r in server.requests]
    llm = results["judge"]["llm"]
    assert llm["prompt_tokens"] == sum(u["prompt_tokens"] for u in expected) > 0
    assert llm["completion_tokens"] == sum(u["completion_tokens"] for u in expected)
    assert llm["usage_reported"] == len(expected) and llm["usage_estimated"] == 0


def test_dry_run_counts_calls_tokens_and_cache_hits(sample_dataset, rendered, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    data = SurgeData.open(sample_dataset)
    config = EvaluationConfig(metrics=["sqs", "cqs"], judge="openai:m")  # official: released SQS/CQS settings
    before = estimate_evaluation(data, rendered, config, cache_dir=tmp_path / "c")
    prepared, _, _ = prepare_folder(data, rendered, config)
    sqs = [r for p in prepared for r in config_requests("sqs", p, config)]
    cqs = list(dict.fromkeys(r for p in prepared for r in config_requests("cqs", p, config)))
    assert before["surveys"] == len(prepared)
    assert before["metrics"]["sqs"] == {
        "calls": len(sqs), "cached": 0, "prompt_tokens": sum(_estimate(r.conversation) for r in sqs),
        "completion_tokens": 100 * len(sqs),  # the released style's answer budget
        "prompt_tokens_to_send": sum(_estimate(r.conversation) for r in sqs),
        "completion_tokens_to_send": 100 * len(sqs)}
    assert before["metrics"]["cqs"]["calls"] == len(cqs)
    assert before["token_method"] == "estimate: characters / 4"
    assert not journal_path(tmp_path / "r.json").exists()

    with ScriptedOpenAIServer(responder=_answer) as server:  # a real run fills the cache ...
        judge = Judge(make_llm("openai:m", base_url=server.base_url, cache_dir=tmp_path / "c", timeout=30))
        evaluate_run(data, rendered, tmp_path / "r.json", EvaluationSession(config, judge=judge))
        assert len(server.requests) == len(sqs) + len(cqs)
    after = estimate_evaluation(data, rendered, config, cache_dir=tmp_path / "c")
    assert after["total"]["cached"] == after["total"]["calls"] == len(sqs) + len(cqs)  # ... so nothing to send
    assert after["total"]["prompt_tokens_to_send"] == 0


def config_requests(name, prepared, config):
    from surge_dataset.evaluation import get_metric

    return [r for r in get_metric(name).requests(prepared, config).judge if r is not None]


def test_dry_run_repeats_and_kpr_estimate(sample_dataset, rendered, tmp_path):
    data = SurgeData.open(sample_dataset)
    one = estimate_evaluation(data, rendered, EvaluationConfig(metrics=["sqs", "kpr"], judge="openai:m"),
                              cache_dir=tmp_path / "c")
    three = estimate_evaluation(data, rendered, EvaluationConfig(metrics=["sqs", "kpr"], judge="openai:m",
                                                                 judge_repeats=3), cache_dir=tmp_path / "c")
    assert three["metrics"]["sqs"]["calls"] == 3 * one["metrics"]["sqs"]["calls"]
    n = one["surveys"]  # every rendered GT survey has text: one extraction + 20 checks each
    assert one["metrics"]["kpr"]["calls"] == n * (1 + judges.KPR_MAX_POINTS)
    assert one["metrics"]["kpr"]["completion_tokens"] == n * (1024 + 16 * judges.KPR_MAX_POINTS)
    assert any(note.startswith("kpr:") and "maximum" in note for note in one["notes"])


def test_dry_run_with_a_local_tokenizer(sample_dataset, rendered, minilm_path, tmp_path):
    """hf: judge: the model's tokenizer counts (loaded alone, no weights)."""
    from transformers import AutoTokenizer

    data = SurgeData.open(sample_dataset)
    config = EvaluationConfig(metrics=["sqs"], judge=f"hf:{minilm_path}", device="cpu")
    report = estimate_evaluation(data, rendered, config, cache_dir=tmp_path / "c")
    tokenizer = AutoTokenizer.from_pretrained(str(minilm_path))
    prepared, _, _ = prepare_folder(data, rendered, config)
    requests = [r for p in prepared for r in config_requests("sqs", p, config)]
    expected = sum(len(tokenizer("\n".join(c for _, c in r.conversation), add_special_tokens=False)["input_ids"])
                   for r in requests)  # no chat template in this tokenizer: the plain text is counted
    assert report["token_method"] == f"tokenizer of hf:{minilm_path}"
    assert report["metrics"]["sqs"]["prompt_tokens"] == expected


def test_cli_evaluate_dry_run_sends_and_writes_nothing(sample_dataset, rendered, tmp_path):
    out = tmp_path / "r.json"
    result = CliRunner().invoke(app, [
        "evaluate", "--data", str(sample_dataset), "--passages", str(rendered), "--out", str(out),
        "--metrics", "sqs,kpr", "--judge", "openai:gpt-4o", "--dry-run", "--price-per-1k", "2.5,10",
        "--cache-dir", str(tmp_path / "c"),
    ])
    assert result.exit_code == 0, result.output
    assert "LLM calls" in result.output and "characters / 4" in result.output
    assert "price of the calls to send at 2.5 / 10 per 1k tokens" in result.output and "kpr:" in result.output
    assert not out.exists() and not journal_path(out).exists()
    bad = CliRunner().invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(rendered),
                                   "--metrics", "recall", "--price-per-1k", "1,2"])
    assert bad.exit_code == 2 and "--dry-run" in bad.output


@pytest.fixture(scope="module")
def run(sample_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = SurgeData.open(sample_dataset)
    folder = tmp_path_factory.mktemp("cost-run")
    build_bm25_index(data, folder / "bm25")
    run_retrieval(folder / "bm25", data, folder / "test.trec", split="test", k=20)
    return folder / "test.trec"


@pytest.mark.parametrize(("system", "options", "calls"), [
    ("rag", ["-o", "batch_size=10"], 3),  # 20 papers: 2 summaries + 1 fusion
    ("autosurvey", ["-o", "max_sections=2", "-o", "max_subsections=1"], 5),  # outline + 2 leaves x (write, refine)
    ("stepsurvey", ["-o", "max_sections=2", "-o", "max_subsections=1"], 5),  # headings + 2 subtopics + 2 subsections
])
def test_cli_generate_dry_run(sample_dataset, run, tmp_path, system, options, calls):
    from surge_dataset.cli.generate import app as generate_app
    from surge_dataset.generation import get_generator
    from surge_dataset.generation.dry_run import estimate_generation

    out = tmp_path / "out"
    result = CliRunner().invoke(generate_app, [
        "--system", system, "--llm", "openai:gpt-4o", "--data", str(sample_dataset), "--run", str(run),
        "--top-k", "20", "--max-new-tokens", "64", "--dry-run", "--price-per-1k", "1,1", *options])
    assert result.exit_code == 0, result.output
    assert "dry run (estimate)" in result.output and "characters / 4" in result.output and not out.exists()
    data = SurgeData.open(sample_dataset)
    opts = dict(o.split("=") for o in options[1::2])
    estimate = estimate_generation(data, get_generator(system, max_new_tokens=64, **opts), "openai:gpt-4o",
                                   [s.survey_id for s in data.surveys("test")], run=run, top_k=20)
    assert not estimate.failed
    for line in estimate.surveys.values():
        assert line["calls"] == calls and line["completion_tokens"] == 64 * calls
    total = estimate.total
    assert f"{total['calls']:,}" in result.output
    assert f"about {price(total['prompt_tokens'], total['completion_tokens'], (1.0, 1.0)):,.4f}" in result.output


def test_generation_sidecar_marks_server_usage(sample_dataset, run, tmp_path, monkeypatch):
    from surge_dataset.cli.generate import app as generate_app

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    for usage, expected in ((True, "reported"), (False, "estimate: characters / 4")):
        out = tmp_path / f"out-{usage}"
        with ScriptedOpenAIServer(responder=lambda messages: "Some text [P1].", usage=usage) as server:
            result = CliRunner().invoke(generate_app, [
                "--system", "rag", "--llm", "openai:m", "--base-url", server.base_url, "--data", str(sample_dataset),
                "--run", str(run), "--survey-ids", "0", "--top-k", "20", "--out", str(out),
                "--cache-dir", str(tmp_path / f"c-{usage}")])
            assert result.exit_code == 0, result.output
            sent = [word_usage(r.messages, r.step.text) for r in server.requests]
        sidecar = json.loads((out / "0" / "survey.json").read_text())
        assert {c["tokens_from"] for c in sidecar["calls"]} == {expected}
        assert sidecar["totals"]["tokens_from"] == {expected: len(sent)}
        if usage:
            assert sorted(c["prompt_tokens"] for c in sidecar["calls"]) == sorted(u["prompt_tokens"] for u in sent)
            assert sidecar["totals"]["completion_tokens"] == sum(u["completion_tokens"] for u in sent)


def test_alce_judge_estimate_is_the_most_a_run_can_ask(sample_dataset, rendered, tmp_path):
    """A judge that makes every ALCE stage ask the most (joint premises of several papers entail, single
    papers do not) sends exactly the estimated calls."""
    from surge_dataset.llm import LLM
    from surge_dataset.llm.base import BackendSpec, Completion

    class MostQuestions:
        spec = BackendSpec("openai", "alce-judge")
        sent = 0

        def identity(self):
            return "alce-judge-v1"

        def generate(self, conversations, settings, on_done, stats):
            for index, conversation in enumerate(conversations):
                premise = conversation[-1][1].split(">>>")[0]
                self.sent += 1
                on_done(index, Completion("1" if premise.count("Title:") > 1 else "0"))

    data = SurgeData.open(sample_dataset)
    config = EvaluationConfig(metrics=["alce"], judge="openai:alce-judge", alce_backend="judge")
    estimate = estimate_evaluation(data, rendered, config, cache_dir=tmp_path / "c")
    backend = MostQuestions()
    evaluate_run(data, rendered, tmp_path / "r.json",
                 EvaluationSession(config, judge=Judge(LLM(backend, cache_dir=False))))
    assert backend.sent == estimate["metrics"]["alce"]["calls"] > 0
    assert any(note.startswith("alce:") for note in estimate["notes"])
