"""`--min-cites` and `--exclude-empty`: which surveys they drop, in evaluation and in retrieval, and the record."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.data.filters import SurveyFilter, filter_qrels
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
from surge_dataset.retrieval.runs import load_qrels, load_queries

runner = CliRunner()


@pytest.fixture(scope="module")
def data(sample_dataset) -> SurgeData:
    return SurgeData.open(sample_dataset)


def test_exclusion_reasons(data):
    # sample: surveys 0, 1, 2 (test) cite 21, 20, 19 papers; 41, 42 cite 18, 17; 43 cites nothing
    assert SurveyFilter().active is False and all(SurveyFilter().keeps(s) for s in data.surveys())
    empty = SurveyFilter(exclude_empty=True)
    assert [s.survey_id for s in data.surveys() if not empty.keeps(s)] == [43]
    assert "empty all_cites" in empty.exclusion_reason(data.survey(43))
    twenty = SurveyFilter(min_cites=20)
    assert [s.survey_id for s in data.surveys() if twenty.keeps(s)] == [0, 1]
    assert twenty.exclusion_reason(data.survey(2)) == "19 cited papers < --min-cites 20"
    with pytest.raises(ValueError):
        SurveyFilter(min_cites=-1)


def test_evaluate_excludes_and_records(data, tmp_path):
    render_surveys(data.surveys(), data.corpus, tmp_path / "p")
    out = tmp_path / "r.json"
    plain = evaluate_run(data, tmp_path / "p", out,
                         EvaluationSession(EvaluationConfig(metrics=["recall"], protocol="paper")))
    assert plain["average_counts"]["recall"] == 5 and plain["excluded"] == []  # 43's recall is undefined
    config = EvaluationConfig(metrics=["recall"], protocol="paper", min_cites=19, exclude_empty=True)
    # filters choose which surveys are scored, not how: the journal of the unfiltered run stays valid
    assert config.key(data.fingerprint) == EvaluationConfig(metrics=["recall"], protocol="paper").key(data.fingerprint)
    filtered = evaluate_run(data, tmp_path / "p", out, EvaluationSession(config))
    assert sorted(filtered["surveys"]) == ["0", "1", "2"]
    assert [(e["survey_id"], e["reason"].split(" (")[0]) for e in filtered["excluded"]] == [
        (41, "18 cited papers < --min-cites 19"), (42, "17 cited papers < --min-cites 19"), (43, "empty all_cites")]
    assert filtered["config"]["min_cites"] == 19 and filtered["config"]["exclude_empty"] is True
    assert filtered["failures"] == []


def test_cli_evaluate_filters_exit_zero(data, sample_dataset, tmp_path):
    render_surveys(data.surveys("train"), data.corpus, tmp_path / "p")
    out = tmp_path / "r.json"
    done = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(tmp_path / "p"),
                               "--metrics", "recall", "--exclude-empty", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert "excluded" in done.output and "survey 43" in done.output
    assert sorted(json.loads(out.read_text())["surveys"]) == ["41", "42"]


def test_retrieval_queries_and_qrels(data):
    twenty = SurveyFilter(min_cites=20)
    assert [q.qid for q in load_queries(data, "test", "titles", twenty)] == ["0", "1"]
    assert sorted(load_qrels(data, "test", "titles", twenty)) == ["0", "1"]
    questions = load_queries(data, "test", "questions", twenty)
    assert questions and {q.survey_id for q in questions} == {0, 1}
    assert len(load_queries(data, "test", "questions")) > len(questions)
    all_qrels = load_qrels(data, "test", "questions")
    assert filter_qrels(all_qrels, data, "questions", twenty) == load_qrels(data, "test", "questions", twenty)


def test_cli_retrieve_records_filter_and_eval_reuses_it(data, sample_dataset, tmp_path):
    index = tmp_path / "bm25"
    assert runner.invoke(app, ["index", "bm25", "--data", str(sample_dataset), "--out", str(index)]).exit_code == 0
    run = tmp_path / "run.trec"
    done = runner.invoke(app, ["retrieve", "--index", str(index), "--data", str(sample_dataset), "--k", "20",
                               "--min-cites", "20", "--out", str(run)])
    assert done.exit_code == 0, done.output
    assert "2 queries" in done.output
    meta = json.loads((tmp_path / "run.trec.meta.json").read_text())
    assert meta["filters"] == {"min_cites": 20, "exclude_empty": False} and meta["n_queries"] == 2
    metrics = tmp_path / "m.json"
    done = runner.invoke(app, ["retrieval-eval", "--run", str(run), "--data", str(sample_dataset),
                               "--out", str(metrics)])
    assert done.exit_code == 0, done.output
    result = json.loads(metrics.read_text())
    assert sorted(result["per_query"]) == ["0", "1"] and result["filters"]["min_cites"] == 20
    # without the filter, survey 2 is a qrels query missing from the run and counts 0
    done = runner.invoke(app, ["retrieval-eval", "--run", str(run), "--data", str(sample_dataset),
                               "--min-cites", "0", "--out", str(metrics)])
    assert done.exit_code == 0 and sorted(json.loads(metrics.read_text())["per_query"]) == ["0", "1", "2"]
