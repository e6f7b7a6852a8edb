"""``surge evaluate`` on several processes: the model work of a run split between GPUs (or CPUs, or machines).

Under ``accelerate launch --num_processes N -m surge_dataset.cli evaluate ...`` every process reads the
same passage folder, the same journal and the same dataset, so every process knows the whole run's
de-duplicated NLI pairs and encoder texts. Those are cut exactly as one process would batch them
(:func:`~surge_dataset.models.cache.length_sorted_chunks`: longest first, one model call per chunk) and the
chunks are dealt round robin: each process scores its chunks on its own device (writing them to its
score cache as it goes), then the scores of all processes are gathered (``accelerate.utils.gather_object``,
which works on one machine or many). From there the main process alone goes on: the LLM judge (a server
model: its requests are never duplicated), NER, bibliographic look-ups, scoring, the journal, ``--details``
and the results file. The other processes stop.

Why the result is identical to one process: every chunk is the very batch one process would have sent to
the model, so each score is computed from the same inputs with the same padding; a metric that asks in
stages (ALCE) asks each stage on every process, with every process holding the scores of the stages before.
A run killed on any process leaves each finished chunk in the score cache and nothing in the journal that
was not finished: the same command resumes it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from surge_dataset.core.errors import SurgeError
from surge_dataset.evaluation.metric import Metric, ModelSet, Requests
from surge_dataset.models.cache import length_sorted_chunks

__all__ = ["ModelShare", "ProcessGroup", "ProcessMismatchError", "process_group", "shared_model_pass"]

logger = logging.getLogger(__name__)

#: Model kinds whose work is split between processes (local models scoring fixed inputs); the judge is a
#: server model asked by the main process, NER is small.
SHARDED_KINDS = ("nli", "encoder")
#: Chunk size for a backend that does not say how it batches (a test double with ``logits`` only).
FALLBACK_CHUNK = 512


class ProcessMismatchError(SurgeError, RuntimeError):
    """The processes of one launch do not see the same run (other files, another command): nothing is scored."""


@dataclass
class ModelShare:
    """One process's part of the model work: what it computed, of how much, in how long."""

    process: int
    nli_pairs: int = 0
    encoder_texts: int = 0
    chunks: int = 0
    seconds: float = 0.0
    of: dict[str, int] = field(default_factory=dict)  # the run's total per kind (before splitting)

    def line(self, processes: int) -> str:
        total = ", ".join(f"{self._done(kind)} of {n:,} {self._unit(kind)}" for kind, n in self.of.items()) or "nothing"
        return f"[process {self.process}/{processes}] model work: {total} in {self.chunks} chunks, {self.seconds:.1f} s"

    def _done(self, kind: str) -> str:
        return f"{self.nli_pairs if kind == 'nli' else self.encoder_texts:,}"

    @staticmethod
    def _unit(kind: str) -> str:
        return "NLI pairs" if kind == "nli" else "encoder texts"


class ProcessGroup:
    """The processes of one launch (accelerate's ``PartialState``): who am I, gather what each computed."""

    def __init__(self, state: Any) -> None:
        self.state = state
        self.num_processes: int = int(state.num_processes)
        self.index: int = int(state.process_index)
        self.share = ModelShare(self.index)

    @property
    def is_main(self) -> bool:
        return self.index == 0

    @property
    def device(self) -> str | None:
        from surge_dataset.core.distributed import process_device

        return process_device(self.state)

    def device_for(self, configured: str | None) -> str | None:
        """The device this process's models use: its own GPU when the run is on GPUs (``--device cuda`` or the
        default), else ``configured`` (``--device cpu`` stays on the CPU)."""
        if configured is None or str(configured).startswith("cuda"):
            return self.device or configured
        return configured

    def gather(self, value: Any) -> list[Any]:
        """``value`` of every process, in process order (a collective: every process must call it)."""
        from accelerate.utils import gather_object

        return list(gather_object([value]))

    def from_main(self, value: Any) -> Any:
        """The main process's ``value``, on every process (a collective): what only the main process may read,
        e.g. the journal it alone writes, which another machine may not even see."""
        from accelerate.utils import broadcast_object_list

        return broadcast_object_list([value], from_process=0)[0]

    def check_same(self, value: Any, what: str) -> None:
        """Raise on every process (never hang) when the processes disagree on ``value`` (a collective)."""
        values = self.gather(value)
        differing = [i for i, v in enumerate(values) if v != values[0]]
        if differing:
            raise ProcessMismatchError(
                f"processes {', '.join(map(str, differing))} of {self.num_processes} see other {what} than process 0: "
                "every process must read the same --data and --passages (the same files at the same paths on "
                "every machine) and run the same command")

    def close(self) -> None:
        """Wait for every process, then end the process group (a collective, on the way out of a finished run): a
        process that exits with the group's communication threads still running aborts (``terminate called without
        an active exception``), and the launcher then fails the whole run."""
        self.state.wait_for_everyone()
        self.state.destroy_process_group()

    def shares(self) -> list[dict[str, Any]]:
        """Every process's :class:`ModelShare` (a collective), for the results' ``config``."""
        return [asdict(share) for share in self.gather(self.share)]


