"""SurveyGen's Figure 3: do a system's cited papers look like the human survey's? Two-sample Kolmogorov-Smirnov
tests (:func:`surge_dataset.core.stats.ks_two_sample`) of the cited papers' publication year, years gap (survey
year minus the paper's year) and citation count, per survey and pooled over surveys, system against the human
(GT) survey.

What a system cites is the set of corpus doc ids its reference list resolved to: the ``kind == "reference"``
records of ``surge evaluate --details`` (:func:`resolved_references`); the human survey's is the GT's
``all_cites``. Years come from the corpus; citation counts exist only in SurveyGen's metadata (the
``surveygen_papers`` config), so on SurGE's data that quantity is reported as "not in this data". Everything
but the loaders is pure; nothing is drawn, so nothing is seeded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.io import reading_input
from surge_dataset.core.stats import ks_two_sample

if TYPE_CHECKING:
    from surge_dataset.data.dataset import SurgeData

QUANTITIES = ("year", "years_gap", "citation_count")
NOT_IN_DATA = "not in this data"

__all__ = ["NOT_IN_DATA", "QUANTITIES", "distributions_markdown", "paper_lookups", "reference_distributions",
           "resolved_references"]


def _values(doc_ids: Sequence[int], quantity: str, years: Mapping[int, int | None],
            citations: Mapping[int, int | None] | None, survey_year: int | None) -> list[float]:
    out: list[float] = []
    for doc_id in doc_ids:
        if quantity == "citation_count":
            value = None if citations is None else citations.get(doc_id)
        else:
            year = years.get(doc_id)
            value = year if quantity == "year" or year is None else (None if survey_year is None else
                                                                     survey_year - year)
        if value is not None:
            out.append(float(value))
    return out


def reference_distributions(systems: Mapping[str, Mapping[int, Sequence[int]]], human: Mapping[int, Sequence[int]],
                            years: Mapping[int, int | None], citations: Mapping[int, int | None] | None = None,
                            survey_years: Mapping[int, int | None] | None = None) -> dict[str, Any]:
    """KS of each system's cited papers against the human survey's, per survey and pooled.

    ``systems``: system -> survey id -> the doc ids its references resolved to; ``human``: survey id -> the GT's
    cited doc ids; ``years`` / ``citations``: doc id -> value (None unknown; ``citations`` None: the data has no
    citation counts at all); ``survey_years``: survey id -> the survey's year (for the years gap). Only the surveys
    a system has are compared; a paper without the value is left out of that quantity. Returns ``{"rows": [...],
    "missing": {quantity: why}}``, each row ``{"system", "quantity", "survey_id"`` (None pooled)``, "statistic",
    "p_value", "n_system", "n_human"}``.
    """
    survey_years = survey_years or {}
    missing = {} if citations is not None else {"citation_count": NOT_IN_DATA}
    if not any(v is not None for v in survey_years.values()):
        missing["years_gap"] = "no survey year in this data"
    rows = []
    for system, cited in systems.items():
        for quantity in (q for q in QUANTITIES if q not in missing):
            pooled_a: list[float] = []
            pooled_b: list[float] = []
            for survey_id in sorted(cited):
                a = _values(cited[survey_id], quantity, years, citations, survey_years.get(survey_id))
                b = _values(human.get(survey_id, ()), quantity, years, citations, survey_years.get(survey_id))
                pooled_a += a
                pooled_b += b
                test = ks_two_sample(a, b)
                rows.append({"system": system, "quantity": quantity, "survey_id": survey_id,
                             "statistic": test["statistic"], "p_value": test["p_value"], "n_system": test["n_a"],
                             "n_human": test["n_b"]})
            test = ks_two_sample(pooled_a, pooled_b)
            rows.append({"system": system, "quantity": quantity, "survey_id": None, "statistic": test["statistic"],
                         "p_value": test["p_value"], "n_system": test["n_a"], "n_human": test["n_b"]})
    return {"rows": rows, "missing": missing}


def _cell(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}g}" if value < 1e-3 else f"{value:.{digits}f}"


def distributions_markdown(result: dict[str, Any]) -> str:
    """The pooled rows first (the figure's KS and p), then every survey's."""
    head = ["| system | quantity | surveys | KS | p | n system | n human |", "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    pooled = [r for r in result["rows"] if r["survey_id"] is None]
    each = [r for r in result["rows"] if r["survey_id"] is not None]
    lines = ["# Cited papers against the human survey's (two-sample Kolmogorov-Smirnov)", "", *head]
    lines += [f"| {r['system']} | {r['quantity']} | pooled | {_cell(r['statistic'])} | {_cell(r['p_value'])} | "
              f"{r['n_system']} | {r['n_human']} |" for r in pooled]
    lines += ["", "## Per survey", "", *head]
    lines += [f"| {r['system']} | {r['quantity']} | {r['survey_id']} | {_cell(r['statistic'])} | "
              f"{_cell(r['p_value'])} | {r['n_system']} | {r['n_human']} |" for r in each]
    lines += [""] + [f"- {quantity}: {why}" for quantity, why in result["missing"].items()]
    return "\n".join(lines).rstrip() + "\n"


def resolved_references(path: str | Path) -> dict[int, list[int]]:
    """survey id -> the doc ids of its resolved reference entries (in order, each once), from a ``surge evaluate
    --details`` JSONL file; references that resolved to nothing are left out."""
    path = Path(path)
    out: dict[int, list[int]] = {}
    with reading_input(path):
        lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as error:
            raise InputFileError(f"{path}: line {number} is not JSON ({error}); expected `surge evaluate --details` "
                                 "records") from None
        if not isinstance(record, dict) or record.get("kind") != "reference" or "survey_id" not in record:
            continue
        doc_ids = out.setdefault(int(record["survey_id"]), [])
        doc_id = record.get("doc_id")
        if isinstance(doc_id, int) and not isinstance(doc_id, bool) and doc_id not in doc_ids:
            doc_ids.append(doc_id)
    if not out:
        raise InputFileError(f"{path}: no reference records; write it with `surge evaluate --details FILE`")
    return out


def _year(value: Any) -> int | None:
    text = str(value or "").strip()[:4]
    return int(text) if text.isdigit() else None


def paper_lookups(data: SurgeData, survey_ids: Sequence[int]) -> dict[str, Any]:
    """What :func:`reference_distributions` needs off a built dataset for ``survey_ids``: ``human``,
    ``years`` (every corpus paper's), ``citations`` (None without SurveyGen's metadata) and ``survey_years``."""
    from surge_dataset.data.surveygen_meta import surveygen_metadata

    surveys = [data.survey(i) for i in survey_ids if data.has_survey(i)]
    years: dict[int, int | None] = {}
    for batch in data.iter_corpus_batches(columns=["doc_id", "year", "date"]):
        for doc_id, year, date in zip(*(batch.column(c).to_pylist() for c in ("doc_id", "year", "date")), strict=True):
            years[int(doc_id)] = _year(year) or _year(date)
    meta = surveygen_metadata(data)
    citations = None if meta is None else {doc_id: row.get("citation_count") for doc_id, row in meta[0].items()}
    return {"human": {s.survey_id: list(s.all_cites) for s in surveys}, "years": years, "citations": citations,
            "survey_years": {s.survey_id: _year(s.year) or _year(s.date) for s in surveys}}
