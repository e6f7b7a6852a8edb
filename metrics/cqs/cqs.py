r"""SurGE content quality score (CQS): an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``cqs`` (surge_dataset/evaluation/metrics/), the same code
`surge evaluate` runs. Inputs and outputs: this folder's README.md, or the module's ``inputs_description``.

Examples (beside ``./surge``, the sample that ``make demo`` builds before it runs ``surge metrics install``;
the card's "How to Use" shows this text):

    >>> import evaluate
    >>> from surge_dataset import SurgeData
    >>> from surge_dataset.data.render import render_survey
    >>> data = SurgeData.open("surge")  # the sample, built by `make demo` (or any built SurGE folder)
    >>> survey = render_survey(data.survey(0), data.corpus)  # survey 0's ground truth, written as a generated survey
    >>> other = "# Introduction\n\nGraph neural networks pass messages [1]. They also pool [2].\n\n[1] Not A Real Paper\n"
    >>> from surge_dataset.llm import LLM, Judge
    >>> from surge_dataset.testing import ScriptedChat  # a chat model in process that answers as scripted
    >>> cqs = evaluate.load("surge/cqs")
    >>> model = ScriptedChat(responder=lambda messages: "5")  # for the paper's judge: judge="openai:gpt-4o"
    >>> results = cqs.compute(predictions=[survey], references=[0], data="surge", judge=Judge(LLM(model, cache_dir=False)))
    >>> print(results["cqs"], results["counts"][0]["cqs_judged"] == len(model.requests))
    5.0 True
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class CQS(evaluate_module.SurgeMetricModule):
    metric_name = "cqs"
