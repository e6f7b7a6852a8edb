"""ROUGE-1/2/L and sentence BLEU of generated sections against GT sections (protocol §4).

The released evaluator calls ``RougeScorer.score`` for every (generated, GT) section pair and
``sacrebleu.sentence_bleu`` once per generated section. That re-tokenises and re-stems both sides of
every pair, fills a pure-Python LCS table per pair and re-extracts the n-grams of all references for
every hypothesis: close to a minute on one long survey. :func:`rouge_bleu` returns the same numbers
(bit for bit) but tokenises each section once with rouge_score's own tokenizer, keeps n-gram counts per
section, computes LCS lengths in compiled code (rapidfuzz) and lets sacreBLEU cache the references once
per survey. :func:`rouge_bleu_reference` is the straightforward released way, kept only so tests and
``benchmarks/rouge_bleu.py`` can check equality and measure the speed-up.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from nltk.stem import porter
from rapidfuzz.distance import LCSseq
from rouge_score import rouge_scorer, scoring, tokenize
from sacrebleu.metrics import BLEU

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
RESULT_KEYS = (*ROUGE_TYPES, "bleu", "n_sections")

# sacrebleu.sentence_bleu's defaults; the BLEU object below must be built with exactly these.
_BLEU_KWARGS = {
    "lowercase": False,
    "force": False,
    "tokenize": BLEU.TOKENIZER_DEFAULT,
    "smooth_method": "exp",
    "smooth_value": None,
    "effective_order": True,
}


class _CachedPorterStemmer:
    """Porter stemmer with a memo: stemming is a pure function of the word and dominates tokenising.

    rouge_score's tokenizer only calls ``stem(word)``, and ``DefaultTokenizer(use_stemmer=True)`` uses
    nltk's ``PorterStemmer()`` with its default mode, so memoising it cannot change any token.
    """

    def __init__(self) -> None:
        self.stem = functools.lru_cache(maxsize=1 << 18)(porter.PorterStemmer().stem)


_STEMMER = _CachedPorterStemmer()


def rouge_tokens(text: str) -> list[str]:
    """Tokens exactly as ``RougeScorer(..., use_stemmer=True)`` produces them (its own tokenize function)."""
    return tokenize.tokenize(text, _STEMMER)


@dataclass(frozen=True)
class _Section:
    """One section's tokens, prepared once: n-gram counts for ROUGE-1/2 and token ids for the LCS."""

    unigrams: Counter[tuple[str, ...]]
    bigrams: Counter[tuple[str, ...]]
    n_unigrams: int
    n_bigrams: int
    token_ids: list[int]


def _ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _prepare(text: str, vocab: dict[str, int]) -> _Section:
    tokens = rouge_tokens(text)
    ids = [vocab.setdefault(tok, len(vocab)) for tok in tokens]
    return _Section(
        unigrams=_ngrams(tokens, 1),
        bigrams=_ngrams(tokens, 2),
        n_unigrams=len(tokens),
        n_bigrams=max(len(tokens) - 1, 0),
        token_ids=ids,
    )


def _intersection(a: Counter[tuple[str, ...]], b: Counter[tuple[str, ...]]) -> int:
    """Clipped n-gram overlap Σ min(a[g], b[g]); integer, so summing over the shared keys only is exact."""
    total = 0
    for gram in a.keys() & b.keys():
        x, y = a[gram], b[gram]
        total += x if x < y else y
    return total


def _ngram_f(overlap: int, n_target: int, n_prediction: int) -> float:
    """rouge_score's ``_score_ngrams`` arithmetic, operation for operation (same floats)."""
    precision = overlap / max(n_prediction, 1)
    recall = overlap / max(n_target, 1)
    return scoring.fmeasure(precision, recall)


def _lcs_f(lcs: int, n_target: int, n_prediction: int) -> float:
    """rouge_score's ``_score_lcs`` arithmetic (0 when either side has no tokens)."""
    if not n_target or not n_prediction:
        return 0.0
    return scoring.fmeasure(lcs / n_prediction, lcs / n_target)


