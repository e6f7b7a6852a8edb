"""SurGE Citation Recall: an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL, PAPER_URL
from surge_dataset.metadata import SURGE_BIBTEX as _CITATION
from surge_dataset.scoring.batch import batch_citation_recall

_DESCRIPTION = """\
Share of the ground-truth survey's cited papers that a generated survey's reference list cites (SurGE comprehensiveness).
Recall = |GT all_cites ∩ resolved doc ids| / |GT all_cites|, averaged over surveys.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of list of int): for each generated survey, the corpus doc_ids its reference
        list resolves to (``surge_dataset.Corpus.resolve`` on the reference titles; drop the None values).
    references (list of list of int): for each survey, the ground truth's ``all_cites``.
Returns:
    recall (float or None): mean over surveys of |all_cites ∩ cited| / |all_cites|; surveys whose
        ``all_cites`` is empty are left out (recall is undefined for them).
    per_survey (list of float or None): the value of each survey.
Examples:
>>> import evaluate
>>> recall = evaluate.load("surge/citation_recall")
>>> results = recall.compute(predictions=[[3, 7, 11], [5]], references=[[3, 7, 8, 9], [5, 6]])
>>> print(results["recall"], results["per_survey"])
0.5 [0.5, 0.5]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CitationRecall(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Sequence(datasets.Value("int64")),
                    "references": datasets.Sequence(datasets.Value("int64")),
                }
            ),
            homepage=PAPER_URL,
            codebase_urls=[CODEBASE_URL],
        )

    def _compute(self, predictions, references, **kwargs):
        return batch_citation_recall(predictions, references)
