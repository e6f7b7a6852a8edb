"""`surge import --format html`: a report saved as an HTML page, converted to Markdown with markdownify.

No saved deep-research HTML page with a licence that allows a copy was found (tests/fixtures/generated/deepresearch/
README.md), so the pages are written by the tests: one rendered with markdown-it-py (CommonMark) from the real Onyx
Deep Research report of the fixtures, wrapped in a saved page's menu, script and footer, and one written by hand
with the citation shapes of exported reports (``<sup>`` numbers that jump to their entry, linked ``[n]``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.importers import import_outputs, read_documents
from surge_dataset.importers.html import html_markdown
from surge_dataset.survey import parse_survey
from tests.test_importer_real_outputs import GENERATED, HAND_COUNTS

pytest.importorskip("markdownify", reason="--format html needs markdownify (pip install 'surge-bench[html]')")

runner = CliRunner()
ONYX = GENERATED / "deepresearch" / "onyx_auction" / "56.md"


@pytest.fixture(scope="module")
def data(sample_dataset) -> SurgeData:
    return SurgeData.open(sample_dataset)


def _saved_page(body: str) -> str:
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Report</title><style>p{margin:0}</style>"
            "<script>window.state = {\"cite\": \"[9]\"};</script></head><body><nav><a href=\"/\">Home</a> "
            f"<a href=\"/new\">New chat [2]</a></nav><article>{body}</article><footer>Share [3]</footer></body></html>")


def test_a_rendered_real_report_reads_as_its_markdown_did(data, tmp_path, monkeypatch):
    """Onyx's report rendered to HTML: headings, the 76 linked numbers and their 15 URLs come back as the hand
    counts of the Markdown say; the page's menu, script and footer are no part of the survey."""
    monkeypatch.setenv("SURGE_OFFLINE", "1")
    (tmp_path / "in" / "1").mkdir(parents=True)
    body = MarkdownIt("commonmark").render(ONYX.read_text(encoding="utf-8"))
    (tmp_path / "in" / "1" / "report.html").write_text(_saved_page(body), encoding="utf-8")
    record = import_outputs("html", tmp_path / "in", data, tmp_path / "out").surveys[0]
    counted = (record["headings"], record["citations"], record["references"], record["citations_without_entry"])
    assert counted == HAND_COUNTS["deepresearch", "onyx_auction", "markdown"]
    text = (tmp_path / "out" / "1" / "survey.md").read_text(encoding="utf-8")
    assert len({c.number for c in parse_survey(text, protocol="paper").citations}) == 15
    assert text.startswith("# Query ID: 56\n") and "Home" not in text and "Share" not in text and "window" not in text
    assert "## 6) Practical “general methods” when no closed form exists" in text


PAGE = """<h1>Message Passing at Scale</h1>
<p>Expressive power grows<sup><a href="#ref-1">1</a></sup> and batching helps<sup>2, 3</sup>; see also
<a href="https://arxiv.org/abs/1905.07953">[4]</a> and the interval [0, 1] of <a href="https://example.org">a page</a>.</p>
<h2>Depth</h2><h3>Three</h3><h4>Four</h4><h5>Five</h5><h6>Six</h6>
<p>Deep<sup><a href="#ref-2">[2]</a></sup> and <em>sampled</em> graphs.</p>
<h2>References</h2>
<ol>
<li id="ref-1">Weisfeiler-Lehman Meets Graph Neural Networks: Higher-Order Expressivity</li>
<li id="ref-2">Cluster-Based Mini-Batch Training for Large Graph Convolutional Networks</li>
<li id="ref-3">GraphSAINT: Graph Sampling Based Inductive Learning Method</li>
<li id="ref-4"><a href="https://arxiv.org/abs/1905.07953">Cluster-GCN</a></li>
</ol>"""


