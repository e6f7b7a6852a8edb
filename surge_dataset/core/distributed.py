"""Which process of an ``accelerate launch`` (or ``torchrun``) this is: one detection for every command.

``surge generate`` splits its surveys between the processes, ``surge evaluate`` its model work
(:mod:`.evaluation.parallel`), ``surge index dense`` its corpus shards. Each asks here, so a single
process never imports torch or accelerate for nothing and every command reads the launch the same way.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["distributed_state", "launched_processes", "process_device"]


def launched_processes() -> int:
    """How many processes the launcher started (``WORLD_SIZE``; 1 outside a launch)."""
    try:
        return max(1, int(os.environ.get("WORLD_SIZE", "1")))
    except ValueError:
        return 1


def distributed_state() -> Any:
    """accelerate's ``PartialState`` when launched with several processes, else None (no torch import).

    ``cpu=True`` without CUDA: otherwise a ``--multi_gpu`` launch on CPUs would give N independent
    single-process states that all believe they are the main process.
    """
    if launched_processes() <= 1:
        return None
    import torch
    from accelerate import PartialState

    return PartialState(cpu=not torch.cuda.is_available())


def process_device(state: Any) -> str | None:
    """This process's own GPU (``cuda:<local index>``: one model replica per GPU), None on CPUs."""
    if state is None or not str(state.device).startswith("cuda"):
        return None
    return f"cuda:{state.local_process_index}"
