"""One contract over every registered metric (mteb-style): its declaration, its output and its card agree.

For each metric of ``registry()``, the sample's surveys are prefetched and scored with fake models
(fakes below: every NLI pair entailment, bag-of-words vectors, capitalised words as entities, a scripted
judge), under every configuration that changes its keys (``judge_weighted``, ``judge_repeats`` > 1 for the
judged metrics; ALCE's judge backend). Exactly the declared keys come out (``keys`` +
``extra_keys(config)``), each ``None`` or a finite float inside the range the card gives. The card
(``metrics/<name>/README.md``) documents every key the metric can write, under "Output values", with its
type, range, direction, when it is ``None`` and how the mean counts ``None``, and states the metric's
``description`` word for word.
"""

from __future__ import annotations

import math
import re
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from surge_dataset import SurgeData
from surge_dataset.data.render import render_survey
from surge_dataset.evaluation import EvaluationConfig, PreparedSurvey, get_metric, prepare_text, registry
from surge_dataset.evaluation.metric import Metric
from surge_dataset.evaluation.runner import prefetch_all
from surge_dataset.evaluation.session import EvaluationSession
from surge_dataset.llm.judge import JudgeOutcome
from surge_dataset.publish.modules import module_folders_by_metric

from .conftest import REPO_ROOT

JUDGE = "hf:scripted-judge"  # a local judge spec (judge_weighted needs one), for the config only: the fake answers
#: Settings that change what a metric asks or writes, besides the judge settings of every judged metric.
BACKENDS: dict[str, list[dict[str, Any]]] = {"alce": [{"alce_backend": "judge", "judge": JUDGE}]}
#: Settings a metric cannot run without: the quiz metric's quiz set (the sample's, on the sample's surveys).
REQUIRED: dict[str, dict[str, Any]] = {"quiz": {"quiz": str(REPO_ROOT / "examples" / "sample" / "quizzes.jsonl")}}
#: What the card says about ``None`` in the mean: scored 0 (``released_zero`` metrics) or left out.
COUNTED_ZERO = "scored 0 under `--aggregate released`"
LEFT_OUT = "left out of the mean under either `--aggregate`"
DIRECTIONS = ("Higher is better.", "Lower is better.", "Not a quality score")
RANGE = re.compile(r"Range \[(-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?\]|∞\))")  # [low, high] or [low, ∞)
OTHER = "# Introduction\n\nGraph neural networks pass messages [1]. They also pool [2].\n\n[1] Not A Real Paper\n"


def settings_of(metric: Metric) -> list[dict[str, Any]]:
    """Every configuration that changes the keys ``metric`` writes (its default first)."""
    required = REQUIRED.get(metric.name, {})
    if metric.judged:
        judged = {"judge": JUDGE, **required}
        return [judged, {**judged, "judge_weighted": True}, {**judged, "judge_weighted": True, "judge_repeats": 2}]
    return [dict(required), *BACKENDS.get(metric.name, [])]


def case_id(name: str, settings: dict[str, Any]) -> str:
    return "-".join([name, *(f"{k}={v}" for k, v in settings.items() if k not in ("judge", *REQUIRED.get(name, {})))])


CASES = [pytest.param(name, settings, id=case_id(name, settings))
         for name, metric in registry().items() for settings in settings_of(metric)]


# ---------------------------------------------------------------------------------------------- fakes


class ConstantNLI:
    """Every pair is entailment (all citations count, every ALCE sentence with a usable citation is supported)."""

    def logits(self, pairs):
        return np.tile([0.0, 2.0, 1.0], (len(pairs), 1))


class BagOfWordsEncoder:
    """Hashed word counts: non-negative vectors, so every cosine is >= 0; equal texts get equal vectors."""

    def encode(self, texts):
        vectors = np.zeros((len(texts), 64))
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                vectors[row, zlib.crc32(word.encode()) % 64] += 1.0
        return vectors


class CapitalisedWordsNER:
    """Every capitalised word is an entity."""

    def entities(self, texts):
        return [re.findall(r"\b[A-Z][A-Za-z]+\b", text) for text in texts]


class ScriptedJudge:
    """Scores ``high - repeat`` (draws differ, so ``<key>_std`` is defined), weighted score mid-scale; key
    points: two fixed ones. ALCE's 0-1 entailment questions: 1 (entailed) on the first draw."""

    def run(self, requests):
        outcomes = []
        for request in requests:
            if request.kind == "points":
                outcomes.append(JudgeOutcome(points=("Graph networks pass messages.", "Pooling summarises graphs."),
                                             tries=1))
            else:
                value = max(request.low, request.high - (request.repeat or 0))
                outcomes.append(JudgeOutcome(value=value, weighted=(request.low + request.high) / 2, tries=1))
        return outcomes


def fake_session(config: EvaluationConfig) -> EvaluationSession:
    """A run of ``config`` with the fakes as its models (each built only where a selected metric needs it)."""
    return EvaluationSession(config, nli=ConstantNLI(), encoder=BagOfWordsEncoder(), judge=ScriptedJudge(),
                             ner=CapitalisedWordsNER())


@pytest.fixture(scope="module")
def prepared_sample(sample_dataset: Path) -> list[PreparedSurvey]:
    """The test split's GT surveys written as generated surveys, a short survey citing a hallucinated paper,
    and an empty one (the metrics' undefined and zero cases)."""
    data = SurgeData.open(sample_dataset)
    gts = data.surveys("test")
    texts = [render_survey(gt, data.corpus) for gt in gts] + [OTHER, ""]
    references = [*gts, gts[0], gts[0]]
    return [prepare_text(text, gt, data.corpus, "official", survey_id=i)
            for i, (text, gt) in enumerate(zip(texts, references, strict=True))]


