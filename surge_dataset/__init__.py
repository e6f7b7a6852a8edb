"""surge-bench: the SurGE benchmark for scientific survey generation as a HuggingFace-ecosystem package.

The one core library: typed records, dataset build/export, the corpus index, survey parsing, scoring,
models, retrieval and generation. Heavy dependencies (torch, datasets, evaluate) are imported lazily
by the modules that need them, so ``import surge_dataset`` and the ``surge`` CLI start fast.
"""

from __future__ import annotations

from surge_dataset.core.metadata import SURGE_BENCH_VERSION
from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.records import Paper, Query, Section, Survey
from surge_dataset.data.corpus import Corpus
from surge_dataset.data.dataset import SurgeData, open_dataset
from surge_dataset.data.validate import SurgeDataError
from surge_dataset.publish.modules import metric_path  # evaluate.load(metric_path("shr")) from anywhere

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
