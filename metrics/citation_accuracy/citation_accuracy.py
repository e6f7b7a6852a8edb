"""SurGE Citation Accuracy: an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL, PAPER_URL
from surge_dataset.metadata import SURGE_BIBTEX as _CITATION
from surge_dataset.scoring.batch import batch_citation_accuracy

_DESCRIPTION = """\
Document-, section- and sentence-level citation accuracy of a generated survey, judged by an NLI cross-encoder (SurGE Doc-Acc, Sec-Acc, Sent-Acc).
Each cited paper scores 1 if the NLI model's top label is entailment, 0.5 if neutral (official protocol: only when the entailment logit exceeds the contradiction logit), else 0; unresolved references score 0; a reference in the GT's all_cites gets document score 1.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated surveys as Markdown (``#`` headings, ``[n]`` citations, a
        reference list of ``[n] Title`` lines).
    references (list of dict): per survey ``{"survey_title": str, "all_cites": list of int}`` of the GT.
    data (str): a built SurGE dataset (folder or Hub id) whose corpus resolves reference titles.
    protocol (str): "official" (the released evaluator, default) or "paper" (the paper's text).
    nli_model (str): NLI cross-encoder name or local path (default cross-encoder/nli-deberta-v3-base).
    device, batch_size, cache_dir: where and how the model runs; NLI outputs are cached on disk.
Returns:
    doc_acc, sec_acc, sent_acc (float or None): means over surveys; per_survey: the values of each.
Examples:
>>> import evaluate
>>> accuracy = evaluate.load("surge/citation_accuracy")
>>> survey = "# Graph methods\n\nGraph networks spread messages [1].\n\n# References\n\n[1] Fake Title Nobody Wrote"
>>> results = accuracy.compute(
...     predictions=[survey],
...     references=[{"survey_title": "A Survey of Graph Neural Networks", "all_cites": [36]}],
...     data="surge",  # built by `make demo`
... )
>>> print(results["doc_acc"], results["sec_acc"], results["sent_acc"])
0.0 0.0 0.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CitationAccuracy(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": {
                        "survey_title": datasets.Value("string"),
                        "all_cites": datasets.Sequence(datasets.Value("int64")),
                    },
                }
            ),
            homepage=PAPER_URL,
            codebase_urls=[CODEBASE_URL],
        )

    def _compute(
        self,
        predictions,
        references,
        data=None,
        protocol="official",
        nli_model="cross-encoder/nli-deberta-v3-base",
        device=None,
        batch_size=32,
        cache_dir=None,
        **kwargs,
    ):
        return batch_citation_accuracy(
            predictions,
            references,
            data=data,
            protocol=protocol,
            nli_model=nli_model,
            device=device,
            batch_size=batch_size,
            cache_dir=cache_dir,
        )
