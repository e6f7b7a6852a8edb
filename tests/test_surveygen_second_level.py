"""SurveyGen's second-level references (the works its cited papers cite) carried through the conversion, the built
configs, the card and ``surge data stats``.

The counts on the real gold-standard file were made by reading its JSON with plain Python (not this package):
83 of its 114 references list ``referenced_works`` (OpenAlex work URLs only, no titles), 3,177 entries in all; two
references are the same paper (``matched_paper_id`` 436933), whose lists overlap by 54 entries, so the corpus's
papers cite 3,123 (paper, work) pairs of 1,988 distinct works; 483 works are cited by two or more papers, the most
cited (W2163605009) by 23. The survey cites 112 ``ref_id``\\ s, whose works number 1,966.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.data.surveygen import SurveyGenWarning, convert_surveygen_with_signals
from surge_dataset.data.surveygen_second_level import read_second_level_entry

runner = CliRunner()
TOP_WORK = "https://openalex.org/W2163605009"


def _survey(references: list[dict[str, Any]]) -> dict[str, Any]:
    cites = [{"ref_id": ref["ref_id"]} for ref in references]
    return {"metadata": {"title": "A survey"}, "references": references,
            "sections": [{"title": "1 Intro", "paragraphs": [{"text": "Text.", "citations": cites}]}]}


def test_entries_as_ids_or_records() -> None:
    assert read_second_level_entry("https://openalex.org/W1") == ("https://openalex.org/W1", {})
    assert read_second_level_entry({"id": "W2", "title": "T", "citationCount": 4, "abstract": ""}) == (
        "W2", {"title": "T", "abstract": None, "doi": None, "citation_count": 4})
    assert read_second_level_entry({"title": "no id"}) is None
    assert read_second_level_entry("  ") is None and read_second_level_entry(None) is None


def test_works_are_merged_per_paper_and_per_work(tmp_path: Path) -> None:
    """Two files cite the same S2 paper with overlapping lists; a third paper cites a work that is a corpus paper."""
    first = _survey([{"ref_id": "b0", "matched_paper_id": 7, "title": "Seven", "referenced_works": ["W1", "W2"],
                      "metadata": {"referenced_works_count": 3}},
                     {"ref_id": "b1", "matched_paper_id": 8, "title": "Eight",
                      "referenced_works": [{"id": "W2", "title": "Two", "doi": "10.1/two"}, "11"]}])
    second = _survey([{"ref_id": "b0", "matched_paper_id": 7, "title": "Seven", "referenced_works": ["W2", "W3"]},
                      {"ref_id": "b1", "matched_paper_id": 11, "title": "Eleven"}])
    paths = []
    for name, data in (("a.json", first), ("b.json", second)):
        (tmp_path / name).write_text(json.dumps(data))
        paths.append(tmp_path / name)
    result = convert_surveygen_with_signals(paths)
    assert [p["Title"] for p in result.corpus] == ["Seven", "Eight", "Eleven"]
    assert result.signals[0]["referenced_works"] == ["W1", "W2", "W3"]
    assert result.signals[0]["referenced_works_count"] == 3  # as the file states, not the list's length
    assert result.signals[1]["referenced_works"] == ["W2", "11"] and result.signals[1]["referenced_doc_ids"] == [2]
    assert result.second_level == {
        "11": {"doc_id": 2, "cited_by_doc_ids": [1], "title": None, "abstract": None, "doi": None,
               "citation_count": None},
        "W1": {"doc_id": None, "cited_by_doc_ids": [0], "title": None, "abstract": None, "doi": None,
               "citation_count": None},
        "W2": {"doc_id": None, "cited_by_doc_ids": [0, 1], "title": "Two", "abstract": None, "doi": "10.1/two",
               "citation_count": None},
        "W3": {"doc_id": None, "cited_by_doc_ids": [0], "title": None, "abstract": None, "doi": None,
               "citation_count": None}}
    assert result.survey_meta[0]["second_level_references"] == 3  # W1, W2, 11
    assert result.survey_meta[1]["second_level_references"] == 3  # W1, W2, W3 (paper 7's merged list)


def test_an_entry_naming_no_work_is_skipped_with_the_file_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_survey([{"ref_id": "b0", "matched_paper_id": 1, "title": "One",
                                         "referenced_works": ["W1", {"title": "no id"}]}])))
    with pytest.warns(SurveyGenWarning, match=r"bad\.json: reference 'b0': referenced_works\[1\] names no work"):
        result = convert_surveygen_with_signals([path])
    assert list(result.second_level) == ["W1"]


def test_a_source_without_second_level_references_builds_no_such_config(tmp_path: Path) -> None:
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(_survey([{"ref_id": f"b{i}", "matched_paper_id": i, "title": f"Paper {i}"}
                                        for i in range(3)])))
    assert runner.invoke(app, ["data", "from-surveygen", str(path), "--out", str(tmp_path / "json")]).exit_code == 0
    assert not (tmp_path / "json" / "surveygen_second_level.json").exists()
    result = runner.invoke(app, ["data", "build", "--source", str(tmp_path / "json"), "--out", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "b" / "surveygen_second_level").exists()
    stats = json.loads(runner.invoke(app, ["data", "stats", "--data", str(tmp_path / "b"), "--json"]).output)
    rows = {r["key"]: r["value"] for r in stats["surveygen"]["rows"]}
    assert rows["second_level_references"] is None and rows["multi_level_citation"] is False
    assert rows["quality_indicators"] is False  # no citation count or venue h-index anywhere


@pytest.fixture(scope="module")
def built_real(tmp_path_factory: pytest.TempPathFactory, surveygen_example: Path) -> Path:
    root = tmp_path_factory.mktemp("sg2")
    result = runner.invoke(app, ["data", "from-surveygen", str(surveygen_example), "--out", str(root / "json")])
    assert result.exit_code == 0, result.output
    assert "1,988 second-level references" in result.output
    result = runner.invoke(app, ["data", "build", "--source", str(root / "json"), "--out", str(root / "built")])
    assert result.exit_code == 0, result.output
    return root


def test_real_file_second_level_references_match_the_hand_counts(built_real: Path) -> None:
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.data.surveygen_meta import surveygen_metadata, surveygen_second_level

    data = SurgeData.open(built_real / "built")
    works = surveygen_second_level(data)
    assert works is not None and len(works) == 1988
    assert sum(len(row["cited_by_doc_ids"]) for row in works.values()) == 3123
    assert sum(len(row["cited_by_doc_ids"]) >= 2 for row in works.values()) == 483
    assert len(works[TOP_WORK]["cited_by_doc_ids"]) == 23
    assert all(row["doc_id"] is None and row["title"] is None for row in works.values())  # ids only in this file
    papers, surveys = surveygen_metadata(data)
    assert papers[0]["referenced_works"] == ["https://openalex.org/W4298166646"]
    assert papers[0]["referenced_works_count"] == 1
    assert sum(len(p["referenced_works"]) for p in papers.values()) == 3123
    assert surveys[0]["second_level_references"] == 1966
    card = (built_real / "built" / "README.md").read_text(encoding="utf-8")
    assert "config_name: surveygen_second_level" in card and "`surveygen_second_level` (1,988 rows" in card


def test_real_file_surveygen_table1_shows_the_multi_level_columns(built_real: Path) -> None:
    result = runner.invoke(app, ["data", "stats", "--data", str(built_real / "built"), "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["key"]: r for r in json.loads(result.output)["surveygen"]["rows"]}
    assert (rows["second_level_references"]["value"], rows["second_level_references"]["published"]) == (1988,
                                                                                                         5_062_596)
    for key in ("structural_outline", "quality_indicators", "multi_level_citation", "for_survey_generation"):
        assert rows[key]["value"] is True and rows[key]["published"] is True
    table = runner.invoke(app, ["data", "stats", "--data", str(built_real / "built")]).output
    assert "Multi-level Citation" in table and "5,062,596" in table and "✓" in table
