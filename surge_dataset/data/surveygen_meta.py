"""SurveyGen's quality indicators, kept as they are: two side files of ``surge data from-surveygen`` and the two
configs ``surge data build`` makes of them.

SurveyGen enriches every survey and cited paper with what its §2.3 calls quality-related indicators: citation
performance (citation count, influential citation count), author influence (h-index, paper count, citation
count) and venue reputation (h-index, i10-index, CORE status). The official SurGE schema has no place for them, so
the conversion writes them beside the official files, values unchanged (None where the file has none):

* ``surveygen_signals.json`` -- per corpus paper (doc id): ``citation_count``, ``influential_citation_count``,
  ``year``, ``venue_h_index``, ``venue_i10_index``, ``venue_is_core`` (the file's ``journal.is_core``: CORE status
  as a flag; the real file has no CORE *rank* letter), ``author_h_indices``, ``author_paper_counts``,
  ``author_citation_counts`` (one per author, in order), ``referenced_doc_ids`` (QUAL-SG reads this file too),
  ``referenced_works`` and ``referenced_works_count`` (its second-level references, as given);
* ``surveygen_surveys.json`` -- per survey (survey id): the same paper indicators of the survey itself, plus
  ``corpus_id``, ``reference_count`` (S2's count of its references), ``fields_of_study`` and ``discipline`` (the
  first field of study, the paper's domain: Biology, Medicine, Psychology, Computer Science, ...) and
  ``second_level_references`` (the distinct works its cited papers cite).

``surge data build`` turns them into the configs ``surveygen_papers`` and ``surveygen_surveys`` (one ``train``
shard each, a row per key) and :func:`surveygen_metadata` reads them back. The second-level references (the works
the cited papers cite, :mod:`surge_dataset.data.surveygen_second_level`) become ``surveygen_second_level`` when the
source has any, read back by :func:`surveygen_second_level`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from surge_dataset.data.surveygen_second_level import SECOND_LEVEL_FILE

if TYPE_CHECKING:
    from surge_dataset.data.dataset import SurgeData

SIGNALS_FILE = "surveygen_signals.json"
SURVEYS_FILE = "surveygen_surveys.json"
#: Built config name -> (side file, the key column). The second-level works are keyed by their id as the source
#: gives it (an OpenAlex work URL): a string; the others by an integer id.
CONFIGS = {"surveygen_papers": (SIGNALS_FILE, "doc_id"), "surveygen_surveys": (SURVEYS_FILE, "survey_id"),
           "surveygen_second_level": (SECOND_LEVEL_FILE, "work_id")}
_STRING_KEYS = {"work_id"}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def paper_indicators(metadata: dict[str, Any]) -> dict[str, Any]:
    """A paper's quality indicators from its SurveyGen ``metadata``, unchanged (None where absent)."""
    journal = metadata.get("journal") if isinstance(metadata.get("journal"), dict) else {}
    authors = [a for a in metadata.get("authors") or [] if isinstance(a, dict)]
    is_core = journal.get("is_core")
    return {
        "citation_count": _int(metadata.get("citationCount")),
        "influential_citation_count": _int(metadata.get("influentialCitationCount")),
        "venue_h_index": _int(journal.get("h_index")),
        "venue_i10_index": _int(journal.get("i10_index")),
        "venue_is_core": is_core if isinstance(is_core, bool) else None,
        "author_h_indices": [_int(a.get("hIndex")) for a in authors] or None,
        "author_paper_counts": [_int(a.get("paperCount")) for a in authors] or None,
        "author_citation_counts": [_int(a.get("citationCount")) for a in authors] or None,
    }


def survey_indicators(data: dict[str, Any]) -> dict[str, Any]:
    """A survey's own indicators (its file's ``metadata``), its S2 corpus id and its fields of study."""
    metadata = data.get("metadata") or {}
    fields = [f.strip() for f in metadata.get("fieldsOfStudy") or [] if isinstance(f, str) and f.strip()]
    if not fields:
        fields = [e["category"].strip() for e in metadata.get("s2FieldsOfStudy") or []
                  if isinstance(e, dict) and isinstance(e.get("category"), str) and e["category"].strip()]
    year = metadata.get("year")
    return {"corpus_id": _int(data.get("corpusId")), **paper_indicators(metadata),
            "year": _int(year), "reference_count": _int(metadata.get("referenceCount")),
            "fields_of_study": fields or None, "discipline": fields[0] if fields else None}


def pin_surveygen_configs(source: Path, tmp: Path) -> dict[str, int]:
    """Write the ``surveygen_*`` configs from the side files in ``source`` (those present): config -> rows."""
    counts = {}
    for config, (name, key) in CONFIGS.items():
        path = source / name
        if not path.is_file():
            continue
        records = json.loads(path.read_text(encoding="utf-8"))
        if not records:  # no second-level references in the source: no config, rather than an empty one
            continue
        if key in _STRING_KEYS:
            rows = [{key: k, **v} for k, v in sorted(records.items())]
        else:
            rows = [{key: int(k), **v} for k, v in sorted(records.items(), key=lambda item: int(item[0]))]
        (tmp / config).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows), tmp / config / "train-00000-of-00001.parquet")
        counts[config] = len(rows)
    return counts


def surveygen_metadata(data: SurgeData) -> tuple[dict[int, dict[str, Any]], dict[int, dict[str, Any]]] | None:
    """``(papers by doc id, surveys by survey id)`` of a built dataset with the ``surveygen_*`` configs, else None
    (SurGE's data: it has none of these indicators)."""
    found = [_config_rows(data, config) for config in ("surveygen_papers", "surveygen_surveys")]
    return None if not any(found) else (found[0], found[1])


def _config_rows(data: SurgeData, config: str) -> dict[Any, dict[str, Any]]:
    key = CONFIGS[config][1]
    folder = Path(data.path) / config
    files = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
    rows = [row for file in files for row in pq.read_table(file).to_pylist()]
    return {(row.pop(key) if key in _STRING_KEYS else int(row.pop(key))): row for row in rows}


def surveygen_second_level(data: SurgeData) -> dict[str, dict[str, Any]] | None:
    """SurveyGen's second-level references of a built dataset (config ``surveygen_second_level``): work id ->
    ``{doc_id, cited_by_doc_ids, title, abstract, doi, citation_count}``; None when it has none."""
    return _config_rows(data, "surveygen_second_level") or None

