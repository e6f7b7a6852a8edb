"""ALCE citation recall and precision: an `evaluate` wrapper over `surge_dataset` (the computation lives in the package)."""

import datasets
import evaluate

from surge_dataset.metadata import CODEBASE_URL
from surge_dataset.scoring.peer_batch import batch_alce

_CITATION = """\
@inproceedings{gao2023alce,
  title     = {Enabling Large Language Models to Generate Text with Citations},
  author    = {Gao, Tianyu and Yen, Howard and Yu, Jiatong and Chen, Danqi},
  booktitle = {Proceedings of the 2023 Conference on Empirical Methods in Natural Language Processing (EMNLP)},
  year      = {2023}
}
"""

_DESCRIPTION = """\
ALCE citation recall and precision of a generated survey (Gao et al., 2023): do the cited papers entail each sentence, and was every citation needed?
Recall: share of sentences whose cited papers (at most 3, premise "Title: <title>\\n<abstract>" each) entail the sentence with its citations removed. Precision: share of citations that are correct; in a supported sentence a citation is correct if it alone entails the sentence or if the others without it no longer do (else it over-cites). A citation of an unresolved reference counts as incorrect.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated surveys as Markdown (``#`` headings, ``[n]`` citations, a
        reference list of ``[n] Title`` lines).
    data (str): a built SurGE dataset (folder or Hub id) whose corpus resolves reference titles.
    protocol (str): how the survey is read: "official" (default) or "paper".
    backend (str): "nli" (the cross-encoder ``nli_model``, default cross-encoder/nli-deberta-v3-base) or
        "judge" (an LLM as NLI: ``judge="openai:<model>"``, ``"hf:<model>"`` or ``"gguf:<file>"``).
    device, batch_size, cache_dir: where and how the model runs; NLI outputs are cached on disk.
Returns:
    alce_citation_recall, alce_citation_precision (float or None): means over surveys; per_survey: the
    values and counts of each.
Examples:
>>> import evaluate
>>> alce = evaluate.load("surge/alce")
>>> survey = "# Graph methods\\n\\nGraph networks spread messages [1]. Pooling helps.\\n\\n# References\\n\\n[1] Fake Title Nobody Wrote"
>>> results = alce.compute(predictions=[survey], data="surge")  # `surge` is built by `make demo`
>>> print(results["alce_citation_recall"], results["alce_citation_precision"])
0.0 0.0
>>> print(results["per_survey"][0]["sentences"], results["per_survey"][0]["unusable"])
2 1
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Alce(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("string")}),
            homepage="https://github.com/princeton-nlp/ALCE",
            codebase_urls=[CODEBASE_URL, "https://github.com/princeton-nlp/ALCE"],
        )

    def _compute(
        self,
        predictions,
        data=None,
        protocol="official",
        backend="nli",
        nli_model="cross-encoder/nli-deberta-v3-base",
        judge=None,
        device=None,
        batch_size=32,
        cache_dir=None,
        **kwargs,
    ):
        return batch_alce(
            predictions,
            data=data,
            protocol=protocol,
            backend=backend,
            nli_model=nli_model,
            judge=judge,
            device=device,
            batch_size=batch_size,
            cache_dir=cache_dir,
            **kwargs,
        )
