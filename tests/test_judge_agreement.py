"""surge judge-agreement and meta-eval's agreement figures: tau = 1 for identical rankings, -1 for reversed ones,
alpha and the mean absolute difference per survey, the systems whose rank changes; re-scoring with another
judge prints the cost first."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
from surge_dataset.judging.agreement import compare, human_agreement, load_run
from surge_dataset.llm import Judge, make_llm
from tests.support.openai_server import ScriptedOpenAIServer

from .test_arena import app

#: system -> survey -> value: means A 0.8 > B 0.5 > C 0.2
SCORES = {"A": {"0": 0.9, "1": 0.7}, "B": {"0": 0.5, "1": 0.5}, "C": {"0": 0.1, "1": 0.3}}
REVERSED = {s: {i: 1.0 - v for i, v in per.items()} for s, per in SCORES.items()}


def test_identical_rankings_agree_fully():
    same = compare(SCORES, SCORES, seed=0, resamples=200)
    assert same["kendall_tau"] == 1.0 and same["spearman_rho"] == 1.0 and same["tau_ci"] == [1.0, 1.0]
    assert same["krippendorff_alpha"] == pytest.approx(1.0) and same["mean_abs_diff"] == 0.0
    assert same["rank_changes"] == [] and same["systems"] == 3 and same["units"] == 6


def test_reversed_rankings_and_the_systems_that_move():
    flipped = compare(SCORES, REVERSED, seed=0, resamples=200)
    assert flipped["kendall_tau"] == -1.0 and flipped["spearman_rho"] == -1.0
    assert flipped["krippendorff_alpha"] < 0
    # |v - (1 - v)| per survey: 0.8, 0.4, 0, 0, 0.8, 0.4 -> mean 0.4
    assert flipped["mean_abs_diff"] == pytest.approx(0.4)
    assert flipped["rank_changes"] == [{"system": "A", "rank_a": 1, "rank_b": 3}, {"system": "C", "rank_a": 3, "rank_b": 1}]


def test_a_shifted_judge_keeps_the_ranking_but_not_the_values():
    """A judge that gives everything +0.1: the same ranking (tau 1), alpha below 1, difference 0.1."""
    shifted = compare(SCORES, {s: {i: v + 0.1 for i, v in per.items()} for s, per in SCORES.items()}, resamples=100)
    assert shifted["kendall_tau"] == 1.0 and shifted["mean_abs_diff"] == pytest.approx(0.1)
    assert 0 < shifted["krippendorff_alpha"] < 1


def _write_run(folder, scores, key="sqs"):
    folder.mkdir()
    for system, per in scores.items():
        surveys = {sid: {key: v, "counts": {}, "diagnostics": []} for sid, v in per.items()}
        (folder / f"{system}.json").write_text(json.dumps({"config": {}, "surveys": surveys}))
    return folder


def test_cli_compares_runs_given_as_folders(tmp_path):
    a, b = _write_run(tmp_path / "gpt", SCORES), _write_run(tmp_path / "qwen", REVERSED)
    assert load_run(f"first={a}").name == "first" and set(load_run(str(a)).systems) == {"A", "B", "C"}
    out = tmp_path / "agreement.json"
    result = CliRunner().invoke(app, ["judge-agreement", str(a), str(b), "--out", str(out), "--resamples", "100"])
    assert result.exit_code == 0, result.output
    assert "gpt vs qwen" in result.output and "-1.000" in result.output and "A 1→3" in result.output
    saved = json.loads(out.read_text())
    assert saved[0]["metrics"]["sqs"]["kendall_tau"] == -1.0
    one = CliRunner().invoke(app, ["judge-agreement", str(a)])
    assert one.exit_code == 2 and "at least two runs" in one.output


def test_human_agreement_uses_within_survey_ranks():
    human = {0: {"A": 1, "B": 2, "C": 3}, 1: {"A": 1, "B": 2, "C": 3}}
    systems = {s: {int(i): {"shr": v} for i, v in per.items()} for s, per in SCORES.items()}
    figures = human_agreement(human, systems, ["shr"], resamples=100)["shr"]["with_gt"]
    assert figures["kendall_tau"] == 1.0 and figures["mean_abs_diff"] == 0.0 and figures["krippendorff_alpha"] == 1.0


def test_meta_eval_adds_agreement_and_keeps_table_2(tmp_path):
    from surge_dataset.cli import app as surge

    (tmp_path / "human.csv").write_text("survey_id,system,rank\n0,A,1\n0,B,2\n0,C,3\n1,A,2\n1,B,1\n1,C,3\n")
    paths = []
    for system, per in SCORES.items():
        path = tmp_path / f"{system}.json"
        path.write_text(json.dumps({"surveys": {i: {"shr": v, "counts": {}, "diagnostics": []} for i, v in per.items()}}))
        paths.append(str(path))
    out = tmp_path / "meta.json"
    result = CliRunner().invoke(surge, ["meta-eval", "--human", str(tmp_path / "human.csv"), "--out", str(out), *paths])
    assert result.exit_code == 0, result.output
    saved = json.loads(out.read_text())["shr"]
    assert saved["without_gt"]["kendall_tau"] == pytest.approx((1 + 1 / 3) / 2)  # per survey, as before
    # mean human ranks A 1.5, B 1.5, C 3 (a tie) vs the metric's A 1, B 2, C 3: tau-b = 2 / sqrt(2 * 3);
    # per survey the ranks differ only on survey 1 (A and B swapped): mean |difference| 2/6
    agreement = saved["agreement"]["without_gt"]
    assert agreement["kendall_tau"] == pytest.approx(2 / 6 ** 0.5) and agreement["mean_abs_diff"] == pytest.approx(1 / 3)
    assert "human vs metric ranks" in result.output


def test_rescoring_with_another_judge_prints_the_cost_first(sample_dataset, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    data = SurgeData.open(sample_dataset)
    folder = tmp_path / "run-a"
    folder.mkdir()
    with ScriptedOpenAIServer(responder=lambda messages: "3") as first:
        for system, surveys in (("full", data.surveys("test")), ("two", data.surveys("test")[:2])):
            passages = tmp_path / "passages" / system
            render_surveys(surveys, data.corpus, passages)
            evaluate_run(data, passages, folder / f"{system}.json",
                         EvaluationSession(EvaluationConfig(metrics=["sqs"], judge="openai:a"), factories={"judge": lambda: Judge(make_llm("openai:a", base_url=first.base_url,
                                                              cache_dir=tmp_path / "cache"))}))
    with ScriptedOpenAIServer(responder=lambda messages: "4") as second:
        common = ["judge-agreement", str(folder), "--rescore-judge", "openai:b", "--base-url", second.base_url,
                  "--cache-dir", str(tmp_path / "cache"), "--rescore-out", str(tmp_path / "run-b"), "--resamples", "50"]
        dry = CliRunner().invoke(app, [*common, "--dry-run"])
        assert dry.exit_code == 0, dry.output
        assert "dry run" in dry.output and not second.requests and not (tmp_path / "run-b").exists()
        done = CliRunner().invoke(app, common)
        assert done.exit_code == 0, done.output
        # one SQS question per survey, the same surveys the first judge saw; system "two"'s surveys are "full"'s
        # first two, so the answer cache already holds them
        assert len(second.requests) == 3
    assert "dry run" in done.output and "run-a vs openai:b" in done.output, done.output
    rescored = json.loads((tmp_path / "run-b" / "full.json").read_text())
    assert rescored["config"]["judge"] == "openai:b" and rescored["average"]["sqs"] == 4.0


def test_judge_agreement_and_meta_eval_compute_their_coefficients_one_way():
    """Both paths call surge_dataset.core.stats: on the same values they give scipy's tau-b and rho, ties included."""
    import numpy as np
    from scipy.stats import kendalltau, spearmanr

    from surge_dataset.core.stats import rank_correlations
    from surge_dataset.judging.meta_eval import _correlations as meta_eval_correlations

    rng = np.random.default_rng(0)
    for _ in range(200):
        x, y = rng.integers(0, 4, 6).astype(float), rng.integers(0, 4, 6).astype(float)
        found = rank_correlations(x, y)
        if found is not None:
            assert found == pytest.approx((kendalltau(x, y).statistic, spearmanr(x, y).statistic), abs=1e-12)
        assert meta_eval_correlations(x, -y) == found  # meta-eval negates human ranks (1 = best)
    # judge-agreement's system-level figures are the same function of the system means
    a = {s: {str(i): float(v) for i, v in enumerate(rng.random(5))} for s in "PQRST"}
    b = {s: {i: v + rng.normal(0, 0.2) for i, v in per.items()} for s, per in a.items()}
    figures = compare(a, b, resamples=100)
    means = [(np.mean(list(a[s].values())), np.mean(list(b[s].values()))) for s in sorted(a)]
    assert (figures["kendall_tau"], figures["spearman_rho"]) == rank_correlations(*zip(*means, strict=True))
