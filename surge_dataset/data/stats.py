"""``surge data stats``: the statistics of SurGE's Table 1 for any built dataset, beside the published ones.

Definitions (the paper gives none beyond the row names; protocol.md §1 describes the same quantities):

* surveys: the ground-truth surveys (every split), and how many per split;
* tree depth: the deepest heading of a survey's tree rebuilt from ``parent_id`` (:meth:`Survey.tree`), the ``root``
  node at depth 0 and a top-level section at 1 (a section > subsection > subsubsection survey has depth 3);
  averaged over the surveys, and its maximum;
* tree nodes: the nodes of a survey's ``structure``, ``root`` included; average and maximum;
* citations per survey ("per paper" in the paper): the length of ``all_cites``, averaged over the surveys;
* corpus size: the corpus papers; abstract length: whitespace-separated words of a paper's abstract, averaged
  over the papers that have one (those without are counted apart).

The data is SurGE's own when it has the official 205 surveys and the official corpus of 1,086,992 papers (the
released files carry no fingerprint we could pin from here: the real files cannot be fetched on these machines);
only then is the published column filled. Everything here is pure: :func:`dataset_statistics` reads records, and
:func:`statistics_of` only streams them off a built dataset.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from surge_dataset.core.records import Survey

if TYPE_CHECKING:
    from surge_dataset.data.dataset import SurgeData

__all__ = ["OFFICIAL_CORPUS_SIZE", "OFFICIAL_SURVEYS", "PAPER_TABLE1", "DatasetStatistics", "dataset_statistics",
           "statistics_of"]

OFFICIAL_SURVEYS = 205
OFFICIAL_CORPUS_SIZE = 1_086_992

#: Table 1 of the SurGE paper (arXiv 2508.15658), "Key statistics of the SurGE benchmark", row by row:
#: (key of :class:`DatasetStatistics`, the paper's row name, the published number).
PAPER_TABLE1: tuple[tuple[str, str, float], ...] = (
    ("surveys", "Total Ground Truth Surveys", 205),
    ("mean_depth", "Average Tree Depth", 3.073),
    ("max_depth", "Maximum Tree Depth", 4),
    ("mean_nodes", "Average Number of Tree Nodes", 42.717),
    ("max_nodes", "Maximum Number of Tree Nodes", 212),
    ("mean_citations", "Average Citations per Paper", 65.78),
    ("corpus_size", "Corpus Size", 1_086_992),
    ("mean_abstract_words", "Average Abstract Length (words)", 156.57),
)
PAPER_TABLE1_SOURCE = "SurGE paper, arXiv 2508.15658, Table 1"


@dataclass(frozen=True)
class DatasetStatistics:
    """Table 1's statistics of one dataset (None where the dataset has no such part: no corpus, no survey)."""

    surveys: int
    splits: dict[str, int]
    mean_depth: float | None
    max_depth: int | None
    mean_nodes: float | None
    max_nodes: int | None
    mean_citations: float | None
    corpus_size: int | None
    mean_abstract_words: float | None
    papers_without_abstract: int | None
    notes: list[str] = field(default_factory=list)

    @property
    def is_surge(self) -> bool:
        """The official SurGE data: its 205 surveys and its 1,086,992-paper corpus."""
        return self.surveys == OFFICIAL_SURVEYS and self.corpus_size == OFFICIAL_CORPUS_SIZE

    def rows(self) -> list[dict[str, Any]]:
        """Table 1's rows in the paper's order: ``{"key", "statistic", "value", "published"}`` (published None
        unless :attr:`is_surge`)."""
        return [{"key": key, "statistic": label, "value": getattr(self, key),
                 "published": published if self.is_surge else None} for key, label, published in PAPER_TABLE1]

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "is_surge": self.is_surge, "source": PAPER_TABLE1_SOURCE, "rows": self.rows()}


def _depth(survey: Survey) -> int:
    return max(section.depth for section in survey.tree().walk())


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def dataset_statistics(surveys: Sequence[Survey], abstracts: Iterable[str | None] | None) -> DatasetStatistics:
    """Table 1's statistics of ``surveys`` and the corpus ``abstracts`` (one per paper, None for a paper without;
    ``abstracts`` None: the dataset has no corpus). A survey whose ``structure`` has no ``root`` node has no tree:
    it is left out of the depth figures and named in the notes."""
    notes: list[str] = []
    depths: list[int] = []
    for survey in surveys:
        try:
            depths.append(_depth(survey))
        except ValueError as error:
            notes.append(f"tree depth leaves out survey {survey.survey_id}: {error}")
    nodes = [len(s.structure) for s in surveys]
    corpus_size = words = without = None
    if abstracts is not None:
        corpus_size, total, counted, without = 0, 0, 0, 0
        for abstract in abstracts:
            corpus_size += 1
            n = len(abstract.split()) if abstract else 0
            if n:
                total, counted = total + n, counted + 1
            else:
                without += 1
        words = total / counted if counted else None
    return DatasetStatistics(
        surveys=len(surveys), splits=dict(sorted(Counter(s.split for s in surveys).items())),
        mean_depth=_mean(depths), max_depth=max(depths, default=None), mean_nodes=_mean(nodes),
        max_nodes=max(nodes, default=None), mean_citations=_mean([len(s.all_cites) for s in surveys]),
        corpus_size=corpus_size, mean_abstract_words=words, papers_without_abstract=without, notes=notes)


def statistics_of(data: SurgeData) -> DatasetStatistics:
    """:func:`dataset_statistics` of a built dataset (a :class:`~surge_dataset.data.dataset.SurgeData`): its surveys,
    and its corpus abstracts streamed in batches (a dataset built without corpus.json has no corpus figures)."""
    abstracts = None
    if "corpus" in data.configs:
        abstracts = (a for batch in data.iter_corpus_batches(columns=["abstract"])
                     for a in batch.column("abstract").to_pylist())
    return dataset_statistics(data.surveys(), abstracts)
