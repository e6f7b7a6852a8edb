"""SurveyGen Structural Overlap: an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL, PAPER_URL
from surge_dataset.scoring.batch import batch_structure_overlap

_CITATION = """\
@article{surveygen2025,
  title   = {SurveyGen: Quality-Aware Scientific Survey Generation with Large Language Models},
  journal = {arXiv preprint arXiv:2508.17647},
  year    = {2025}
}
"""

_DESCRIPTION = """\
Share of matching top-level sections between the generated and the human survey, sections matched by embedding similarity >= 0.8 (SurveyGen structural overlap).
Non-content sections (funding, acknowledgements, author contributions, competing interests, supplementary material, references/bibliography) are removed; sections match one-to-one, greedily by cosine similarity, while it is >= 0.8; S = 2 * matches / (|S_H| + |S_G|).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of list of str): top-level section titles of each generated survey.
    references (list of list of str): top-level section titles of each GT survey.
    embedding_model (str): sentence-transformers model name or path (default BAAI/bge-large-en-v1.5).
    device, batch_size, cache_dir: where and how the model runs; embeddings are cached on disk.
Returns:
    structure_overlap (float or None): mean over surveys; per_survey: each value.
Examples:
>>> import evaluate
>>> from surge_dataset.hub import bundled_model_path
>>> overlap = evaluate.load("surge/structure_overlap")
>>> minilm = str(bundled_model_path("minilm"))  # bundled, offline; the paper: BAAI/bge-large-en-v1.5
>>> sections = ["Introduction", "Message Passing", "Graph Pooling", "Acknowledgements"]
>>> results = overlap.compute(predictions=[sections, []], references=[sections, sections], embedding_model=minilm)
>>> print([round(value, 4) for value in results["per_survey"]])
[1.0, 0.0]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class StructureOverlap(evaluate.Metric):
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
        return batch_structure_overlap(
            predictions,
            references,
            embedding_model=embedding_model,
            device=device,
            batch_size=batch_size,
            cache_dir=cache_dir,
        )
