"""``surge arena``: systems judged against each other, pair by pair, and ranked with Bradley-Terry.

Inputs are ``surge evaluate`` results files, one per system: they name the system (``config.system`` or the
file stem), its passage folder (``--passages-root``/<system>, or ``config.passages`` relative to the results file:
:mod:`surge_dataset.evaluation.passages`) and the surveys it was
evaluated on. A *pair* is one topic (survey id) and two systems that both have a survey for it; ``--pairs N``
of all such pairs are drawn with ``numpy.random.default_rng(seed)`` (every pair when N is at least their
number), so a run is fixed by its seed. Each pair is judged in both orders with the ``pairwise`` template
(:mod:`surge_dataset.scoring.pairwise`: surveys cut to fit as CQS cuts, the cut recorded) and reconciled;
all questions go to the judge at once (``--judge-concurrency`` in flight), and every answer is cached, so an
interrupted arena resumes where it stopped and a rerun sends nothing.

The output (``kind: surge-arena``) holds per system the Bradley-Terry rating with its 95 % bootstrap interval
over surveys (:mod:`.bt`), the Elo-scale rating, wins / ties / losses, missing verdicts and the judge's
position consistency on the system's pairs, every pair's verdicts, and the surveys whose text addresses the
judge. Systems with equal ratings share a rank (``ranks``: 1, 1, 3); the judge's position consistency over all
decided pairs (``consistency``) below :data:`MIN_POSITION_CONSISTENCY` is flagged (``low_consistency``), since
its verdicts then follow the order the surveys were shown in more than the surveys. ``surge report`` shows it as
``arena.md`` when the file is given with the results.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from surge_dataset.judging import JudgingError
from surge_dataset.judging.bt import BT_PRIOR, bootstrap_ratings, elo, fit_bradley_terry
from surge_dataset.scoring import pairwise
from surge_dataset.scoring.injection import find_injections

__all__ = ["ARENA_KIND", "MIN_POSITION_CONSISTENCY", "ArenaSystem", "consistency_warning", "is_arena_output",
           "load_systems", "position_consistency", "run_arena", "sample_pairs", "shared_ranks", "summarise"]

ARENA_KIND = "surge-arena"
#: Below this share of pairs judged alike in both orders, more than half of the judge's verdicts flip when the
#: two surveys swap places: its ranking reflects where a survey was shown more than what it says. (A judge that
#: answers at random among A, B and tie agrees with itself on a third of the pairs; one that always answers A,
#: on none.)
MIN_POSITION_CONSISTENCY = 0.5
#: Ratings closer than this are equal (Bradley-Terry fits of symmetric records differ by rounding only).
RATING_TIE = 1e-9


@dataclass(frozen=True)
class ArenaSystem:
    """One system of an arena: its name, survey id -> generated survey file, and how to read the files."""

    name: str
    surveys: dict[int, Path]
    protocol: str = "official"


def is_arena_output(data: Any) -> bool:
    return isinstance(data, dict) and data.get("kind") == ARENA_KIND


def _passages(name: str, results: Path, config: dict[str, Any], root: Path | None) -> Path:
    """The system's passage folder by the one rule (:func:`~surge_dataset.evaluation.passages.find_passages`): the
    recorded folder is followed from the results file's folder, so an arena runs from anywhere."""
    from surge_dataset.evaluation.passages import find_passages

    folder, _ = find_passages(name, results, config, root=root, confine=False)
    if folder is None:
        recorded = f"records {config['passages']!r}" if config.get("passages") else "records no passages folder"
        raise JudgingError(f"system {name!r}: no passage folder found (its results file {results.name} {recorded}); "
                           f"pass --passages-root DIR holding DIR/{name}/<survey_id>/<file>")
    return folder


