"""Inspect's entry point: ``[project.entry-points.inspect_ai] surge = "surge_dataset.inspect._registry"``.

Inspect imports this module when a name under ``surge/`` is asked for (``inspect eval surge/survey``);
importing it registers :func:`~.task.survey` as the task ``surge/survey``. Without ``inspect_ai`` (the
``inspect`` extra) it registers nothing, so the package's modules all import without it.
"""

from __future__ import annotations

from importlib.util import find_spec

__all__ = ["survey"]

if find_spec("inspect_ai") is not None:
    from inspect_ai import task

    from surge_dataset.inspect.task import TASK_NAME
    from surge_dataset.inspect.task import survey as _survey

    survey = task(name=TASK_NAME)(_survey)
