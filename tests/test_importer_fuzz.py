"""Hostile and random reports at ``surge import`` (Hypothesis): Markdown built from what deep-research agents and survey
generators write (linked numbers, superscripts, footnotes, author-year, keys, math, code, links with odd URLs,
tables, HTML, reference lists of every shape), and JSON lines around it.

The importer's promise, checked on each one: no traceback (a bad input is a skip naming its file); the written body
equals the source's outside the citation marks (code, math, link texts and URLs byte for byte); the report's counts
agree with each other and with what ``surge evaluate`` reads back; importing the written survey again changes nothing.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surge_dataset import SurgeData
from surge_dataset.importers import import_outputs, read_markdown
from surge_dataset.importers.links import LinkOptions
from surge_dataset.importers.marks import section_protected_spans
from tests.test_importer_citation_forms import _outside_marks

OFF = LinkOptions(lookup=False, cache_dir=False)
FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])

TITLES = ["Weisfeiler-Lehman Meets Graph Neural Networks: Higher-Order Expressivity",
          "Cluster-Based Mini-Batch Training for Large Graph Convolutional Networks",
          "A Study of Message Passing", "Attention Is All You Need", "Sampling in GNNs (Revisited)",
          "Why [1] Is Not a Citation?", "Deep Sets", "Graph Attention Networks"]
WORDS = ["graph", "networks", "pass", "messages", "The", "Results", "show", "Table", "Fig.", "2", "3.5", "m²", "e.g.",
         "(see", "below)", "balance.", "It", "H²O", "MS³-Conv", "[Structure]", "[0, 1]", "[0]", "cost", "$5", "and",
         "[Note]", "<span>[1]</span>", "[see [2] here](https://e.org/s)", "x", "Smith", "(2020)", "et", "al.", "version", "1.5", "\\[", "\\]", "*", "**bold**", "_it_", ":", ";"]
#: Text of every shape, to find what the grammar does not say.
TRICKY = st.text(alphabet="[]()$`*_#^\\<>{}!.,;:-~| \n\t²¹³⁴˒abcXYZ0129\u00a0\u2028@", max_size=14)
URLS = ["https://example.org/page", "https://e.org/a_(b)_c", "https://e.org/x#:~:text=a%20b,c", "<https://e.org/y z>",
        "https://e.org/q?a=[1]&b=(2)", "https://arxiv.org/abs/1706.03762", "https://en.wikipedia.org/wiki/Graph_(math)"]
#: Pieces the importer must copy byte for byte: code, math, links that cite nothing, HTML.
PROTECTED = ["`code [1] and [2]`", "``a `[3]` b``", "$[0, 1]$", "$x_{[1]}^2$", "$$\\sum_{i=1}^{[2]} x$$",
             "\\([1, 2]\\)", "[a page](https://example.org/p(1)#:~:text=[1])", "[Smith et al., 2020](https://e.org/s)",
             "[https://e.org/2068/](https://e.org/2068/)"]
FENCED = ["```python\nx = a[1] + b[2, 3]\n# References\n```", "~~~\n[1] not an entry\n(Smith, 2020)\n~~~",
          "$$\n[0, 1] \\times [1]\n$$"]


def marks(n: int) -> st.SearchStrategy[str]:
    """One citation mark of a form some generator writes, citing 1..n+2 (past the list's end now and then)."""
    num = st.integers(1, max(n, 1) + 2)
    sup = "⁰¹²³⁴⁵⁶⁷⁸⁹"
    return st.one_of(
        num.map(lambda k: f"[{k}]"), st.tuples(num, num).map(lambda p: f"[{p[0]}, {p[1]}]"),
        st.tuples(num, num).map(lambda p: f"[{min(p)}-{max(p)}]"), num.map(lambda k: f"[^{k}]"),
        st.tuples(num, st.sampled_from(URLS)).map(lambda p: f"[[{p[0]}]]({p[1]})"),
        st.tuples(num, st.sampled_from(URLS)).map(lambda p: f"[\\[{p[0]}\\]]({p[1]})"),
        st.tuples(num, st.sampled_from(URLS)).map(lambda p: f"[{p[0]}]({p[1]})"),
        st.sampled_from(URLS).map(lambda u: f"([Page title words]({u}))"),
        num.map(lambda k: f"<sup>{k}</sup>"), num.map(lambda k: "word" + "".join(sup[int(c)] for c in str(k))),
        num.map(lambda k: f"balance.{k} Next"),
        st.sampled_from(["(Smith et al., 2020)", "(Lee, 2019; Smith, 2020a)", "Lee (2019)", "[gao2023retrieval]",
                         "[@smith2020; @lee2019]", "[Smith et al.]"]))


@st.composite
def paragraphs(draw: st.DrawFn, n: int) -> str:
    pieces = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.integers(0, 9))
        if kind <= 3:
            pieces.append(draw(st.sampled_from(WORDS)))
        elif kind <= 5:
            pieces.append(draw(marks(n)))
        elif kind == 6:
            pieces.append(draw(st.sampled_from(PROTECTED)))
        else:
            pieces.append(draw(TRICKY))
    text = " ".join(pieces)
    shape = draw(st.integers(0, 7))
    if shape == 0:
        return f"| a | {text.replace(chr(10), ' ')} |\n|---|---|"
    if shape == 1:
        return f"- {text}"
    if shape == 2:
        return f"{text}\n\n{draw(st.sampled_from(FENCED))}"
    return text


