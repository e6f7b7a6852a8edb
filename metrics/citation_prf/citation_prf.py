r"""SurveyGen citation precision/recall/F1: an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``citation_prf`` (surge_dataset/evaluation/metrics/), the same code
`surge evaluate` runs. Inputs and outputs: this folder's README.md, or the module's ``inputs_description``.

Examples (beside ``./surge``, the sample that ``make demo`` builds before it runs ``surge metrics install``;
the card's "How to Use" shows this text):

    >>> import evaluate
    >>> from surge_dataset import SurgeData
    >>> from surge_dataset.data.render import render_survey
    >>> data = SurgeData.open("surge")  # the sample, built by `make demo` (or any built SurGE folder)
    >>> survey = render_survey(data.survey(0), data.corpus)  # survey 0's ground truth, written as a generated survey
    >>> other = "# Introduction\n\nGraph neural networks pass messages [1]. They also pool [2].\n\n[1] Not A Real Paper\n"
    >>> prf = evaluate.load("surge/citation_prf")
    >>> results = prf.compute(predictions=[survey, other], references=[0, 0], data="surge")
    >>> print([(round(r["cite_precision"], 4), round(r["cite_recall"], 4)) for r in results["per_survey"]])
    [(1.0, 0.9524), (0.0, 0.0)]
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class CitationPRF(evaluate_module.SurgeMetricModule):
    metric_name = "citation_prf"
