"""surge arena: pairs of systems on one topic, both orders, Bradley-Terry with bootstrap CIs; in surge report."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import SurgeGroup
from surge_dataset.cli.judging import arena, judge_agreement
from surge_dataset.core.errors import SurgeError
from surge_dataset.data.render import render_survey
from surge_dataset.judging import JudgingError
from surge_dataset.judging.arena import ArenaSystem, sample_pairs
from surge_dataset.judging.bt import elo, fit_bradley_terry
from surge_dataset.report import build_report
from tests.support.openai_server import ScriptedOpenAIServer

from .test_pairwise import always_a, longer

app = typer.Typer(cls=SurgeGroup, pretty_exceptions_enable=False)  # cli.py wires them the same way
app.command("arena")(arena)
app.command("judge-agreement")(judge_agreement)


def test_bradley_terry_by_hand_on_three_systems():
    """Strengths 4 : 2 : 1 predict P(A>B) = 2/3, P(B>C) = 2/3, P(A>C) = 4/5; with exactly those win counts
    (A-B 2:1, B-C 2:1, A-C 4:1) each system's wins equal their expectation, so the maximum-likelihood
    log-strengths are ln 4, ln 2, 0, centred: ln 2, 0, -ln 2."""
    outcomes = ([(0, 1, 1.0)] * 2 + [(0, 1, 0.0)] + [(1, 2, 1.0)] * 2 + [(1, 2, 0.0)] + [(0, 2, 1.0)] * 4
                + [(0, 2, 0.0)])
    ratings = fit_bradley_terry(3, outcomes, prior=0.0)
    assert ratings == pytest.approx([math.log(2), 0.0, -math.log(2)], abs=1e-6)
    assert elo(math.log(10)) == pytest.approx(1400.0)
    # ties count half a win each way: two systems that only tie are equal; one in no outcome has no rating
    tied = fit_bradley_terry(3, [(0, 1, 0.5)] * 3, prior=0.0)
    assert tied[:2] == pytest.approx([0.0, 0.0]) and tied[2] is None


def test_pairs_are_drawn_deterministically_from_every_possible_pair():
    systems = [ArenaSystem(name, {i: Path(f"{name}/{i}.md") for i in ids})
               for name, ids in (("a", [0, 1, 2]), ("b", [0, 1, 2]), ("c", [1, 2]))]
    every = sample_pairs(systems, 100, seed=0)
    assert every == [(0, 0, 1), (1, 0, 1), (1, 0, 2), (1, 1, 2), (2, 0, 1), (2, 0, 2), (2, 1, 2)]
    assert sample_pairs(systems, 4, seed=3) == sample_pairs(systems, 4, seed=3)
    assert len(set(sample_pairs(systems, 4, seed=3))) == 4 and set(sample_pairs(systems, 4, seed=3)) <= set(every)
    assert {tuple(sample_pairs(systems, 4, seed=s)) for s in range(8)} != {tuple(sample_pairs(systems, 4, seed=0))}
    with pytest.raises(JudgingError, match="at least 1"):
        sample_pairs(systems, 0, seed=0)


@pytest.fixture(scope="module")
def systems(sample_dataset, tmp_path_factory) -> tuple[Path, list[Path]]:
    """Three systems on the sample's three test topics: long (the GT rendered plus more), mid (the GT rendered)
    and short (one paragraph); a results file for each recording its passage folder."""
    data = SurgeData.open(sample_dataset)
    root = tmp_path_factory.mktemp("arena")
    results = []
    for name in ("short", "long", "mid"):
        surveys = {}
        for gt in data.surveys("test"):
            text = render_survey(gt, data.corpus)
            text = {"long": text + "\n\n# Outlook\n\n" + "Open problems remain. " * 100, "mid": text,
                    "short": f"# {gt.survey_title}\n\nA short note on the topic.\n"}[name]
            folder = root / "passages" / name / str(gt.survey_id)
            folder.mkdir(parents=True)
            (folder / "survey.md").write_text(text, encoding="utf-8")
            surveys[str(gt.survey_id)] = {"recall": 0.5, "counts": {}, "diagnostics": []}
        path = root / f"{name}.json"
        path.write_text(json.dumps({"config": {"passages": str(root / "passages" / name), "protocol": "official"},
                                    "surveys": surveys}))
        results.append(path)
    return root, results


def _arena(server, sample_dataset, results, out, *extra):
    return CliRunner().invoke(app, ["arena", *map(str, results), "--data", str(sample_dataset), "--judge",
                                    "openai:arena-judge", "--base-url", server.base_url, "--out", str(out),
                                    "--resamples", "200", "--cache-dir", str(out.parent / "cache"), *extra])


def test_arena_ranks_by_the_judge_preference_and_resumes_from_the_cache(systems, sample_dataset, tmp_path):
    root, results = systems
    out = tmp_path / "arena.json"
    with ScriptedOpenAIServer(responder=longer) as server:
        result = _arena(server, sample_dataset, results, out)
        assert result.exit_code == 0, result.output
        first = json.loads(out.read_text())
        assert len(server.requests) == 2 * len(first["pairs"]) == 2 * 9  # 3 topics x 3 pairs x both orders
        assert first["ranking"] == ["long", "mid", "short"]
        assert first["systems"]["long"]["wins"] == 6 and first["systems"]["short"]["losses"] == 6
        assert all(s["consistency"] == 1.0 for s in first["systems"].values())
        long = first["systems"]["long"]
        assert long["ci_low"] <= long["rating"] <= long["ci_high"] and long["elo"] > 1000
        assert "long" in result.output and "Bradley-Terry" in result.output

        again = _arena(server, sample_dataset, results, out)  # same seed: same pairs, every answer from the cache
        assert again.exit_code == 0 and len(server.requests) == 18
        assert json.loads(out.read_text())["systems"] == first["systems"]

        drawn = _arena(server, sample_dataset, results, tmp_path / "five.json", "--pairs", "5", "--seed", "7")
        assert drawn.exit_code == 0
        five = json.loads((tmp_path / "five.json").read_text())["pairs"]
        assert len(five) == 5

    report = build_report([*results, out], tmp_path / "report", formats=(), resamples=100)
    assert "arena.md" in report["files"] and report["arena"][0]["ranking"] == ["long", "mid", "short"]
    text = (tmp_path / "report" / "arena.md").read_text()
    assert "| 1 | long |" in text and "arena-judge" in text


def test_always_a_arena_is_all_ties_with_no_consistency(systems, sample_dataset, tmp_path):
    _, results = systems
    out = tmp_path / "arena.json"
    with ScriptedOpenAIServer(responder=always_a) as server:
        assert _arena(server, sample_dataset, results, out, "--pairs", "3").exit_code == 0
    data = json.loads(out.read_text())
    assert all(p["outcome"] == 0.5 and p["consistent"] is False for p in data["pairs"])
    assert all(s["consistency"] == 0.0 for s in data["systems"].values() if s["pairs"])
    assert all(abs(s["rating"]) < 1e-9 for s in data["systems"].values() if s["rating"] is not None)


def test_arena_errors_are_one_line(systems, sample_dataset, tmp_path):
    _, results = systems
    one = CliRunner().invoke(app, ["arena", str(results[0]), "--judge", "openai:x", "--data", str(sample_dataset)])
    assert one.exit_code == 2 and "at least two systems" in one.output and "Traceback" not in one.output
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps({"config": {"passages": "nowhere"}, "surveys": {}}))
    bad = CliRunner().invoke(app, ["arena", str(results[0]), str(moved), "--judge", "openai:x",
                                   "--data", str(sample_dataset), "--passages-root", str(tmp_path)])
    assert bad.exit_code == 2 and "--passages-root" in bad.output
    assert issubclass(JudgingError, SurgeError)  # one line and exit 2 from the root command, no except here


def test_tied_systems_share_a_rank_and_a_position_biased_judge_is_flagged(systems, sample_dataset, tmp_path):
    """A judge that always answers "A" ties every pair (both orders disagree): all systems tie, so all rank 1
    (never 1, 2, 3), and its position consistency 0.00 is below MIN_POSITION_CONSISTENCY: flagged in the arena
    table, in arena.json, in the report's arena.md and among the report's warnings."""
    from surge_dataset.judging.arena import MIN_POSITION_CONSISTENCY

    _, results = systems
    out = tmp_path / "arena.json"
    with ScriptedOpenAIServer(responder=always_a) as server:
        result = _arena(server, sample_dataset, results, out)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["ranks"] == {"short": 1, "long": 1, "mid": 1}
    assert data["consistency"] == 0.0 and data["low_consistency"] is True and MIN_POSITION_CONSISTENCY == 0.5
    rows = [line for line in result.output.splitlines() if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in rows] == ["1", "1", "1"]
    assert "position consistency 0.00 is below 0.50" in result.output
    report = build_report([*results, out], tmp_path / "report", formats=(), resamples=100)
    text = (tmp_path / "report" / "arena.md").read_text()
    assert text.count("| 1 |") == 3 and "| 2 |" not in text
    assert "position consistency 0.00 is below 0.50" in text
    assert any("position consistency 0.00 is below 0.50" in w for w in report["warnings"])


def test_ranks_with_ties_are_competition_ranks():
    """Equal ratings (to 1e-9) share the best rank of their group, the next rank skips: 1, 1, 3; no rating: None."""
    from surge_dataset.judging.arena import shared_ranks

    assert shared_ranks({"a": 0.5, "b": 0.5 + 1e-12, "c": -1.0, "d": None}) == {"a": 1, "b": 1, "c": 3, "d": None}
    assert shared_ranks({"x": 0.1, "y": 0.2}) == {"y": 1, "x": 2}