def reference_list(n: int, style: int, author_year: bool) -> str:
    if author_year:
        return "## References\n\n" + "\n".join(
            f"{name}, J. ({year}). {TITLES[i % len(TITLES)]}." for i, (name, year) in
            enumerate([("Smith", "2020"), ("Lee", "2019"), ("Smith", "2020a"), ("Gao", "2023")][:n]))
    lines = [f"{TITLES[i % len(TITLES)]}" for i in range(n)]
    forms = [lambda i, t: f"[{i}] {t}", lambda i, t: f"{i}. {t}", lambda i, t: f"- [{i}] {t}",
             lambda i, t: f"[^{i}]: {t}", lambda i, t: f"[{i}] {t}\n[{i}] {t} (again)"]
    heading = ["## References", "# Bibliography", "**References:**", "", "## Works cited"][style % 5]
    body = "\n".join(forms[style % len(forms)](i, t) for i, t in enumerate(lines, 1))
    return f"{heading}\n\n{body}" if heading else body


@st.composite
def reports(draw: st.DrawFn) -> str:
    """A report as a deep-research agent or survey generator might write it (or worse)."""
    n = draw(st.integers(0, 6))
    parts = ["# Graph Neural Networks: A Survey of Architectures, Expressive Power and Applications"]
    for s in range(draw(st.integers(1, 4))):
        parts.append(draw(st.sampled_from(["## Findings", f"## Section {s} [1]", "Setext title\n---",
                                           "### Methods (Smith, 2020)", "## Results"])))
        parts.extend(draw(paragraphs(n)) for _ in range(draw(st.integers(1, 3))))
    if n:
        parts.append(reference_list(n, draw(st.integers(0, 9)), draw(st.booleans())))
    return "\n\n".join(parts) + draw(st.sampled_from(["\n", "", "\r\n", "\n\n\n"]))


@pytest.fixture(scope="module")
def data(sample_dataset) -> SurgeData:
    return SurgeData.open(sample_dataset)


def _import_text(data: SurgeData, root: Path, text: str, name: str = "in"):
    (root / name / "0").mkdir(parents=True)
    (root / name / "0" / "report.md").write_text(text, encoding="utf-8", newline="")
    report = import_outputs("markdown", root / name, data, root / f"{name}-out", links=OFF)
    written = Path(report.surveys[0]["output"]).read_text(encoding="utf-8") if report.surveys else None
    return report, written


def _written_body(written: str, references: int) -> str:
    return written.rsplit("\n\n# References\n\n", 1)[0] + "\n" if references else written


_URL = r"(?:<[^<>\n]*>|<?[^\s()<>]+(?:\([^\s()]*\)[^\s()<>]*)*>?)"
_LINKED_RE = re.compile(rf"\[\s*(?:(?:\\?\[\s*\d+\s*\\?\]\s*)+|\d+(?:\s*[,;]\s*\d+)*)\s*\]\(\s*{_URL}\s*\)"
                        rf"|\(\s*\[[^\[\]]*[^\W\d_][^\[\]]*\]\(\s*{_URL}\s*\)\s*\)")


def _extended_outside(text: str) -> str:
    """:func:`_outside_marks`, less the marks that become ``[n]`` without brackets in the source: ``<sup>`` numbers,
    Unicode superscript digits, author-year parentheses and brackets (``[Smith et al.]``), numeric groups with spaces
    inside (``[1 ]``), and linked numbers and source chips whose URL holds
    parentheses (``[[3]](https://e.org/a_(b))``, ``[3](url)``)."""
    text = _LINKED_RE.sub("", text)
    text = re.sub(r"\[\^?\s*\d+(?:\s*[-\u2013\u2014,;]\s*\d+)*\s*\](?!\()", "", text)  # "[1 ]", "[ 2, 3 ]"
    text = re.sub(r"\[\s*@[\w:.#&+/\-']+(?:\s*[,;]\s*@?[\w:.#&+/\-']+)*\s*\](?!\()", "", text)  # "[@a ]"
    text = re.sub(r"<sup>[^<]*</sup>", "", text)
    text = re.sub(r"[⁰¹²³⁴⁵⁶⁷⁸⁹]+(?:[,˒][⁰¹²³⁴⁵⁶⁷⁸⁹]+)*", "", text)
    text = re.sub(r"\([^()]*\b(?:19|20)\d{2}[a-z]?\b[^()]*\)", "", text)
    text = re.sub(r"\[[A-Z][\w'-]+(?:\s+et\s+al\.?|\s+(?:and|&)\s+[A-Z][\w'-]+)?(?:,?\s+(?:19|20)\d{2}[a-z]?)?\]", "", text)
    # "<sup>2</sup>(see" is written "[1] (see" ("[1](see" would be a link): a space before "(" is no change
    return _outside_marks(text).replace(" (", "(")


