"""Citation accuracy by NLI at document, section and sentence level (Doc-Acc, Sec-Acc, Sent-Acc)."""

from __future__ import annotations

from surge_dataset.evaluation.metric import Metric, MetricOutput, Requests, diagnostic, register
from surge_dataset.scoring.citations import accuracy_pairs, citation_accuracy


@register
class CitationAccuracy(Metric):
    name = "citation_accuracy"
    keys = ("doc_acc", "sec_acc", "sent_acc")
    value_range = (0.0, 1.0)
    needs = frozenset({"nli", "corpus"})
    groups = ("all",)
    released_zero = True
    order = 20
    description = (
        "Share of the generated survey's cited papers that an NLI cross-encoder finds relevant to the survey, "
        "to the section and to the sentence citing them (SurGE Doc-Acc, Sec-Acc, Sent-Acc)"
    )

    def requests(self, survey, config):
        gt = survey.gt
        return Requests(nli=accuracy_pairs(survey.references, survey.citations, survey.papers, gt.survey_title,
                                           gt.all_cites, config.protocol))

    def score(self, survey, models, config):
        gt = survey.gt
        accuracy = citation_accuracy(survey.references, survey.citations, survey.papers, gt.survey_title,
                                     gt.all_cites, models.nli, protocol=config.protocol, with_details=True)
        notes = [] if accuracy.doc_acc is not None else [diagnostic(
            "no_scored_citations", "no reference entry or citation to score: citation accuracy is undefined")]
        values = {"doc_acc": accuracy.doc_acc, "sec_acc": accuracy.sec_acc, "sent_acc": accuracy.sent_acc}
        return MetricOutput(values, diagnostics=notes, details=accuracy.details)
