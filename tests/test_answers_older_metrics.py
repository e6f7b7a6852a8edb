"""A metric written against the models of a run (``models.prefetch(requests)`` then the calls) scores from its
answers unchanged: ``prefetch`` of what it requested is already answered; of anything else, the clear error."""

from __future__ import annotations

import pytest

from surge_dataset import SurgeData
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import (
    EvaluationConfig,
    EvaluationSession,
    Metric,
    MetricOutput,
    Requests,
    UnrequestedInputError,
    evaluate_run,
)

from .support.doubles import EntailingNLI, registered


class PrefetchesInScore(Metric):
    """Requests (title, first heading) and, as metrics did before their answers were handed in, prefetches
    ``pairs`` in ``score`` before reading them."""

    name = "prefetches_in_score"
    keys = ("prefetches_in_score",)
    needs = frozenset({"nli"})
    stray = False

    def requests(self, survey, config):
        return Requests(nli=[(survey.gt.survey_title, survey.parsed.heading_titles()[0])])

    def score(self, survey, models, config):
        pairs = self.requests(survey, config).nli + ([("a stray", "pair")] if self.stray else [])
        models.prefetch(Requests(nli=pairs))
        return MetricOutput({self.name: float(models.nli.logits(pairs[:1])[0][1])})



@pytest.fixture
def older_metric():
    with registered(PrefetchesInScore()) as metric:
        yield metric


def test_prefetch_in_score_of_requested_inputs_is_answered_and_asks_nothing(older_metric, sample_dataset, tmp_path):
    data = SurgeData.open(sample_dataset)
    render_surveys(data.surveys("test"), data.corpus, tmp_path / "rendered")
    nli = EntailingNLI()
    results = evaluate_run(data, tmp_path / "rendered", tmp_path / "r.json",
                           EvaluationSession(EvaluationConfig(metrics=[older_metric.name]), nli=nli))
    assert nli.calls == 1  # the run's one batch
    assert {r[older_metric.name] for r in results["surveys"].values()} == {2.0}


def test_prefetch_in_score_of_an_unrequested_input_names_the_metric(older_metric, sample_dataset, tmp_path):
    data = SurgeData.open(sample_dataset)
    render_surveys(data.surveys("test"), data.corpus, tmp_path / "rendered")
    older_metric.stray = True
    with pytest.raises(UnrequestedInputError, match=r"'prefetches_in_score' asked the nli model for 1 input.*requests\(\)"):
        evaluate_run(data, tmp_path / "rendered", tmp_path / "r.json",
                     EvaluationSession(EvaluationConfig(metrics=[older_metric.name]), nli=EntailingNLI()))
