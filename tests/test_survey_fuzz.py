"""Hostile generated surveys at the survey reader (Hypothesis): Markdown built from the shapes generators write
(headings of every level, empty and fenced ones, citation groups of every form, math, code, links, tables, HTML,
reference lists with repeats and holes, NUL bytes, odd encodings and line ends, unclosed fences and math). The
reader never raises, its counts are consistent, and the structures it builds stay linear in the input (shared
sentences, capped diagnostics); the linear-time scanners agree with the patterns that define them. Worst-case
inputs are timed by hand (``benchmarks/``), never here."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surge_dataset.survey import citation_groups, decode_survey_bytes, parse_survey, read_survey_file
from surge_dataset.survey.decode import SurveyTooLargeError
from surge_dataset.survey.diagnostics import MAX_DIAGNOSTICS_PER_CODE
from surge_dataset.survey.entry_scan import first_emphasis, first_quoted, replace_links
from surge_dataset.survey.headings import _WRAPPING_EMPHASIS_RE, ATX_HEADING_RE, strip_wrapping_emphasis
from surge_dataset.survey.paper_parse import (
    _EMPHASIS_RE,
    _QUOTED_TITLE_RE,
    MARKDOWN_LINK_RE,
    PAPER_REFERENCE_RE,
)
from surge_dataset.survey.whole_titles import whole_reference_titles

FUZZ = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

numbers = st.sampled_from(["1", "2", "3", "0", "007", "42", "1000000000", "99999999999999999999", "9" * 1200])
groups = st.one_of(
    numbers.map(lambda n: f"[{n}]"),
    st.tuples(numbers, numbers).map(lambda p: f"[{p[0]}-{p[1]}]"),
    st.lists(numbers, min_size=1, max_size=4).map(lambda ns: "[" + ", ".join(ns) + "]"),
    st.sampled_from(["[1,2,,3]", "[ 1 ; 2 ]", "[^3]", "[1][2]", "[1-1000000000]", "[3](http://x/[4])", "[", "]"]),
)
inline = st.one_of(
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12),
    groups,
    st.sampled_from(["$x [1]$", "$$", "\\(", "\\)", "\\[ [2] \\]", "`[3]`", "``", "`", "](", "(", ")", "*", "**",
                     "_", "\u201c", "\u201d", '"', "e.g.", ". ", "? ", "\x00", "\t", "  ", "<div>[5]</div>",
                     "| [6] | x |", "(2020)", "et al.", "\u2028", "\x0c", "\ufeff"]),
)
paragraph = st.lists(inline, max_size=10).map("".join)
block = st.one_of(
    paragraph,
    st.tuples(st.integers(0, 8), paragraph).map(lambda p: "#" * p[0] + " " + p[1]),
    st.sampled_from(["#", "# ", "#######", "####### deep", "Title\n=====", "Sub\n-----", "```", "~~~", "```python",
                     "$$", "<table><tr><td>[7]</td></tr></table>", "- [8] a\n  - [9] b\n    - c", "1. [1] x",
                     "## References", "**References:**", "Bibliography", "---", ""]),
    st.tuples(numbers, paragraph).map(lambda p: f"[{p[0]}] {p[1]}"),
)
markdown = st.lists(block, max_size=25).map("\n".join)
line_ends = st.sampled_from(["\n", "\r\n", "\r"])


def _check(text: str | bytes, protocol: str) -> None:
    survey = parse_survey(text, protocol=protocol)
    for citation in survey.citations:
        assert isinstance(citation.number, int) and citation.number >= 0
        if protocol == "paper":
            assert citation.number > 0  # a group holding 0 is no citation
    assert all(isinstance(n, int) and n >= 0 and r.number == n for n, r in survey.references.items())
    codes: dict[str, int] = {}
    for item in survey.diagnostics:
        codes[item.code] = codes.get(item.code, 0) + 1
    assert all(count <= MAX_DIAGNOSTICS_PER_CODE + 1 for count in codes.values())
    # one string per sentence, shared by its citations: the sentences held add up to no more than the text (a line
    # of 200,000 [1] once held one copy of itself per citation)
    sentences = {id(c.sentence): len(c.sentence) for c in survey.citations}
    assert sum(sentences.values()) <= len(text)
    survey.headings()
    survey.content_sections()
    survey.heading_markdown()
    whole_reference_titles(text, survey)


@FUZZ
@given(markdown, line_ends, st.sampled_from(["official", "paper"]))
def test_generated_markdown_never_raises(text, newline, protocol):
    _check(text.replace("\n", newline), protocol)


@FUZZ
@given(markdown, st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32", "cp1252", "latin-1"]),
       st.binary(max_size=8), st.sampled_from(["official", "paper"]))
def test_survey_bytes_in_any_encoding_never_raise(text, encoding, noise, protocol):
    data = text.encode(encoding, errors="replace")
    for cut in (data, data + noise, noise + data, data[:-1]):  # noise: invalid UTF-8, lone surrogates, cut chars
        decoded, _ = decode_survey_bytes(cut)
        assert isinstance(decoded, str) and "\r" not in decoded
        _check(cut, protocol)


@FUZZ
@given(markdown)
def test_citations_in_fenced_code_are_not_counted(text):
    fenced = "# Section\n```\n" + text.replace("```", "").replace("~~~", "") + " [1] [2, 3]\n```\nOnly [4] here.\n"
    survey = parse_survey(fenced, protocol="paper")
    assert [c.number for c in survey.citations] == [4]


@FUZZ
@given(st.lists(inline, max_size=40).map("".join))
def test_linear_scanners_agree_with_their_patterns(text):
    assert replace_links(text) == MARKDOWN_LINK_RE.sub(r"\1", text)
    for anchored in (False, True):
        match = (_EMPHASIS_RE.match if anchored else _EMPHASIS_RE.search)(text)
        assert first_emphasis(text, anchored=anchored) == (match.group(2) if match else None)
    match = _QUOTED_TITLE_RE.search(text)
    assert first_quoted(text) == (match.group(1) if match else None)
    expected = text.strip()
    while (wrapped := _WRAPPING_EMPHASIS_RE.match(expected)) is not None:
        expected = wrapped.group(2).strip()
    assert strip_wrapping_emphasis(text) == expected


@FUZZ
@given(st.lists(st.sampled_from(["#", " ", "\t", "a", "#a", "[1]", ".", "*", "\n"]), max_size=30).map("".join))
def test_heading_and_entry_patterns_keep_their_lazy_matches(text):
    """The patterns were rewritten to stop only after a non-space (linear on long runs of spaces); the old lazy
    forms are the definition."""
    for new, old in ((ATX_HEADING_RE, r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$"),
                     (PAPER_REFERENCE_RE, r"^\s*(?:[-*+]\s+)?\[\^?(\d+)\]\s*[:.)]?\s*(.*?)\s*$")):
        got, want = new.match(text), re.match(old, text)
        assert (got and got.groups()) == (want and want.groups())


@pytest.mark.parametrize("protocol", ["official", "paper"])
@pytest.mark.parametrize("shape", [
    "`x` ", "$x$ ", "$x ", "](x ", "\\(x ", "\\[x ", "`` ` ", "*a ", "\u201ca ", "[", " ",
])
def test_long_degenerate_lines_are_read(shape, protocol):
    """A generator looping on one token for a whole line: before, each of these made one pattern rescan the rest
    of the line from every token (quadratic, minutes for a megabyte); the line is now read once. Counted by hand:
    the one prose citation [2] and the entry [1]."""
    text = f"# A\nSee [2]. {shape * 20000}\n\n# References\n[1] Title {shape * 20000}\n[2] Other title\n"
    survey = parse_survey(text, protocol=protocol)
    cited = [c.number for c in survey.citations if c.node_title == "A"]
    assert cited == [2]
    assert 2 in survey.references


def test_repeated_entries_keep_a_bounded_number_of_diagnostics():
    """300 repeats of [1]: 299 duplicate_reference_number diagnostics, of which the first 100 are listed and one
    more says 199 were left out."""
    survey = parse_survey("# A\n" + "[1] Title\n" * 300, protocol="paper")
    duplicates = [d for d in survey.diagnostics if d.code == "duplicate_reference_number"]
    assert len(duplicates) == MAX_DIAGNOSTICS_PER_CODE + 1 == 101
    assert duplicates[-1].message.startswith("199 more duplicate_reference_number")


def test_fences_are_lines_as_the_heading_tree_cuts_them():
    r"""``\f`` and ``\u2028`` are no line break for the heading tree, so a fence after one opens no code block:
    the citation after it is counted (``str.splitlines`` cut there and hid it)."""
    survey = parse_survey("# A\nSee [3].\u2028```\nthen [4].", protocol="paper")
    assert [c.number for c in survey.citations] == [3, 4]
    assert [g.numbers for g in citation_groups("a\x0c```\n[5]")] == [(5,)]
    assert [g.numbers for g in citation_groups("a\r```\n[5]\r\n```\n[6]")] == [(6,)]  # \r is a line break


def test_wide_byte_order_marks_are_decoded():
    assert decode_survey_bytes("# T [1]".encode("utf-32")) == ("# T [1]", [])
    text, diagnostics = decode_survey_bytes("# T [1]".encode("utf-16") + b"\x00")  # a cut last character
    assert text.startswith("# T [1]") and [d.code for d in diagnostics] == ["decode_fallback"]
    text, diagnostics = decode_survey_bytes("# T".encode("utf-16-le"))  # no byte-order mark: NULs, said so
    assert [d.code for d in diagnostics] == ["nul_characters"] and "3 NUL" in diagnostics[0].message


def test_a_survey_file_over_the_limit_is_refused_unread(tmp_path):
    big = tmp_path / "survey.md"
    with big.open("wb") as handle:  # sparse: 2 GB on paper, nothing on disk
        handle.truncate(2 * 1024**3)
    with pytest.raises(SurveyTooLargeError, match=r"survey\.md: 2,147,483,648 bytes, over the 33,554,432-byte"):
        read_survey_file(big)
    small = tmp_path / "small.md"
    small.write_bytes(b"# A\n" + b"x" * 100)
    with pytest.raises(SurveyTooLargeError, match="104 bytes, over the 50-byte limit"):
        read_survey_file(small, max_bytes=50)
    assert read_survey_file(small, max_bytes=None)[0].startswith("# A")


def test_a_survey_folder_without_a_file_says_what_it_holds(tmp_path):
    from surge_dataset.evaluation.prepare import discover_passages

    (tmp_path / "1" / "survey.md").mkdir(parents=True)  # a folder named like the survey
    (tmp_path / "2").mkdir()
    (tmp_path / "2" / "survey.md").symlink_to("survey.md")  # a link to itself
    found, failures = discover_passages(tmp_path)
    assert found == []
    assert [f["error"] for f in failures] == ["folder holds no file (survey.md: a folder)",
                                             "folder holds no file (survey.md: a link that leads nowhere or loops)"]