@FUZZ
@given(text=reports())
def test_a_random_report_keeps_its_text_and_counts(data, text):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        report, written = _import_text(data, root, text)
        if written is None:  # a skip names its input and says why
            assert report.skipped and all(s["source"] and s["reason"] for s in report.skipped)
            return
        record = report.surveys[0]
        source = read_markdown(text, "0", "x").body
        body = _written_body(written, record["references"])
        if any(note.startswith("a code fence left open") for note in record["notes"]):
            body = body.removesuffix("\n```\n") + "\n"
        assert _extended_outside(body) == _extended_outside(source)
        # code, math and link targets, by the evaluator's rule (section by section): byte for byte
        marked = [(m.start(), m.end()) for m in _LINKED_RE.finditer(source)]  # a citing link's target goes with it
        kept = [source[start:end] for start, end in section_protected_spans(source)
                if not any(s < end and start < e for s, e in marked)]
        for piece, times in Counter(kept).items():
            assert body.count(piece) >= times, piece
        assert 0 <= record["citations_without_entry"] <= record["citations"]
        listed = written[len(body):]
        assert len(re.findall(r"(?m)^\[\d+\] ", listed)) == record["references"]
        paper = record["evaluate_counts"]["paper"]
        if not record["references"] and _ENTRY_LIKE_RE.search(body):
            return  # no list written, and a line opening with [1]: evaluate may take it for the list
        assert (paper["headings"], paper["references"], paper["citations"]) == (
            record["headings"], record["references"], record["citations"])
        if record["citations_without_entry"] == 0:
            assert paper["citations_of_missing_numbers"] == 0
        if _SUPERSCRIPT_RE.search(body) or _INNER_NUMBER_RE.search(written[len(body):]):
            return  # superscripts are read only against a numbered list, which the written survey now has; a
            # written entry holding a later [m] is two entries to the reader's rule for PDF renderings
        again, rewritten = _import_text(data, root, written, name="again")
        assert rewritten == written
        assert again.surveys[0]["citations"] == record["citations"]


#: A line ``surge evaluate`` may take for a reference entry when no list is written (``- [1][2]``, ``[1] graph``).
_ENTRY_LIKE_RE = re.compile(r"(?m)^\s*(?:[-*+]\s+)?\[\d+\][^\n]*\S")
_INNER_NUMBER_RE = re.compile(r"(?m)^\[\d+\] .*\S\s*\[\d+\]\s*:?\s+\S")
#: Superscript digits, flattened ones among them (``word¹``, ``balance.1 Next``), left as text for want of a numbered
#: list in the source: the written survey has one, so importing it again may read them.
_SUPERSCRIPT_RE = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹]|[^\W\d_][.,;:!?\"*_)]+\d")


#: A JSON value of any shape, and the record a reader wants, to be torn, nested and mangled.
_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                     max_leaves=10)


@st.composite
def json_lines(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        report = draw(reports())
        record = {"content": report, "title": draw(st.text(max_size=10)), "survey_id": draw(_json),
                  "papers": draw(st.one_of(_json, st.just([{"title": "Deep Sets"}]))), "ref_str": draw(_json)}
        line = json.dumps(record, ensure_ascii=draw(st.booleans()))
        cut = draw(st.sampled_from(["whole", "torn", "other", "separators"]))
        if cut == "torn":
            line = line[: draw(st.integers(0, len(line)))]
        elif cut == "other":
            line = json.dumps(draw(_json))
        elif cut == "separators":
            line = line.replace("graph", "graph\u2028\x85\u2029")
        lines.append(line)
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"]))


@FUZZ
@given(text=json_lines())
def test_random_json_lines_are_read_or_skipped_with_a_reason(data, text):
    """No traceback: every line is a survey or a skip that names the file and the line's place in it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in" / "runs.jsonl"
        path.parent.mkdir()
        path.write_text(text, encoding="utf-8", newline="")
        report = import_outputs("llmxmr", path.parent, data, Path(tmp) / "out", links=OFF)
        assert all(s["source"].startswith(str(path)) and s["reason"] for s in report.skipped)
        assert all(0 <= s["citations_without_entry"] <= s["citations"] for s in report.surveys)
