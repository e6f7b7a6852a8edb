r"""Pairwise judging against the ground truth: an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``pairwise_gt`` (surge_dataset/evaluation/metrics/), the same code
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
    >>> pairwise_gt = evaluate.load("surge/pairwise_gt")
    >>> def longer_wins(messages):  # a stand-in judge: prefers the longer of the two quoted surveys
    ...     a, b = messages[-1]["content"].split("<<<\n")[1:3]
    ...     return "[[A]]" if len(a.split(">>>")[0]) > len(b.split(">>>")[0]) else "[[B]]"
    >>> model = ScriptedChat(responder=longer_wins)  # for a hosted judge: judge="openai:gpt-4o"
    >>> results = pairwise_gt.compute(predictions=[survey, other], references=[0, 0], data="surge",
    ...                               judge=Judge(LLM(model, cache_dir=False)))
    >>> print(results["per_survey"][1]["pairwise_gt_loss"], results["pairwise_gt_consistency"], len(model.requests))
    1.0 1.0 4
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class PairwiseGT(evaluate_module.SurgeMetricModule):
    metric_name = "pairwise_gt"
