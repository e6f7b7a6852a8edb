"""Every result key has a direction: declared on the Metric, read by meta-eval, the report and the leaderboard."""

from __future__ import annotations

import pytest

from surge_dataset.evaluation import Metric, MetricOutput, register, unregister
from surge_dataset.evaluation.catalogue import higher_is_better, registry


def test_declared_directions() -> None:
    assert higher_is_better("quiz") is True and higher_is_better("quiz_unanswered") is False
    assert higher_is_better("quiz_unanswered_std") is False  # judge noise follows its key
    assert higher_is_better("pairwise_gt_loss") is False and higher_is_better("pairwise_gt_win") is True
    assert all(higher_is_better(k) for k in ("recall", "doc_acc", "shr", "rougeL", "bleu", "cqs", "sqs"))
    assert higher_is_better("no_such_key") is True  # what no metric declares keeps SurGE's convention
    lower = sorted(k for m in registry().values() for k in m.keys if not higher_is_better(k))
    assert lower == ["pairwise_gt_loss", "quiz_unanswered"]


def test_a_metric_lower_is_better_as_a_whole_and_a_stray_direction_is_refused() -> None:
    class Errors(Metric):
        name, keys, higher_is_better = "toy_errors", ("toy_errors", "toy_fixed"), False
        key_directions = {"toy_fixed": True}

        def score(self, survey, models, config):  # pragma: no cover - never scored
            return MetricOutput({})

    register(Errors)
    try:
        assert higher_is_better("toy_errors") is False and higher_is_better("toy_fixed") is True
    finally:
        unregister("toy_errors")

    class Stray(Errors):
        name, keys = "toy_stray", ("toy_stray",)
        key_directions = {"toy_other": False}

    with pytest.raises(ValueError, match="key_directions for keys it does not write"):
        register(Stray)


def test_the_leaderboard_means_table_says_each_metrics_direction() -> None:
    from surge_dataset.leaderboard.build import _meta

    meta = _meta([], ["recall", "quiz_unanswered"], [], [], title="t", seed=0, resamples=10)
    assert [(m["key"], m["higher_is_better"]) for m in meta["metrics"]] == [("recall", True),
                                                                            ("quiz_unanswered", False)]


def test_the_leaderboard_app_marks_a_lower_is_better_column(tmp_path) -> None:
    """A Space built from two quiz runs: the app's header of quiz_unanswered says lower is better (↓), quiz's not."""
    import json

    from surge_dataset.leaderboard import build_space
    from surge_dataset.leaderboard.space import leaderboard_data

    paths = []
    for name, unanswered in (("a", [0.1, 0.2]), ("b", [0.5, 0.6])):
        surveys = {str(i): {"quiz": 1 - u, "quiz_unanswered": u, "counts": {}, "diagnostics": []}
                   for i, u in enumerate(unanswered)}
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"config": {"metrics": ["quiz"], "protocol": "official", "data_fingerprint": "x",
                                               "quiz_fingerprint": "1111222233334444"},
                                    "surveys": surveys, "failures": []}))
        paths.append(path)
    build_space(paths, tmp_path / "space", data=None, resamples=100)
    board = leaderboard_data.Board(tmp_path / "space" / "data")
    assert board.labels["quiz_unanswered"].endswith(" ↓") and not board.labels["quiz"].endswith("↓")
    assert board.column("quiz_unanswered").startswith(board.labels["quiz_unanswered"])
