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

SurveyGen's Table 1 (arXiv 2508.17647: #Docs, #Input Len, #Target Len, #Input Docs) and its §2.2 totals are added
when the data is SurveyGen's (it has the ``surveygen_surveys`` config of ``surge data from-surveygen``), with our
definitions, which the paper does not give: docs = surveys; target length = whitespace words of a survey's section
texts; input docs = its ``all_cites``; input length = the words of its cited papers' abstracts (Task 3's input),
summed per survey; sections = non-root nodes; references = the sum of ``all_cites``; references cited by the cited
papers = the distinct second-level works (config ``surveygen_second_level``; "–" when the data has none); and
surveys per discipline. Table 1's check-mark columns are read off the data: structural outline = a survey with a
section, quality indicators = a cited paper with a citation count or venue h-index, multi-level citation = any
second-level reference, for survey generation = always (the converted surveys are what the three tasks take).

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

__all__ = ["OFFICIAL_CORPUS_SIZE", "OFFICIAL_SURVEYS", "PAPER_TABLE1", "SURVEYGEN_TABLE1", "DatasetStatistics",
           "dataset_statistics", "statistics_of", "surveygen_statistics"]

#: SurveyGen's Table 1 row ("SurveyGen (ours)") and §2.2 totals: (key, label, published).
SURVEYGEN_TABLE1: tuple[tuple[str, str, float | bool], ...] = (
    ("docs", "#Docs", 4200), ("input_words", "#Input Len", 11423), ("target_words", "#Target Len", 5115),
    ("input_docs", "#Input Docs", 57.58), ("sections", "Sections (§2.2)", 115_376),
    ("references", "References cited (§2.2)", 242_143),
    ("second_level_references", "References cited by the cited papers (§2.2)", 5_062_596),
    ("structural_outline", "Structural Outline", True), ("quality_indicators", "Quality Indicators", True),
    ("multi_level_citation", "Multi-level Citation", True), ("for_survey_generation", "For Survey Generation", True),
)
SURVEYGEN_TABLE1_SOURCE = "SurveyGen paper, arXiv 2508.17647, Table 1 and §2.2 (4.2K docs; the full 4,205 surveys)"

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
    surveygen: dict[str, Any] | None = None  # SurveyGen's Table 1 (surveygen_statistics), on SurveyGen's data only

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


def surveygen_statistics(surveys: Sequence[Survey], abstract_words: dict[int, int],
                         disciplines: dict[int, str | None], *, indicators: bool = False,
                         second_level: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """SurveyGen's Table 1 quantities (module docstring): ``{"rows": [{"key", "statistic", "value", "published"}],
    "disciplines": {name: surveys}}``; ``abstract_words``: doc id -> words of its abstract (0 or absent: none);
    ``indicators``: whether any cited paper carries a quality indicator; ``second_level``: the second-level works
    (work id -> its row of ``surveygen_second_level``), None when the data has none."""
    def words(survey: Survey) -> int:
        return sum(len(str(node.get("content") or "").split()) for node in survey.structure)

    values = {
        "docs": len(surveys),
        "input_words": _mean([sum(abstract_words.get(d, 0) for d in s.all_cites) for s in surveys]),
        "target_words": _mean([words(s) for s in surveys]),
        "input_docs": _mean([len(s.all_cites) for s in surveys]),
        "sections": sum(max(len(s.structure) - 1, 0) for s in surveys),
        "references": sum(len(s.all_cites) for s in surveys),
        "second_level_references": len(second_level) if second_level else None,
        "structural_outline": any(len(s.structure) > 1 for s in surveys),
        "quality_indicators": indicators,
        "multi_level_citation": bool(second_level),
        "for_survey_generation": True,  # surveys with their outline, text and cited papers: what the tasks take
    }
    counted = Counter(disciplines.get(s.survey_id) or "(none)" for s in surveys)
    return {"rows": [{"key": k, "statistic": label, "value": values[k], "published": published}
                     for k, label, published in SURVEYGEN_TABLE1],
            "disciplines": dict(sorted(counted.items())), "source": SURVEYGEN_TABLE1_SOURCE}


def statistics_of(data: SurgeData) -> DatasetStatistics:
    """:func:`dataset_statistics` of a built dataset (a :class:`~surge_dataset.data.dataset.SurgeData`): its surveys,
    and its corpus abstracts streamed in batches (a dataset built without corpus.json has no corpus figures)."""
    from dataclasses import replace

    from surge_dataset.data.surveygen_meta import surveygen_metadata, surveygen_second_level

    abstracts = None
    words: dict[int, int] = {}
    if "corpus" in data.configs:
        def stream() -> Iterable[str | None]:
            for batch in data.iter_corpus_batches(columns=["doc_id", "abstract"]):
                for doc_id, abstract in zip(batch.column("doc_id").to_pylist(), batch.column("abstract").to_pylist(),
                                            strict=True):
                    words[int(doc_id)] = len(abstract.split()) if abstract else 0
                    yield abstract

        abstracts = stream()
    stats = dataset_statistics(data.surveys(), abstracts)
    meta = surveygen_metadata(data)
    if meta is None:
        return stats
    disciplines = {survey_id: row.get("discipline") for survey_id, row in meta[1].items()}
    indicators = any(row.get("citation_count") is not None or row.get("venue_h_index") is not None
                     for row in meta[0].values())
    return replace(stats, surveygen=surveygen_statistics(data.surveys(), words, disciplines, indicators=indicators,
                                                         second_level=surveygen_second_level(data)))
