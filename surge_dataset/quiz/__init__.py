"""Quiz sets: multiple-choice questions drawn from the ground-truth surveys, answered from a generated survey.

SurveyBench (arXiv 2510.03120) asks of a generated survey what a reader asks: can I learn from it what the
expert survey teaches? Its quiz-based mode answers questions drawn from the human survey with the generated
one. Here that is two parts, each with one home:

* :mod:`surge_dataset.data.quiz_sets` the quiz set as pinned data (data, so the dataset build reads it): one JSON line per question (``quizzes.jsonl``), checked on
  reading, fingerprinted, stored as the dataset's ``quizzes`` config by ``surge data build``;
* :mod:`.writer`   ``surge data quiz``: an LLM writes the questions, one GT section at a time, each with the
  sentence it rests on; questions whose answer the quoted sentence does not carry are dropped and counted.

Answering and grading is the ``quiz`` metric (:mod:`surge_dataset.scoring.quiz`,
:mod:`surge_dataset.evaluation.metrics.quiz`). Scripted stand-ins for tests and the sample (a cloze writer and a
reader that answers from the quoted survey's words) are public in :mod:`surge_dataset.testing.quiz`.
"""
