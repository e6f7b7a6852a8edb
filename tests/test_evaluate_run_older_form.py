"""``evaluate_run``'s older form (a config and the models by keyword) still runs every keyword it took.

Scripts written before the run had a session passed models (``nli=``), the factories that build them on first
use (``nli_factory=``, ...), the run options (``run=``) and the launch (``processes=``); each still reaches the
run, with a :class:`DeprecationWarning`, and gives the scores the session form gives.
"""

from __future__ import annotations

import pytest

from surge_dataset import SurgeData
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, RunOptions, evaluate_run

from .support.doubles import EntailingNLI

CONFIG = EvaluationConfig(metrics=["citation_accuracy"], protocol="paper")



@pytest.fixture(scope="module")
def rendered(sample_dataset, tmp_path_factory):
    data = SurgeData.open(sample_dataset)
    folder = tmp_path_factory.mktemp("rendered")
    render_surveys(data.surveys("test"), data.corpus, folder)
    return folder


def test_factories_and_run_options_by_keyword_still_run(sample_dataset, rendered, tmp_path):
    data = SurgeData.open(sample_dataset)
    built: list[EntailingNLI] = []

    def nli_factory() -> EntailingNLI:
        built.append(EntailingNLI())
        return built[-1]

    with pytest.warns(DeprecationWarning, match="EvaluationSession"):
        older = evaluate_run(data, rendered, tmp_path / "older.json", CONFIG, nli_factory=nli_factory,
                             run=RunOptions(batch_size=4))
    assert len(built) == 1 and built[0].calls == 1  # built once, asked once for the whole run
    current = evaluate_run(data, rendered, tmp_path / "current.json", EvaluationSession(CONFIG, nli=EntailingNLI()))
    assert older["surveys"] == current["surveys"] and older["average"] == current["average"]


def test_a_keyword_the_older_form_never_took_is_a_type_error_naming_it(sample_dataset, rendered, tmp_path):
    data = SurgeData.open(sample_dataset)
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="nli_facotry"):
        evaluate_run(data, rendered, tmp_path / "r.json", CONFIG, nli_facotry=EntailingNLI)
