"""Convert SurveyGen gold-standard surveys into the three official SurGE JSON files.

SurveyGen (second seed, protocol.md §8) ships each human-written survey as one S2ORC-style JSON
file: flat ``sections[]`` whose ``paragraphs[].citations`` point at ``references[].ref_id``, and
references enriched with Semantic Scholar / OpenAlex metadata. Converting them into the exact
``surveys.json`` / ``corpus.json`` / ``queries.json`` schema (protocol.md §1) lets every SurGE tool
(loader, evaluator, baselines) run on them unchanged.

Conversion rules (the choices the SurveyGen data leaves open):

* **Corpus** -- one paper per unique reference over *all* input files, in order of first appearance,
  ``doc_id`` 0, 1, ... A reference's identity is its ``matched_paper_id`` (Semantic Scholar corpus id)
  when present; a reference without one is identified by its normalised title
  (:func:`~surge_dataset.core.normalise.normalise_title`) and joins the paper with an id whose title
  normalises the same, if any. A reference with neither (GROBID often leaves empty titles) cannot
  be resolved by anyone and gets no corpus row. When duplicates disagree, the first non-empty value
  of each field wins. The surveys themselves are not added to the corpus.
* **Abstract** -- the author abstract from ``metadata.abstract`` only; ``""`` when missing. The
  Semantic Scholar TLDR is machine-written, and content metrics / LLM judges read ``Abstract`` as
  the paper's own words, so it is never substituted.
* **Category** -- SurGE uses arXiv categories, which SurveyGen lacks; we use the first
  ``fieldsOfStudy`` entry (e.g. ``"Computer Science"``), else the first ``s2FieldsOfStudy``
  category, else ``""``.
* **Year / date** -- ``year`` is ``str(metadata.year)`` (else the year of ``publicationDate``, else
  ``""``); ``date`` is ``publicationDate`` as given (ISO ``YYYY-MM-DD``) or ``""``; never invented.
* **Bertopic_CD** -- SurGE's BERTopic coverage diversity is not computable here: always ``0.0``.
* **Structure** -- node 0 is ``root`` (content ``""``); each section becomes node 1, 2, ... in file
  order. SurveyGen sections are flat, so hierarchy comes only from arabic numbering at the start of
  a title (``"2.3.1."``, ``"3.5 Datasets"``): a section numbered ``a.b.c`` is the child of the most
  recent earlier section numbered ``a.b``; every other section (unnumbered, top-level number, or
  parent number never seen) is a child of root. The number is stripped from the title unless
  nothing else is left. Bare figure/table captions with no text (``"Figure 2 :"``) are GROBID
  artefacts, not headings, and are dropped (``drop_caption_sections=False`` keeps them).
* **Content** -- the paragraphs' plain text joined with ``"\\n\\n"`` (citation markers stay as they
  are in the text, like SurGE's ground truth).
* **Citations** -- a section cites the ``ref_id``\\ s of its paragraphs' ``citations`` (in order)
  plus any extra ones listed only in ``citations_in_section``. ``all_cites`` is the doc ids of all
  cited references, deduplicated, in first-citation order. A ``ref_id`` missing from
  ``references`` is skipped with a :class:`SurveyGenWarning`.
* **Queries** -- one per kept section with non-empty content and at least one citation that
  resolves to a corpus paper. ``origin_cites_number`` is the number of distinct ``ref_id``\\ s the
  section cites; ``cite_extract_rate`` the fraction of those that resolved; ``query_id`` counts
  from 0 over all queries.

Impact signals (QUAL-SG's, and every quality indicator SurveyGen's §2.3 names) have no place in the official
schema, so they go to side files, values unchanged (:mod:`surge_dataset.data.surveygen_meta`):
``surveygen_signals.json`` per corpus paper, ``surveygen_surveys.json`` per survey (its discipline too).
``referenced_doc_ids`` are citation edges between corpus papers, taken from a reference's
``referenced_works``: OpenAlex work ids map to a corpus paper only when that paper's metadata carries
its own OpenAlex id (``openalex_id``, ``ids.openalex`` or ``externalIds.OpenAlex``); Semantic Scholar
corpus ids map through ``matched_paper_id``. The SurveyGen example carries no per-paper OpenAlex id,
so its edge lists are empty. The ``referenced_works`` themselves, SurveyGen's second-level references, are kept
as given (:mod:`surge_dataset.data.surveygen_second_level`: per paper, per work, per survey).
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.io import atomic_write_json, reading_input
from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.output_folder import claim_output_folder
from surge_dataset.core.records import OFFICIAL_FILES, ROOT_TITLE
from surge_dataset.data.surveygen_meta import SIGNALS_FILE, SURVEYS_FILE, paper_indicators, survey_indicators
from surge_dataset.data.surveygen_second_level import SECOND_LEVEL_FILE, SecondLevel

__all__ = ["SECOND_LEVEL_FILE", "SIGNALS_FILE", "SURVEYS_FILE", "SurveyGenConversion", "SurveyGenWarning", "convert_surveygen",
           "convert_surveygen_with_signals", "write_official_json"]

# "2", "2.3", "2.3.1." at the start of a title, followed by whitespace or the end. Components have at
# most two digits so that years ("2019 Challenges") and "3D ..." are not taken for numbering.
_NUMBERING = re.compile(r"^\s*(\d{1,2}(?:\.\d{1,2})*)\.?(?:\s+|$)(.*)$", re.DOTALL)
_CAPTION = re.compile(r"^\s*(?:fig(?:ure)?|tab(?:le)?)\.?\s*[0-9ivx]+[a-z]?\s*[:.]?\s*$", re.IGNORECASE)
_OPENALEX_WORK = re.compile(r"(W\d+)\s*$", re.IGNORECASE)

PaperKey = tuple[str, str]


class SurveyGenWarning(UserWarning):
    """Recoverable problem in a SurveyGen file (e.g. a citation of an unknown ``ref_id``)."""


@dataclass
class SurveyGenConversion:
    """Everything one conversion produces: the three official arrays plus the impact side data."""

    surveys: list[dict[str, Any]]
    corpus: list[dict[str, Any]]
    queries: list[dict[str, Any]]
    signals: dict[int, dict[str, Any]] = field(default_factory=dict)
    survey_meta: dict[int, dict[str, Any]] = field(default_factory=dict)  # survey id -> its own indicators
    second_level: dict[str, dict[str, Any]] = field(default_factory=dict)  # work id -> who cites it, its fields


# --------------------------------------------------------------------------------------------------
# Reading and checking input files
# --------------------------------------------------------------------------------------------------


def _bad(path: Path, field_name: str, problem: str) -> InputFileError:
    return InputFileError(f"{path}: field '{field_name}': {problem}")


def _load_survey(path: Path) -> dict[str, Any]:
    """Parse one SurveyGen file and check the fields the conversion relies on."""
    with reading_input(path):
        data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise InputFileError(f"{path}: the top level must be a JSON object, found {type(data).__name__}")
    for name in ("sections", "references"):
        if name not in data:
            raise _bad(path, name, "required field is missing")
        if not isinstance(data[name], list):
            raise _bad(path, name, f"expected a list, found {type(data[name]).__name__}")
    for i, section in enumerate(data["sections"]):
        if not isinstance(section, dict):
            raise _bad(path, f"sections[{i}]", "expected an object")
        for name in ("paragraphs", "citations_in_section"):
            if not isinstance(section.get(name) or [], list):
                raise _bad(path, f"sections[{i}].{name}", "expected a list")
        for j, paragraph in enumerate(section.get("paragraphs") or []):
            if not isinstance(paragraph, dict):
                raise _bad(path, f"sections[{i}].paragraphs[{j}]", "expected an object")
            if not isinstance(paragraph.get("text") or "", str):
                raise _bad(path, f"sections[{i}].paragraphs[{j}].text", "expected a string")
            if not isinstance(paragraph.get("citations") or [], list):
                raise _bad(path, f"sections[{i}].paragraphs[{j}].citations", "expected a list")
    for i, ref in enumerate(data["references"]):
        if not isinstance(ref, dict):
            raise _bad(path, f"references[{i}]", "expected an object")
        if not isinstance(ref.get("ref_id"), str) or not ref["ref_id"]:
            raise _bad(path, f"references[{i}].ref_id", "missing or not a non-empty string")
        if not isinstance(ref.get("metadata") or {}, dict):
            raise _bad(path, f"references[{i}].metadata", "expected an object")
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise _bad(path, "metadata", "expected an object")
    if not isinstance(metadata.get("title"), str) or not metadata["title"].strip():
        raise _bad(path, "metadata.title", "the survey title is missing")
    return data


# --------------------------------------------------------------------------------------------------
# Small field helpers
# --------------------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _year(metadata: dict[str, Any]) -> str:
    year = metadata.get("year")
    if isinstance(year, int) and not isinstance(year, bool):
        return str(year)
    if isinstance(year, str) and year.strip():
        return year.strip()
    return _text(metadata.get("publicationDate"))[:4]


def _category(metadata: dict[str, Any]) -> str:
    """First S2 field of study: SurGE's arXiv categories do not exist for SurveyGen papers."""
    for name in metadata.get("fieldsOfStudy") or []:
        if _text(name):
            return _text(name)
    for entry in metadata.get("s2FieldsOfStudy") or []:
        if isinstance(entry, dict) and _text(entry.get("category")):
            return _text(entry["category"])
    return ""


