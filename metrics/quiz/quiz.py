r"""Quiz answerability: an `evaluate` module declared over surge_dataset's metric registry.

The computation: the registered metric ``quiz`` (surge_dataset/evaluation/metrics/), the same code
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
    >>> from surge_dataset.testing import TextReader  # a scripted reader: answers from the quoted survey's words
    >>> quiz = evaluate.load("surge/quiz")
    >>> model = ScriptedChat(responder=TextReader(), model="reader")  # for a hosted judge: judge="openai:gpt-4o"
    >>> results = quiz.compute(predictions=[survey, other], references=[0, 0], data="surge",
    ...                        judge=Judge(LLM(model, cache_dir=False)))
    >>> print(results["per_survey"], len(model.requests))  # the sample's quiz set has 10 questions on survey 0
    [{'quiz': 1.0, 'quiz_unanswered': 0.0}, {'quiz': 0.0, 'quiz_unanswered': 1.0}] 20
"""

import evaluate  # noqa: F401 - evaluate reads a module's imports

from surge_dataset.evaluation import evaluate_module


class Quiz(evaluate_module.SurgeMetricModule):
    metric_name = "quiz"
