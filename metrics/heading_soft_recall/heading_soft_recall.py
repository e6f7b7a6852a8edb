"""STORM Heading Soft Recall: an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL
from surge_dataset.scoring.peer_batch import batch_heading_soft_recall

_CITATION = """\
@inproceedings{shao2024storm,
  title     = {Assisting in Writing {W}ikipedia-like Articles From Scratch with Large Language Models},
  author    = {Shao, Yijia and Jiang, Yucheng and Kanell, Theodore A. and Xu, Peter and Khattab, Omar and Lam, Monica S.},
  booktitle = {Proceedings of the 2024 Conference of the North American Chapter of the Association for Computational Linguistics (NAACL)},
  year      = {2024}
}
"""

_DESCRIPTION = """\
STORM's heading soft recall: soft-cardinality recall of the human survey's set of headings by the generated set (Shao et al., 2024).
Same soft cardinality as SurGE's SHR, S(A) = sum_i 1 / sum_j cos(A_i, A_j), recall = (S(G) + S(P) - S(G u P)) / S(G); unlike SHR, G is every human heading (not only sections with 100 characters of content), both sides are de-duplicated sets, and the generated headings stop at the first References / External links / See also / Notes heading.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of list of str): generated headings of each survey, in document order.
    references (list of list of str): every heading of each human survey.
    embedding_model (str): sentence-transformers model name or path (default BAAI/bge-large-en-v1.5, as
        ``surge evaluate``; STORM used paraphrase-MiniLM-L6-v2).
    device, batch_size, cache_dir: where and how the model runs; embeddings are cached on disk.
Returns:
    heading_soft_recall (float or None): mean over surveys (0 without generated headings); per_survey.
Examples:
>>> import evaluate
>>> from surge_dataset.hub import bundled_model_path
>>> recall = evaluate.load("surge/heading_soft_recall")
>>> minilm = str(bundled_model_path("minilm"))  # bundled, offline
>>> gt = ["Introduction", "Message Passing", "Graph Pooling"]
>>> results = recall.compute(predictions=[gt + ["References"], []], references=[gt, gt], embedding_model=minilm)
>>> print([round(value, 4) for value in results["per_survey"]])
[1.0, 0.0]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class HeadingSoftRecall(evaluate.Metric):
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
            homepage="https://github.com/stanford-oval/storm",
            codebase_urls=[CODEBASE_URL, "https://github.com/stanford-oval/storm"],
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
        return batch_heading_soft_recall(
            predictions,
            references,
            embedding_model=embedding_model,
            device=device,
            batch_size=batch_size,
            cache_dir=cache_dir,
        )
