r"""STORM heading entity recall: an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``heading_entity_recall`` (surge_dataset/evaluation/metrics/), the same code
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
    >>> from surge_dataset.testing.models import build_tiny_ner_model
    >>> ner = str(build_tiny_ner_model(tempfile.mkdtemp() + "/ner"))  # tiny random stand-in; the default: dslim/bert-base-NER
    >>> recall = evaluate.load("surge/heading_entity_recall")
    >>> results = recall.compute(predictions=[survey, other], references=[0, 0], data="surge", ner_model=ner)
    >>> print(results["per_survey"], results["counts"][0]["gt_heading_entities"])
    [{'heading_entity_recall': 1.0}, {'heading_entity_recall': 0.03225806451612903}] 31
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class HeadingEntityRecall(evaluate_module.SurgeMetricModule):
    metric_name = "heading_entity_recall"