def _authors(metadata: dict[str, Any]) -> list[str]:
    names = []
    for author in metadata.get("authors") or []:
        name = _text(author.get("name")) if isinstance(author, dict) else _text(author)
        if name:
            names.append(name)
    return names


def _citation_ref_id(citation: Any) -> str | None:
    """A paragraph citation is ``{"ref_id": ...}`` (SurveyGen) or, leniently, the bare ref_id."""
    if isinstance(citation, dict):
        citation = citation.get("ref_id")
    return citation if isinstance(citation, str) and citation else None


def _openalex_ids(metadata: dict[str, Any]) -> set[str]:
    """The paper's own OpenAlex work id(s), when its metadata carries them."""
    candidates = [metadata.get("openalex_id"), metadata.get("openalexId")]
    for holder, key in (("ids", "openalex"), ("externalIds", "OpenAlex")):
        if isinstance(metadata.get(holder), dict):
            candidates.append(metadata[holder].get(key))
    found = set()
    for value in candidates:
        match = _OPENALEX_WORK.search(value) if isinstance(value, str) else None
        if match:
            found.add(match.group(1).upper())
    return found


# --------------------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------------------


def _paper_key(ref: dict[str, Any], title_index: dict[str, PaperKey]) -> PaperKey | None:
    """Identity of a reference: S2 id, else the S2 paper with the same normalised title, else the title."""
    paper_id = ref.get("matched_paper_id")
    if paper_id is not None and str(paper_id).strip():
        return ("s2", str(paper_id).strip())
    title = normalise_title(ref.get("title"))
    if not title:
        return None
    return title_index.get(title, ("title", title))


