r"""Reference existence (SurveyGen citation accuracy): an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``reference_existence`` (surge_dataset/evaluation/metrics/), the same code
`surge evaluate` runs. Inputs and outputs: this folder's README.md, or the module's ``inputs_description``.

Examples (beside ``./surge``, the sample that ``make demo`` builds before it runs ``surge metrics install``;
the card's "How to Use" shows this text):

    >>> import evaluate
    >>> from surge_dataset import SurgeData
    >>> from surge_dataset.data.render import render_survey
    >>> data = SurgeData.open("surge")  # the sample, built by `make demo` (or any built SurGE folder)
    >>> survey = render_survey(data.survey(0), data.corpus)  # survey 0's ground truth, written as a generated survey
    >>> other = "# Introduction\n\nGraph neural networks pass messages [1]. They also pool [2].\n\n[1] Not A Real Paper\n[2] Graph Attention Networks\n"
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> known = Path(tempfile.mkdtemp()) / "surveygen.json"  # SurveyGen's reference metadata: one survey, one paper
    >>> _ = known.write_text(json.dumps({"references": [{"title": "Graph Attention Networks", "metadata": {"year": 2018}}]}))
    >>> existence = evaluate.load("surge/reference_existence")
    >>> results = existence.compute(predictions=[survey, other], references=[0, 0], data="surge",
    ...                             bib_services="surveygen", bib_surveygen=str(known))
    >>> print([r["reference_existence"] for r in results["per_survey"]], results["counts"][1]["refs_exists"])
    [1.0, 0.5] 1
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class ReferenceExistence(evaluate_module.SurgeMetricModule):
    metric_name = "reference_existence"