# ----------------------------------------------------------------------------------------------- cards


def card(name: str) -> str:
    folder = module_folders_by_metric().get(name)
    if folder is None:
        pytest.skip(f"{name} ships no evaluate module in metrics/ (a third-party metric)")
    return (folder / "README.md").read_text(encoding="utf-8")


def output_values(name: str) -> dict[str, str]:
    """Key -> its bullet under the card's "### Output values" (continuation lines joined, spaces collapsed)."""
    section = re.search(r"^### Output values\n(.*?)(?=^#)", card(name), re.S | re.M)
    assert section, f"{name}: the card has no '### Output values' section"
    bullets = re.findall(r"^- (.*(?:\n  .*)*)", section.group(1), re.M)
    documented = {}
    for bullet in bullets:
        key = re.match(r"\*\*(\w+)\*\*", bullet)
        assert key, f"{name}: an output bullet does not start with **<key>**: {bullet[:60]!r}"
        assert key.group(1) not in documented, f"{name}: {key.group(1)} documented twice"
        documented[key.group(1)] = " ".join(bullet.split())
    return documented


def documented_range(text: str) -> tuple[float, float]:
    match = RANGE.search(text)
    assert match, f"no 'Range [low, high]' in: {text}"
    high = match.group(2).rstrip("])")
    return float(match.group(1)), math.inf if high == "∞" else float(high)


def every_key(metric: Metric) -> set[str]:
    """Every key the metric can write: its keys and the extra keys of the configuration that has them all."""
    everything = EvaluationConfig(metrics=[metric.name], judge=JUDGE, judge_weighted=True, judge_repeats=2)
    return {*metric.keys, *metric.extra_keys(everything)}


# ----------------------------------------------------------------------------------------------- tests


@pytest.mark.parametrize(("name", "settings"), CASES)
def test_metric_writes_exactly_its_declared_keys(name: str, settings: dict[str, Any],
                                                 prepared_sample: list[PreparedSurvey]) -> None:
    metric = get_metric(name)
    config = EvaluationConfig(metrics=[name], **settings)
    session = fake_session(config)
    declared = [*metric.keys, *metric.extra_keys(config)]
    assert len(set(declared)) == len(declared), f"{name} declares a key twice: {declared}"
    prefetch_all(prepared_sample, session)  # the runner's prefetch: one batch per model, then staged metrics
    seen: dict[str, list[float]] = defaultdict(list)
    for survey in prepared_sample:
        output = metric.score(survey, session.answers.for_metric(name, survey.survey_id), config)
        assert sorted(output.values) == sorted(declared), f"survey {survey.survey_id}"
        for key, value in output.values.items():
            assert value is None or (isinstance(value, float) and math.isfinite(value)), (key, value)
            if value is not None:
                seen[key].append(value)
        assert all(isinstance(count, int) for count in output.counts.values()), output.counts
    assert sorted(seen) == sorted(declared), "every key is defined for some sample survey (the fakes exercise it)"
    documented = output_values(name) if module_folders_by_metric().get(name) else {}
    for key, values in seen.items():
        if key not in documented:
            continue  # a missing bullet fails test_card_documents_every_output_key
        low, high = documented_range(documented[key])
        assert min(values) >= low - 1e-9, (key, min(values), documented[key])
        if "not clipped" not in documented[key]:
            assert max(values) <= high + 1e-9, (key, max(values), documented[key])


@pytest.mark.parametrize("name", list(registry()))
def test_card_documents_every_output_key(name: str) -> None:
    """Type, range, direction, when it is None and how the mean counts None; conditional keys say when."""
    metric = get_metric(name)
    documented = output_values(name)
    assert sorted(documented) == sorted(every_key(metric))
    for key, text in documented.items():
        assert text.startswith(f"**{key}** (`float` or `None`)"), text
        low, high = documented_range(text)
        assert low < high, text
        assert any(direction in text for direction in DIRECTIONS), f"{key}: no direction"
        assert "`None` when " in text, f"{key}: no None condition"
        assert (COUNTED_ZERO if metric.released_zero else LEFT_OUT) in text, f"{key}: how the mean counts None"
        if key == metric.weighted_key:
            assert "only with `judge_weighted`" in text, text
        if key not in metric.keys and key.endswith("_std"):
            assert "only with `judge_repeats` K > 1" in text and "Not a quality score" in text, text


@pytest.mark.parametrize("name", list(registry()))
def test_card_states_the_metric_description(name: str) -> None:
    """One description per metric: the card's front matter and first line are the class's ``description``."""
    text = card(name)
    front = re.search(r"^description: >-\n((?:  .*\n)+)", text, re.M)
    first = re.search(r"^## Metric Description\n\n(.+?)\n\n", text, re.S | re.M)
    assert front and first, f"{name}: no front-matter description or no '## Metric Description'"
    expected = get_metric(name).description + "."
    assert " ".join(front.group(1).split()) == expected
    assert " ".join(first.group(1).split()) == expected


@pytest.mark.parametrize("name", list(registry()))
def test_card_direction_is_the_declared_one(name: str) -> None:
    """What the card says of a key's direction is what ranks it (meta-eval, the report's bold, the leaderboard):
    ``Metric.higher_is_better`` / ``key_directions`` through ``catalogue.higher_is_better``."""
    from surge_dataset.evaluation.catalogue import higher_is_better

    for key, text in output_values(name).items():
        if "Not a quality score" in text:
            continue
        assert ("Lower is better." in text) == (not higher_is_better(key)), f"{name}: {key}'s card and declaration"
