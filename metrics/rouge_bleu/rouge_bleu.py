"""SurGE ROUGE/BLEU: an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL, PAPER_URL
from surge_dataset.metadata import SURGE_BIBTEX as _CITATION
from surge_dataset.scoring.batch import batch_rouge_bleu

_DESCRIPTION = """\
Best-match ROUGE-1/2/L F-measure and sentence BLEU of each generated section against the ground-truth sections, averaged (SurGE reference-based metrics); identical to the released evaluator, ~100x faster.
For each generated section, max over GT sections of ROUGE F (rouge-score, stemmed); BLEU = sacrebleu.sentence_bleu(section, GT sections).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of list of str): per survey, the generated sections' texts with >= 100 characters.
    references (list of list of str): per survey, the GT sections' texts with >= 100 characters.
Returns:
    rouge1, rouge2, rougeL (float): mean over surveys of the mean over generated sections of the best
        stemmed ROUGE F-measure against any GT section; bleu (float, 0-100): sacreBLEU sentence BLEU of
        each generated section against all GT sections; per_survey: each survey's values.
Examples:
>>> import evaluate
>>> rouge_bleu = evaluate.load("surge/rouge_bleu")
>>> text = "Graph neural networks learn representations of nodes by passing messages along the edges of a graph."
>>> results = rouge_bleu.compute(predictions=[[text]], references=[[text]])
>>> print(results["rouge1"], results["rougeL"], round(results["bleu"], 2))
1.0 1.0 100.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RougeBleu(evaluate.Metric):
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

    def _compute(self, predictions, references, **kwargs):
        return batch_rouge_bleu(predictions, references)
