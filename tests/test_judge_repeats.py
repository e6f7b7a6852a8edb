"""``--judge-repeats K``: every judged question asked K times as distinct samples; mean and sample std.

Expected values are computed by hand: a judge answering 2, 3, 4 on repeats 0, 1, 2 gives mean 3 and
sample standard deviation (ddof=1) sqrt(((2-3)^2 + 0 + (4-3)^2) / 2) = 1.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli.report import report as report_command
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run, journal_path
from surge_dataset.llm import LLM, Judge, JudgeRequest
from surge_dataset.llm.base import BackendSpec, Completion
from surge_dataset.llm.judge import RELEASED_TEMPERATURE, REPEAT_TEMPERATURE
from surge_dataset.llm.prompts import PROMPTS_VERSION
from surge_dataset.report import build_report


class ByRepeat:
    """A judge model whose answer depends only on which repeat is asked: scores 2 + repeat; KPR points."""

    spec = BackendSpec("openai", "by-repeat")

    def __init__(self) -> None:
        self.seen: list[tuple[str, float, int, int]] = []  # (last message start, temperature, repeat, sample)

    def identity(self) -> str:
        return "by-repeat-v1"

    def generate(self, conversations, settings, on_done, stats):
        for index, conversation in enumerate(conversations):
            text = conversation[-1][1]
            self.seen.append((text[:30], settings.temperature, settings.repeat, settings.sample))
            if "list its key points" in text:
                answer = "- Graph networks pass messages.\n- Pooling summarises graphs."
            elif text.startswith("Key point:"):
                answer = "1" if settings.repeat == 0 else "0"  # KPR per repeat: 1, 0, 0
            else:
                answer = str(2 + settings.repeat)
            stats.add(sent=1)
            on_done(index, Completion(answer))


@pytest.fixture(scope="module")
def rendered(sample_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = SurgeData.open(sample_dataset)
    out = tmp_path_factory.mktemp("rendered-repeats")
    render_surveys(data.surveys("test"), data.corpus, out)
    return out


def _run(data: SurgeData, rendered: Path, out: Path, backend: ByRepeat, cache: Path, **config_options):
    config = EvaluationConfig(metrics=["sqs", "cqs", "rel_llm", "kpr"], judge="openai:by-repeat", **config_options)
    return config, evaluate_run(data, rendered, out,
                                EvaluationSession(config, judge=Judge(LLM(backend, cache_dir=cache))))


def test_three_repeats_give_mean_and_sample_std(sample_dataset, rendered, tmp_path):
    data = SurgeData.open(sample_dataset)
    backend = ByRepeat()
    config, results = _run(data, rendered, tmp_path / "r.json", backend, tmp_path / "cache", judge_style="surge",
                           judge_repeats=3)
    assert config.judge_temperature == REPEAT_TEMPERATURE
    for record in results["surveys"].values():
        for key in ("sqs", "cqs", "rel_llm"):
            assert record[key] == 3.0 and record[f"{key}_std"] == pytest.approx(1.0)
            assert record["counts"][f"{key}_repeats"] == 3
        assert record["kpr"] == pytest.approx(1 / 3)
        assert record["kpr_std"] == pytest.approx(math.sqrt(1 / 3))  # values 1, 0, 0
        assert record["counts"]["sqs_judged"] == 3 and record["counts"]["sqs_missing"] == 0
    assert results["average"]["sqs_std"] == pytest.approx(1.0)
    # greedy (surge) settings are sampled at the repeat temperature, each repeat its own draw
    assert {t for _, t, _, _ in backend.seen} == {REPEAT_TEMPERATURE}
    assert {r for _, _, r, _ in backend.seen} == {0, 1, 2}
    settings = results["config"]["judge_settings"]
    assert settings == {
        "model": "openai:by-repeat", "prompts_version": PROMPTS_VERSION, "style": "surge", "max_tries": 3,
        "repeats": 3, "repeat_temperature": REPEAT_TEMPERATURE, "weighted": False,
        "decoding": {"score/surge": {"max_new_tokens": 16, "temperature": REPEAT_TEMPERATURE},
                     "points/surge": {"max_new_tokens": 1024, "temperature": REPEAT_TEMPERATURE}},
    }
    assert results["config"]["judge_repeats"] == 3

    # a rerun (journal removed) is answered from the cache: every repeat is its own cache entry
    asked = len(backend.seen)
    journal_path(tmp_path / "r.json").unlink()
    _, again = _run(data, rendered, tmp_path / "r.json", backend, tmp_path / "cache", judge_style="surge",
                    judge_repeats=3)
    assert len(backend.seen) == asked and again["surveys"] == results["surveys"]


def test_one_repeat_keeps_the_old_keys_and_output(sample_dataset, rendered, tmp_path):
    data = SurgeData.open(sample_dataset)
    backend = ByRepeat()
    config, results = _run(data, rendered, tmp_path / "r.json", backend, tmp_path / "cache", judge_style="surge")
    record = next(iter(results["surveys"].values()))
    assert record["sqs"] == 2.0 and "sqs_std" not in record and "sqs_repeats" not in record["counts"]
    assert {(t, r) for _, t, r, _ in backend.seen} == {(0.0, 0)}  # greedy, no repeat
    assert config.key("x") == EvaluationConfig(metrics=config.metrics, judge=config.judge, judge_style="surge").key("x")
    payload = EvaluationConfig(metrics=config.metrics, judge=config.judge, judge_style="surge", judge_repeats=2)
    assert payload.key("x") != config.key("x")  # repeats enter the journal key only when != 1
    assert results["config"]["judge_settings"]["decoding"]["score/surge"] == {"max_new_tokens": 16, "temperature": 0.0}
    with pytest.raises(ValueError, match="judge_repeats > 1"):
        EvaluationConfig(judge="openai:x", judge_temperature=0.5)
    with pytest.raises(ValueError, match="above 0"):
        EvaluationConfig(judge="openai:x", judge_repeats=2, judge_temperature=0.0)


def test_released_style_samples_already_and_reuses_repeat_zero(sample_dataset, rendered, tmp_path):
    """Released settings keep temperature 1.0; repeat 0 is the unrepeated question's cache entry."""
    data = SurgeData.open(sample_dataset)
    backend = ByRepeat()
    config = EvaluationConfig(metrics=["sqs"], judge="openai:by-repeat", judge_style="released")
    evaluate_run(data, rendered, tmp_path / "one.json",
                 EvaluationSession(config, judge=Judge(LLM(backend, cache_dir=tmp_path / "cache"))))
    once = len(backend.seen)
    config = EvaluationConfig(metrics=["sqs"], judge="openai:by-repeat", judge_style="released", judge_repeats=2)
    results = evaluate_run(data, rendered, tmp_path / "two.json",
                           EvaluationSession(config, judge=Judge(LLM(backend, cache_dir=tmp_path / "cache"))))
    assert len(backend.seen) == 2 * once  # only repeat 1 was sent
    assert {t for _, t, _, _ in backend.seen} == {RELEASED_TEMPERATURE}
    assert {record["sqs"] for record in results["surveys"].values()} == {2.5}  # answers 2, 3
    assert [record["sqs_std"] for record in results["surveys"].values()] == pytest.approx(
        [math.sqrt(0.5)] * len(results["surveys"]))
    assert results["config"]["judge_settings"]["decoding"]["score/released"] == {
        "max_new_tokens": 100, "temperature": RELEASED_TEMPERATURE}


