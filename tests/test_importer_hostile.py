"""Hostile inputs at ``surge import``, one shape per test, each one a report that used to crash, hang or rewrite text
that is no citation (found by tests/test_importer_fuzz.py and by hand). Counts are by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surge_dataset import SurgeData
from surge_dataset.importers import import_outputs, read_documents
from surge_dataset.importers.links import LinkOptions
from surge_dataset.importers.quality import quality_notes

SURVEY0 = "Graph Neural Networks: A Survey of Architectures, Expressive Power and Applications"
WL = "Weisfeiler-Lehman Meets Graph Neural Networks: Higher-Order Expressivity"
CLUSTER = "Cluster-Based Mini-Batch Training for Large Graph Convolutional Networks"
OFF = LinkOptions(lookup=False, cache_dir=False)
LIST = f"\n\n## References\n\n[1] {WL}\n[2] {CLUSTER}\n"


@pytest.fixture(scope="module")
def data(sample_dataset) -> SurgeData:
    return SurgeData.open(sample_dataset)


def _import(data, tmp_path: Path, text: str, fmt: str = "markdown", name: str = "report.md"):
    folder = tmp_path / "in" / "0"
    folder.mkdir(parents=True)
    (folder / name).write_text(text, encoding="utf-8")
    report = import_outputs(fmt, tmp_path / "in", data, tmp_path / "out", links=OFF)
    written = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8") if report.surveys else ""
    return report, written


# ------------------------------------------------------------------------------------------ text that is no citation


def test_superscripts_after_a_digit_dollar_or_backslash_and_parts_of_a_group_stay_text(data, tmp_path):
    """``10²`` is a power; ``$²$²`` written ``$[2]$[2]`` would become math, ``\\²`` written ``\\[2]`` display math; `` ⁴,¹``
    and ``¹˒²0`` are read whole or not at all (their ``¹`` alone is no citation)."""
    report, text = _import(data, tmp_path, f"# {SURVEY0}\n\n## Body\n\nA 10² speedup, $²$², \\² and ⁴,¹ and ¹˒²0; "
                                           f"studies¹ hold.{LIST}")
    assert "A 10² speedup, $²$², \\² and ⁴,¹ and ¹˒²0; studies[1] hold." in text
    assert report.surveys[0]["citations"] == 1


def test_a_mark_before_a_parenthesis_stays_a_citation(data, tmp_path):
    """``<sup>2</sup>(see`` written ``[1](see`` would be a link's text to the evaluator: a space keeps it a citation."""
    report, text = _import(data, tmp_path, f"# {SURVEY0}\n\n## Body\n\nShown<sup>2</sup>(see below) and ¹(a).{LIST}")
    assert "Shown[1] (see below) and ¹(a)." in text  # the ¹ after a space is no mark
    record = report.surveys[0]
    assert record["citations"] == 1 and record["evaluate_counts"]["paper"]["citations"] == 1


def test_an_escaped_parenthesis_is_no_author_year_citation(data, tmp_path):
    report, text = _import(data, tmp_path, f"# {SURVEY0}\n\n## Body\n\nMath \\(Smith, 2020) and (Smith, 2020).\n\n"
                                           f"## References\n\nSmith, J. (2020). {WL}.\n")
    assert "Math \\(Smith, 2020) and [1]." in text
    assert report.surveys[0]["citations"] == 1


def test_placeholder_characters_in_the_source_stay_text(data, tmp_path):
    """The citation pass's private characters in the text itself: ``\\x02 0 \\x03`` raised IndexError, ``\\x00 7 \\x01``
    was written ``[7]``."""
    report, text = _import(data, tmp_path, f"# {SURVEY0}\n\n## Body\n\nA `\x020\x03` b \x025\x03 c \x007\x01 d "
                                           f"[[2]](https://e.org/x) e [1].{LIST}")
    assert "A `\x020\x03` b \x025\x03 c \x007\x01 d [1] e [2]." in text
    assert report.surveys[0]["citations"] == 2


def test_a_url_entry_of_a_numbered_list_is_written_with_one_number(data, tmp_path):
    """``[1] https://...`` (no title) was written ``[1] [1] https://...``, a line that imports again as another."""
    _, text = _import(data, tmp_path, f"# {SURVEY0}\n\n## Body\n\nSee [1].\n\n## References\n\n"
                                      f"[1] https://example.org/page\n")
    assert text.endswith("# References\n\n[1] https://example.org/page\n")


def test_a_linked_number_to_an_angle_bracketed_url_with_a_space(data, tmp_path):
    """``[[1]](<https://e.org/y z>)`` is a linked citation (the evaluator reads its [1]); its entry is one address."""
    report, text = _import(data, tmp_path, f"# {SURVEY0}\n\n## Body\n\nSee [[1]](<https://e.org/y z>).\n")
    assert text.endswith("See [1].\n\n# References\n\n[1] https://e.org/y%20z\n")
    assert report.surveys[0]["citations"] == report.surveys[0]["evaluate_counts"]["paper"]["citations"] == 1


def test_math_opened_in_one_section_protects_nothing_in_the_next(data, tmp_path):
    """The evaluator reads citations section by section: ``\\[`` here and ``\\]`` under the next heading is no math."""
    report, text = _import(data, tmp_path, f"# {SURVEY0}\n\n## A\n\nOpen \\[ and [2].\n\n## B\n\nClose \\] and [1].{LIST}")
    assert "Open \\[ and [1].\n\n## B\n\nClose \\] and [2]." in text
    record = report.surveys[0]
    assert record["citations"] == record["evaluate_counts"]["paper"]["citations"] == 2


def test_a_bracketed_number_inside_a_title_starts_no_entry(data, tmp_path):
    """In a ``[n]`` list an inner ``[m]`` starts an entry only when it numbers a later one (a PDF line of several)."""
    [doc] = read_documents("markdown", _write(tmp_path, "# T\n\n## A\n\nx [6]\n\n## References\n\n"
                                                        "[5] A title. [7] Next title.\n[6] Why [1] Is Not a Citation?\n"))
    assert sorted(doc.references, key=int) == ["5", "6", "7"]
    assert doc.references["6"].raw == "[6] Why [1] Is Not a Citation?"


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "0.md").write_text(text, encoding="utf-8")
    return tmp_path / "in"


# ------------------------------------------------------------------------------------------ code fences


def test_lines_after_a_fence_left_open_are_no_reference_list(data, tmp_path):
    report, text = _import(data, tmp_path, f"# {SURVEY0}\n\n## Body\n\nText.\n\n```\ncode\n\n[1] {WL}\n")
    record = report.surveys[0]
    assert (record["references"], record["evaluate_counts"]["paper"]["references"]) == (0, 0)
    assert text.endswith(f"```\ncode\n\n[1] {WL}\n")


def test_a_fence_left_open_is_closed_before_the_written_list(data, tmp_path):
    report, text = _import(data, tmp_path, f"# {SURVEY0}\n\n## Body\n\nText [1].\n\n## References\n\n[1] {WL}\n\n"
                                           f"## Appendix\n\n```\ncode")
    assert text.endswith(f"## Appendix\n\n```\ncode\n```\n\n# References\n\n[1] {WL}\n")
    record = report.surveys[0]
    assert (record["references"], record["evaluate_counts"]["paper"]["references"]) == (1, 1)
    assert "a code fence left open at the end of the text is closed before the reference list" in record["notes"]


# ------------------------------------------------------------------------------------------ hangs


def test_a_line_of_emphasis_marks_is_read_at_once():
    """A last line of 40 ``*`` then a letter took minutes (a regex anchored at the line's end backtracked)."""
    notes = quality_notes("# A\n\n" + "*" * 40 + "x\n\n# B\n\na" + " *" * 50_000 + " y\n", 0, 0)
    assert [c["section"] for c in notes["cut_mid_sentence"]] == ["A", "B"]
    assert notes["cut_mid_sentence"][0]["ends"] == "*" * 40 + "x"


def test_thousands_of_linked_citations(data, tmp_path):
    """Each linked citation was checked against every protected span (3,000 links: 9 million checks)."""
    body = " ".join(f"s [[{i % 2 + 1}]](https://e.org/{i}) `c [{i}]`" for i in range(3000))
    report, text = _import(data, tmp_path, f"# {SURVEY0}\n\n## Body\n\n{body}{LIST}")
    assert report.surveys[0]["citations"] == 3000 and report.surveys[0]["references"] == 2
    assert "s [1] `c [0]` s [2] `c [1]`" in text


# ------------------------------------------------------------------------------------------ JSON and names


def test_json_lines_holding_a_line_separator_lose_no_record(data, tmp_path):
    """``ensure_ascii=False`` writes U+2028 / U+0085 raw inside a string; splitlines() cut every record in two."""
    record = {"content": f"# {SURVEY0}\n\n## A\n\nLine\u2028sep\x85 [1].\n\n## References\n\n[1] {WL}"}
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(record, ensure_ascii=False) for _ in range(2)) + "\n", encoding="utf-8")
    docs = list(read_documents("llmxmr", path))
    assert len(docs) == 2 and all("Line\u2028sep\x85 [1]." in doc.body for doc in docs)


