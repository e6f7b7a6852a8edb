r"""SurveyGen survey similarity (Sim): an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``sim`` (surge_dataset/evaluation/metrics/), the same code
`surge evaluate` runs. Inputs and outputs: this folder's README.md, or the module's ``inputs_description``.

Examples (beside ``./surge``, the sample that ``make demo`` builds before it runs ``surge metrics install``;
the card's "How to Use" shows this text):

    >>> import evaluate
    >>> from surge_dataset import SurgeData
    >>> from surge_dataset.data.render import render_survey
    >>> data = SurgeData.open("surge")  # the sample, built by `make demo` (or any built SurGE folder)
    >>> survey = render_survey(data.survey(0), data.corpus)  # survey 0's ground truth, written as a generated survey
    >>> other = "# Introduction\n\nGraph neural networks pass messages [1]. They also pool [2].\n\n[1] Not A Real Paper\n"
    >>> from surge_dataset.models.download import bundled_model_path
    >>> minilm = str(bundled_model_path("minilm"))  # bundled and offline; the paper: BAAI/bge-large-en-v1.5
    >>> sim = evaluate.load("surge/sim")
    >>> results = sim.compute(predictions=[survey, other], references=[0, 0], data="surge", embedding_model=minilm)
    >>> print([round(r["sim"], 2) for r in results["per_survey"]])
    [1.0, 0.75]
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class SIM(evaluate_module.SurgeMetricModule):
    metric_name = "sim"
