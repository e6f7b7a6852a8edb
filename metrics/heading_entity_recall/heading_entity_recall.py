"""STORM Heading Entity Recall: an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL
from surge_dataset.scoring.peer_batch import batch_heading_entity_recall

_CITATION = """\
@inproceedings{shao2024storm,
  title     = {Assisting in Writing {W}ikipedia-like Articles From Scratch with Large Language Models},
  author    = {Shao, Yijia and Jiang, Yucheng and Kanell, Theodore A. and Xu, Peter and Khattab, Omar and Lam, Monica S.},
  booktitle = {Proceedings of the 2024 Conference of the North American Chapter of the Association for Computational Linguistics (NAACL)},
  year      = {2024}
}
"""

_DESCRIPTION = """\
STORM's heading entity recall: share of the named entities in the human survey's headings that the generated headings also name (Shao et al., 2024).
Entities are found by a CoNLL-03 NER model (default dslim/bert-base-NER; STORM used flair's English NER), lower-cased and compared as sets; the generated headings stop at the first References / External links / See also / Notes heading. Undefined (None) when the human headings hold no entity (STORM scores 1 there).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of list of str): generated headings of each survey, in document order.
    references (list of list of str): every heading of each human survey.
    ner_model (str): token-classification model name or path (default dslim/bert-base-NER).
    device, batch_size: where and how the model runs.
Returns:
    heading_entity_recall (float or None): mean over surveys with GT entities; per_survey: each value.
Examples:
>>> import tempfile
>>> import evaluate
>>> from surge_dataset.models.testing import build_tiny_ner_model
>>> recall = evaluate.load("surge/heading_entity_recall")
>>> ner = str(build_tiny_ner_model(tempfile.mkdtemp() + "/ner"))  # a tiny random stand-in, offline
>>> gt = ["BERT and GPT-3", "Results on ImageNet at Google"]
>>> results = recall.compute(predictions=[gt, []], references=[gt, gt], ner_model=ner)
>>> print(results["per_survey"])
[1.0, 0.0]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class HeadingEntityRecall(evaluate.Metric):
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
        ner_model="dslim/bert-base-NER",
        device=None,
        batch_size=32,
        **kwargs,
    ):
        return batch_heading_entity_recall(
            predictions,
            references,
            ner_model=ner_model,
            device=device,
            batch_size=batch_size,
        )
