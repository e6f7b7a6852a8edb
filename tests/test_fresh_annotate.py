"""``surge data annotate``: the sheet for two annotators, the merge (Cohen's kappa computed by hand here), its
refusals naming file and row, and the filtered source folder that `surge data build` takes."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.core.errors import InputFileError, OutputFolderError
from surge_dataset.data.build import build_dataset
from surge_dataset.data.dataset import SurgeData
from surge_dataset.fresh.annotate import (
    DIMENSIONS,
    LABEL_COLUMNS,
    SHEET_COLUMNS,
    AnnotationSheetError,
    agreement_lines,
    cohen_kappa,
    merge_sheets,
    write_filtered_source,
    write_sheet,
)

from .conftest import REPO_ROOT

SAMPLE = REPO_ROOT / "examples" / "sample"
SAMPLE_IDS = [0, 1, 2, 41, 42, 43]  # surveys.json's order
#: queries.json of the sample, per survey (by prefix_titles[0]): 0, 1, 2 and 42 have 11, 41 has 10, 43 none.
QUERIES_PER_SURVEY = {0: 11, 1: 11, 2: 11, 41: 10, 42: 11, 43: 0}


def make_fresh_src(folder: Path) -> Path:
    """examples/sample's official files + a manifest, as `surge data fresh` leaves them; survey 1 carries its
    arXiv id in its own record instead of the manifest."""
    folder.mkdir(parents=True)
    for name in ("corpus.json", "queries.json"):
        shutil.copyfile(SAMPLE / name, folder / name)
    surveys = json.loads((SAMPLE / "surveys.json").read_text(encoding="utf-8"))
    surveys[1]["arxiv_id"] = "2507.00002"
    (folder / "surveys.json").write_text(json.dumps(surveys), encoding="utf-8")
    manifest = {
        "kind": "surge-fresh", "version": 1, "window": {"since": "2025-06-01", "until": "2025-09-30"},
        "categories": ["cs.CL", "cs.LG"], "created": "2025-10-02T10:00:00Z", "counts": {"candidates": 9},
        "dropped": [{"arxiv_id": "2507.09999", "reason": "no LaTeX source"}],
        "surveys": [{"survey_id": 0, "arxiv_id": "2506.01234", "title": "GNN", "citations": 57, "extract_rate": 0.8125},
                    {"survey_id": 43, "arxiv_id": "2508.04321", "title": "Dialogue", "citations": 0,
                     "extract_rate": 0.0}],
        "versions": {"surge-bench": "test"}, "settings": {"min_citations": 0},
    }
    (folder / "fresh_manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


@pytest.fixture
def fresh_src(tmp_path: Path) -> Path:
    return make_fresh_src(tmp_path / "fresh-src")


def read_rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def write_labels(path: Path, usable: list[str], *, ids: list[int] | None = None,
                 ratings: dict[str, list[str]] | None = None, columns: tuple[str, ...] = SHEET_COLUMNS) -> Path:
    """A filled sheet: one row per id with its usable cell (and dimension ratings)."""
    ids = ids if ids is not None else list(range(len(usable)))
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for n, (survey_id, label) in enumerate(zip(ids, usable, strict=True)):
            row = {"survey_id": survey_id, "title": f"Survey {survey_id}", "usable": label}
            row.update({name: values[n] for name, values in (ratings or {}).items()})
            writer.writerow(row)
    return path


# --- the sheet -----------------------------------------------------------------------------------------------


def test_the_sheet_has_a_row_per_survey_with_what_an_annotator_needs_and_empty_labels(fresh_src, tmp_path):
    out = tmp_path / "labels.csv"
    rows, readme = write_sheet(fresh_src, out)
    assert rows == 6 and readme == tmp_path / "labels.README.md"
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")  # UTF-8 with a BOM, for spreadsheet programs
    with open(out, encoding="utf-8-sig", newline="") as handle:
        assert next(csv.reader(handle)) == list(SHEET_COLUMNS)
    sheet = read_rows(out)
    assert [int(r["survey_id"]) for r in sheet] == SAMPLE_IDS
    first = sheet[0]  # manifest entry: arXiv id, citations 57, extract rate 0.8125; 16 nodes = root + 15
    assert first["arxiv_id"] == "2506.01234" and first["link"] == "https://arxiv.org/abs/2506.01234"
    assert (first["date"], first["category"], first["sections"], first["cited_papers"]) == ("2021-03-04", "cs.LG", "15", "21")
    assert (first["citations"], first["extract_rate"]) == ("57", "0.812")
    assert sheet[1]["arxiv_id"] == "2507.00002" and sheet[1]["link"].endswith("/2507.00002")  # from the record
    assert sheet[2]["arxiv_id"] == sheet[2]["link"] == sheet[2]["citations"] == ""  # nothing known: empty
    assert (sheet[5]["sections"], sheet[5]["cited_papers"], sheet[5]["extract_rate"]) == ("9", "0", "0.000")
    assert all(r[c] == "" for r in sheet for c in LABEL_COLUMNS)
    assert list(DIMENSIONS) == ["citation_impact", "content_coverage", "structural_coherence", "citation_quality"]
    guide = readme.read_text(encoding="utf-8")
    docs = (REPO_ROOT / "docs" / "data" / "annotate.md").read_text(encoding="utf-8")
    for name, instruction in DIMENSIONS.items():  # one instruction per dimension, the same in the docs
        assert f"**{name}**" in guide and instruction in guide and instruction in docs


def test_a_sheet_with_labels_is_kept_unless_force(fresh_src, tmp_path):
    out = tmp_path / "labels.csv"
    write_sheet(fresh_src, out)
    write_sheet(fresh_src, out)  # an unlabelled sheet may be written again
    sheet = read_rows(out)
    sheet[3]["notes"] = "odd structure"
    with open(out, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=SHEET_COLUMNS)
        writer.writeheader()
        writer.writerows(sheet)
    with pytest.raises(AnnotationSheetError, match=r"labels\.csv exists and holds labels.*--force"):
        write_sheet(fresh_src, out)
    assert read_rows(out)[3]["notes"] == "odd structure"  # untouched
    write_sheet(fresh_src, out, force=True)
    assert read_rows(out)[3]["notes"] == ""
    other = tmp_path / "mine.csv"
    other.write_text("name,value\na,1\n", encoding="utf-8")  # not a sheet: never replaced without --force
    with pytest.raises(AnnotationSheetError, match="not an annotation sheet"):
        write_sheet(fresh_src, other)


# --- the merge -----------------------------------------------------------------------------------------------


def test_kappa_agreement_and_confusion_match_a_hand_computation(tmp_path):
    # 8 surveys. A: y y y n n y n y; B: y y n n y y n y -> yes/yes 4, yes/no 1, no/yes 1, no/no 2.
    # p_o = 6/8 = 0.75; both say yes 5/8 of the time: p_e = (5/8)^2 + (3/8)^2 = 34/64;
    # kappa = (0.75 - 34/64) / (1 - 34/64) = (14/64) / (30/64) = 7/15 = 0.4667.
    a = write_labels(tmp_path / "a.csv", ["yes", "Yes", "YES", "no", "0", "true", "False", "1"])
    b = write_labels(tmp_path / "b.csv", ["yes", "TRUE", "no", "NO", "1", "yes", "no", "yes"])
    agreement = merge_sheets(a, b)
    assert agreement.kappa == pytest.approx(7 / 15)
    assert agreement.agreement == 0.75
    assert agreement.confusion == {"yes/yes": 4, "yes/no": 1, "no/yes": 1, "no/no": 2}
    assert agreement.kept == [0, 1, 5, 7] and agreement.dropped == [2, 3, 4, 6]
    lines = agreement_lines(agreement)
    assert lines[0] == "Cohen's kappa on usable: 0.467 (the SurGE paper: 0.792 on 250 surveys)"
    assert lines[1] == "agreement: 75.0% of 8 surveys"
    assert lines[2] == "confusion (a.csv / b.csv): yes/yes 4, yes/no 1, no/yes 1, no/no 2"
    assert lines[-1] == "kept (usable for both): 4; dropped: 4"


def test_per_dimension_agreement_and_weighted_kappa_by_hand(tmp_path):
    # citation_impact over 3 surveys, A = 2 3 4, B = 2 4 4 (the 4th row unrated by B: left out).
    # Identical: 2 of 3. Quadratic weights w = (i - j)^2: observed sum w*O = 1/3 (the pair 3/4);
    # expected sum w*E = sum_i sum_j w pA_i pB_j with pA = 1/3 each, pB(2) = 1/3, pB(4) = 2/3:
    # (1/3) * [(0 + 4*2/3) + (1/3 + 2/3) + (4/3 + 0)] = (1/3) * 5 = 5/3; kappa = 1 - (1/3)/(5/3) = 0.8.
    # content_coverage, A = 1 5 1 1, B = 5 1 1 1: O = {(1,5): 1/4, (5,1): 1/4, (1,1): 1/2}, sum w*O = 16/2 = 8;
    # pA = pB = (1: 3/4, 5: 1/4), sum w*E = 16 * (3/16 + 3/16) = 6; kappa = 1 - 8/6 = -1/3.
    # (The first two rows alone, 1 5 against 5 1, give -1: checked on cohen_kappa below.)
    ratings_a = {"citation_impact": ["2", "3", "4", "5"], "content_coverage": ["1", "5", "1", "1"]}
    ratings_b = {"citation_impact": ["2", "4", "4", ""], "content_coverage": ["5", "1", "1", "1"]}
    a = write_labels(tmp_path / "a.csv", ["yes"] * 4, ratings=ratings_a)
    b = write_labels(tmp_path / "b.csv", ["yes", "yes", "no", "yes"], ratings=ratings_b)
    dims = merge_sheets(a, b).dimensions
    assert set(dims) == {"citation_impact", "content_coverage"}  # the others were never filled
    assert dims["citation_impact"].rated == 3 and dims["citation_impact"].agreement == pytest.approx(2 / 3)
    assert dims["citation_impact"].kappa == pytest.approx(0.8)
    assert dims["content_coverage"].rated == 4 and dims["content_coverage"].agreement == 0.5
    assert dims["content_coverage"].kappa == pytest.approx(-1 / 3)
    assert cohen_kappa([1, 5], [5, 1], labels=[1, 2, 3, 4, 5], weights="quadratic") == pytest.approx(-1.0)


def test_kappa_is_undefined_only_when_both_give_one_constant_label(tmp_path):
    all_yes = merge_sheets(write_labels(tmp_path / "a.csv", ["yes"] * 3), write_labels(tmp_path / "b.csv", ["1"] * 3))
    assert all_yes.kappa is None and all_yes.agreement == 1.0 and all_yes.kept == [0, 1, 2]
    text = "\n".join(agreement_lines(all_yes))
    assert "undefined: both annotators labelled every survey yes" in text and "nan" not in text
    # A constant, B not: p_e = 1 * 2/3 = p_o, so kappa = 0 (defined)
    one_constant = merge_sheets(tmp_path / "a.csv", write_labels(tmp_path / "c.csv", ["yes", "no", "yes"]))
    assert one_constant.kappa == 0.0
    # both constant, opposite labels: p_o = 0, p_e = 0 -> kappa = 0
    assert merge_sheets(tmp_path / "a.csv", write_labels(tmp_path / "d.csv", ["no"] * 3)).kappa == 0.0


def test_bad_sheets_are_refused_naming_file_and_row(tmp_path):
    good = write_labels(tmp_path / "good.csv", ["yes", "no", "yes"])
    no_usable = write_labels(tmp_path / "cols.csv", ["yes"] * 3, columns=("survey_id", "title", "notes"))
    with pytest.raises(AnnotationSheetError, match=r"cols\.csv: row 1 \(the header\) lacks the column\(s\) usable"):
        merge_sheets(good, no_usable)
    maybe = write_labels(tmp_path / "maybe.csv", ["yes", "maybe", "yes"])
    with pytest.raises(AnnotationSheetError, match=r"maybe\.csv: row 3 \(survey 1\): usable is 'maybe'; write yes or no"):
        merge_sheets(good, maybe)
    rating = write_labels(tmp_path / "rating.csv", ["yes"] * 3, ratings={"citation_quality": ["5", "6", "2.5"]})
    with pytest.raises(AnnotationSheetError, match=r"2 problems:\n  row 3 \(survey 1\): citation_quality is '6'.*\n"
                                                   r"  row 4 \(survey 2\): citation_quality is '2.5'"):
        merge_sheets(rating, good)
    other_ids = write_labels(tmp_path / "ids.csv", ["yes", "no", "yes"], ids=[0, 1, 7])
    with pytest.raises(AnnotationSheetError, match=r"only in .*good\.csv: 2; only in .*ids\.csv: 7"):
        merge_sheets(good, other_ids)
    twice = write_labels(tmp_path / "twice.csv", ["yes", "no", "yes"], ids=[0, 1, 0])
    with pytest.raises(AnnotationSheetError, match=r"row 4 \(survey 0\): survey 0 again \(first at row 2\)"):
        merge_sheets(twice, good)
    empty_a = write_labels(tmp_path / "ea.csv", ["yes", "", "yes"])
    empty_b = write_labels(tmp_path / "eb.csv", ["", "no", "yes"])
    with pytest.raises(AnnotationSheetError, match=r"2 usable cell\(s\) are empty, and a label is never guessed: "
                                                   r".*ea\.csv row 3 \(survey 1\), .*eb\.csv row 2 \(survey 0\)"):
        merge_sheets(empty_a, empty_b)
    with pytest.raises(InputFileError, match="absent.csv"):
        merge_sheets(good, tmp_path / "absent.csv")


def test_blank_lines_do_not_shift_row_numbers(tmp_path):
    path = tmp_path / "gaps.csv"
    path.write_text("survey_id,usable\n0,yes\n\n5,perhaps\n", encoding="utf-8")  # the bad row is line/row 4
    with pytest.raises(AnnotationSheetError, match=r"row 4 \(survey 5\): usable is 'perhaps'"):
        merge_sheets(path, path)


# --- the filtered source folder ------------------------------------------------------------------------------


def test_filtered_source_keeps_what_both_marked_usable_and_builds(fresh_src, tmp_path):
    write_sheet(fresh_src, tmp_path / "labels.csv")
    # A keeps 0 1 41 42, B keeps 0 2 41 43: both -> 0 and 41
    a = write_labels(tmp_path / "a.csv", ["yes", "yes", "no", "yes", "yes", "no"], ids=SAMPLE_IDS)
    b = write_labels(tmp_path / "b.csv", ["yes", "no", "yes", "yes", "no", "yes"], ids=SAMPLE_IDS)
    agreement = merge_sheets(a, b)
    out = tmp_path / "fresh-annotated"
    record = write_filtered_source(fresh_src, agreement, out)
    surveys = json.loads((out / "surveys.json").read_text(encoding="utf-8"))
    assert [s["survey_id"] for s in surveys] == [0, 41]
    assert surveys[0] == json.loads((fresh_src / "surveys.json").read_text(encoding="utf-8"))[0]
    queries = json.loads((out / "queries.json").read_text(encoding="utf-8"))
    assert len(queries) == QUERIES_PER_SURVEY[0] + QUERIES_PER_SURVEY[41] == 21
    assert (out / "corpus.json").read_bytes() == (fresh_src / "corpus.json").read_bytes()
    manifest = json.loads((out / "fresh_manifest.json").read_text(encoding="utf-8"))
    assert manifest["window"] == {"since": "2025-06-01", "until": "2025-09-30"}
    assert manifest["dropped"] == [{"arxiv_id": "2507.09999", "reason": "no LaTeX source"}]  # the pipeline's, kept
    assert [e["survey_id"] for e in manifest["surveys"]] == [0]  # 43 was dropped
    annotation = manifest["annotation"]
    assert annotation == record and annotation["kept"] == [0, 41]
    # 6 surveys: yes/yes 2, yes/no 2, no/yes 2, no/no 0; p_o = 2/6, p_e = (4/6)^2 + (2/6)^2 = 20/36,
    # kappa = (12/36 - 20/36) / (16/36) = -0.5
    assert annotation["kappa"] == pytest.approx(-0.5) and annotation["agreement"] == pytest.approx(1 / 3)
    assert annotation["dropped"][0] == {"survey_id": 1, "arxiv_id": "2507.00002", "title": surveys_title(fresh_src, 1),
                                        "usable": ["yes", "no"]}  # its arXiv id from its own record
    assert annotation["dropped"][1] == {"survey_id": 2, "title": surveys_title(fresh_src, 2), "usable": ["no", "yes"]}
    assert annotation["dropped"][-1]["arxiv_id"] == "2508.04321" and annotation["dropped"][-1]["usable"] == ["no", "yes"]
    assert [s["path"] for s in annotation["sheets"]] == [str(a), str(b)] and len(annotation["sheets"][0]["sha256"]) == 64

    build_dataset(out, tmp_path / "built")
    data = SurgeData.open(tmp_path / "built")
    assert [s.survey_id for s in data.surveys()] == [0, 41]
    assert data.window == {"since": "2025-06-01", "until": "2025-09-30"}
    assert data.meta["fresh"]["annotation"] == {"kappa": pytest.approx(-0.5), "kept": 2}

    with pytest.raises(OutputFolderError, match="already exists .*pass --force to replace it"):
        write_filtered_source(fresh_src, agreement, out)  # ours, but replaced only when asked
    write_filtered_source(fresh_src, agreement, out, force=True)


def surveys_title(src: Path, survey_id: int) -> str:
    return next(s["survey_title"] for s in json.loads((src / "surveys.json").read_text(encoding="utf-8"))
                if s["survey_id"] == survey_id)


def test_filtered_source_refuses_a_folder_without_manifest_or_other_surveys(fresh_src, tmp_path):
    a = write_labels(tmp_path / "a.csv", ["yes"] * 5, ids=SAMPLE_IDS[:5])
    agreement = merge_sheets(a, a)
    with pytest.raises(AnnotationSheetError, match=r"do not match .*fresh-src: survey ids not in the sheets: 43"):
        write_filtered_source(fresh_src, agreement, tmp_path / "out")
    (fresh_src / "fresh_manifest.json").unlink()
    with pytest.raises(InputFileError, match="no fresh_manifest.json"):
        write_filtered_source(fresh_src, agreement, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# --- the command ---------------------------------------------------------------------------------------------


def test_the_command_writes_the_sheet_then_merges(fresh_src, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    done = runner.invoke(app, ["data", "annotate", str(fresh_src), "--out", "labels.csv"])
    assert done.exit_code == 0, done.output
    assert "labels.csv: 6 survey(s) to annotate" in done.output and Path("labels.README.md").is_file()
    again = runner.invoke(app, ["data", "annotate", str(fresh_src), "--out", "labels.csv"])
    assert again.exit_code == 0  # still unlabelled
    write_labels(Path("a.csv"), ["yes"] * 6, ids=SAMPLE_IDS)
    write_labels(Path("b.csv"), ["yes", "yes", "yes", "yes", "yes", "no"], ids=SAMPLE_IDS)
    merged = runner.invoke(app, ["data", "annotate", "--merge", "a.csv", "b.csv", "--src", str(fresh_src),
                                 "--filtered-out", "kept", "--out", "usable.json"])
    assert merged.exit_code == 0, merged.output
    # A all yes, B 5 yes 1 no: p_o = 5/6 = p_e, kappa 0
    assert "Cohen's kappa on usable: 0.000 (the SurGE paper: 0.792" in merged.output
    assert "agreement: 83.3% of 6 surveys" in merged.output and "yes/no 1" in merged.output
    usable = json.loads(Path("usable.json").read_text(encoding="utf-8"))
    assert usable["kept"] == [0, 1, 2, 41, 42]
    assert usable["dropped"] == [{"survey_id": 43, "arxiv_id": "2508.04321", "title": surveys_title(fresh_src, 43),
                                  "usable": ["yes", "no"]}]
    assert [s["survey_id"] for s in json.loads(Path("kept/surveys.json").read_text(encoding="utf-8"))] == SAMPLE_IDS[:5]


@pytest.mark.parametrize(("args", "message"), [
    (["data", "annotate", "--merge", "a.csv", "b.csv", "--filtered-out", "x"], "--filtered-out needs --src"),
    (["data", "annotate", "SRC"], "give a source folder and --out"),
    (["data", "annotate", "SRC", "--out", "l.csv", "--src", "SRC"], "--src and --filtered-out go with --merge"),
    (["data", "annotate", "--merge", "a.csv", "absent.csv"], "absent.csv"),
])
def test_the_command_refuses_wrong_combinations_in_one_line(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    write_labels(Path("a.csv"), ["yes"])
    write_labels(Path("b.csv"), ["yes"])
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2 and message in done.output and "Traceback" not in done.output
