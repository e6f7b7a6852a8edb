"""SurveyGen Survey Similarity: an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL, PAPER_URL
from surge_dataset.scoring.batch import batch_sim

_CITATION = """\
@article{surveygen2025,
  title   = {SurveyGen: Quality-Aware Scientific Survey Generation with Large Language Models},
  journal = {arXiv preprint arXiv:2508.17647},
  year    = {2025}
}
"""

_DESCRIPTION = """\
Embedding similarity of a generated survey to the human-written one (SurveyGen Sim.).
Each survey is split into section chunks (heading and text, at most 1,500 characters each, non-content sections left out); the survey vector is the normalised mean of its chunk embeddings; sim is the cosine of the two survey vectors.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated surveys as Markdown.
    references (list of str): GT surveys as Markdown (e.g. written by `surge data render`).
    embedding_model (str): sentence-transformers model name or path (default BAAI/bge-large-en-v1.5).
    device, batch_size, cache_dir: where and how the model runs; embeddings are cached on disk.
Returns:
    sim (float or None): mean over surveys (0 for an empty generated survey); per_survey: each value.
Examples:
>>> import evaluate
>>> from surge_dataset.hub import bundled_model_path
>>> sim = evaluate.load("surge/sim")
>>> minilm = str(bundled_model_path("minilm"))  # bundled, offline; the paper: BAAI/bge-large-en-v1.5
>>> survey = "# Graph networks\n\nGraph neural networks pass messages along the edges of a graph."
>>> results = sim.compute(predictions=[survey, ""], references=[survey, survey], embedding_model=minilm)
>>> print([round(value, 4) for value in results["per_survey"]])
[1.0, 0.0]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SurveySimilarity(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Value("string"),
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
        return batch_sim(
            predictions,
            references,
            embedding_model=embedding_model,
            device=device,
            batch_size=batch_size,
            cache_dir=cache_dir,
        )
