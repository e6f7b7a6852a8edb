"""Survey filters for evaluation and retrieval: ``--min-cites N`` and ``--exclude-empty``.

Some real SurGE surveys cite nothing (an empty ``all_cites``): recall and citation metrics are undefined
for them, and under the released evaluator's aggregation they count as 0. A filter removes such surveys
from a run *by rule*, so the rule is recorded in the results (``config``) or the run's metadata instead
of being an undocumented pre-processing step.

* ``min_cites``: keep a survey only if its ``all_cites`` holds at least N papers.
* ``exclude_empty``: drop a survey with an empty ``all_cites`` or without any section of at least 100
  characters of content (nothing to compare SHR, ROUGE and BLEU against).

Filters act on surveys; for ``--query-type questions`` a query is kept when its survey is kept, and
``exclude_empty`` also drops queries that cite nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from surge_dataset.core.errors import SettingError
from surge_dataset.core.records import CONTENT_MIN_CHARS, Survey, gt_content_sections

__all__ = ["SurveyFilter", "filter_qrels", "split_entries"]


@dataclass(frozen=True)
class SurveyFilter:
    """Which ground-truth surveys a run keeps; the default keeps all of them."""

    min_cites: int = 0
    exclude_empty: bool = False

    def __post_init__(self) -> None:
        if self.min_cites < 0:
            raise SettingError(f"--min-cites must be 0 or more, not {self.min_cites}")

    @property
    def active(self) -> bool:
        return self.min_cites > 0 or self.exclude_empty

    def exclusion_reason(self, survey: Survey) -> str | None:
        """Why the filter drops this survey, or None when it is kept."""
        n = len(survey.all_cites)
        if self.exclude_empty and n == 0:
            return "empty all_cites (--exclude-empty)"
        if self.exclude_empty and not gt_content_sections(survey):
            return f"no section with {CONTENT_MIN_CHARS} characters of content (--exclude-empty)"
        if n < self.min_cites:
            return f"{n} cited papers < --min-cites {self.min_cites}"
        return None

    def keeps(self, survey: Survey) -> bool:
        return self.exclusion_reason(survey) is None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: Mapping[str, Any] | None) -> SurveyFilter:
        values = values or {}
        return cls(int(values.get("min_cites", 0) or 0), bool(values.get("exclude_empty", False)))


def split_entries(
    data: Any, entries: Iterable[tuple[int, Any]], survey_filter: SurveyFilter
) -> tuple[list[tuple[int, Any]], list[dict[str, Any]]]:
    """(kept, excluded) of ``(survey_id, path)`` entries; ids without ground truth are kept (they fail later
    with their own message). Excluded entries carry ``survey_id``, ``path`` and ``reason``."""
    kept, excluded = [], []
    for survey_id, path in entries:
        reason = None
        if survey_filter.active and data.has_survey(survey_id):
            reason = survey_filter.exclusion_reason(data.survey(survey_id))
        if reason is None:
            kept.append((survey_id, path))
        else:
            excluded.append({"survey_id": survey_id, "path": str(path), "reason": reason})
    return kept, excluded


def kept_query_ids(data: Any, query_type: str, survey_filter: SurveyFilter) -> set[str]:
    """Query ids (all splits) that the filter keeps: survey ids for ``titles``, query ids for ``questions``."""
    kept_surveys = {s.survey_id for s in data.surveys() if survey_filter.keeps(s)}
    if query_type == "titles":
        return {str(i) for i in kept_surveys}
    return {
        str(q.query_id) for q in data.queries()
        if q.survey_id in kept_surveys and (q.cites or not survey_filter.exclude_empty)
    }


def filter_qrels(
    qrels: Mapping[str, Mapping[str, int]], data: Any, query_type: str, survey_filter: SurveyFilter
) -> dict[str, dict[str, int]]:
    """The qrels of the queries the filter keeps (qrels from a file are matched to the dataset by id)."""
    if not survey_filter.active:
        return {q: dict(d) for q, d in qrels.items()}
    keep = kept_query_ids(data, query_type, survey_filter)
    return {q: dict(d) for q, d in qrels.items() if q in keep}