class _CorpusBuilder:
    """Assigns doc ids to unique references and merges what duplicates know."""

    def __init__(self, title_index: dict[str, PaperKey]):
        self.title_index = title_index
        self.doc_ids: dict[PaperKey, int] = {}
        self.records: list[dict[str, Any]] = []
        self.signals: list[dict[str, Any]] = []
        self.second_level = SecondLevel()
        self.by_openalex: dict[str, int] = {}

    def add(self, ref: dict[str, Any], path: Path | str = "") -> int | None:
        key = _paper_key(ref, self.title_index)
        if key is None:
            return None
        metadata = ref.get("metadata") or {}
        record = {
            "Title": _text(ref.get("title")) or _text(metadata.get("title")),
            "Authors": _authors(metadata),
            "Year": _year(metadata),
            "Date": _text(metadata.get("publicationDate")),
            "Abstract": _text(metadata.get("abstract")),
            "Category": _category(metadata),
        }
        signal = {**paper_indicators(metadata), "year": int(record["Year"]) if record["Year"].isdigit() else None}
        doc_id = self.doc_ids.get(key)
        if doc_id is None:
            doc_id = len(self.records)
            self.doc_ids[key] = doc_id
            self.records.append({**record, "doc_id": doc_id})
            self.signals.append(signal)
            self.second_level.new_paper()
        else:
            for target, values in ((self.records[doc_id], record), (self.signals[doc_id], signal)):
                for name, value in values.items():
                    if value not in (None, "", []) and target[name] in (None, "", []):
                        target[name] = value
        for problem in self.second_level.add(doc_id, ref, path):
            warnings.warn(problem, SurveyGenWarning, stacklevel=4)
        for work_id in _openalex_ids(metadata):
            self.by_openalex.setdefault(work_id, doc_id)
        return doc_id

    def corpus_doc(self, work: str) -> int | None:
        """The corpus paper a referenced work is: by its OpenAlex work id, else by a Semantic Scholar corpus id."""
        match = _OPENALEX_WORK.search(work)
        if match:
            return self.by_openalex.get(match.group(1).upper())
        return self.doc_ids.get(("s2", work.strip())) if work.strip().isdigit() else None

    def finish_signals(self) -> dict[int, dict[str, Any]]:
        """Signals per doc id: ``referenced_works`` as given, and mapped to corpus doc ids where possible."""
        out = {}
        for doc_id, signal in enumerate(self.signals):
            works = self.second_level.ids(doc_id)
            edges = {target for work in works if (target := self.corpus_doc(work)) is not None and target != doc_id}
            out[doc_id] = {**signal, **self.second_level.signal_fields(doc_id), "referenced_doc_ids": sorted(edges)}
        return out

    def finish_second_level(self) -> dict[str, dict[str, Any]]:
        """The second-level works by id (:mod:`surge_dataset.data.surveygen_second_level`)."""
        works = {work for doc_id in range(len(self.records)) for work in self.second_level.ids(doc_id)}
        return self.second_level.per_work({work: doc for work in works if (doc := self.corpus_doc(work)) is not None})


