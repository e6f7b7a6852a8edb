"""surge-bench: the SurGE benchmark for scientific survey generation as a HuggingFace-ecosystem package.

The one core library: typed records, dataset build/export, the corpus index, survey parsing, scoring,
models, retrieval and generation. Heavy dependencies (torch, datasets, evaluate) are imported lazily
by the modules that need them, so ``import surge_dataset`` and the ``surge`` CLI start fast.
"""

from __future__ import annotations

from pathlib import Path

from surge_dataset.core.metadata import SURGE_BENCH_VERSION
from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.records import Paper, Query, Section, Survey
from surge_dataset.data.corpus import Corpus
from surge_dataset.data.dataset import SurgeData, open_dataset
from surge_dataset.data.validate import SurgeDataError

__version__ = SURGE_BENCH_VERSION

__all__ = [
    "Corpus",
    "Paper",
    "Query",
    "Section",
    "Survey",
    "SurgeData",
    "SurgeDataError",
    "metric_path",
    "normalise_title",
    "open_dataset",
    "__version__",
]


def metric_path(name: str) -> str:
    """Folder of the ``evaluate`` module ``name`` (``evaluate.load(metric_path("shr"))`` works anywhere).

    In a checkout the repository's ``metrics/`` folder is used; in an installed wheel the copy shipped
    inside the package (``surge_dataset/_metrics``).
    """
    here = Path(__file__).resolve().parent
    for base in (here / "_metrics", here.parent / "metrics"):
        if (base / name / f"{name}.py").is_file():
            return str(base / name)
    raise FileNotFoundError(f"no SurGE metric named {name!r} (looked in {here / '_metrics'} and {here.parent / 'metrics'})")
