"""Helpers of the tests that start other processes: a free port, the offline environment, an accelerate launch."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A port nobody listens on now (accelerate's rendezvous, a local web app)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def subprocess_env(cache: Path) -> dict[str, str]:
    """This environment, offline, one torch thread, the score cache in ``cache`` and this checkout importable."""
    env = dict(os.environ)
    env.update(SURGE_CACHE=str(cache), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")])))
    return env


def accelerate_launch(processes: int, script: list[str]) -> list[str]:
    """The command running ``script`` (``-m module ...`` or ``file.py ...``) as ``processes`` CPU processes of one
    ``accelerate launch --multi_gpu`` (one process: plain Python, no launcher)."""
    if processes == 1:
        return [sys.executable, *script]
    return [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", str(processes),
            "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
            "--main_process_port", str(free_port()), *script]