def test_headings_superscripts_and_linked_numbers_of_a_saved_page(data, tmp_path, monkeypatch):
    monkeypatch.setenv("SURGE_OFFLINE", "1")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "0.html").write_text(_saved_page(PAGE), encoding="utf-8")
    record = import_outputs("html", tmp_path / "in", data, tmp_path / "out").surveys[0]
    text = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8")
    assert [line for line in text.splitlines() if line.startswith("#")] == [
        "# Message Passing at Scale", "## Depth", "### Three", "#### Four", "##### Five", "###### Six", "# References"]
    # the conversion keeps <sup> (its jump link read as the number) and a linked [4]: forms the citation reader knows
    converted = html_markdown(_saved_page(PAGE))
    assert "grows<sup>1</sup> and batching helps<sup>2, 3</sup>; see also\n[[4]](https://arxiv.org/abs/1905.07953)" in (
        converted) and "Deep<sup>[2]</sup>" in converted
    # which the import writes as citations of the page's list; [0, 1] and a titled link stay as they are
    assert "grows[1] and batching helps[2][3]; see also\n[4] and the interval [0, 1] of [a page](https://example.org)." in (
        text) and "Deep[2] and *sampled* graphs." in text
    assert (record["headings"], record["citations"], record["references"], record["citations_without_entry"]) == (
        6, 5, 4, 0)
    assert text.endswith("[1] Weisfeiler-Lehman Meets Graph Neural Networks: Higher-Order Expressivity\n"
                         "[2] Cluster-Based Mini-Batch Training for Large Graph Convolutional Networks\n"
                         "[3] GraphSAINT: Graph Sampling Based Inductive Learning Method\n[4] Cluster-GCN\n")


def test_an_html_file_under_another_format_says_to_use_html(sample_dataset, tmp_path):
    (tmp_path / "in" / "0").mkdir(parents=True)
    (tmp_path / "in" / "0" / "report.html").write_text(_saved_page(PAGE), encoding="utf-8")
    [(source, reason)] = list(read_documents("markdown", tmp_path / "in"))
    assert source.endswith("0") and "an HTML page (report.html), not Markdown: import it with --format html" in reason
    for fmt in ("markdown", "llmxmr", "pdf", "latex", "storm"):
        [(source, reason)] = list(read_documents(fmt, tmp_path / "in" / "0" / "report.html"))
        assert "an HTML page (report.html), not Markdown: import it with --format html" in reason, fmt
    done = runner.invoke(app, ["import", "--help"], env={"COLUMNS": "300"})
    assert "html" in " ".join(done.output.split())


def test_a_folder_of_html_reports_names_each_by_its_folder(tmp_path):
    for name in ("0", "1"):
        (tmp_path / "in" / name).mkdir(parents=True)
        (tmp_path / "in" / name / "saved.htm").write_bytes(
            f"<html><head><meta charset='windows-1252'></head><body><h1>Caf\xe9 {name}</h1><p>Text [1].</p>"
            "</body></html>".encode("cp1252"))
    (tmp_path / "in" / "2").mkdir()
    items = list(read_documents("html", tmp_path / "in"))
    assert items[0] == (str(tmp_path / "in" / "2"), "no .html or .htm file")
    assert [(d.key, d.title) for d in items[1:]] == [("0", "Café 0"), ("1", "Café 1")]  # the declared encoding
    assert Path(items[1].source).name == "saved.htm"


def test_without_markdownify_the_import_says_which_extra_to_install(sample_dataset, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "markdownify", None)  # an import of it fails, as when it is not installed
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "0.html").write_text(_saved_page(PAGE), encoding="utf-8")
    done = runner.invoke(app, ["import", str(tmp_path / "in"), "--format", "html", "--data", str(sample_dataset),
                               "--out", str(tmp_path / "out")], env={"COLUMNS": "300"})
    assert done.exit_code == 2 and not (tmp_path / "out").exists()
    assert "--format html needs markdownify: pip install 'surge-bench[html]'" in " ".join(done.output.split())
