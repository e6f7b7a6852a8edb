"""Schema invariants of the shipped synthetic sample (examples/sample), on which every later test relies.

The sample must look exactly like the official SurGE release (protocol.md §1) so that code tested on it
loads the real files unchanged, and it must be reproducible so that hand-computed expected values stay
valid: ``examples/make_sample.py`` has to regenerate it byte for byte.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DIR = REPO_ROOT / "examples" / "sample"
SCRIPT = REPO_ROOT / "examples" / "make_sample.py"
FILES = ("surveys.json", "corpus.json", "queries.json", "README.md")

SURVEY_KEYS = {
    "survey_id": int,
    "survey_title": str,
    "authors": list,
    "year": str,
    "date": str,
    "category": str,
    "abstract": str,
    "structure": list,
    "all_cites": list,
    "Bertopic_CD": float,
}
NODE_KEYS = ["id", "parent_id", "title", "content"]
CORPUS_KEYS = {
    "Title": str,
    "Authors": list,
    "Year": str,
    "Date": str,
    "Abstract": str,
    "Category": str,
    "doc_id": int,
}
QUERY_KEYS = {
    "original_id": str,  # a UUID string per survey, as in the released queries.json
    "query_id": int,
    "date": str,
    "year": str,
    "category": str,
    "content": str,
    "prefix_titles": list,
    "prefix_titles_query": str,
    "cites": list,
    "cite_extract_rate": float,
    "origin_cites_number": int,
}
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T00:00:00$")
LEVELS = {1: "section", 2: "subsection", 3: "subsubsection"}


def _load(name: str) -> Any:
    with open(SAMPLE_DIR / name, encoding="utf-8") as handle:
        return json.load(handle)


@cache
def _surveys() -> list[dict[str, Any]]:
    return _load("surveys.json")


@cache
def _corpus() -> list[dict[str, Any]]:
    return _load("corpus.json")


@cache
def _queries() -> list[dict[str, Any]]:
    return _load("queries.json")


@cache
def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_sample", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def _norm(title: str) -> str:
    return re.sub(r"[^a-z]+", "", title.lower())


def _is(value: Any, expected: type) -> bool:
    """Exact JSON type (a bool is not an int, an int is not a float)."""
    return type(value) is expected


def _survey_of_uuid() -> dict[str, int]:
    """original_id (one UUID string per survey) -> survey_id, via the survey title in prefix_titles[0]."""
    by_title = {s["survey_title"]: s["survey_id"] for s in _surveys()}
    return {q["original_id"]: by_title[q["prefix_titles"][0][1]] for q in _queries()}


def _depths(structure: list[dict[str, Any]]) -> dict[int, int]:
    by_id = {n["id"]: n for n in structure}
    depths = {}
    for node in structure:
        depth, cur = 0, node
        while cur["title"] != "root":
            depth += 1
            cur = by_id[cur["parent_id"]]
            assert depth <= len(structure), "parent_id cycle"
        depths[node["id"]] = depth
    return depths


def test_files_are_json_arrays_with_trailing_newline() -> None:
    for name in FILES[:3]:
        raw = (SAMPLE_DIR / name).read_bytes()
        assert raw.endswith(b"]\n")
        assert isinstance(json.loads(raw), list)


def test_survey_schema() -> None:
    surveys = _surveys()
    assert len(surveys) >= 5
    for survey in surveys:
        assert list(survey) == list(SURVEY_KEYS)
        for key, kind in SURVEY_KEYS.items():
            assert _is(survey[key], kind), (survey["survey_id"], key)
        assert all(_is(a, str) for a in survey["authors"]) and survey["authors"]
        assert ISO.match(survey["date"]) and survey["date"][:4] == survey["year"]
        assert "2019" <= survey["year"] <= "2023"
        assert all(_is(d, int) for d in survey["all_cites"])
        assert 0 < survey["Bertopic_CD"] < 1
    ids = [s["survey_id"] for s in surveys]
    assert ids == [0, 1, 2, 41, 42, 43]
    assert len({s["survey_title"] for s in surveys}) == len(surveys)


def test_structure_tree() -> None:
    for survey in _surveys():
        structure = survey["structure"]
        for node in structure:
            assert list(node) == NODE_KEYS
            # the released types: string section ids, an integer parent_id on the root only
            assert _is(node["id"], str) and _is(node["title"], str) and _is(node["content"], str)
            assert _is(node["parent_id"], int if node["title"] == "root" else str)
        ids = [n["id"] for n in structure]
        assert len(set(ids)) == len(ids)
        roots = [n for n in structure if n["title"] == "root"]
        assert len(roots) == 1
        assert roots[0]["parent_id"] == -1 and roots[0]["content"] == ""
        assert all(n["parent_id"] in ids for n in structure if n["title"] != "root")
        depths = _depths(structure)
        assert max(depths.values()) == 3, survey["survey_id"]
        lengths = [len(n["content"]) for n in structure if n["title"] != "root"]
        assert sum(n >= 100 for n in lengths) >= 5
        assert any(0 < n < 100 for n in lengths), "a few short sections"
        assert any(n == 0 for n in lengths), "a few empty grouping headings"
        assert all("[" not in n["content"] for n in structure), "ground-truth prose has no bracket citations"


def test_corpus_schema() -> None:
    corpus = _corpus()
    assert len(corpus) >= 320
    for position, paper in enumerate(corpus):
        assert list(paper) == list(CORPUS_KEYS)
        for key, kind in CORPUS_KEYS.items():
            assert _is(paper[key], kind), (position, key)
        assert paper["doc_id"] == position
        assert paper["Authors"] and all(_is(a, str) for a in paper["Authors"])
        assert ISO.match(paper["Date"]) and paper["Date"][:4] == paper["Year"]
        assert 300 <= len(paper["Abstract"]) <= 900
        assert 2 <= paper["Abstract"].count(". ") + 1 <= 5
    assert len({p["Title"] for p in corpus}) == len(corpus)


def test_citations_resolve() -> None:
    doc_ids = {p["doc_id"] for p in _corpus()}
    surveys = _surveys()
    for survey in surveys:
        assert set(survey["all_cites"]) <= doc_ids
        assert survey["all_cites"] == sorted(set(survey["all_cites"]))
    by_id = {s["survey_id"]: s for s in surveys}
    assert by_id[43]["all_cites"] == []
    for sid in (0, 1, 2, 41, 42):
        assert 15 <= len(by_id[sid]["all_cites"]) <= 30


def test_query_schema_and_links() -> None:
    queries = _queries()
    surveys = {s["survey_id"]: s for s in _surveys()}
    assert len(queries) >= 50
    assert [q["query_id"] for q in queries] == list(range(len(queries)))
    for query in queries:
        assert list(query) == list(QUERY_KEYS)
        for key, kind in QUERY_KEYS.items():
            assert _is(query[key], kind), (query["query_id"], key)
        survey = surveys[_survey_of_uuid()[query["original_id"]]]
        assert (query["date"], query["year"], query["category"]) == (
            survey["date"],
            survey["year"],
            survey["category"],
        )
        assert query["cites"] and set(query["cites"]) <= set(survey["all_cites"])
        assert 0 < query["cite_extract_rate"] <= 1
        assert query["origin_cites_number"] >= len(query["cites"])
        assert query["cite_extract_rate"] == round(len(query["cites"]) / query["origin_cites_number"], 4)
        assert query["prefix_titles_query"].endswith("?")
        prefix = query["prefix_titles"]
        assert prefix[0] == ["title", survey["survey_title"]]
        assert all(isinstance(p, list) and len(p) == 2 for p in prefix)
        assert [p[0] for p in prefix[1:]] == [LEVELS[i] for i in range(1, len(prefix))]
        section = [
            n for n in survey["structure"] if n["title"] == prefix[-1][1] and n["content"] == query["content"]
        ]
        assert len(section) == 1
        assert len(query["content"]) >= 100


def test_one_query_per_content_section() -> None:
    """Queries are exactly the >= 100-character sections of surveys with citations, in structure order."""
    queries = _queries()
    expected = [
        (s["survey_id"], n["content"])
        for s in _surveys()
        if s["all_cites"]
        for n in s["structure"]
        if len(n["content"]) >= 100
    ]
    by_uuid = _survey_of_uuid()
    assert [(by_uuid[q["original_id"]], q["content"]) for q in queries] == expected
    for survey in _surveys():
        if survey["all_cites"]:
            cited = {d for q in queries if by_uuid[q["original_id"]] == survey["survey_id"] for d in q["cites"]}
            assert cited == set(survey["all_cites"]), "all_cites is the union of the section cites"


def test_edge_cases() -> None:
    corpus = _corpus()
    surveys = {s["survey_id"]: s for s in _surveys()}
    cases = _script().build_sample().edge_cases
    assert json.loads(json.dumps(cases)) == cases, "EDGE_CASES is plain JSON"
    cited_by: dict[int, list[int]] = {}
    for sid, survey in surveys.items():
        for d in survey["all_cites"]:
            cited_by.setdefault(d, []).append(sid)

    dup = cases["duplicate_normalised_titles"]
    first, later = dup["cited_earlier"], dup["uncited_later_resolved_by_official"]
    assert first < later and corpus[first]["Title"] != corpus[later]["Title"]
    assert _norm(corpus[first]["Title"]) == _norm(corpus[later]["Title"]) == dup["normalised"]
    assert first in cited_by and later not in cited_by
    norms = [_norm(p["Title"]) for p in corpus]
    assert len(set(norms)) == len(norms) - 1, "exactly one pair of titles normalises alike"

    punct = cases["cited_titles_with_punctuation"]
    for chars, ids in punct.items():
        assert ids
        for d in ids:
            assert d in cited_by and all(c in corpus[d]["Title"] for c in chars)
    assert corpus[punct["?"][0]]["Title"].endswith("?") or corpus[punct["?"][1]]["Title"].endswith("?")

    assert len(cases["temporal_leakage"]) >= 2
    for case in cases["temporal_leakage"]:
        paper, survey = corpus[case["doc_id"]], surveys[case["survey_id"]]
        assert case["doc_id"] in survey["all_cites"]
        assert paper["Date"] == case["paper_date"] > survey["date"] == case["survey_date"]

    assert cases["non_ascii_title"]
    for d in cases["non_ascii_title"]:
        assert d in cited_by and not corpus[d]["Title"].isascii()

    assert {int(d): sids for d, sids in cases["cited_by_two_surveys"].items()} == {
        d: sids for d, sids in cited_by.items() if len(sids) > 1
    }
    assert cases["empty_all_cites_surveys"] == [43]

    readme = (SAMPLE_DIR / "README.md").read_text(encoding="utf-8")
    assert "synthetic" in readme.lower()
    for d in [first, later, *punct["?"], *punct["'"], *punct["()"], *punct["/"], *cases["non_ascii_title"]]:
        assert f"{d} (" in readme


def test_topical_and_off_topic_papers_present() -> None:
    corpus = _corpus()
    cited = {d for s in _surveys() for d in s["all_cites"]}
    categories = {p["Category"] for p in corpus}
    assert {"cs.LG", "cs.CL", "cs.CV"} <= categories and len(categories) >= 10
    uncited = [p for p in corpus if p["doc_id"] not in cited]
    assert len(uncited) >= 200


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample written afresh by make_sample.py into a temporary folder."""
    out = tmp_path_factory.mktemp("sample")
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(out)], check=True, capture_output=True)
    return out


@pytest.mark.parametrize("name", FILES)
def test_regeneration_is_byte_identical(name: str, regenerated: Path) -> None:
    assert (regenerated / name).read_bytes() == (SAMPLE_DIR / name).read_bytes(), (
        f"rerun make_sample.py ({name})"
    )
