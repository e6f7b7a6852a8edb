r"""SurGE ROUGE-1/2/L and BLEU: an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``rouge_bleu`` (surge_dataset/evaluation/metrics/), the same code
`surge evaluate` runs. Inputs and outputs: this folder's README.md, or the module's ``inputs_description``.

Examples (beside ``./surge``, the sample that ``make demo`` builds before it runs ``surge metrics install``;
the card's "How to Use" shows this text):

    >>> import evaluate
    >>> from surge_dataset import SurgeData
    >>> from surge_dataset.data.render import render_survey
    >>> data = SurgeData.open("surge")  # the sample, built by `make demo` (or any built SurGE folder)
    >>> survey = render_survey(data.survey(0), data.corpus)  # survey 0's ground truth, written as a generated survey
    >>> other = "# Introduction\n\nGraph neural networks pass messages [1]. They also pool [2].\n\n[1] Not A Real Paper\n"
    >>> rouge_bleu = evaluate.load("surge/rouge_bleu")
    >>> results = rouge_bleu.compute(predictions=[survey], references=[0], data="surge")
    >>> print(round(results["rouge1"], 4), round(results["rougeL"], 4), round(results["bleu"], 2))
    0.918 0.9132 82.53
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class RougeBleu(evaluate_module.SurgeMetricModule):
    metric_name = "rouge_bleu"