def test_repeat_requests_are_distinct_samples():
    backend = ByRepeat()
    judge = Judge(LLM(backend, cache_dir=False), sample_temperature=0.9)
    base = JudgeRequest.score([{"role": "user", "content": "rate"}], 0, 5)
    outcomes = judge.run([base, *(JudgeRequest(**{**base.__dict__, "repeat": r}) for r in range(3))])
    assert [o.value for o in outcomes] == [2, 2, 3, 4]
    assert [(t, r) for _, t, r, _ in backend.seen] == [(0.0, 0), (0.9, 0), (0.9, 1), (0.9, 2)]
    with pytest.raises(ValueError, match="above 0"):
        Judge(LLM(backend, cache_dir=False), sample_temperature=0)


def _results(path: Path, name: str, sqs: list[float], sqs_std: list[float | None]) -> Path:
    surveys = {str(i): {"sqs": v, "sqs_std": s, "recall": 0.5, "counts": {}, "diagnostics": []}
               for i, (v, s) in enumerate(zip(sqs, sqs_std, strict=True))}
    config = {"system": name, "protocol": "paper", "data_fingerprint": "x", "judge_repeats": 3,
              "judge_settings": {"model": "openai:j", "repeats": 3}}
    path.write_text(json.dumps({"config": config, "surveys": surveys, "average": {}, "failures": []}))
    return path


def test_report_shows_the_mean_per_survey_judge_std(tmp_path):
    a = _results(tmp_path / "a.json", "A", [3.0, 2.0, 4.0], [1.0, 0.5, None])
    b = _results(tmp_path / "b.json", "B", [1.0, 1.0, 1.0], [0.0, 0.0, 0.3])
    report = build_report([a, b], tmp_path / "report", resamples=200, formats=())
    assert report["judge_std"] == {"A": {"sqs": {"std": 0.75, "n": 2, "repeats": 3}},
                                   "B": {"sqs": {"std": pytest.approx(0.1), "n": 3, "repeats": 3}}}
    assert "sqs_std" not in report["settings"]["metrics"]  # judge noise is not a table column
    table = (tmp_path / "report" / "table.md").read_text()
    assert "Judge std" in table and "A: SQS 0.7500" in table and "B: SQS 0.1000" in table
    variance = (tmp_path / "report" / "judge_variance.md").read_text()
    assert "| A | 3 | 0.7500 |" in variance and "ddof=1" in variance

    import typer

    app = typer.Typer()
    app.command()(report_command)
    result = CliRunner().invoke(app, [str(a), str(b), "--out", str(tmp_path / "cli"), "--resamples", "200"])
    assert result.exit_code == 0, result.output
    assert "Judge std" in result.output and "A: SQS 0.7500" in result.output