def load_systems(results: Sequence[str | Path], passages_root: str | Path | None = None) -> list[ArenaSystem]:
    """The systems of ``results`` files with their generated surveys (only the surveys they were scored on)."""
    from surge_dataset.evaluation.prepare import discover_passages
    from surge_dataset.evaluation.results import load_results

    if len(results) < 2:
        raise JudgingError("an arena needs the results of at least two systems")
    root = Path(passages_root) if passages_root else None
    systems = []
    for loaded in load_results(results):
        protocol = loaded.config.get("protocol") or "official"
        found, _ = discover_passages(_passages(loaded.name, loaded.path, loaded.config, root), protocol)
        scored = set(loaded.surveys)
        systems.append(ArenaSystem(loaded.name, {i: p for i, p in found if str(i) in scored}, protocol))
    return systems


def sample_pairs(systems: Sequence[ArenaSystem], pairs: int, seed: int) -> list[tuple[int, int, int]]:
    """(survey id, system index, system index) pairs, drawn without replacement from every possible one."""
    if pairs < 1:
        raise JudgingError(f"--pairs must be at least 1 (got {pairs})")
    ids = sorted(set().union(*(s.surveys for s in systems)))
    candidates = [(sid, i, j) for sid in ids for i, j in itertools.combinations(range(len(systems)), 2)
                  if sid in systems[i].surveys and sid in systems[j].surveys]
    if not candidates:
        raise JudgingError("no topic has surveys of two systems: nothing to compare")
    if pairs >= len(candidates):
        return candidates
    chosen = np.random.default_rng(seed).choice(len(candidates), pairs, replace=False)
    return [candidates[k] for k in sorted(int(c) for c in chosen)]


def _text(system: ArenaSystem, survey_id: int) -> str:
    from surge_dataset.scoring.judges import generated_text
    from surge_dataset.survey import parse_survey, read_survey_file

    text, _ = read_survey_file(system.surveys[survey_id])
    return generated_text(parse_survey(text, protocol=system.protocol))


def run_arena(systems: Sequence[ArenaSystem], data: Any, judge: Any, *, pairs: int, seed: int,
              resamples: int = 1000, prior: float = BT_PRIOR) -> dict[str, Any]:
    """Judge the sampled pairs (one batch, both orders) and return the arena output (see the module docstring)."""
    from surge_dataset.llm.prompts import PROMPTS_VERSION

    drawn = sample_pairs(systems, pairs, seed)
    texts: dict[tuple[int, int], tuple[str, bool]] = {}
    for sid, i, j in drawn:
        for k in (i, j):
            if (k, sid) not in texts:
                texts[k, sid] = pairwise.fit_text(_text(systems[k], sid))
    requests = [r for sid, i, j in drawn
                for r in pairwise.pair_requests(data.survey(sid).survey_title, texts[i, sid][0], texts[j, sid][0])]
    outcomes = pairwise.ask_verdicts(judge, requests)
    records = []
    for n, (sid, i, j) in enumerate(drawn):
        result = pairwise.reconcile(outcomes[2 * n], outcomes[2 * n + 1])
        records.append({"survey_id": sid, "first": systems[i].name, "second": systems[j].name,
                        "verdicts": list(result.verdicts), "outcome": result.outcome, "consistent": result.consistent,
                        "missing": result.missing, "failed": result.failed})
    flagged = [{"system": systems[k].name, "survey_id": sid, "findings": [vars(f) for f in found]}
               for (k, sid), (text, _) in sorted(texts.items()) if (found := find_injections(text))]
    output = {
        "kind": ARENA_KIND,
        "config": {"judge": getattr(judge, "spec", None), "pairs": pairs, "seed": seed, "resamples": resamples,
                   "prior": prior, "prompts_version": PROMPTS_VERSION, "max_chars": pairwise.PAIRWISE_MAX_CHARS,
                   "max_tries": getattr(judge, "max_tries", None), "data_fingerprint": getattr(data, "fingerprint", None),
                   "systems": [s.name for s in systems]},
        "systems": summarise([s.name for s in systems], records, seed=seed, resamples=resamples, prior=prior),
        "pairs": records,
        "cut": sorted({f"{systems[k].name}/{sid}" for (k, sid), (_, was_cut) in texts.items() if was_cut}),
        "injection": flagged,
    }
    rated = output["systems"]
    output["ranking"] = sorted(rated, key=lambda s: np.inf if rated[s]["rating"] is None else -rated[s]["rating"])
    output["ranks"] = shared_ranks({name: s["rating"] for name, s in rated.items()})
    output["consistency"] = position_consistency(records)
    output["low_consistency"] = consistency_warning(output) is not None
    return output


