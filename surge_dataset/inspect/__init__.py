"""SurGE in the Inspect harness (``inspect-ai``, the ``inspect`` extra): the task and its scorers.

* :mod:`.task`: the task ``surge/survey`` (samples, solver, one scorer per metric), registered through
  Inspect's ``inspect_ai`` entry point by :mod:`._registry`;
* :mod:`.scoring`: the scorers' engine, ``compute()`` per metric, and the grader model as a judge backend.

The task's survey format has no Inspect in it and lives with the generators: its prompts
(:mod:`surge_dataset.generation.inspect_prompts`, registered in :mod:`surge_dataset.llm.prompts` and versioned) and
topics -> prompts, answers -> the evaluator's Markdown, where a sample keeps it
(:mod:`surge_dataset.generation.inspect_survey`).

Reading its logs back is an importer's job (:mod:`surge_dataset.importers.inspect_logs`: an Inspect log -> the peer
surveys ``surge import --format inspect`` converts; :mod:`surge_dataset.importers.inspect_results`: its scores -> a
``surge evaluate``-shaped results file ``surge report`` reads).

Nothing here imports ``inspect_ai`` at import time: ``import surge_dataset.cli`` never loads it.
"""
