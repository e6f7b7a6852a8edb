"""Citation precision / recall / F1 (SurveyGen): fuzzy title match of the references with the GT's."""

from __future__ import annotations

from surge_dataset.evaluation.metric import Metric, MetricOutput, diagnostic, register
from surge_dataset.scoring import surveygen_metrics as sg


@register
class CitationPRF(Metric):
    name = "citation_prf"
    keys = ("cite_precision", "cite_recall", "cite_f1")
    value_range = (0.0, 1.0)
    needs = frozenset({"corpus"})
    groups = ("surveygen",)
    order = 70
    description = (
        "Precision, recall and F1 of the generated reference titles against the human survey's cited titles, "
        "two titles matching when their similarity exceeds 0.95 (SurveyGen citation quality)"
    )

    def score(self, survey, models, config):
        prf = sg.citation_prf([r.title for r in survey.parsed.references.values()], survey.gt_titles)
        notes = [] if prf["recall"] is not None else [diagnostic(
            "gt_without_titles", "no GT cited paper has a title in the corpus: citation P/R/F1 undefined")]
        values = {"cite_precision": prf["precision"], "cite_recall": prf["recall"], "cite_f1": prf["f1"]}
        return MetricOutput(values, counts={"cite_matched": int(prf["matched"] or 0)}, diagnostics=notes)
