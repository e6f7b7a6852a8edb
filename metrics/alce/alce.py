r"""ALCE citation recall and precision: an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``alce`` (surge_dataset/evaluation/metrics/), the same code
`surge evaluate` runs. Inputs and outputs: this folder's README.md, or the module's ``inputs_description``.

Examples (beside ``./surge``, the sample that ``make demo`` builds before it runs ``surge metrics install``;
the card's "How to Use" shows this text):

    >>> import evaluate
    >>> from surge_dataset import SurgeData
    >>> from surge_dataset.data.render import render_survey
    >>> data = SurgeData.open("surge")  # the sample, built by `make demo` (or any built SurGE folder)
    >>> survey = render_survey(data.survey(0), data.corpus)  # survey 0's ground truth, written as a generated survey
    >>> other = "# Introduction\n\nGraph neural networks pass messages [1]. They also pool [2].\n\n[1] Not A Real Paper\n"
    >>> import tempfile
    >>> from surge_dataset.testing.models import build_tiny_nli_cross_encoder
    >>> nli = str(build_tiny_nli_cross_encoder(tempfile.mkdtemp() + "/nli"))  # tiny random stand-in; the paper: cross-encoder/nli-deberta-v3-base
    >>> alce = evaluate.load("surge/alce")
    >>> results = alce.compute(predictions=[other], references=[0], data="surge", nli_model=nli)
    >>> print(results["alce_citation_recall"], results["alce_citation_precision"])
    0.0 0.0
    >>> print(results["counts"][0]["alce_sentences"], results["counts"][0]["alce_unusable"])
    2 2
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class ALCE(evaluate_module.SurgeMetricModule):
    metric_name = "alce"
