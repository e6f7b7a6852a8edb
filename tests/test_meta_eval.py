"""Meta-evaluation: Kendall's tau / Spearman's rho against a human ranking, hand-computed."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.judging.meta_eval import load_results, meta_evaluate, read_human_rankings

HUMAN = """survey_id,system,rank
0,GT,1
0,A,2
0,B,3
0,C,4
1,GT,1
1,A,3
1,B,2
1,C,4
2,A,1
"""
# metric m per system and survey; survey 2 has a single ranked system (skipped)
SCORES = {"GT": {0: 0.9, 1: 0.8}, "A": {0: 0.5, 1: 0.2, 2: 0.3}, "B": {0: 0.6, 1: 0.7}, "C": {0: 0.1, 1: 0.1}}


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "human.csv").write_text(HUMAN)
    paths = []
    for system, values in SCORES.items():
        surveys = {str(i): {"shr": v, "counts": {"references": 3}, "diagnostics": []} for i, v in values.items()}
        path = tmp_path / f"{system}.json"
        path.write_text(json.dumps({"surveys": surveys}))
        paths.append(f"{system}={path}")
    return tmp_path / "human.csv", paths


def test_hand_computed_correlations(files):
    human, paths = files
    result = meta_evaluate(read_human_rankings(human), load_results(paths))
    assert set(result) == {"shr"}
    # survey 0 with GT: metric order GT>B>A>C vs human GT>A>B>C: 1 discordant pair of 6 -> tau 4/6;
    # rho = 1 - 6*2/(4*15) = 0.8. Survey 1 agrees fully (1, 1).
    assert result["shr"]["with_gt"] == {"kendall_tau": pytest.approx((4 / 6 + 1) / 2),
                                      "spearman_rho": pytest.approx(0.9), "surveys": 2, "skipped": 1}
    # without GT: survey 0 B>A>C vs A>B>C -> tau 1/3, rho 1 - 6*2/(3*8) = 0.5
    assert result["shr"]["without_gt"] == {"kendall_tau": pytest.approx((1 / 3 + 1) / 2),
                                         "spearman_rho": pytest.approx(0.75), "surveys": 2, "skipped": 1}


def test_without_gt_results_the_with_variant_is_undefined(files):
    human, paths = files
    result = meta_evaluate(read_human_rankings(human), load_results([p for p in paths if not p.startswith("GT=")]))
    assert result["shr"]["with_gt"]["kendall_tau"] is None
    assert result["shr"]["without_gt"]["kendall_tau"] == pytest.approx(2 / 3)


def test_a_lower_is_better_metric_is_ranked_lowest_first(tmp_path):
    """The SCORES above under quiz_unanswered (declared lower-is-better): negating the values flips every pairwise
    order, so each per-survey tau and rho changes sign. Survey 0 with GT: -4/6 and -0.8; survey 1: -1 and -1."""
    from surge_dataset.judging.meta_eval import agreement_with_humans

    human = read_human_rankings(_human_csv(tmp_path))
    systems = {s: {sid: {"quiz_unanswered": v, "shr": v} for sid, v in per.items()} for s, per in SCORES.items()}
    result = meta_evaluate(human, systems, ["quiz_unanswered", "shr"])
    assert result["quiz_unanswered"]["higher_is_better"] is False and result["shr"]["higher_is_better"] is True
    assert result["quiz_unanswered"]["with_gt"]["kendall_tau"] == pytest.approx(-(4 / 6 + 1) / 2)
    assert result["quiz_unanswered"]["with_gt"]["spearman_rho"] == pytest.approx(-0.9)
    assert result["quiz_unanswered"]["without_gt"]["kendall_tau"] == pytest.approx(-(1 / 3 + 1) / 2)
    # values equal to the human ranks (1 = best): perfect agreement only when read lower-is-better
    ranks_as_values = {s: {sid: {"quiz_unanswered": r, "shr": r}} for sid, per in human.items() for s, r in per.items()
                       if sid == 0}
    result = meta_evaluate(human, ranks_as_values, ["quiz_unanswered", "shr"])
    assert result["quiz_unanswered"]["with_gt"]["kendall_tau"] == pytest.approx(1.0)
    assert result["shr"]["with_gt"]["kendall_tau"] == pytest.approx(-1.0)
    agreement = agreement_with_humans(human, ranks_as_values, ["quiz_unanswered", "shr"], resamples=20)
    assert agreement["quiz_unanswered"]["with_gt"]["kendall_tau"] == pytest.approx(1.0)
    assert agreement["quiz_unanswered"]["with_gt"]["rank_changes"] == []
    assert agreement["shr"]["with_gt"]["kendall_tau"] == pytest.approx(-1.0)


def _human_csv(folder):
    (folder / "human.csv").write_text(HUMAN)
    return folder / "human.csv"


def test_bad_csv_is_a_clear_error(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("survey,system,rank\n0,A,1\n")
    with pytest.raises(ValueError, match="survey_id, system, rank"):
        read_human_rankings(path)
    path.write_text("survey_id,system,rank\n0,A,1\n0,A,2\n")
    with pytest.raises(ValueError, match="twice"):
        read_human_rankings(path)


def test_cli_meta_eval(files, tmp_path):
    human, paths = files
    out = tmp_path / "meta.json"
    result = CliRunner().invoke(app, ["meta-eval", "--human", str(human), "--out", str(out), "--results", *paths])
    assert result.exit_code == 0, result.output
    assert "0.833" in result.output and "0.667" in result.output
    assert json.loads(out.read_text())["shr"]["with_gt"]["spearman_rho"] == pytest.approx(0.9)


def test_meta_eval_takes_the_quiz_like_any_metric(sample_dataset, tmp_path, monkeypatch):
    """Two systems scored by the quiz metric (the sample's quiz set, the scripted reader through a local server):
    the GT rendered, and the GT with every third section dropped. Ranked by people GT first on every survey, the
    quiz agrees on each (tau 1); quiz_unanswered is declared lower-is-better, so meta-eval ranks its lowest value
    first and it agrees too (tau 1, where ranking it higher-first gave -1)."""
    from surge_dataset import SurgeData
    from surge_dataset.data.render import render_surveys
    from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
    from surge_dataset.llm import Judge, make_llm
    from surge_dataset.testing.quiz import TextReader
    from tests.support.openai_server import ScriptedOpenAIServer

    from .conftest import REPO_ROOT

    monkeypatch.syspath_prepend(str(REPO_ROOT / "examples"))
    from degrade_surveys import degrade

    data = SurgeData.open(sample_dataset)
    render_surveys(data.surveys("test"), data.corpus, tmp_path / "gt")
    for path in (tmp_path / "gt").glob("*/survey.md"):
        target = tmp_path / "degraded" / path.parent.name / "survey.md"
        target.parent.mkdir(parents=True)
        target.write_text(degrade(path.read_text()))
    files = []
    with ScriptedOpenAIServer(responder=TextReader()) as server:
        judge = Judge(make_llm("openai:reader", base_url=server.base_url, cache_dir=tmp_path / "cache"))
        for name in ("gt", "degraded"):
            evaluate_run(data, tmp_path / name, tmp_path / f"{name}.json",
                         EvaluationSession(EvaluationConfig(metrics=["quiz"], judge="openai:reader"), judge=judge))
            files.append(f"{'GT' if name == 'gt' else 'D'}={tmp_path / f'{name}.json'}")
    degraded = json.loads((tmp_path / "degraded.json").read_text())["surveys"]
    assert all(degraded[i]["quiz"] < 1.0 for i in ("0", "1", "2"))
    human = tmp_path / "human.csv"
    human.write_text("survey_id,system,rank\n" + "".join(f"{i},GT,1\n{i},D,2\n" for i in (0, 1, 2)))
    out = tmp_path / "meta.json"
    result = CliRunner().invoke(app, ["meta-eval", "--human", str(human), "--metrics", "quiz,quiz_unanswered",
                                      "--out", str(out), "--resamples", "100", *files])
    assert result.exit_code == 0, result.output
    table = json.loads(out.read_text())
    assert table["quiz"]["with_gt"]["kendall_tau"] == pytest.approx(1.0)
    assert table["quiz"]["with_gt"]["surveys"] == 3
    assert table["quiz_unanswered"]["with_gt"]["kendall_tau"] == pytest.approx(1.0)
    assert table["quiz_unanswered"]["higher_is_better"] is False and table["quiz"]["higher_is_better"] is True
    assert "quiz_unanswered (lower is better)" in result.output