def position_consistency(records: Sequence[dict[str, Any]]) -> float | None:
    """Share of the decided pairs the judge answered alike in both orders (None: no pair was decided)."""
    decided = [r["consistent"] for r in records if r.get("outcome") is not None]
    return float(np.mean(decided)) if decided else None


def shared_ranks(ratings: dict[str, float | None]) -> dict[str, int | None]:
    """Competition ranks, best rating first: systems whose ratings are equal (within :data:`RATING_TIE`) share
    the best rank of their group and the next rank skips (1, 1, 3); a system without a rating has none."""
    ordered = sorted(((r, name) for name, r in ratings.items() if r is not None), key=lambda item: -item[0])
    ranks: dict[str, int | None] = {}
    for position, (rating, name) in enumerate(ordered, 1):
        previous = ordered[position - 2] if position > 1 else None
        tied = previous is not None and previous[0] - rating <= RATING_TIE
        ranks[name] = ranks[previous[1]] if tied else position  # type: ignore[index]
    return {**ranks, **{name: None for name, r in ratings.items() if r is None}}


def consistency_warning(arena: dict[str, Any]) -> str | None:
    """The flag of a judge whose position consistency is below :data:`MIN_POSITION_CONSISTENCY`, else None."""
    consistency = arena["consistency"] if "consistency" in arena else position_consistency(arena.get("pairs", []))
    if consistency is None or consistency >= MIN_POSITION_CONSISTENCY:
        return None
    return (f"judge {arena.get('config', {}).get('judge')}: position consistency {consistency:.2f} is below "
            f"{MIN_POSITION_CONSISTENCY:.2f}: most verdicts change when the two surveys swap places, so this "
            "ranking says more about the order they were shown in than about the surveys")


def summarise(names: Sequence[str], records: Sequence[dict[str, Any]], *, seed: int, resamples: int,
              prior: float = BT_PRIOR) -> dict[str, dict[str, Any]]:
    """Per system: Bradley-Terry rating [95 % CI over surveys], Elo scale, wins/ties/losses, consistency."""
    index = {name: k for k, name in enumerate(names)}
    by_survey: dict[int, list[tuple[int, int, float]]] = {}
    for r in records:
        if r["outcome"] is not None:
            by_survey.setdefault(r["survey_id"], []).append((index[r["first"]], index[r["second"]], r["outcome"]))
    ratings = fit_bradley_terry(len(names), [o for per in by_survey.values() for o in per], prior=prior)
    intervals = bootstrap_ratings(len(names), by_survey, seed=seed, resamples=resamples, prior=prior)
    out = {}
    for name, rating, (low, high) in zip(names, ratings, intervals, strict=True):
        mine = [r for r in records if name in (r["first"], r["second"])]
        decided = [r for r in mine if r["outcome"] is not None]
        won = [r["outcome"] if r["first"] == name else 1 - r["outcome"] for r in decided]
        out[name] = {"rating": rating, "ci_low": low, "ci_high": high, "elo": elo(rating), "elo_ci_low": elo(low),
                     "elo_ci_high": elo(high), "pairs": len(mine), "wins": won.count(1.0), "ties": won.count(0.5),
                     "losses": won.count(0.0), "missing": len(mine) - len(decided),
                     "consistency": position_consistency(mine)}
    return out
