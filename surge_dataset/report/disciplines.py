"""SurveyGen's §4.3: does a system's metric differ across disciplines? One-way ANOVA
(:func:`surge_dataset.core.stats.one_way_anova`) of its per-survey values grouped by the survey's discipline, one
test per system and metric, as the paper tests each LLM.

The discipline is SurveyGen's (the survey's first field of study, kept in the ``surveygen_surveys`` config by
``surge data from-surveygen`` + ``surge data build``). SurGE's surveys carry an arXiv category and no discipline
(they are all computer science), so :func:`survey_disciplines` returns None there and the command says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from surge_dataset.core.stats import one_way_anova

if TYPE_CHECKING:
    from surge_dataset.data.dataset import SurgeData

NO_DISCIPLINE = ("this dataset has no discipline field: SurGE's surveys carry an arXiv category only (all computer "
                 "science); SurveyGen data converted by `surge data from-surveygen` and built has one")

__all__ = ["NO_DISCIPLINE", "discipline_anova", "discipline_markdown", "survey_disciplines"]


def discipline_anova(systems: Mapping[str, Mapping[str, float]], disciplines: Mapping[str, str | None],
                     metric: str) -> list[dict[str, Any]]:
    """One row per system: ``{"system", "metric", "f", "p_value", "groups": {discipline: {"n", "mean"}},
    "unlabelled"}``. ``systems``: system -> survey id -> the metric's value; ``disciplines``: survey id -> its
    discipline (None, or absent: the survey is left out and counted in ``unlabelled``)."""
    rows = []
    for system, values in systems.items():
        groups: dict[str, list[float]] = {}
        unlabelled = 0
        for survey_id, value in values.items():
            label = disciplines.get(survey_id)
            if label:
                groups.setdefault(label, []).append(value)
            else:
                unlabelled += 1
        test = one_way_anova(dict(sorted(groups.items())))
        rows.append({"system": system, "metric": metric, **test, "unlabelled": unlabelled})
    return rows


def survey_disciplines(data: SurgeData) -> dict[str, str | None] | None:
    """survey id (as results files key it: a string) -> discipline, or None when the data has no discipline."""
    from surge_dataset.data.surveygen_meta import surveygen_metadata

    meta = surveygen_metadata(data)
    if meta is None or not any(row.get("discipline") for row in meta[1].values()):
        return None
    return {str(survey_id): row.get("discipline") for survey_id, row in meta[1].items()}


def discipline_markdown(rows: list[dict[str, Any]]) -> str:
    labels = sorted({label for row in rows for label in row["groups"]})
    lines = ["# One-way ANOVA across disciplines", "",
             "| system | metric | F | p | " + " | ".join(f"{label} (n, mean)" for label in labels) + " |",
             "| --- | --- | ---: | ---: |" + " ---: |" * len(labels)]
    for row in rows:
        cells = [f"{row['groups'][label]['n']}, {row['groups'][label]['mean']:.4f}" if label in row["groups"] else "–"
                 for label in labels]
        f = "–" if row["f"] is None else f"{row['f']:.3f}"
        p = "–" if row["p_value"] is None else f"{row['p_value']:.3g}"
        lines.append(f"| {row['system']} | {row['metric']} | {f} | {p} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
