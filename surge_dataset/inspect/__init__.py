"""SurGE in the Inspect harness (``inspect-ai``, the ``inspect`` extra): the task, its scorers, reading its logs.

* :mod:`.task`: the task ``surge/survey`` (samples, solver, one scorer per metric), registered through
  Inspect's ``inspect_ai`` entry point by :mod:`._registry`;
* :mod:`.prompts`: its prompts, registered in :mod:`surge_dataset.llm.prompts` and versioned;
* :mod:`.survey`: topics -> prompts and answers -> the evaluator's Markdown (the baselines' writer), no Inspect;
* :mod:`.scoring`: the scorers' engine, ``compute()`` per metric, and the grader model as a judge backend;
* :mod:`.log_reader`: an Inspect log -> the peer surveys ``surge import --format inspect`` converts;
* :mod:`.results`: an Inspect log's scores -> a ``surge evaluate``-shaped results file ``surge report`` reads.

Nothing here imports ``inspect_ai`` at import time: ``import surge_dataset.cli`` never loads it.
"""