def _empty_result() -> dict:
    return {"rouge1": None, "rouge2": None, "rougeL": None, "bleu": None, "n_sections": 0}


def _mean(values: list[float]) -> float:
    # Both implementations average the same way, so equal per-section values give an equal mean.
    return sum(values) / len(values)


def rouge_bleu(generated_sections: Sequence[str], gt_sections: Sequence[str]) -> dict:
    """Mean over generated sections of the best ROUGE-1/2/L F against any GT section, and sentence BLEU.

    Callers pass already-filtered section texts (content ≥ 100 characters, protocol §4). For each
    generated section, each ROUGE type takes its own maximum F-measure over the GT sections (GT =
    rouge_score's *target*, generated = *prediction*, stemming on); BLEU is
    ``sacrebleu.sentence_bleu(section, gt_sections).score`` (0-100, as published). Returns
    ``{"rouge1", "rouge2", "rougeL", "bleu", "n_sections"}``; with no generated or no GT sections the
    four scores are ``None`` and ``n_sections`` is 0, because there is nothing to compare (the released
    evaluator would divide by zero or score an empty reference set).
    """
    if not generated_sections or not gt_sections:
        return _empty_result()

    vocab: dict[str, int] = {}
    gts = [_prepare(text, vocab) for text in gt_sections]
    bleu = BLEU(**_BLEU_KWARGS, references=[[text] for text in gt_sections])

    per_type: dict[str, list[float]] = {key: [] for key in ROUGE_TYPES}
    bleus: list[float] = []
    for text in generated_sections:
        gen = _prepare(text, vocab)
        best1 = best2 = bestl = 0.0
        for gt in gts:
            f1 = _ngram_f(_intersection(gt.unigrams, gen.unigrams), gt.n_unigrams, gen.n_unigrams)
            f2 = _ngram_f(_intersection(gt.bigrams, gen.bigrams), gt.n_bigrams, gen.n_bigrams)
            lcs = LCSseq.similarity(gt.token_ids, gen.token_ids) if gt.token_ids and gen.token_ids else 0
            fl = _lcs_f(lcs, gt.n_unigrams, gen.n_unigrams)
            best1 = f1 if f1 > best1 else best1
            best2 = f2 if f2 > best2 else best2
            bestl = fl if fl > bestl else bestl
        per_type["rouge1"].append(best1)
        per_type["rouge2"].append(best2)
        per_type["rougeL"].append(bestl)
        # References were cached at construction; corpus_score of one hypothesis == sentence_score.
        bleus.append(bleu.corpus_score([text], None).score)

    result: dict = {key: _mean(values) for key, values in per_type.items()}
    result["bleu"] = _mean(bleus)
    result["n_sections"] = len(bleus)
    return result


def rouge_bleu_reference(generated_sections: Sequence[str], gt_sections: Sequence[str]) -> dict:
    """The released evaluator's straightforward way; slow, kept ONLY for tests and the benchmark.

    One ``RougeScorer.score(gt, generated)`` per pair and one ``sacrebleu.sentence_bleu`` per generated
    section; same output contract as :func:`rouge_bleu`, which must agree with it exactly.
    """
    from sacrebleu import sentence_bleu

    if not generated_sections or not gt_sections:
        return _empty_result()
    scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=True)
    per_type: dict[str, list[float]] = {key: [] for key in ROUGE_TYPES}
    bleus: list[float] = []
    for text in generated_sections:
        pair_scores = [scorer.score(gt, text) for gt in gt_sections]
        for key in ROUGE_TYPES:
            per_type[key].append(max(score[key].fmeasure for score in pair_scores))
        bleus.append(sentence_bleu(text, list(gt_sections)).score)
    result: dict = {key: _mean(values) for key, values in per_type.items()}
    result["bleu"] = _mean(bleus)
    result["n_sections"] = len(bleus)
    return result
