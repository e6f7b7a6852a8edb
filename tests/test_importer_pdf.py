"""`surge import --format pdf` on PDFs the test writes itself (one page of Helvetica text per page, written by hand;
the outline added with pypdf's own writer): headings from the outline when there is one, else from numbered heading
lines; the numbered reference list split per entry, wrapped lines joined."""

from __future__ import annotations

import pytest

from surge_dataset import SurgeData
from surge_dataset.importers import import_outputs
from surge_dataset.importers.links import LinkOptions

pypdf = pytest.importorskip("pypdf")

OFF = LinkOptions(lookup=False, cache_dir=False)
WL = "Weisfeiler-Lehman Meets Graph Neural Networks: Higher-Order Expressivity"
CLUSTER = "Cluster-Based Mini-Batch Training for Large Graph Convolutional Networks"


def _pdf(pages: list[list[str]]) -> bytes:
    """A minimal valid PDF: one page per list of lines, each line set in Helvetica 11 pt, 14 pt apart."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"", b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for lines in pages:
        shown = b"".join(b"(" + line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")
                         + b") Tj T* " for line in lines)
        stream = b"BT /F1 11 Tf 14 TL 56 780 Td " + shown + b"ET"
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> "
                       b"/Contents %d 0 R >>" % (len(objects)))
        kids.append(len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


PAGES = [
    ["Graph Neural Networks: A Survey of Architectures, Expressive Power and Applications",
     "1 Introduction", "Message passing networks [1] are popular.", "2 Expressive power",
     "Higher-order networks [1, 2] go further than the", "Weisfeiler-Lehman test of isomorphism."],
    ["2.1 Batching", "Cluster sampling [2] makes training scale.", "References",
     f"[1] {WL[:40]}", WL[40:], f"[2] {CLUSTER}"],
]


@pytest.fixture(scope="module")
def data(sample_dataset) -> SurgeData:
    return SurgeData.open(sample_dataset)


def test_pdf_without_outline_numbered_headings_and_the_reference_list(data, tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "0.pdf").write_bytes(_pdf(PAGES))
    report = import_outputs("pdf", tmp_path / "in", data, tmp_path / "out", links=OFF)
    record = report.surveys[0]
    text = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8")
    assert "# 1 Introduction\n" in text and "# 2 Expressive power\n" in text and "## 2.1 Batching\n" in text
    assert (record["headings"], record["citations"], record["references"], record["citations_without_entry"]) == (
        3, 4, 2, 0)
    assert record["resolved_exact"] == 2  # the entry wrapped over two lines is one entry
    assert text.endswith(f"# References\n\n[1] {WL}\n[2] {CLUSTER}\n")
    assert any("numbered heading lines (it has no outline)" in note for note in record["notes"])


def test_pdf_outline_gives_the_headings(data, tmp_path):
    pages = [["Overview", "Message passing networks [1] are popular."],
             ["Scaling up", "Cluster sampling [2] makes training scale.", "References", f"[1] {WL}", f"[2] {CLUSTER}"]]
    (tmp_path / "plain.pdf").write_bytes(_pdf(pages))
    writer = pypdf.PdfWriter(clone_from=str(tmp_path / "plain.pdf"))
    top = writer.add_outline_item("Overview", 0)
    writer.add_outline_item("Scaling up", 1, parent=top)
    (tmp_path / "in" / "0").mkdir(parents=True)
    with open(tmp_path / "in" / "0" / "survey.pdf", "wb") as handle:
        writer.write(handle)
    record = import_outputs("pdf", tmp_path / "in", data, tmp_path / "out", links=OFF).surveys[0]
    text = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8")
    assert text.startswith("# Overview\n") and "\n## Scaling up\n" in text
    assert (record["headings"], record["citations"], record["references"]) == (2, 2, 2)


def test_a_file_that_is_no_pdf_is_skipped_with_the_reason(data, tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "0.pdf").write_bytes(b"%PDF-1.4\nnot really\n")
    report = import_outputs("pdf", tmp_path / "in", data, tmp_path / "out", links=OFF)
    assert report.surveys == [] and report.skipped[0]["reason"].startswith(("not a readable PDF", "a PDF without"))
