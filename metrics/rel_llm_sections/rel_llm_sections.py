r"""SurveyGen Rel_LLM per section: an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``rel_llm_sections`` (surge_dataset/evaluation/metrics/), the same code
`surge evaluate` runs. Inputs and outputs: this folder's README.md, or the module's ``inputs_description``.

Examples (beside ``./surge``, the sample that ``make demo`` builds before it runs ``surge metrics install``;
the card's "How to Use" shows this text): three sections (the references are not one), one judge question each.

    >>> import evaluate
    >>> from surge_dataset.llm import LLM, Judge
    >>> from surge_dataset.testing import ScriptedChat  # a chat model in process that answers as scripted
    >>> survey = (
    ...     "# Introduction\n\nGraph neural networks pass messages along edges [1].\n\n"
    ...     "# Cooking\n\nA good risotto needs patience and stock added slowly.\n\n"
    ...     "# Pooling\n\nPooling summarises a graph into one vector [1].\n\n"
    ...     "# References\n\n[1] Not A Real Paper\n"
    ... )
    >>> rel_llm_sections = evaluate.load("surge/rel_llm_sections")
    >>> model = ScriptedChat(["1", "0", "1"])  # one answer per section; for a hosted judge: judge="openai:gpt-4o"
    >>> results = rel_llm_sections.compute(predictions=[survey], references=[0], data="surge",
    ...                                    judge=Judge(LLM(model, cache_dir=False)))
    >>> print(round(results["rel_llm_sections"], 4), len(model.requests))
    0.6667 3

A survey without a section that has text is not asked about: it scores 0, with a diagnostic.

    >>> model = ScriptedChat()
    >>> results = rel_llm_sections.compute(predictions=["# Introduction\n\n# References\n\n[1] A Paper\n"],
    ...                                    references=[0], data="surge", judge=Judge(LLM(model, cache_dir=False)))
    >>> print(results["rel_llm_sections"], len(model.requests), [d["code"] for d in results["diagnostics"][0]])
    0.0 0 ['no_sections']
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class RelLLMSections(evaluate_module.SurgeMetricModule):
    metric_name = "rel_llm_sections"
