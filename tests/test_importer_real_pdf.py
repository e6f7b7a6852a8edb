"""`surge import --format pdf` on survey PDFs that generation systems really wrote (tests/fixtures/generated/pdf,
origin, licence and how each number was counted in its README): the import report equals the counts made by hand,
and `surge evaluate` reads the same counts back from the imported folder. Then one test per shape a typeset PDF
has: headings said after their section number and wrapped over lines, reference entries wrapped over lines (one
opening with a year), running page numbers, ligatures and line-end hyphens, a PDF without an outline, and a PDF
given to another format."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.importers import import_outputs, read_documents
from surge_dataset.importers.pdf import pdf_markdown
from surge_dataset.survey import parse_survey

pypdf = pytest.importorskip("pypdf", reason="--format pdf reads PDFs with pypdf (the extra 'pdf')")

runner = CliRunner()
PDFS = Path(__file__).parent / "fixtures" / "generated" / "pdf"
#: folder -> (the PDF's name, headings, citations, distinct cited numbers, references, citations without entry).
HAND_COUNTS = {
    "autosurveyclaw_nesy_e4b": ("paper.pdf", 41, 76, 30, 30, 0),
    "interactivesurvey_llm_recsys": ("survey.pdf", 42, 49, 24, 25, 0),
}


@pytest.fixture(scope="module")
def data(sample_dataset) -> SurgeData:
    return SurgeData.open(sample_dataset)


def _source(tmp_path: Path, folders: dict[str, str]) -> Path:
    """SOURCE/<survey id>/<the PDF alone> (the licence file beside it is no survey)."""
    for survey_id, folder in folders.items():
        (tmp_path / "in" / survey_id).mkdir(parents=True)
        name = HAND_COUNTS[folder][0]
        shutil.copy(PDFS / folder / name, tmp_path / "in" / survey_id / name)
    return tmp_path / "in"


def _text(tmp_path: Path, survey_id: str) -> str:
    return (tmp_path / "out" / survey_id / "survey.md").read_text(encoding="utf-8")


def test_import_report_equals_hand_counts_and_evaluate_counts(data, sample_dataset, tmp_path, monkeypatch):
    monkeypatch.setenv("SURGE_OFFLINE", "1")  # entries are never looked up here: no network in tests
    folders = {"0": "autosurveyclaw_nesy_e4b", "1": "interactivesurvey_llm_recsys"}
    report = import_outputs("pdf", _source(tmp_path, folders), data, tmp_path / "out")
    assert report.skipped == [] and len(report.surveys) == 2
    done = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(tmp_path / "out"),
                               "--metrics", "recall", "--protocol", "paper", "--out", str(tmp_path / "r.json")])
    assert done.exit_code == 0, done.output
    evaluated = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["surveys"]
    for record in report.surveys:
        folder = folders[str(record["survey_id"])]
        _, headings, citations, distinct, references, without = HAND_COUNTS[folder]
        counted = (record["headings"], record["citations"], record["references"], record["citations_without_entry"])
        assert counted == (headings, citations, references, without), folder
        assert record["lost"] == [], folder
        counts = evaluated[str(record["survey_id"])]["counts"]
        assert (counts["headings"], counts["citations"], counts["references"],
                counts["citations_of_missing_numbers"]) == counted
        written = parse_survey(Path(record["output"]).read_text(encoding="utf-8"), protocol="paper")
        assert len({c.number for c in written.citations}) == distinct, folder


def test_outline_headings_replace_the_numbered_lines_that_say_them(data, tmp_path):
    """A bookmark's title stands after its section number (``1.1 Introduction``) and may wrap over two lines (a
    two-column heading ``2 Integration of LLMs in`` / ``Recommendation Systems``): each heading goes where its line
    is, not to the top of its page, and the numbered line is gone."""
    import_outputs("pdf", _source(tmp_path, {"0": "autosurveyclaw_nesy_e4b", "1": "interactivesurvey_llm_recsys"}),
                   data, tmp_path / "out")
    nesy, recsys = _text(tmp_path, "0"), _text(tmp_path, "1")
    assert "\n## Introduction\n\nThe rapid ascent of deep learning architectures" in nesy
    assert "\n1.1 Introduction\n" not in nesy and "\n1.3 The Functional Maturation Axis" not in nesy
    # wrapped and hyphenated at the line end: "... (The Ontology Bottle-" / "neck)"
    assert "\n## Challenge 1: Automated, Semantic Knowledge Acquisition (The Ontology Bottleneck)\n" in nesy
    # the paper's title repeats its first section's: the heading goes to the numbered line
    assert "AI Architectures\nPreprint. Under review.\nAnonymous\n\n# Synapse: A Functional Taxonomy" in nesy
    assert "\n# Integration of LLMs in Recommendation Systems\n\n## Multimodal and Contextual Reasoning\n" in recsys
    assert "2 Integration of LLMs in" not in recsys and "Recommendation Systems\n2.1" not in recsys


def test_wrapped_reference_entries_are_one_entry_each(data, tmp_path):
    """LaTeX's list wraps an entry over lines, one opening with a year (``2024. doi: 10.1145/3663366. URL``): that
    line continues entry [25] (it used to be entry 2024, and a ``URL`` line another)."""
    [doc] = read_documents("pdf", _source(tmp_path, {"0": "autosurveyclaw_nesy_e4b"}))
    assert sorted(map(int, doc.references)) == list(range(1, 31)) and doc.lost == []
    assert "2024. doi: 10.1145/3663366. URL" in doc.references["25"].raw
    assert doc.references["25"].raw.startswith("[25] Carlos Núñez-Molina, Pablo Mesejo, and Juan Fernández-Olivares.")
    # the page number at the foot of page 14 is no part of entry [6], which goes on over the page
    assert "human logical discernment accuracy" in doc.references["6"].raw


def test_page_numbers_ligatures_and_line_end_hyphens(data, tmp_path):
    import_outputs("pdf", _source(tmp_path, {"0": "autosurveyclaw_nesy_e4b", "1": "interactivesurvey_llm_recsys"}),
                   data, tmp_path / "out")
    nesy, recsys = _text(tmp_path, "0"), _text(tmp_path, "1")
    assert not [line for line in nesy.split("\n") if line.strip().isdigit()]  # the page numbers 1-16
    assert "\ufb01" not in recsys and "significantly improve" in recsys  # "signiﬁcantly": the fi ligature
    assert "revolutionized personalized content delivery" in recsys  # "rev-" / "olutionized"
    assert "unlock the full potential of LLM-based recommendation systems" in recsys  # "LLM-" / "based" keeps it
    assert "\n[6] Process supervised llm recommenders via flow guided tuning\n" in recsys


def test_without_an_outline_numbered_heading_lines_give_the_same_counts(data, tmp_path):
    """The same PDFs with their bookmarks removed: the numbered heading lines are the sections."""
    for survey_id, folder in {"0": "autosurveyclaw_nesy_e4b", "1": "interactivesurvey_llm_recsys"}.items():
        writer = pypdf.PdfWriter()
        for page in pypdf.PdfReader(PDFS / folder / HAND_COUNTS[folder][0]).pages:
            writer.add_page(page)
        (tmp_path / "in" / survey_id).mkdir(parents=True)
        with open(tmp_path / "in" / survey_id / "survey.pdf", "wb") as handle:
            writer.write(handle)
    report = import_outputs("pdf", tmp_path / "in", data, tmp_path / "out")
    for record, folder in zip(report.surveys, HAND_COUNTS, strict=True):
        _, headings, citations, _, references, without = HAND_COUNTS[folder]
        assert (record["headings"], record["citations"], record["references"],
                record["citations_without_entry"]) == (headings, citations, references, without), folder
        assert any("numbered heading lines (it has no outline)" in note for note in record["notes"])
    assert "\n## 1.1 Introduction\n\nThe rapid ascent" in _text(tmp_path, "0")


def test_a_pdf_given_as_markdown_is_refused_naming_the_pdf_format(data, tmp_path):
    source = _source(tmp_path, {"0": "autosurveyclaw_nesy_e4b", "1": "interactivesurvey_llm_recsys"})
    report = import_outputs("markdown", source, data, tmp_path / "out")
    assert report.surveys == [] and not (tmp_path / "out").exists()
    reasons = sorted(skip["reason"] for skip in report.skipped)
    assert [r.split(", not text:")[0] for r in reasons] == ["no Markdown or text file, but a PDF (paper.pdf)",
                                                             "no Markdown or text file, but a PDF (survey.pdf)"]
    assert all("import it with --format pdf" in r for r in reasons)


# ------------------------------------------------------------------------------------------ shapes, page texts


def test_running_header_is_dropped_but_a_bracketed_line_never_is():
    """A banner atop every page is a running header; a citation line at the foot of every page stays."""
    said = [("Graphs", "are popular"), ("Message passing", "scales"), ("Batching", "helps"), ("Sampling", "works")]
    pages = [f"CAUTION: GENERATED\n{what} {how}, as\n[{n}] shows\n{n}" for n, (what, how) in enumerate(said, 1)]
    text = pdf_markdown(pages, [])
    # the banner and the page numbers 1-4 are gone; "[n] shows", at every page's foot too, stays
    assert text == "".join(f"{what} {how}, as\n[{n}] shows\n" for n, (what, how) in enumerate(said, 1))


def test_a_numbered_dot_list_starts_entries_at_the_next_number_only():
    """In a ``1.`` list, a wrapped line opening with a year or a volume number (``2021. Nature``) continues."""
    pages = ["1 Intro\nText [1] and [2].\nReferences\n1. Smith and Lee. Graph networks.\n2021. Nature 12.\n"
             "2. Chen. Cluster sampling. In\n12. Proceedings."]
    text = pdf_markdown(pages, [])
    assert text.endswith("# References\n\n1. Smith and Lee. Graph networks. 2021. Nature 12.\n"
                         "2. Chen. Cluster sampling. In 12. Proceedings.\n")
