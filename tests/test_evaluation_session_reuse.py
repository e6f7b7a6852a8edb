"""One ``EvaluationSession`` for several runs: each run's answers, look-up report and pinned settings are its own.

A caller may keep one session for many runs (the models load once); what a run asked, looked up or read off
its dataset must not leak into the next run's scores or results file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from surge_dataset import SurgeData
from surge_dataset.core.errors import SettingError
from surge_dataset.data.build import build_dataset
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import (
    EvaluationConfig,
    EvaluationSession,
    Metric,
    MetricOutput,
    UnrequestedInputError,
    evaluate_run,
)

from .conftest import REPO_ROOT
from .support.doubles import registered

UNKNOWN_TITLE = "[99] Quantum gardening with tiny robots\n"


@pytest.fixture
def with_unknown_title(sample_dataset, tmp_path) -> Path:
    """The sample's test surveys rendered, the first with one reference entry no corpus paper has."""
    data = SurgeData.open(sample_dataset)
    paths = render_surveys(data.surveys("test"), data.corpus, tmp_path / "rendered")
    paths[0].write_text(paths[0].read_text() + "\n" + UNKNOWN_TITLE)
    return tmp_path / "rendered"


def test_each_run_reports_only_its_own_look_ups(sample_dataset, with_unknown_title, tmp_path, monkeypatch):
    monkeypatch.setenv("SURGE_OFFLINE", "1")  # the corpus answers; the web service is skipped
    data = SurgeData.open(sample_dataset)
    config = EvaluationConfig(metrics=["reference_existence"], protocol="paper", bib_services=("openalex",))
    with EvaluationSession(config, data=data) as session:
        first = evaluate_run(data, with_unknown_title, tmp_path / "first.json", session)
        second = evaluate_run(data, with_unknown_title, tmp_path / "second.json", session)
    assert first["references"]["sources"]["corpus"]["titles"] == 1
    # the second run asked the corpus for the one unknown title (its cache answered), not for two
    assert second["references"]["sources"]["corpus"]["titles"] == 1
    assert second["references"]["sources"]["corpus"]["cache_hits"] == 1
    assert first["surveys"] == second["surveys"]


class HandsOverOnce(Metric):
    """A staged toy metric: its prefetch hands each survey's count over on the first run only."""

    name = "hands_over_once"
    keys = ("hands_over_once",)
    description = "toy"

    def __init__(self) -> None:
        self.runs = 0

    def prefetch(self, surveys, models, config):
        self.runs += 1
        return {s.survey_id: 1.0 for s in surveys} if self.runs == 1 else None

    def score(self, survey, models, config):
        return MetricOutput({self.name: models.prefetched})


@pytest.fixture
def hands_over_once():
    with registered(HandsOverOnce()) as metric:
        yield metric


def test_a_second_run_never_reads_what_the_first_run_handed_over(hands_over_once, sample_dataset, tmp_path):
    data = SurgeData.open(sample_dataset)
    rendered = tmp_path / "rendered"
    render_surveys(data.surveys("test"), data.corpus, rendered)
    with EvaluationSession(EvaluationConfig(metrics=[hands_over_once.name]), data=data) as session:
        evaluate_run(data, rendered, tmp_path / "first.json", session)
        with pytest.raises(UnrequestedInputError, match="handed over nothing"):
            evaluate_run(data, rendered, tmp_path / "second.json", session)


def test_a_session_pins_each_dataset_it_runs_on_afresh(sample_dataset, tmp_path):
    source = tmp_path / "source"
    shutil.copytree(REPO_ROOT / "examples" / "sample", source)
    for name in ("quizzes.jsonl", "quizzes.manifest.json"):
        (source / name).unlink()
    without_quizzes = SurgeData.open(build_dataset(source, tmp_path / "built").out)
    with_quizzes = SurgeData.open(sample_dataset)
    session = EvaluationSession(EvaluationConfig(metrics=["quiz"], judge="openai:unused"))
    assert session.pin(with_quizzes).quiz == str(with_quizzes.path)
    # the quiz set found in the first dataset is not the second's: pinned from the session's own settings again
    with pytest.raises(SettingError, match="has no 'quizzes' config"):
        session.pin(without_quizzes)
