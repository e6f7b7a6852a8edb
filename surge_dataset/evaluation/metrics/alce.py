"""ALCE citation recall and precision (Gao et al. 2023): do a sentence's citations entail it?"""

from __future__ import annotations

from surge_dataset.core.vocabulary import JUDGE
from surge_dataset.evaluation.metric import Metric, MetricOutput, diagnostic, register
from surge_dataset.scoring.alce import (
    STAGES,
    JudgeEntailment,
    NLIEntailment,
    alce_citation_scores,
    alce_sentences,
    alce_stage_pairs,
)


def _entailment(config, models) -> NLIEntailment | JudgeEntailment:
    if config.alce_backend == JUDGE:
        if models.judge is None:
            raise ValueError("ALCE with alce_backend='judge' needs an LLM judge (--judge)")
        return JudgeEntailment(models.judge)
    if models.nli is None:
        raise ValueError("ALCE with alce_backend='nli' needs an NLI model")
    return NLIEntailment(models.nli)


@register
class ALCE(Metric):
    name = "alce"
    keys = ("alce_citation_recall", "alce_citation_precision")
    value_range = (0.0, 1.0)
    needs = frozenset({"nli", "judge", "corpus"})
    order = 120
    version = 2  # 2: every citation is checked before the cut to three, as ALCE's eval.py does
    description = (
        "ALCE citation recall and precision (Gao et al., 2023): share of the generated survey's sentences "
        "that their cited papers entail, and share of its citations that were needed"
    )

    def active_needs(self, config):
        return frozenset({"judge" if config.alce_backend == JUDGE else "nli", "corpus"})

    def prefetch(self, surveys, models, config):
        """One batch per ALCE stage (joint premises, single citations, leave-one-out) for the whole run."""
        entailment = _entailment(config, models)
        inputs = [(alce_sentences(s.parsed), s.references, s.papers) for s in surveys]
        for stage in STAGES:
            entailment.entails([pair for sentences, refs, papers in inputs
                                for pair in alce_stage_pairs(stage, sentences, refs, papers, entailment)])

    def estimate_requests(self, surveys, config):
        """With the judge as NLI: the first stage exactly, the later ones as many as they can be."""
        if config.alce_backend != "judge":
            return [], None
        bound = _UpperBound()
        asked = []
        for stage in STAGES:
            bound.stage = stage
            pairs = [pair for s in surveys
                     for pair in alce_stage_pairs(stage, alce_sentences(s.parsed), s.references, s.papers, bound)]
            bound.entails(pairs)
            asked += [JudgeEntailment.request(pair) for pair in pairs]
        return asked, ("alce: which sentences need the single-citation and leave-one-out stages depends on the "
                       "judge's answers; counted as the most they can be")

    def score(self, survey, models, config):
        scores = alce_citation_scores(alce_sentences(survey.parsed), survey.references, survey.papers,
                                      _entailment(config, models), with_details=True)
        counts = {"alce_sentences": scores.sentences, "alce_supported": scores.supported,
                  "alce_citations": scores.citations, "alce_correct": scores.correct,
                  "alce_overcited": scores.overcited, "alce_unusable": scores.unusable,
                  "alce_undecided": scores.undecided}
        if scores.failed:  # a journal record with *_failed is scored again on a rerun
            counts["alce_failed"] = scores.failed
        notes = []
        if scores.recall is None and not scores.undecided:
            notes.append(diagnostic("no_alce_sentences",
                                    "no sentence in the survey's text: ALCE citation recall/precision undefined"))
        if scores.undecided:
            notes.append(diagnostic("alce_undecided", f"ALCE: {scores.undecided} sentence(s)/citation(s) without a "
                                                      "judge decision were left out"))
        values = {"alce_citation_recall": scores.recall, "alce_citation_precision": scores.precision}
        return MetricOutput(values, counts=counts, diagnostics=notes, details=scores.details)


class _UpperBound:
    """Entailment answers that make every ALCE stage ask the most: joint premises entail, single ones do not."""

    def __init__(self) -> None:
        self.stage = ""
        self._memo: dict = {}

    def entails(self, pairs):
        for pair in pairs:
            self._memo.setdefault(pair, self.stage == "joint")
        return [self._memo.get(pair, False) for pair in pairs]
