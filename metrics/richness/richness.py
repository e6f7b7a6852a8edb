r"""Non-textual richness: an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``richness`` (surge_dataset/evaluation/metrics/), the same code
`surge evaluate` runs. Inputs and outputs: this folder's README.md, or the module's ``inputs_description``.

Examples (beside ``./surge``, the sample that ``make demo`` builds before it runs ``surge metrics install``;
the card's "How to Use" shows this text):

    >>> import evaluate
    >>> from surge_dataset import SurgeData
    >>> from surge_dataset.data.render import render_survey
    >>> data = SurgeData.open("surge")  # the sample, built by `make demo` (or any built SurGE folder)
    >>> survey = render_survey(data.survey(0), data.corpus)  # survey 0's ground truth, written as a generated survey
    >>> other = "# Introduction\n\nGraph neural networks pass messages [1]. They also pool [2].\n\n[1] Not A Real Paper\n"
    >>> rich = ("# Methods\n\nMessage passing in one table and one figure [1].\n\n| Model | Aggregation |\n"
    ...         "| --- | --- |\n| GCN | mean |\n\n![Message passing](mp.png)\n\n$$h_v = \\sum_u h_u$$\n")
    >>> richness = evaluate.load("surge/richness")
    >>> results = richness.compute(predictions=[survey, rich], references=[0, 0], data="surge")
    >>> print(results["per_survey"][0]["richness"], results["counts"][1]["richness_words"])
    0.0 13
    >>> print({k: results["per_survey"][1][k] for k in ("richness_tables", "richness_figures", "richness_equations")})
    {'richness_tables': 1.0, 'richness_figures': 1.0, 'richness_equations': 1.0}
    >>> print(round(results["per_survey"][1]["richness"], 2))  # (1 table + 1 figure) per 1,000 of its 13 words
    153.85
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class Richness(evaluate_module.SurgeMetricModule):
    metric_name = "richness"
