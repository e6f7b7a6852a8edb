"""ROUGE/BLEU: hand-computed values, and exact equality of the fast path with the released way."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from sacrebleu import sentence_bleu

from surge_dataset.scoring.rouge_bleu import RESULT_KEYS, rouge_bleu, rouge_bleu_reference, rouge_tokens
from surge_dataset.survey import parse_survey, read_survey_file


def _assert_same(fast: dict, ref: dict) -> None:
    """Equal within 1e-12, and in fact bit for bit: the fast path repeats rouge_score's float operations."""
    assert set(fast) == set(ref) == set(RESULT_KEYS)
    assert fast["n_sections"] == ref["n_sections"]
    for key in ("rouge1", "rouge2", "rougeL", "bleu"):
        assert fast[key] == pytest.approx(ref[key], rel=0, abs=1e-12), key
    assert fast == ref


def test_hand_computed_example() -> None:
    gt = ["The cats are running fast.", "Dogs bark loudly at night."]
    generated = ["A cat runs fast, the cat is running.", "Cats are running."]
    # Stemmed tokens (words of > 3 letters go through Porter; punctuation is dropped).
    assert rouge_tokens(gt[0]) == ["the", "cat", "are", "run", "fast"]
    assert rouge_tokens(generated[0]) == ["a", "cat", "run", "fast", "the", "cat", "is", "run"]
    assert rouge_tokens(generated[1]) == ["cat", "are", "run"]
    # gt[1] shares no token with either generated section, so gt[0] gives every maximum.
    assert not set(rouge_tokens(gt[1])) & set(rouge_tokens(generated[0]) + rouge_tokens(generated[1]))

    # generated[0] (8 tokens) vs gt[0] (5 tokens):
    #   ROUGE-1: clipped overlap the 1 + cat 1 + run 1 + fast 1 = 4; P = 4/8, R = 4/5 -> F = 8/13.
    #   ROUGE-2: 7 vs 4 bigrams, shared (the cat), (run fast) = 2; P = 2/7, R = 2/4 -> F = 4/11.
    #   ROUGE-L: LCS "cat run fast" = 3; P = 3/8, R = 3/5 -> F = 6/13.
    # generated[1] (3 tokens) vs gt[0]:
    #   ROUGE-1: 3 shared; P = 1, R = 3/5 -> F = 3/4.  ROUGE-2: (cat are), (are run); P = 1, R = 1/2 -> 2/3.
    #   ROUGE-L: LCS "cat are run" = 3 -> F = 3/4.
    expected = {
        "rouge1": (8 / 13 + 3 / 4) / 2,
        "rouge2": (4 / 11 + 2 / 3) / 2,
        "rougeL": (6 / 13 + 3 / 4) / 2,
        "bleu": (sentence_bleu(generated[0], gt).score + sentence_bleu(generated[1], gt).score) / 2,
        "n_sections": 2,
    }
    for result in (rouge_bleu(generated, gt), rouge_bleu_reference(generated, gt)):
        assert result["n_sections"] == 2
        for key in ("rouge1", "rouge2", "rougeL", "bleu"):
            assert result[key] == pytest.approx(expected[key], rel=1e-12), key


def test_identical_section_scores_perfectly() -> None:
    text = "Edge computing moves computation closer to the data sources, reducing latency and bandwidth."
    result = rouge_bleu([text], [text, "Something else entirely, about cloud data centres."])
    assert result["rouge1"] == result["rouge2"] == result["rougeL"] == 1.0
    assert result["bleu"] == pytest.approx(100.0)


@pytest.mark.parametrize(
    ("generated", "gt"), [([], ["some ground truth text"]), (["some text"], []), ([], [])]
)
def test_nothing_to_compare_gives_none(generated: list[str], gt: list[str]) -> None:
    expected = {"rouge1": None, "rouge2": None, "rougeL": None, "bleu": None, "n_sections": 0}
    assert rouge_bleu(generated, gt) == expected
    assert rouge_bleu_reference(generated, gt) == expected


_WORDS = (
    # stemming-sensitive families
    "run running runs ran runner generalization generalize generalizing generalized studies studying "
    "studied caresses ponies relational conditional rational happiness hopefully national "
    # ordinary survey vocabulary
    "the a of and to in for with on by is are we this that model models learning graph network networks "
    "edge computing latency data deep neural attention transformer survey method methods approach results "
    # numbers, unicode, hyphenation, citations, odd punctuation
    "3.14 2024 1e-5 10% GPT-4 state-of-the-art café naïve Ünïcödé 数据 — “quoted” 'single' (paren) "
    "[12] [3] x/y a.k.a. e.g., i.e.; co-operate ... ?! *bold* `code`"
).split()


def _pseudo_text(rng: random.Random, n_words: int) -> str:
    """Deterministic pseudo-sentences: capitalised starts, commas, full stops, occasional newlines."""
    out: list[str] = []
    start = True
    for _ in range(n_words):
        word = rng.choice(_WORDS)
        out.append(word.capitalize() if start else word)
        start = False
        r = rng.random()
        if r < 0.08:
            out[-1] += "."
            start = True
            if rng.random() < 0.2:
                out[-1] += "\n"
        elif r < 0.14:
            out[-1] += ","
    return " ".join(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equal_to_reference_on_pseudo_text(seed: int) -> None:
    rng = random.Random(seed)
    generated = [_pseudo_text(rng, rng.randint(20, 220)) for _ in range(rng.randint(3, 8))]
    gt = [_pseudo_text(rng, rng.randint(20, 180)) for _ in range(rng.randint(2, 9))]
    # A copied-and-edited section makes the maxima come from real overlaps, not noise.
    gt.append(generated[0].replace("the", "a") + " Extra trailing words.")
    _assert_same(rouge_bleu(generated, gt), rouge_bleu_reference(generated, gt))


def test_equal_to_reference_on_degenerate_sections() -> None:
    # No tokens at all, a single token (no bigram), repeated tokens, digits only.
    generated = ["?! ... \u2014 \u201c\u201d", "word", "data data data data, data.", "2024 3 14"]
    gt = ["\u6570\u636e only", "Data is running; data runs.", "x", "3.14 and 2024"]
    _assert_same(rouge_bleu(generated, gt), rouge_bleu_reference(generated, gt))


def _sections(path: Path) -> list[str]:
    """Sections with >= 100 characters (text before the first heading included), as the evaluator reads them."""
    text, _ = read_survey_file(path)
    return [node.content for node in parse_survey(text, protocol="official").content_sections(100)]


def _only_file(folder: Path) -> Path:
    files = sorted(p for p in folder.iterdir() if p.is_file())
    assert files, folder
    return files[0]


def test_equal_to_reference_on_real_outputs(baseline_outputs_dir: Path) -> None:
    generated = _sections(_only_file(baseline_outputs_dir / "Autosurvey" / "0"))
    gt = _sections(_only_file(baseline_outputs_dir / "ID" / "0"))
    assert len(generated) > 10 and len(gt) > 10
    # The released way costs ~0.2 s per pair of long sections; 5 x 6 shortest-first keeps this < 10 s.
    generated = sorted(generated, key=len)[:5]
    gt = sorted(gt, key=len)[:6]
    start = time.perf_counter()
    ref = rouge_bleu_reference(generated, gt)
    slow = time.perf_counter() - start
    _assert_same(rouge_bleu(generated, gt), ref)
    assert ref["n_sections"] == 5 and slow < 10