def process_group() -> ProcessGroup | None:
    """The launch this process belongs to, None for a single process (nothing to split)."""
    from surge_dataset.core.distributed import distributed_state

    state = distributed_state()
    return None if state is None or state.num_processes <= 1 else ProcessGroup(state)


def _chunking(model: Any) -> tuple[Callable[[Any], int], int]:
    """How the backend inside a prefetching wrapper batches its inputs (its own rule, else characters)."""
    backend = getattr(model, "backend", model)
    length = getattr(backend, "item_length", None)
    chunk_size = getattr(backend, "chunk_size", None)
    if length is None or not isinstance(chunk_size, int):
        return (lambda item: sum(map(len, item)) if isinstance(item, tuple) else len(item)), FALLBACK_CHUNK
    return length, chunk_size


class ShardedCompute:
    """Installed on a prefetching wrapper for the model pass: its new inputs are split between processes."""

    def __init__(self, group: ProcessGroup, kind: str, model: Any, compute: Callable[[list[Any]], Any]) -> None:
        self.group, self.kind, self.compute = group, kind, compute
        self.length, self.chunk_size = _chunking(model)

    def __call__(self, todo: list[Any]) -> np.ndarray:
        group, share = self.group, self.group.share
        chunks = length_sorted_chunks(todo, self.length, self.chunk_size)
        mine = [chunk for i, chunk in enumerate(chunks) if i % group.num_processes == group.index]
        started = time.perf_counter()
        flat = [item for chunk in mine for item in chunk]
        rows = np.asarray(self.compute(flat), dtype=np.float32) if flat else None
        share.seconds += time.perf_counter() - started
        share.chunks += len(mine)
        share.of[self.kind] = share.of.get(self.kind, 0) + len(todo)
        if self.kind == "nli":
            share.nli_pairs += len(flat)
        else:
            share.encoder_texts += len(flat)
        by_item: dict[Any, np.ndarray] = {}
        for process, part in enumerate(self.group.gather(rows)):
            if part is None:
                continue
            theirs = [item for i, chunk in enumerate(chunks) if i % group.num_processes == process for item in chunk]
            if len(theirs) != len(part):
                raise ProcessMismatchError(f"process {process} sent {len(part)} {self.kind} rows for {len(theirs)} "
                                           "inputs: the processes disagree on the run's inputs (same command and "
                                           "files on each?)")
            by_item.update(zip(theirs, part, strict=True))
        return np.stack([by_item[item] for item in todo])


def _sharded_needs(metric: Metric, config: Any) -> tuple[set[str], set[str]]:
    needs = metric.active_needs(config) - {"corpus"}
    return needs & set(SHARDED_KINDS), needs - set(SHARDED_KINDS)


def shared_model_pass(surveys: Sequence[Any], models: ModelSet, config: Any, group: ProcessGroup,
                      metrics: Sequence[Metric]) -> None:
    """Every process: the run's NLI and encoder work, split between the processes, in the order one process
    would ask it (:func:`~surge_dataset.evaluation.runner.prefetch_all`), so that each model call matches.

    A metric that asks in stages takes part when it needs only split kinds (ALCE with an NLI model); one
    that also needs the judge or NER runs on the main process afterwards, unsplit but correct.
    """
    staged = [m for m in metrics if type(m).prefetch is not Metric.prefetch]
    combined = Requests()
    for metric in metrics:
        if metric not in staged and _sharded_needs(metric, config)[0]:
            for survey in surveys:
                combined.extend(metric.requests(survey, config))
    wrappers = {kind: getattr(models, kind) for kind in SHARDED_KINDS if getattr(models, kind) is not None}
    for kind, wrapper in wrappers.items():
        wrapper.shard_with(ShardedCompute(group, kind, wrapper, wrapper.unsharded_compute))
    try:
        split_only = ModelSet(**wrappers)
        split_only.prefetch(Requests(nli=combined.nli, texts=combined.texts))
        for metric in staged:
            split, other = _sharded_needs(metric, config)
            if split and not other:
                metric.prefetch(surveys, split_only, config)
    finally:
        for wrapper in wrappers.values():
            wrapper.shard_with(None)
    logger.info(group.share.line(group.num_processes))
