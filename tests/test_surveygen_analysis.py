"""SurveyGen's analyses (Figure 3's KS tests, §4.3's ANOVA), its quality indicators kept through conversion and
build, its Table 1, and its construction filters: hand-checked numbers on tiny samples, and the real gold file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.core.stats import ks_two_sample, one_way_anova
from surge_dataset.fresh.surveygen_select import select_candidates, top_level_sections
from surge_dataset.llm import LLM, Judge
from surge_dataset.report.disciplines import NO_DISCIPLINE, discipline_anova
from surge_dataset.report.distributions import NOT_IN_DATA, reference_distributions, resolved_references
from surge_dataset.testing import ScriptedChat

runner = CliRunner()


# --------------------------------------------------------------------------------------------------
# Hand-checked statistics
# --------------------------------------------------------------------------------------------------


def test_ks_by_hand() -> None:
    # Disjoint samples of three: the ECDFs are 1 apart between 3 and 4, D = 1; exact two-sided p = 2 / C(6, 3).
    test = ks_two_sample([1, 2, 3], [4, 5, 6])
    assert test["statistic"] == 1.0 and test["p_value"] == pytest.approx(2 / 20)
    # [1,2,3,4] vs [3,4,5,6]: at x = 2, F_a = 2/4 and F_b = 0; nowhere further apart: D = 0.5.
    assert ks_two_sample([1, 2, 3, 4], [3, 4, 5, 6])["statistic"] == 0.5
    assert ks_two_sample([], [1.0]) == {"statistic": None, "p_value": None, "n_a": 0, "n_b": 1}


def test_anova_by_hand() -> None:
    # Means 2 and 5, grand mean 3.5: SSB = 2 * 3 * 1.5^2 = 13.5 on 1 df, SSW = 2 + 2 = 4 on 4 df: F = 13.5.
    # p = P(F(1, 4) > 13.5) = P(|t_4| > sqrt(13.5)) = 0.02131 (t table).
    test = one_way_anova({"Biology": [1, 2, 3], "Medicine": [4, 5, 6]})
    assert test["f"] == pytest.approx(13.5)
    assert test["p_value"] == pytest.approx(0.02131, abs=5e-5)
    assert test["groups"] == {"Biology": {"n": 3, "mean": 2.0}, "Medicine": {"n": 3, "mean": 5.0}}
    assert one_way_anova({"Biology": [1, 2]})["f"] is None  # one group: no test
    assert one_way_anova({"A": [1.0, 1.0], "B": [2.0, 2.0]})["p_value"] is None  # no spread within: undefined


def test_discipline_anova_per_system_leaves_unlabelled_out() -> None:
    values = {"sys": {"0": 1.0, "1": 2.0, "2": 3.0, "3": 4.0, "4": 5.0, "5": 6.0, "6": 9.0}}
    disciplines = {"0": "Biology", "1": "Biology", "2": "Biology", "3": "Medicine", "4": "Medicine",
                   "5": "Medicine", "6": None}
    (row,) = discipline_anova(values, disciplines, "kpr")
    assert row["f"] == pytest.approx(13.5) and row["unlabelled"] == 1 and row["metric"] == "kpr"


def test_reference_distributions_by_hand() -> None:
    years = {1: 2000, 2: 2001, 3: 2002, 4: 2010, 5: 2011, 6: 2012, 7: None}
    result = reference_distributions({"rag": {0: [1, 2, 3, 7]}}, {0: [4, 5, 6]}, years, None, {0: 2020})
    rows = {(r["quantity"], r["survey_id"]): r for r in result["rows"]}
    assert result["missing"] == {"citation_count": NOT_IN_DATA}
    assert rows["year", 0]["statistic"] == 1.0 and rows["year", 0]["p_value"] == pytest.approx(0.1)
    assert rows["year", 0]["n_system"] == 3  # the paper without a year is left out
    assert rows["years_gap", None]["statistic"] == 1.0  # gaps 18..20 vs 8..10
    with_counts = reference_distributions({"rag": {0: [1, 2, 3, 4]}}, {0: [3, 4, 5, 6]}, years,
                                          {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6}, {0: 2020})
    pooled = [r for r in with_counts["rows"] if r["quantity"] == "citation_count" and r["survey_id"] is None]
    assert pooled[0]["statistic"] == 0.5 and with_counts["missing"] == {}


def test_resolved_references_reads_details(tmp_path: Path) -> None:
    details = tmp_path / "d.jsonl"
    records = [{"kind": "reference", "survey_id": 3, "doc_id": 9}, {"kind": "reference", "survey_id": 3, "doc_id": None},
               {"kind": "citation", "survey_id": 3, "doc_id": 1}, {"kind": "reference", "survey_id": 3, "doc_id": 9}]
    details.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert resolved_references(details) == {3: [9]}


def test_discipline_anova_on_surge_data_says_there_is_none(sample_dataset: Path, tmp_path: Path) -> None:
    results = tmp_path / "r.json"
    results.write_text("{}")
    result = runner.invoke(app, ["discipline-anova", str(results), "--metric", "recall", "--data", str(sample_dataset)])
    assert result.exit_code == 2 and "no discipline field" in result.output
    assert NO_DISCIPLINE.split(":")[0] in result.output


# --------------------------------------------------------------------------------------------------
# Construction filters and the evaluation subset
# --------------------------------------------------------------------------------------------------


def _candidate(tmp_path: Path, name: str, refs: int, sections: list[str], *, abstract: str = "We survey X.",
               field: str = "Medicine", citations: int = 0) -> Path:
    data = {"corpusId": len(name), "sections": [{"title": t, "paragraphs": [{"text": "Text."}]} for t in sections],
            "references": [{"ref_id": f"b{i}"} for i in range(refs)],
            "metadata": {"title": f"A survey {name}", "abstract": abstract, "fieldsOfStudy": [field],
                         "citationCount": citations}}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def test_top_level_sections_count_numbering() -> None:
    titles = ["1 Intro", "1.1 Scope", "2. Methods", "Discussion", "Figure 2 :"]
    assert top_level_sections([{"title": t, "paragraphs": []} for t in titles]) == 3


def test_filters_and_majority_vote(tmp_path: Path) -> None:
    three = ["1 A", "2 B", "3 C"]
    files = [_candidate(tmp_path, "ok", 30, three), _candidate(tmp_path, "short", 29, three),
             _candidate(tmp_path, "flat", 40, ["1 A", "1.1 B", "2 C"]), _candidate(tmp_path, "noabs", 40, three,
                                                                                    abstract=""),
             _candidate(tmp_path, "voted", 40, three)]
    # Three voters over the four candidates with an abstract (ok, short, flat, voted), in that order.
    scripts = [["A", "A", "A", "B"], ["A", "A", "A", "A"], ["B", "A", "A", "B"]]
    judges = [Judge(LLM(ScriptedChat(s, model=f"v{i}"), cache_dir=False), max_tries=1) for i, s in enumerate(scripts)]
    decisions = {Path(d["path"]).stem: d for d in select_candidates(files, judges=judges)}
    assert decisions["ok"]["kept"] and decisions["ok"]["votes"] == [True, True, False]
    assert "29 references" in decisions["short"]["why"]
    assert "2 top-level sections" in decisions["flat"]["why"]
    assert "no abstract" in decisions["noabs"]["why"]
    assert "majority vote (1 of 3" in decisions["voted"]["why"]
    without_vote = {Path(d["path"]).stem: d["kept"] for d in select_candidates(files)}
    assert without_vote == {"ok": True, "short": False, "flat": False, "noabs": True, "voted": True}


def test_evaluation_subset_keeps_the_most_cited_per_domain(tmp_path: Path) -> None:
    three = ["1 A", "2 B", "3 C"]
    files = [_candidate(tmp_path, f"m{c}", 30, three, citations=c) for c in (5, 50, 20)]
    files += [_candidate(tmp_path, "cs", 30, three, field="Computer Science", citations=1),
              _candidate(tmp_path, "phys", 30, three, field="Physics", citations=999)]
    decisions = select_candidates(files, evaluation_subset=True, per_domain=2)
    kept = sorted(Path(d["path"]).stem for d in decisions if d["kept"])
    assert kept == ["cs", "m20", "m50"]
    assert "not one of" in next(d["why"] for d in decisions if "phys" in d["path"])


def test_select_command_writes_decisions(tmp_path: Path) -> None:
    path = _candidate(tmp_path, "ok", 30, ["1 A", "2 B", "3 C"])
    result = runner.invoke(app, ["data", "surveygen-select", str(path), "--out", str(tmp_path / "kept.json")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "kept.json").read_text())[0]["kept"] is True


# --------------------------------------------------------------------------------------------------
# The real SurveyGen gold file: indicators kept, configs built, Table 1, Figure 3's command
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built_surveygen(tmp_path_factory: pytest.TempPathFactory, surveygen_example: Path) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("sg")
    result = runner.invoke(app, ["data", "from-surveygen", str(surveygen_example), "--out", str(root / "json")])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["data", "build", "--source", str(root / "json"), "--out", str(root / "built")])
    assert result.exit_code == 0, result.output
    return {"root": root, "raw": json.loads(surveygen_example.read_text(encoding="utf-8"))}


def test_real_file_keeps_every_quality_indicator(built_surveygen: dict[str, Any]) -> None:
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.data.surveygen_meta import surveygen_metadata

    raw = built_surveygen["raw"]
    papers, surveys = surveygen_metadata(SurgeData.open(built_surveygen["root"] / "built"))
    first = raw["references"][0]["metadata"]
    assert papers[0]["influential_citation_count"] == first["influentialCitationCount"]
    assert papers[0]["venue_i10_index"] == first["journal"]["i10_index"]
    assert papers[0]["venue_is_core"] is first["journal"]["is_core"]
    assert papers[0]["author_paper_counts"] == [a["paperCount"] for a in first["authors"]]
    assert papers[0]["author_citation_counts"] == [a["citationCount"] for a in first["authors"]]
    assert surveys[0]["discipline"] == "Computer Science"
    assert surveys[0]["citation_count"] == raw["metadata"]["citationCount"]
    card = (built_surveygen["root"] / "built" / "README.md").read_text(encoding="utf-8")
    assert "config_name: surveygen_papers" in card and "SurveyGen quality indicators" in card


def test_real_file_surveygen_table1(built_surveygen: dict[str, Any]) -> None:
    result = runner.invoke(app, ["data", "stats", "--data", str(built_surveygen["root"] / "built"), "--json"])
    assert result.exit_code == 0, result.output
    sg = json.loads(result.output)["surveygen"]
    rows = {r["key"]: r for r in sg["rows"]}
    assert rows["docs"]["value"] == 1 and rows["docs"]["published"] == 4200
    assert rows["input_docs"]["value"] == rows["references"]["value"] > 30
    assert sg["disciplines"] == {"Computer Science": 1}


def test_real_file_reference_distributions(built_surveygen: dict[str, Any], tmp_path: Path) -> None:
    from surge_dataset.data.dataset import SurgeData

    data = SurgeData.open(built_surveygen["root"] / "built")
    cites = data.survey(0).all_cites
    details = tmp_path / "half.jsonl"  # a system that cited the first half of the human survey's papers
    details.write_text("\n".join(json.dumps({"kind": "reference", "survey_id": 0, "doc_id": d})
                                 for d in cites[: len(cites) // 2]) + "\n")
    out = tmp_path / "ks.json"
    result = runner.invoke(app, ["reference-distributions", "--details", f"half={details}", "--data",
                                 str(built_surveygen["root"] / "built"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = json.loads(out.read_text())["rows"]
    assert {r["quantity"] for r in rows} == {"year", "years_gap", "citation_count"}
    pooled = next(r for r in rows if r["quantity"] == "citation_count" and r["survey_id"] is None)
    assert pooled["n_human"] > pooled["n_system"] > 0 and 0 <= pooled["statistic"] <= 1