@pytest.mark.parametrize(("text", "why"), [("[" * 100_000 + "]" * 100_000, "nested too deeply"),
                                           ('{"content": "x", "n": ' + "1" * 5000 + "}", "4300 digits")])
def test_json_that_python_refuses_is_a_skip_naming_the_file(tmp_path, text, why):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    [(source, reason)] = list(read_documents("llmxmr", path))
    assert source == str(path) and reason.startswith("neither JSON nor JSON lines") and why in reason


def test_superscript_digits_as_numbers_and_names_are_refused_not_raised(data, tmp_path):
    """``"²".isdigit()`` is true and ``int("²")`` raises: STORM's index, Co-STORM's keys and survey ids."""
    run = tmp_path / "in" / "topic"
    run.mkdir(parents=True)
    (run / "storm_gen_article_polished.txt").write_text("# Summary\n\nText [1].\n", encoding="utf-8")
    (run / "url_to_info.json").write_text(json.dumps({"url_to_unified_index": {"https://a": "²"}}), encoding="utf-8")
    [(_, reason)] = list(read_documents("storm", tmp_path / "in"))
    assert "numbers 'https://a' as '²'" in reason
    (tmp_path / "md" / "²").mkdir(parents=True)
    (tmp_path / "md" / "²" / "report.md").write_text(f"# Unknown title\n\n## A\n\nText [1].{LIST}", encoding="utf-8")
    report = import_outputs("markdown", tmp_path / "md", data, tmp_path / "out", links=OFF)
    assert not report.surveys and report.skipped[0]["source"].endswith("report.md")


