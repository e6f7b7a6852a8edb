"""Two survey folders of one id (``7/`` and ``007/``) are one bad entry reported, never the end of the run.

Each survey's model answers are found by its id, so two folders naming the same survey cannot both be scored:
the second one the folder listing gives is a failure naming both folders, and every other survey is scored.
"""

from __future__ import annotations

import shutil

import numpy as np

from surge_dataset import SurgeData
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, discover_passages, evaluate_run


class EntailingNLI:
    def logits(self, pairs):
        return np.tile([0.0, 2.0, 1.0], (len(pairs), 1))


def test_a_second_folder_of_one_survey_id_is_a_failure_and_the_run_goes_on(sample_dataset, tmp_path):
    data = SurgeData.open(sample_dataset)
    rendered = tmp_path / "rendered"
    render_surveys(data.surveys("test"), data.corpus, rendered)
    first = sorted(p for p in rendered.iterdir() if p.is_dir())[0]
    padded = rendered / f"00{first.name}"
    shutil.copytree(first, padded)

    entries, failures = discover_passages(rendered, "paper")
    assert [i for i, _ in entries].count(int(first.name)) == 1
    assert [f["path"] for f in failures] == [str(padded)]
    assert str(first) in failures[0]["error"] and "one folder per survey" in failures[0]["error"]

    results = evaluate_run(data, rendered, tmp_path / "r.json", EvaluationSession(
        EvaluationConfig(metrics=["citation_accuracy"], protocol="paper"), nli=EntailingNLI()))
    assert len(results["surveys"]) == len(data.surveys("test"))
    assert [f["path"] for f in results["failures"]] == [str(padded)]
