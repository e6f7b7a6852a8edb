"""SurveyGen's second-level references: the works that the papers a survey cites cite in turn.

SurveyGen (§2.3, "Second-Level References Supplement") keeps, for every directly cited paper, the references of
that paper, so that influential works that are not semantically close to the topic can still be found through the
citation network (QUAL-SG's co-citation expansion reads the same edges). In a gold-standard file they are each
reference's ``referenced_works``: in the released example, OpenAlex work URLs (``https://openalex.org/W...``); the
paper describes its full set as carrying a title, abstract, DOI and citation count per work, so an entry given as an
object is read too (its id from ``id``, ``openalex_id``, ``paperId``, ``corpusId`` or ``doi``; ``title``,
``abstract``, ``doi``, ``citationCount`` kept as they are, None where absent).

``surge data from-surveygen`` carries them unchanged:

* per corpus paper, in ``surveygen_signals.json``: ``referenced_works`` (the ids in the file's order, duplicates
  of a paper listed twice merged) and ``referenced_works_count`` (the count the file's metadata states, which may
  exceed the list when the source could not list every work);
* per second-level work, in ``surveygen_second_level.json`` (config ``surveygen_second_level``, one row per work):
  ``cited_by_doc_ids`` (the corpus papers whose references list it), ``doc_id`` (the corpus paper it is, when it is
  one, matched by OpenAlex or Semantic Scholar id), and the fields above;
* per survey, in ``surveygen_surveys.json``: ``second_level_references``, the distinct works its cited papers cite.

A reference that resolves to no corpus paper (no id and no title) has no row to hang its works on: they are left
out. An entry that is neither a non-empty string nor an object with an id is skipped with a warning naming the file
and the reference.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["SECOND_LEVEL_FILE", "SecondLevel", "read_second_level_entry"]

SECOND_LEVEL_FILE = "surveygen_second_level.json"
_ID_FIELDS = ("id", "openalex_id", "paperId", "corpusId", "doi")


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def read_second_level_entry(entry: Any) -> tuple[str, dict[str, Any]] | None:
    """``(work id, its fields)`` of one ``referenced_works`` entry (module docstring), None if it names no work."""
    if isinstance(entry, str | int) and not isinstance(entry, bool):
        work = str(entry).strip()
        return (work, {}) if work else None
    if not isinstance(entry, dict):
        return None
    work = next((str(entry[name]).strip() for name in _ID_FIELDS
                 if isinstance(entry.get(name), str | int) and str(entry[name]).strip()), None)
    if work is None:
        return None
    return work, {"title": _str(entry.get("title")), "abstract": _str(entry.get("abstract")),
                  "doi": _str(entry.get("doi")), "citation_count": _int(entry.get("citationCount"))}


class SecondLevel:
    """The second-level references of one conversion, gathered paper by paper."""

    def __init__(self) -> None:
        self.works: list[dict[str, dict[str, Any]]] = []  # per doc id: work id -> its fields (file order)
        self.stated_counts: list[int | None] = []  # per doc id: the metadata's referenced_works_count

    def new_paper(self) -> None:
        self.works.append({})
        self.stated_counts.append(None)

    def add(self, doc_id: int, ref: dict[str, Any], path: Path | str) -> list[str]:
        """Record the ``referenced_works`` of one reference that became corpus paper ``doc_id``; the entries
        skipped, one message each naming the file and the reference (the caller warns)."""
        metadata = ref.get("metadata") or {}
        stated = _int(metadata.get("referenced_works_count"))
        if stated is not None and self.stated_counts[doc_id] is None:
            self.stated_counts[doc_id] = stated
        listed = ref.get("referenced_works") or []
        where = f"{path}: reference {ref.get('ref_id')!r}"
        if not isinstance(listed, list):
            return [f"{where}: 'referenced_works' is not a list; skipped"]
        known, skipped = self.works[doc_id], []
        for position, entry in enumerate(listed):
            read = read_second_level_entry(entry)
            if read is None:
                skipped.append(f"{where}: referenced_works[{position}] names no work ({entry!r}); skipped")
                continue
            work, fields = read
            if work not in known or (fields and not any(known[work].values())):
                known[work] = fields
        return skipped

    def ids(self, doc_id: int) -> list[str]:
        return list(self.works[doc_id])

    def signal_fields(self, doc_id: int) -> dict[str, Any]:
        """What ``surveygen_signals.json`` carries for ``doc_id``."""
        return {"referenced_works": self.ids(doc_id), "referenced_works_count": self.stated_counts[doc_id]}

    def per_work(self, corpus_doc: dict[str, int]) -> dict[str, dict[str, Any]]:
        """Work id -> ``{doc_id, cited_by_doc_ids, title, abstract, doi, citation_count}``, by work id;
        ``corpus_doc`` maps a work id to the corpus paper it is (the caller's OpenAlex / S2 matching)."""
        out: dict[str, dict[str, Any]] = {}
        for citing, works in enumerate(self.works):
            for work, fields in works.items():
                row = out.setdefault(work, {"doc_id": corpus_doc.get(work), "cited_by_doc_ids": [], "title": None,
                                            "abstract": None, "doi": None, "citation_count": None})
                row["cited_by_doc_ids"].append(citing)
                for name, value in fields.items():
                    if value is not None and row[name] is None:
                        row[name] = value
        return dict(sorted(out.items()))

    def of_survey(self, cited_doc_ids: list[int]) -> int:
        """How many distinct works the papers ``cited_doc_ids`` cite."""
        return len({work for doc_id in cited_doc_ids for work in self.works[doc_id]})
