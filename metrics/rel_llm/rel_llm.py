r"""SurveyGen Rel_LLM: an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``rel_llm`` (surge_dataset/evaluation/metrics/), the same code
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
    >>> rel_llm = evaluate.load("surge/rel_llm")
    >>> model = ScriptedChat(["3"])  # for a hosted judge: judge="openai:gpt-4o"
    >>> results = rel_llm.compute(predictions=[survey], references=[0], data="surge", judge=Judge(LLM(model, cache_dir=False)))
    >>> print(results["rel_llm"], len(model.requests))
    3.0 1
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class RelLLM(evaluate_module.SurgeMetricModule):
    metric_name = "rel_llm"
