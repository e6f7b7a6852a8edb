"""SurGE Soft Heading Recall: an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL, PAPER_URL
from surge_dataset.metadata import SURGE_BIBTEX as _CITATION
from surge_dataset.scoring.batch import batch_shr

_DESCRIPTION = """\
Soft heading recall: how much of the ground-truth survey's heading set the generated headings cover, using soft cardinality over embedding similarities (SurGE SHR).
S(A) = Σ_i 1 / Σ_j cos(A_i, A_j); SHR = (S(H_GT) + S(H_P) − S(H_GT ∪ H_P)) / S(H_GT).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of list of str): generated headings of each survey (root and "Abstract:" excluded).
    references (list of list of str): titles of the GT sections with >= 100 characters of content.
    embedding_model (str): sentence-transformers model name or path (default BAAI/bge-large-en-v1.5).
    device, batch_size, cache_dir: where and how the model runs; embeddings are cached on disk.
Returns:
    shr (float or None): mean over surveys (0 for a survey without headings); per_survey: each value.
Examples:
>>> import evaluate
>>> from surge_dataset.hub import bundled_model_path
>>> shr = evaluate.load("surge/shr")
>>> minilm = str(bundled_model_path("minilm"))  # bundled, offline; the paper: BAAI/bge-large-en-v1.5
>>> headings = ["Introduction", "Message Passing", "Graph Pooling"]
>>> results = shr.compute(predictions=[headings, []], references=[headings, headings], embedding_model=minilm)
>>> print([round(value, 4) for value in results["per_survey"]])
[1.0, 0.0]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SoftHeadingRecall(evaluate.Metric):
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
        embedding_model="BAAI/bge-large-en-v1.5",
        device=None,
        batch_size=64,
        cache_dir=None,
        **kwargs,
    ):
        return batch_shr(
            predictions,
            references,
            embedding_model=embedding_model,
            device=device,
            batch_size=batch_size,
            cache_dir=cache_dir,
        )
