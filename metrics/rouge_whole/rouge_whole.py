r"""SurveyGen whole-survey ROUGE-L: an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``rouge_whole`` (surge_dataset/evaluation/metrics/), the same code
`surge evaluate` runs. Inputs and outputs: this folder's README.md, or the module's ``inputs_description``.

Examples (beside ``./surge``, the sample that ``make demo`` builds before it runs ``surge metrics install``;
the card's "How to Use" shows this text):

    >>> import evaluate
    >>> from surge_dataset import SurgeData
    >>> from surge_dataset.data.render import render_survey
    >>> data = SurgeData.open("surge")  # the sample, built by `make demo` (or any built SurGE folder)
    >>> survey = render_survey(data.survey(0), data.corpus)  # survey 0's ground truth, written as a generated survey
    >>> other = "# Introduction\n\nGraph neural networks pass messages [1]. They also pool [2].\n\n[1] Not A Real Paper\n"
    >>> rouge_whole = evaluate.load("surge/rouge_whole")
    >>> results = rouge_whole.compute(predictions=[survey, other], references=[0, 0], data="surge")
    >>> print([round(r["rougeL_whole"], 4) for r in results["per_survey"]], round(results["rougeL_whole"], 4))
    [0.9916, 0.0153] 0.5035
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class RougeWhole(evaluate_module.SurgeMetricModule):
    metric_name = "rouge_whole"