def test_a_latex_source_holding_the_mark_word_keeps_its_text(data, tmp_path):
    """The citation commands become a mark word while the LaTeX reader runs; a source that holds that word itself
    (``SURGECITEMARK7Q``) raised IndexError, and ``SURGECITEMARK0Q`` was read as the first citation."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "main.tex").write_text(
        "\\documentclass{article}\\title{" + SURVEY0 + "}\\begin{document}\\maketitle\n\\section{Body}\n"
        "Text SURGECITEMARK7Q and SURGECITEMARK0Q and a citation \\cite{wl2023}.\n"
        "\\begin{thebibliography}{1}\\bibitem{wl2023} A. Author. " + WL + ". 2023.\\end{thebibliography}\n"
        "\\end{document}\n", encoding="utf-8")
    report = import_outputs("latex", tmp_path / "in" / "main.tex", data, tmp_path / "out", links=OFF)
    text = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8")
    assert "Text SURGECITEMARK7Q and SURGECITEMARK0Q and a citation [1]." in text
    assert report.surveys[0]["citations"] == 1


def test_an_html_page_nested_too_deeply_is_a_skip_naming_it(tmp_path):
    pytest.importorskip("markdownify", reason="--format html needs the html extra (markdownify)")
    (tmp_path / "in").mkdir()
    page = tmp_path / "in" / "report.html"
    page.write_text("<html><body><h1>T</h1>" + "<div>" * 2000 + "Text [1]." + "</div>" * 2000 + "</body></html>",
                    encoding="utf-8")
    [(source, reason)] = list(read_documents("html", tmp_path / "in"))
    assert source == str(page) and reason.startswith("an HTML page nested too deeply for markdownify")


def test_a_number_inside_a_link_text_is_renumbered_with_the_others(data, tmp_path):
    """The evaluator reads the [1] of ``[see [1] here](url)``: left as written, it cited the renumbered list's [1]."""
    report, text = _import(data, tmp_path, f"# {SURVEY0}\n\n## Body\n\nText [2] and [see [1] here](https://e.org/x)."
                                           f"{LIST}")
    assert "Text [1] and [see [2] here](https://e.org/x)." in text
    record = report.surveys[0]
    assert record["citations"] == record["evaluate_counts"]["paper"]["citations"] == 2
