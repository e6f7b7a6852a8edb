"""Small doubles the engine tests share: an NLI model that entails everything and says what it was asked, and a
toy metric registered for one test."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from surge_dataset.evaluation import register, unregister


class EntailingNLI:
    """Entailment for every pair; counts its calls and keeps the pairs it was asked, in order."""

    def __init__(self) -> None:
        self.calls = 0
        self.asked: list[tuple[str, str]] = []

    def logits(self, pairs: Any) -> np.ndarray:
        self.calls += 1
        self.asked += list(pairs)
        return np.tile([0.0, 2.0, 1.0], (len(pairs), 1))


@contextmanager
def registered(metric: Any) -> Iterator[Any]:
    """``metric`` (an instance) in the registry for the block, removed after."""
    register(metric)
    try:
        yield metric
    finally:
        unregister(metric.name)