# --------------------------------------------------------------------------------------------------
# Surveys and queries
# --------------------------------------------------------------------------------------------------


def _split_numbering(title: str) -> tuple[tuple[int, ...] | None, str]:
    """``"2.3 Autoencoders"`` -> ``((2, 3), "Autoencoders")``; the title itself if nothing follows."""
    match = _NUMBERING.match(title)
    if not match:
        return None, title
    number = tuple(int(part) for part in match.group(1).split("."))
    rest = match.group(2).strip()
    return number, rest or title


def _level_name(depth: int) -> str:
    """SurGE-style level labels: section, subsection, subsubsection, ..."""
    return "sub" * (depth - 1) + "section"


def _convert_one(
    path: Path,
    data: dict[str, Any],
    survey_id: int,
    corpus: _CorpusBuilder,
    first_query_id: int,
    drop_caption_sections: bool,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    metadata = data.get("metadata") or {}
    title = _text(metadata["title"])
    year, date, category = _year(metadata), _text(metadata.get("publicationDate")), _category(metadata)

    ref_doc: dict[str, int | None] = {}
    for ref in data["references"]:
        doc_id = corpus.add(ref, path)
        if ref["ref_id"] in ref_doc:
            warnings.warn(f"{path}: duplicate ref_id {ref['ref_id']!r} in 'references'; the first is used",
                          SurveyGenWarning, stacklevel=3)
            continue
        ref_doc[ref["ref_id"]] = doc_id

    structure: list[dict[str, Any]] = [{"id": 0, "parent_id": None, "title": ROOT_TITLE, "content": ""}]
    depth: dict[int, int] = {0: 0}
    last_numbered: dict[tuple[int, ...], int] = {}
    all_cites: list[int] = []
    queries: list[dict[str, Any]] = []
    for i, section in enumerate(data["sections"]):
        texts = [_text(p.get("text")) for p in section.get("paragraphs") or []]
        content = "\n\n".join(t for t in texts if t)

        # Cited ref_ids in order: paragraph citations, then any listed only in citations_in_section.
        cited: list[str] = []
        for j, paragraph in enumerate(section.get("paragraphs") or []):
            for citation in paragraph.get("citations") or []:
                ref_id = _citation_ref_id(citation)
                if ref_id is None:
                    raise _bad(path, f"sections[{i}].paragraphs[{j}].citations", f"no ref_id in {citation!r}")
                if ref_id not in cited:
                    cited.append(ref_id)
        for ref_id in section.get("citations_in_section") or []:
            if isinstance(ref_id, str) and ref_id and ref_id not in cited:
                cited.append(ref_id)
        cites: list[int] = []
        resolved = 0
        for ref_id in cited:
            if ref_id not in ref_doc:
                warnings.warn(
                    f"{path}: sections[{i}] cites ref_id {ref_id!r}, which is not in 'references'; skipped",
                    SurveyGenWarning,
                    stacklevel=3,
                )
                continue
            doc_id = ref_doc[ref_id]
            if doc_id is None:
                continue
            resolved += 1
            if doc_id not in cites:
                cites.append(doc_id)
            if doc_id not in all_cites:
                all_cites.append(doc_id)

        raw_title = _text(section.get("title"))
        if drop_caption_sections and not content and _CAPTION.match(raw_title):
            continue
        number, heading = _split_numbering(raw_title)
        parent = last_numbered.get(number[:-1], 0) if number and len(number) > 1 else 0
        node_id = len(structure)
        if number:
            last_numbered[number] = node_id
        depth[node_id] = depth[parent] + 1
        structure.append({"id": node_id, "parent_id": parent, "title": heading, "content": content})

        if content and cites:
            path_nodes = [structure[node_id]]
            while path_nodes[0]["parent_id"]:
                path_nodes.insert(0, structure[path_nodes[0]["parent_id"]])
            headings = [node["title"] for node in path_nodes]
            topic = " > ".join(h.rstrip(" .:;") or h for h in headings)
            queries.append(
                {
                    "original_id": survey_id,
                    "query_id": first_query_id + len(queries),
                    "date": date,
                    "year": year,
                    "category": category,
                    "content": content,
                    "prefix_titles": [["title", title]]
                    + [[_level_name(d + 1), h] for d, h in enumerate(headings)],
                    "prefix_titles_query": f"What does the survey '{title}' cover about {topic}?",
                    "cites": cites,
                    "cite_extract_rate": resolved / len(cited),
                    "origin_cites_number": len(cited),
                }
            )

    survey = {
        "survey_id": survey_id,
        "survey_title": title,
        "authors": _authors(metadata),
        "year": year,
        "date": date,
        "category": category,
        "abstract": _text(metadata.get("abstract")),
        "structure": structure,
        "all_cites": all_cites,
        "Bertopic_CD": 0.0,
    }
    return survey, queries


# --------------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------------


def convert_surveygen_with_signals(
    paths: Sequence[str | Path], *, first_survey_id: int = 0, drop_caption_sections: bool = True
) -> SurveyGenConversion:
    """Convert SurveyGen files (one survey each) into official SurGE records plus impact signals.

    Survey ids are ``first_survey_id``, ``first_survey_id + 1``, ... in the order of ``paths``; doc
    ids and query ids count from 0. All files are read and checked before anything is converted, so a
    bad file fails the whole batch with a ``ValueError`` naming the file and the field.
    """
    files = [Path(p) for p in paths]
    loaded = [_load_survey(p) for p in files]
    # Title -> S2 paper, so a reference lacking matched_paper_id joins a paper that has one.
    title_index: dict[str, PaperKey] = {}
    for data in loaded:
        for ref in data["references"]:
            if ref.get("matched_paper_id") is not None and str(ref["matched_paper_id"]).strip():
                title = normalise_title(ref.get("title"))
                if title:
                    title_index.setdefault(title, ("s2", str(ref["matched_paper_id"]).strip()))
    corpus = _CorpusBuilder(title_index)
    surveys: list[dict[str, Any]] = []
    queries: list[dict[str, Any]] = []
    survey_meta = {first_survey_id + offset: survey_indicators(data) for offset, data in enumerate(loaded)}
    for offset, (path, data) in enumerate(zip(files, loaded, strict=True)):
        survey, survey_queries = _convert_one(
            path, data, first_survey_id + offset, corpus, len(queries), drop_caption_sections
        )
        surveys.append(survey)
        queries.extend(survey_queries)
        survey_meta[survey["survey_id"]]["second_level_references"] = corpus.second_level.of_survey(survey["all_cites"])
    return SurveyGenConversion(surveys, corpus.records, queries, corpus.finish_signals(), survey_meta,
                               corpus.finish_second_level())


def convert_surveygen(
    paths: Sequence[str | Path], *, first_survey_id: int = 0, drop_caption_sections: bool = True
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """``(surveys, corpus, queries)`` in the official schema; see :func:`convert_surveygen_with_signals`."""
    result = convert_surveygen_with_signals(
        paths, first_survey_id=first_survey_id, drop_caption_sections=drop_caption_sections
    )
    return result.surveys, result.corpus, result.queries


def write_official_json(
    out_dir: str | Path,
    surveys: list[dict[str, Any]],
    corpus: list[dict[str, Any]],
    queries: list[dict[str, Any]],
    *,
    signals: dict[int, dict[str, Any]] | None = None,
    inputs: Sequence[tuple[str, str | Path]] = (),
    survey_meta: dict[int, dict[str, Any]] | None = None,
    second_level: dict[str, dict[str, Any]] | None = None,
) -> list[Path]:
    """Write ``surveys.json``, ``corpus.json``, ``queries.json`` (and the signals side file) atomically.

    Each file is replaced only once fully written, so an interrupted run never leaves a truncated file
    that a later load would half-read. Signal keys become strings, as JSON object keys must be.
    ``out_dir`` is new, empty or written by an earlier conversion: never a folder of the user's own
    files, nor one holding ``inputs``.
    """
    out = claim_output_folder(out_dir, "official-json", "surge data from-surveygen", inputs=inputs)
    written = []
    for config, records in (("surveys", surveys), ("corpus", corpus), ("queries", queries)):
        target = out / OFFICIAL_FILES[config]
        atomic_write_json(target, records)
        written.append(target)
    for name, side in ((SIGNALS_FILE, signals), (SURVEYS_FILE, survey_meta), (SECOND_LEVEL_FILE, second_level)):
        if side is not None:
            atomic_write_json(out / name, {str(key): value for key, value in sorted(side.items())})
            written.append(out / name)
    return written
