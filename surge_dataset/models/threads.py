"""How many CPU threads torch (and the tokenizers feeding it) may use: a sane default, overridable.

Why (``surge generate`` with SmolLM2 silent for minutes on 2 cores): PyTorch starts one
OpenMP worker per core, and between two operations a worker busy-waits at a barrier (libgomp spins
before it sleeps). A small model decoding on the CPU is a long chain of tiny operations issued one
after another by the Python main thread, so each operation waits for the slowest worker, and a worker
whose core another process holds stalls every one of them; meanwhile the spinning worker takes the
core the main thread needs. Evidence on a 2-core machine with other jobs running: a ``gdb`` backtrace
of the stalled run showed the OpenMP worker at 55 % CPU in ``gomp_barrier_wait_end`` while the
tokenizers' (rayon) and OpenBLAS threads slept; a decoding step took 1.26 s with torch's default of 2
threads and 0.28 s with 1; ``benchmarks/generate_speed.py``: 2-10x faster per survey with 1 thread as
soon as anything else runs, ~1.2x slower on an idle machine. Hence the default of half the usable
cores (1 on 2 cores), and no tokenizers thread pool when torch has one thread.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

__all__ = ["THREADS_ENV", "ThreadChoice", "configure_threads", "resolve_threads", "usable_cpus"]

#: The package's own override; wins over ``OMP_NUM_THREADS`` (which other libraries also read).
THREADS_ENV = "SURGE_NUM_THREADS"


class ThreadChoice(NamedTuple):
    """A thread count and where it came from (for the run's log line and sidecar)."""

    threads: int
    source: str


def usable_cpus() -> int:
    """CPUs this process may run on: its affinity mask, capped by a cgroup v2 CPU quota (containers).

    ``os.cpu_count()`` reports the host's cores, so a container limited to 2 CPUs on a 64-core host
    would otherwise start 64 threads.
    """
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max" and int(period) > 0:
            count = min(count, math.ceil(int(quota) / int(period)))
    except (OSError, ValueError):
        pass
    return max(1, count)


def _positive(value: str | None) -> int | None:
    """The first integer of an environment value (``OMP_NUM_THREADS`` may be ``"4,2"``), if positive."""
    try:
        number = int(str(value).split(",")[0].strip())
    except ValueError:
        return None
    return number if number > 0 else None


def resolve_threads(threads: int | None = None, environ: Mapping[str, str] | None = None,
                    cpus: int | None = None) -> ThreadChoice:
    """The torch thread count: ``threads`` (``--threads``), else ``$SURGE_NUM_THREADS``, else
    ``$OMP_NUM_THREADS``, else half the usable cores (at least 1), shared among the processes of an
    ``accelerate``/``torchrun`` launch on this machine (``LOCAL_WORLD_SIZE``).
    """
    environ = os.environ if environ is None else environ
    if threads is not None:
        if threads < 1:
            raise ValueError(f"--threads must be positive (0: keep torch's own count), got {threads}")
        return ThreadChoice(threads, "--threads")
    if environ.get(THREADS_ENV, "").strip():
        value = _positive(environ[THREADS_ENV])
        if value is None:
            raise ValueError(f"{THREADS_ENV}={environ[THREADS_ENV]!r}: expected a positive integer")
        return ThreadChoice(value, THREADS_ENV)
    omp = _positive(environ.get("OMP_NUM_THREADS"))
    if omp is not None:
        return ThreadChoice(omp, "OMP_NUM_THREADS")
    cpus = usable_cpus() if cpus is None else cpus
    processes = _positive(environ.get("LOCAL_WORLD_SIZE")) or 1
    return ThreadChoice(max(1, cpus // processes // 2), f"default: half of {cpus} usable core(s)"
                        + (f" over {processes} processes" if processes > 1 else ""))


def configure_threads(threads: int | None = None) -> ThreadChoice:
    """Apply :func:`resolve_threads` to torch (intra-op, and inter-op while still allowed) and the tokenizers.

    Call before a local model does its first work. Idempotent. ``TOKENIZERS_PARALLELISM`` (off with one
    torch thread) and ``RAYON_NUM_THREADS`` are only set when the user has not set them; both are read
    by ``tokenizers`` when it next encodes a batch.
    """
    import torch

    choice = resolve_threads(threads)
    if torch.get_num_threads() != choice.threads:
        torch.set_num_threads(choice.threads)
    try:
        torch.set_num_interop_threads(min(choice.threads, torch.get_num_interop_threads()))
    except RuntimeError:
        pass  # set before, or inter-op work already started: torch allows it only once
    if choice.threads == 1:
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    else:
        os.environ.setdefault("RAYON_NUM_THREADS", str(choice.threads))
    return choice
