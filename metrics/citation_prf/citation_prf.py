"""SurveyGen Citation Precision/Recall/F1: an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL, PAPER_URL
from surge_dataset.scoring.batch import batch_citation_prf

_CITATION = """\
@article{surveygen2025,
  title   = {SurveyGen: Quality-Aware Scientific Survey Generation with Large Language Models},
  journal = {arXiv preprint arXiv:2508.17647},
  year    = {2025}
}
"""

_DESCRIPTION = """\
Precision, recall and F1 of the generated reference titles against the human survey's cited titles, with a fuzzy title match (SurveyGen citation quality).
Titles are compared after rapidfuzz's default processing; a pair matches when fuzz.ratio > 95 (similarity > 0.95), one-to-one, greedily by ratio. No generated title: all 0; no GT title: None.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of list of str): the generated survey's reference titles.
    references (list of list of str): the titles of the papers the GT survey cites.
Returns:
    precision, recall, f1 (float or None): means over surveys; per_survey: each survey's values and counts.
Examples:
>>> import evaluate
>>> prf = evaluate.load("surge/citation_prf")
>>> generated = ["Attention Is All You Need", "A Paper Nobody Wrote"]
>>> cited = ["Attention is all you need.", "Deep Residual Learning for Image Recognition"]
>>> results = prf.compute(predictions=[generated], references=[cited])
>>> print(results["precision"], results["recall"], results["f1"])
0.5 0.5 0.5
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CitationPRF(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Sequence(datasets.Value("string")),
                    "references": datasets.Sequence(datasets.Value("string")),
                }
            ),
            homepage=PAPER_URL,
            codebase_urls=[CODEBASE_URL],
        )

    def _compute(
        self,
        predictions,
        references,
        **kwargs,
    ):
        return batch_citation_prf(predictions, references)
