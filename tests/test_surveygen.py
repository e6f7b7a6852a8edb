"""SurveyGen -> official SurGE JSON: counts on the real example and the documented rules on small files."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from surge_dataset.core.normalise import normalise_title
from surge_dataset.data.surveygen import (
    SIGNALS_FILE,
    SurveyGenWarning,
    convert_surveygen,
    convert_surveygen_with_signals,
    write_official_json,
)

SURVEY_KEYS = [
    "survey_id", "survey_title", "authors", "year", "date", "category", "abstract", "structure", "all_cites",
    "Bertopic_CD",
]
CORPUS_KEYS = ["Title", "Authors", "Year", "Date", "Abstract", "Category", "doc_id"]
QUERY_KEYS = [
    "original_id", "query_id", "date", "year", "category", "content", "prefix_titles", "prefix_titles_query",
    "cites", "cite_extract_rate", "origin_cites_number",
]
NODE_KEYS = ["id", "parent_id", "title", "content"]


# --------------------------------------------------------------------------------------------------
# Helpers for hand-made SurveyGen files
# --------------------------------------------------------------------------------------------------


def _sec(title: str, text: str = "", cites: tuple[str, ...] = ()) -> dict[str, Any]:
    paragraphs = [{"text": text, "citations": [{"ref_id": c} for c in cites]}] if text or cites else []
    return {"title": title, "paragraphs": paragraphs, "citations_in_section": sorted(set(cites))}


def _ref(ref_id: str, paper_id: int | None, title: str, **metadata: Any) -> dict[str, Any]:
    ref: dict[str, Any] = {"ref_id": ref_id, "matched_paper_id": paper_id, "title": title}
    works = metadata.pop("referenced_works", None)
    if metadata:
        ref["metadata"] = metadata
    if works is not None:
        ref["referenced_works"] = works
    return ref


def _write(tmp_path: Path, name: str, sections: list, references: list, title: str = "A Survey") -> Path:
    data = {
        "corpusId": 1,
        "sections": [dict(s, index=i + 1) for i, s in enumerate(sections)],
        "references": references,
        "metadata": {"title": title, "year": 2021, "publicationDate": "2021-03-04",
                     "authors": [{"name": "Ada L."}], "fieldsOfStudy": ["Medicine"], "abstract": "Abs."},
    }
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _check_schema(surveys: list, corpus: list, queries: list) -> None:
    for survey in surveys:
        assert list(survey) == SURVEY_KEYS
        assert isinstance(survey["year"], str) and isinstance(survey["Bertopic_CD"], float)
        for node in survey["structure"]:
            assert list(node) == NODE_KEYS
    for paper in corpus:
        assert list(paper) == CORPUS_KEYS
        assert isinstance(paper["Year"], str) and isinstance(paper["Authors"], list)
    for query in queries:
        assert list(query) == QUERY_KEYS


# --------------------------------------------------------------------------------------------------
# The real SurveyGen example
# --------------------------------------------------------------------------------------------------


def _is_caption(section: dict) -> bool:
    texts = "".join(p.get("text") or "" for p in section.get("paragraphs") or [])
    return not texts.strip() and re.fullmatch(r"(Figure|Table) \d+ :", section["title"].strip()) is not None


def _expected_from_raw(raw: dict) -> tuple[int, int, int]:
    """Structure nodes, unique references and cited papers, recomputed from the raw file."""
    nodes = 1 + sum(not _is_caption(s) for s in raw["sections"])
    titled_ids = {normalise_title(r["title"]): r["matched_paper_id"]
                  for r in reversed(raw["references"]) if r.get("matched_paper_id") is not None}

    def key(ref: dict) -> Any:
        if ref.get("matched_paper_id") is not None:
            return ("id", ref["matched_paper_id"])
        title = normalise_title(ref.get("title"))
        if not title:
            return None
        return ("id", titled_ids[title]) if title in titled_ids else ("title", title)

    by_ref = {r["ref_id"]: key(r) for r in raw["references"]}
    unique = {k for k in by_ref.values() if k is not None}
    cited = set()
    for section in raw["sections"]:
        ids = [c["ref_id"] for p in section["paragraphs"] for c in p["citations"]]
        ids += section.get("citations_in_section") or []
        cited.update(by_ref[i] for i in ids if by_ref[i] is not None)
    return nodes, len(unique), len(cited)


def test_example_counts_and_links(surveygen_example: Path) -> None:
    raw = json.loads(surveygen_example.read_text(encoding="utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SurveyGenWarning)  # the example is clean
        surveys, corpus, queries = convert_surveygen([surveygen_example])
    _check_schema(surveys, corpus, queries)
    assert len(surveys) == 1
    survey = surveys[0]
    nodes, unique_refs, cited = _expected_from_raw(raw)
    assert len(survey["structure"]) == nodes
    assert len(corpus) == unique_refs
    assert len(survey["all_cites"]) == cited
    # The same numbers, written down once, so a silent change of the rules shows up here.
    assert (nodes, unique_refs, cited, len(queries)) == (22, 102, 100, 15)

    assert survey["survey_title"] == raw["metadata"]["title"]
    assert survey["year"] == "2018" and survey["date"] == "2018-02-01"
    assert survey["category"] == "Computer Science" and survey["Bertopic_CD"] == 0.0
    assert [p["doc_id"] for p in corpus] == list(range(len(corpus)))

    doc_ids = {p["doc_id"]: p for p in corpus}
    ref_titles = {normalise_title(r["title"]) for r in raw["references"]}
    assert len(set(survey["all_cites"])) == len(survey["all_cites"])
    for doc_id in survey["all_cites"]:
        assert doc_id in doc_ids
        assert normalise_title(doc_ids[doc_id]["Title"]) in ref_titles

    structure = survey["structure"]
    roots = [n for n in structure if n["title"] == "root"]
    assert len(roots) == 1 and roots[0]["parent_id"] is None
    ids = {n["id"] for n in structure}
    assert len(ids) == len(structure)
    assert all(n["parent_id"] in ids for n in structure if n is not roots[0])
    first = raw["sections"][0]
    assert structure[1]["title"] == first["title"]
    assert structure[1]["content"] == "\n\n".join(p["text"].strip() for p in first["paragraphs"])

    all_cites = set(survey["all_cites"])
    assert [q["query_id"] for q in queries] == list(range(len(queries)))
    for query in queries:
        assert query["original_id"] == survey["survey_id"]
        assert query["cites"] and set(query["cites"]) <= all_cites
        assert query["content"]
        assert query["prefix_titles"][0] == ["title", survey["survey_title"]]
        assert 0 < query["cite_extract_rate"] <= 1
        assert len(query["cites"]) <= query["origin_cites_number"]


def test_example_keep_captions_and_signals(surveygen_example: Path, tmp_path: Path) -> None:
    raw = json.loads(surveygen_example.read_text(encoding="utf-8"))
    result = convert_surveygen_with_signals([surveygen_example], drop_caption_sections=False)
    assert len(result.surveys[0]["structure"]) == 1 + len(raw["sections"])
    assert set(result.signals) == {p["doc_id"] for p in result.corpus}
    first = result.signals[0]  # b0: McCulloch & Pitts, with full metadata
    assert first["citation_count"] == raw["references"][0]["metadata"]["citationCount"]
    assert first["venue_h_index"] == raw["references"][0]["metadata"]["journal"]["h_index"]
    assert first["author_h_indices"] == [a["hIndex"] for a in raw["references"][0]["metadata"]["authors"]]

    written = write_official_json(tmp_path / "out", result.surveys, result.corpus, result.queries,
                                  signals=result.signals)
    expected_names = ["surveys.json", "corpus.json", "queries.json", SIGNALS_FILE]
    assert sorted(p.name for p in written) == sorted(expected_names)
    assert json.loads((tmp_path / "out" / "corpus.json").read_text(encoding="utf-8")) == result.corpus
    assert json.loads((tmp_path / "out" / "surveys.json").read_text(encoding="utf-8")) == result.surveys
    signals = json.loads((tmp_path / "out" / SIGNALS_FILE).read_text(encoding="utf-8"))
    assert signals["0"] == result.signals[0]
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.endswith(".tmp")]


# --------------------------------------------------------------------------------------------------
# Rules on hand-made files
# --------------------------------------------------------------------------------------------------


def test_hierarchy_from_title_numbering(tmp_path: Path) -> None:
    sections = [
        _sec("1 Introduction", "Intro text [1].", ("b0",)),
        _sec("2. Methods"),
        _sec("2.1 CNNs", "Conv [2].", ("b1",)),
        _sec("2.1.1. Details", "Deep detail [1].", ("b0",)),
        _sec("2.2 RNNs", "Recurrent."),
        _sec("2.3.1 Orphan", "Parent 2.3 never appears."),
        _sec("3D Vision", "Not numbering."),
        _sec("2019 Challenges", "A year, not numbering."),
        _sec("3.5.", "Only a number."),
        _sec("Figure 2 :"),
    ]
    refs = [_ref("b0", 10, "Paper A"), _ref("b1", 11, "Paper B")]
    surveys, _, queries = convert_surveygen([_write(tmp_path, "h.json", sections, refs)])
    nodes = surveys[0]["structure"]
    got = [(n["id"], n["parent_id"], n["title"]) for n in nodes]
    assert got == [
        (0, None, "root"),
        (1, 0, "Introduction"),
        (2, 0, "Methods"),
        (3, 2, "CNNs"),
        (4, 3, "Details"),
        (5, 2, "RNNs"),
        (6, 0, "Orphan"),
        (7, 0, "3D Vision"),
        (8, 0, "2019 Challenges"),
        (9, 0, "3.5."),  # nothing but the number: kept as the title
    ]  # the bare "Figure 2 :" caption is dropped
    deep = next(q for q in queries if q["content"].startswith("Deep"))
    assert deep["prefix_titles"] == [
        ["title", "A Survey"], ["section", "Methods"], ["subsection", "CNNs"], ["subsubsection", "Details"],
    ]
    assert "Methods > CNNs > Details" in deep["prefix_titles_query"]
    assert "A Survey" in deep["prefix_titles_query"]
    # Only sections with content and a resolved citation become queries.
    assert [q["content"] for q in queries] == ["Intro text [1].", "Conv [2].", "Deep detail [1]."]
    assert surveys[0]["all_cites"] == [0, 1]


def test_dedupe_across_two_files(tmp_path: Path) -> None:
    first = _write(
        tmp_path, "a.json",
        [_sec("Intro", "Text.", ("b1", "b0", "b2", "b3"))],
        [
            _ref("b0", 1, "Paper One", year=2001, citationCount=5),
            _ref("b1", None, "Paper Two"),  # no id, but the same title has id 2 in the other file
            _ref("b2", None, "Paper Three"),
            _ref("b3", None, ""),  # unresolvable: no id, no title
        ],
    )
    second = _write(
        tmp_path, "b.json",
        [_sec("Body", "More.", ("b2", "b0", "b1"))],
        [
            _ref("b0", 1, "Paper one!", abstract="The first abstract.", publicationDate="2001-05-06",
                 authors=[{"name": "X"}], fieldsOfStudy=["Physics"], citationCount=99),
            _ref("b1", 2, "PAPER TWO", abstract="Second.", journal={"h_index": 7}),
            _ref("b2", None, "paper three"),
        ],
        title="B Survey",
    )
    result = convert_surveygen_with_signals([first, second], first_survey_id=5)
    surveys, corpus, queries = result.surveys, result.corpus, result.queries
    _check_schema(surveys, corpus, queries)
    assert [s["survey_id"] for s in surveys] == [5, 6]
    titles = [(p["doc_id"], p["Title"]) for p in corpus]
    assert titles == [(0, "Paper One"), (1, "Paper Two"), (2, "Paper Three")]
    # Empty fields of the first occurrence are filled from later duplicates.
    assert corpus[0]["Abstract"] == "The first abstract." and corpus[0]["Date"] == "2001-05-06"
    assert corpus[0]["Year"] == "2001" and corpus[0]["Authors"] == ["X"]
    assert corpus[0]["Category"] == "Physics"
    assert corpus[1]["Abstract"] == "Second." and corpus[2]["Abstract"] == ""
    assert result.signals[0]["citation_count"] == 5  # the first known value wins
    assert result.signals[1]["venue_h_index"] == 7
    assert result.signals[2] == {"citation_count": None, "influential_citation_count": None, "year": None,
                                 "venue_h_index": None, "venue_i10_index": None, "venue_is_core": None,
                                 "author_h_indices": None, "author_paper_counts": None,
                                 "author_citation_counts": None, "referenced_works": [],
                                 "referenced_works_count": None, "referenced_doc_ids": []}
    assert surveys[0]["all_cites"] == [1, 0, 2]
    assert surveys[1]["all_cites"] == [2, 0, 1]
    assert [q["original_id"] for q in queries] == [5, 6] and [q["query_id"] for q in queries] == [0, 1]
    assert queries[0]["origin_cites_number"] == 4 and queries[0]["cite_extract_rate"] == 0.75
    assert queries[1]["cite_extract_rate"] == 1.0


def test_signals_map_referenced_works_to_doc_ids(tmp_path: Path) -> None:
    refs = [
        _ref("b0", 1, "Cited Paper", openalex_id="https://openalex.org/W42"),
        _ref("b1", 2, "Citing Paper",
             referenced_works=["https://openalex.org/W42", "https://openalex.org/W9", "1"]),
        _ref("b2", 3, "Self", ids={"openalex": "W77"}, referenced_works=["W77"]),
    ]
    result = convert_surveygen_with_signals([_write(tmp_path, "s.json", [_sec("S", "T.", ("b1",))], refs)])
    assert result.signals[1]["referenced_doc_ids"] == [0]  # W42 and S2 id 1 are the same paper; W9 unknown
    assert result.signals[2]["referenced_doc_ids"] == []  # no self-loops


def test_missing_ref_id_warns_and_is_skipped(tmp_path: Path) -> None:
    sections = [_sec("Intro", "Text [1][2].", ("b0", "b9"))]
    path = _write(tmp_path, "missing.json", sections, [_ref("b0", 1, "Real")])
    with pytest.warns(SurveyGenWarning, match=r"missing\.json.*'b9'"):
        surveys, corpus, queries = convert_surveygen([path])
    assert surveys[0]["all_cites"] == [0] and len(corpus) == 1
    assert queries[0]["cites"] == [0]
    assert queries[0]["origin_cites_number"] == 2 and queries[0]["cite_extract_rate"] == 0.5


def test_invalid_json_names_the_file(tmp_path: Path) -> None:
    good = _write(tmp_path, "good.json", [_sec("S", "T.", ("b0",))], [_ref("b0", 1, "P")])
    bad = tmp_path / "broken_file.json"
    bad.write_text('{"sections": [', encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken_file\.json.*not valid JSON"):
        convert_surveygen([good, bad])


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.pop("sections"), "sections"),
        (lambda d: d.pop("references"), "references"),
        (lambda d: d.__setitem__("references", {"b0": {}}), "references"),
        (lambda d: d["references"][0].pop("ref_id"), r"references\[0\]\.ref_id"),
        (lambda d: d["sections"][0].__setitem__("paragraphs", "text"), r"sections\[0\]\.paragraphs"),
        (lambda d: d["metadata"].pop("title"), r"metadata\.title"),
    ],
)
def test_bad_structure_names_file_and_field(tmp_path: Path, mutate: Any, field: str) -> None:
    path = _write(tmp_path, "shape.json", [_sec("S", "T.", ("b0",))], [_ref("b0", 1, "P")])
    data = json.loads(path.read_text(encoding="utf-8"))
    mutate(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"shape\.json: field '{field}'"):
        convert_surveygen([path])


def test_top_level_must_be_an_object(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(ValueError, match=r"list\.json.*JSON object"):
        convert_surveygen([path])
