"""`surge` run in a fresh process, as a user's shell runs it: huggingface_hub reads HF_HOME, HF_ENDPOINT and
HF_HUB_OFFLINE once, at import, so a Hub out of reach can only be set up from outside the process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

from ..conftest import REPO_ROOT

__all__ = ["closed_port", "error_line", "surge"]


def closed_port() -> int:
    """A port on 127.0.0.1 with nothing listening (bound, then released): connections to it are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def surge(*args: str, env: dict[str, str], timeout: int = 300) -> tuple[subprocess.CompletedProcess, float]:
    """`surge ...` in a fresh process, so huggingface_hub reads HF_HOME, HF_ENDPOINT, HF_HUB_OFFLINE as a user's
    shell sets them; returns the process and its wall time."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_OFFLINE"))}
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "surge_dataset.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env={**base, "PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1", **env})
    return done, time.monotonic() - started


def error_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("error: ") and "Traceback" not in done.stderr and "Retrying" not in done.stderr
    return lines[-1]
