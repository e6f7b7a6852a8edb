"""`surge import` of deep-research reports: linked numbers, superscripts, flattened superscripts, URL entries titled by
arXiv id / DOI through a local server replaying real recorded answers, JSON records under ``article``, refusals that
name what a file is, and the fresh split's ``.bbl`` shapes.

The report excerpts below are minimal reconstructions of the shapes quoted in the issue (Onyx / DeepResearch Bench
``[[3]](url)``, OpenAI Deep Research ``[\\[1\\]](url#:~:text=)``, Gemini Deep Research's flattened superscripts and
"Works cited" list), not copies of real outputs; the ``.bbl`` snippets likewise reconstruct the quoted natbib and
``naturemag`` shapes.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from surge_dataset import SurgeData
from surge_dataset.fresh.arxiv_ids import find_arxiv_id
from surge_dataset.fresh.bibliography import parse_bbl
from surge_dataset.importers import import_outputs, read_documents
from surge_dataset.importers.keys import key_citation
from surge_dataset.importers.links import LinkOptions
from tests.support.replay import ReplayServer
from tests.test_importer_real_outputs import GENERATED, RUNS

SURVEY0 = "Graph Neural Networks: A Survey of Architectures, Expressive Power and Applications"
WL = "Weisfeiler-Lehman Meets Graph Neural Networks: Higher-Order Expressivity"
CLUSTER = "Cluster-Based Mini-Batch Training for Large Graph Convolutional Networks"
OFF = LinkOptions(lookup=False, cache_dir=False)


@pytest.fixture(scope="module")
def data(sample_dataset) -> SurgeData:
    return SurgeData.open(sample_dataset)


def _import(data, tmp_path: Path, text: str, **kwargs):
    folder = tmp_path / "in" / "0"
    folder.mkdir(parents=True)
    (folder / "report.md").write_text(text, encoding="utf-8")
    report = import_outputs("markdown", tmp_path / "in", data, tmp_path / "out", links=kwargs.pop("links", OFF),
                            **kwargs)
    written = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8") if report.surveys else ""
    return report, written


def test_linked_numbers_without_a_list_cite_their_urls(data, tmp_path):
    report, text = _import(data, tmp_path, f"""# {SURVEY0}

## Findings

Expressive power grows [[3]](https://www.nejm.org/doi/full/10.1056/NEJMoa2034577) and again
[\\[1\\]](https://thebiogrid.org/search.php?q=ZNF#:~:text=) with two [[24][25]](https://realpython.com/x/#:~:text=).
The first source once more [[3]](https://www.nejm.org/doi/full/10.1056/NEJMoa2034577).
A plain [link to a page](https://example.org/page) cites nothing.
""")
    record = report.surveys[0]
    # hand count: 4 linked citations, 3 distinct URLs, no citation without an entry
    assert (record["citations"], record["references"], record["citations_without_entry"]) == (4, 3, 0)
    assert "grows [1] and again\n[2] with two [3].\nThe first source once more [1]." in text
    assert "A plain [link to a page](https://example.org/page) cites nothing." in text
    assert "[2] https://thebiogrid.org/search.php?q=ZNF\n" in text  # the text fragment is no part of the source
    assert record["link_entries"] == {"id": 0, "page": 0, "title": 0, "url": 3, "id_arxiv": 0, "id_crossref": 0, "id_openalex": 0}
    assert any("kept as their URL" in note and "--no-lookup" in note for note in record["notes"])


def test_linked_numbers_cite_the_numbered_list_when_it_has_the_entry(data, tmp_path):
    _, text = _import(data, tmp_path, f"""# {SURVEY0}

## Body

Known [[1]](https://arxiv.org/abs/1234.56789) and unlisted [[7]](https://example.org/seven).

## Sources

1. {WL}
""")
    assert "Known [1] and unlisted [2]." in text
    assert text.endswith(f"[1] {WL}\n[2] https://example.org/seven\n")


def test_sup_unicode_and_footnote_citations(data, tmp_path):
    report, text = _import(data, tmp_path, f"""# {SURVEY0}

## Body

Tagged<sup>2</sup> and grouped<sup>[1, 2]</sup>; unicode¹ and a power of 3 m² stays; footnote[^1].

## References

[1] {WL}
[2] {CLUSTER}
""")
    assert "Tagged[1] and grouped[2][1]; unicode[2] and a power of 3 m² stays; footnote[2]." in text
    assert report.surveys[0]["citations"] == 5


def test_unicode_superscripts_the_list_cannot_hold_stay_as_text_and_are_named(data, tmp_path):
    """``¹²`` over a list of two is superscript twelve, not [1][2]: left as written, and the report says so."""
    report, text = _import(data, tmp_path, f"""# {SURVEY0}

## Body

Known¹ and out of range¹² and a group¹˒³.

## References

[1] {WL}
[2] {CLUSTER}
""")
    assert "Known[1] and out of range¹² and a group¹˒³." in text
    record = report.surveys[0]
    assert record["citations"] == 1
    assert ("2 Unicode superscript(s) left as text, their numbers not all in the reference list: ¹² (12), ¹˒³ (1, 3)"
            in record["notes"])


def test_a_survey_cut_at_its_end_is_noted(data, tmp_path):
    """A generator stopped by its token limit leaves the last section mid-sentence, with no heading after it."""
    report, text = _import(data, tmp_path, f"""# {SURVEY0}

## Body

Message passing [1] is expressive.

## Outlook

Future work will study the way batching [2] interacts with the

## References

[1] {WL}
[2] {CLUSTER}
""")
    quality = report.surveys[0]["quality"]
    assert [c["section"] for c in quality["cut_mid_sentence"]] == ["Outlook"]
    assert quality["cut_mid_sentence"][0]["ends"].endswith("interacts with the")
    assert "interacts with the" in text


GEMINI = f"""# {SURVEY0}

## Findings

Message passing keeps the redox balance.2 It is bounded by Sty1.1 The test in Fig.2 is no citation, nor is
version 1.5 of it, and 3.14 stays a number.
The last claim closes a paragraph.2

#### **Works cited**

1. {WL}, accessed May 1, 2025, [https://arxiv.org/abs/1](https://arxiv.org/abs/1)
2. {CLUSTER}, accessed May 1, 2025, [https://pubmed.ncbi.nlm.nih.gov/15620689/](https://pubmed.ncbi.nlm.nih.gov/15620689/)
"""


def test_flattened_superscripts_read_against_the_works_cited_list_each_guess_noted(data, tmp_path):
    report, text = _import(data, tmp_path, GEMINI)
    record = report.surveys[0]
    assert "the redox balance.[1] It is bounded by Sty1.[2] The test in Fig.2 is no citation" in text
    assert "version 1.5 of it, and 3.14 stays a number." in text and "closes a paragraph.[1]" in text
    assert record["citations"] == 3 and len(record["guessed_citations"]) == 3
    assert record["guessed_citations"][0].endswith("balance.2 -> [2]")
    assert any("3 flattened superscript(s) read as citations" in note for note in record["notes"])


def test_flattened_digits_are_not_guessed_when_the_survey_cites_in_brackets(data, tmp_path):
    report, text = _import(data, tmp_path, GEMINI.replace("a paragraph.2", "a paragraph [2]."))
    assert "the redox balance.2 It is bounded by Sty1.1 The" in text
    assert report.surveys[0]["guessed_citations"] == []


def test_a_bracketed_url_is_never_a_key():
    assert key_citation("https://pubmed.ncbi.nlm.nih.gov/15620689/", {}) is None
    assert key_citation("ab15620689", {}) is None  # "2068" inside a longer number is no year
    assert key_citation("gao2023retrieval", {}) == ["gao2023retrieval"]


def test_urls_titled_by_arxiv_id_and_doi_through_the_replayed_services(data, tmp_path):
    """The arXiv answer recorded for ``id_list=1605.08386`` and the Crossref list recorded with the work
    ``10.1155/2011/132985`` in it (served here for ``query.bibliographic=<that DOI>``; a real recorded answer, not a
    hand-written one) give the titles; the third link has no id, and its page is gone (a 404 written here): it keeps
    its address."""
    crossref = [{"path": "/works", "match": {"query.bibliographic": "10.1155/2011/132985"}, "status": 200,
                 "answer": "crossref/topological-entropy-mathml.json"}]
    gone = [{"path": "/only-a-page", "match": {}, "status": 404, "body": "Not Found"}]
    with ReplayServer(extra_rules={"crossref": crossref, "pages": gone}) as server:
        page = server.page("/only-a-page")
        options = LinkOptions(base_urls=dict(o.split("=", 1) for o in server.base_url_options()),
                              cache_dir=tmp_path / "cache", max_retries=0)
        report, text = _import(data, tmp_path, f"""# {SURVEY0}

## Body

Walks [[1]](https://arxiv.org/abs/1605.08386v2), maps [[2]](https://doi.org/10.1155/2011/132985) and a page
[[3]]({page}).
""", links=options)
        assert not server.unmatched
    record = report.surveys[0]
    assert record["link_entries"] == {"id": 2, "page": 0, "title": 0, "url": 1, "id_arxiv": 1, "id_crossref": 1,
                                      "id_openalex": 0}
    assert "[1] Heat-bath random walks with Markov bases\n" in text
    assert "[2] Topological Entropy and Special" in text and f"[3] {page}\n" in text


def test_end_to_end_links_resolve_to_the_corpus_and_evaluate_with_recall(data, sample_dataset, tmp_path):
    """A deep-research-style report whose sources are arXiv links: the arXiv API (replayed) knows none of these ids
    (its recorded miss), so each keeps the link's own text, which names a sample-corpus paper; evaluate reads them."""
    from typer.testing import CliRunner

    from surge_dataset.cli import app

    with ReplayServer() as server:
        options = LinkOptions(base_urls=dict(o.split("=", 1) for o in server.base_url_options()),
                              cache_dir=tmp_path / "cache", max_retries=0)
        report, _ = _import(data, tmp_path, f"""# {SURVEY0}

## Expressivity

Higher-order tests help [[1]](https://arxiv.org/abs/2101.00001); clusters scale [[2]](https://arxiv.org/abs/2102.00002);
a third source [[3]](https://arxiv.org/abs/2103.00003).

## Sources

1. [{WL}](https://arxiv.org/abs/2101.00001)
2. [https://arxiv.org/abs/2102.00002](https://arxiv.org/abs/2102.00002) {CLUSTER}
3. [https://arxiv.org/abs/2103.00003](https://arxiv.org/abs/2103.00003)
""", links=options)
        asked = server.answers("arxiv")
    record = report.surveys[0]
    assert asked == ["arxiv/empty.xml"]  # one id_list request for the address-only entries, a recorded miss
    assert (record["references"], record["resolved_exact"], record["citations"]) == (3, 2, 3)
    # entries 1 and 2 have a title besides their address (the list's rule reads it); entry 3 nothing but its address
    assert record["link_entries"] == {"id": 0, "page": 0, "title": 0, "url": 1, "id_arxiv": 0, "id_crossref": 0, "id_openalex": 0}
    results = tmp_path / "r.json"
    done = CliRunner().invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(tmp_path / "out"),
                                    "--metrics", "recall", "--protocol", "paper", "--out", str(results)])
    assert done.exit_code == 0, done.output
    assert json.loads(results.read_text())["surveys"]["0"]["recall"] > 0


def test_json_lines_with_the_report_under_article_or_a_named_field(data, tmp_path):
    line = {"id": 1, "prompt": SURVEY0, "article": f"# {SURVEY0}\n\n## Body\n\nText [1].\n\n## References\n\n[1] {WL}\n"}
    (tmp_path / "bench.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    report = import_outputs("llmxmr", tmp_path / "bench.jsonl", data, tmp_path / "out", links=OFF)
    assert [s["citations"] for s in report.surveys] == [1]
    (tmp_path / "other.jsonl").write_text(json.dumps({"answer": line["article"]}) + "\n", encoding="utf-8")
    refused = import_outputs("llmxmr", tmp_path / "other.jsonl", data, tmp_path / "out2", links=OFF)
    assert "record without a 'content' or 'article' or 'report' or 'survey' string (its keys: 'answer')" in refused.skipped[0]["reason"]
    named = import_outputs("llmxmr", tmp_path / "other.jsonl", data, tmp_path / "out3", links=OFF, json_field="answer")
    assert [s["citations"] for s in named.surveys] == [1]


@pytest.mark.parametrize(("name", "content", "says"), [
    ("survey.pdf", b"%PDF-1.7\n", "a PDF (survey.pdf), not text"),
    ("report.jsonl", b"{}\n", "JSON lines (report.jsonl): import it with --format llmxmr"),
    ("instance_dump.json", b"{}", "a Co-STORM run (instance_dump.json): import its folder with --format storm"),
    ("page.html", b"<html></html>", "an HTML page (page.html)"),
])
def test_a_folder_without_markdown_is_refused_naming_what_it_holds(data, tmp_path, name, content, says):
    (tmp_path / "in" / "0").mkdir(parents=True)
    (tmp_path / "in" / "0" / name).write_bytes(content)
    report = import_outputs("markdown", tmp_path / "in", data, tmp_path / "out", links=OFF)
    assert says in report.skipped[0]["reason"]


def test_natbib_dates_and_apalike_date_blocks_are_never_titles():
    bbl = "\n".join([
        r"\begin{thebibliography}{3}",
        r"\bibitem[Abnar and Zuidema(2020)]{abnar}", "Samira Abnar and Willem Zuidema.",
        r"\newblock Quantifying attention flow in transformers, May 2020.",
        r"\bibitem[Smith(2020a)]{smith}", "Smith, J.", r"\newblock (2020a).", r"\newblock A title of a paper.",
        r"\newblock {\em Journal}, 3.",
        r"\bibitem{mikolov}", r"\bibinfo{author}{Mikolov, T.} \emph{et~al.} \newblock \bibinfo{title}{Efficient "
        r"estimation of word representations in vector space}. \newblock \emph{\bibinfo{journal}{{arXiv}}} "
        r"\textbf{\bibinfo{volume}{1301.3781}} (\bibinfo{year}{2013}).",
        r"\end{thebibliography}"])
    parsed = parse_bbl(bbl)
    assert parsed.titles == {"abnar": "Quantifying attention flow in transformers", "smith": "A title of a paper",
                             "mikolov": "Efficient estimation of word representations in vector space"}
    assert parsed.ids == {"mikolov": "1301.3781"}
    assert find_arxiv_id(r"\emph{\bibinfo{journal}{{arXiv}}} \textbf{\bibinfo{volume}{1301.3781}}") == "1301.3781"
    assert find_arxiv_id(r"\textbf{\bibinfo{volume}{1301.3781}}") is None  # no "arXiv": a number, not an id


def test_a_source_chip_is_one_titled_link_alone_in_parentheses(data, tmp_path):
    """ChatGPT's ``([Title](url))`` cites its URL; a link with other words in its parenthesis, a bare link, a chip in
    code and a chip whose text is a number (a linked number, read as one) are no source chips."""
    report, text = _import(data, tmp_path, f"""# {SURVEY0}

## Findings

Depth helps ([WL test - Wikipedia](https://en.wikipedia.org/wiki/WL#:~:text=x)) ([Sampling
  in GNNs](https://example.org/s)). See also (see [the docs](https://example.org/docs)) and
[a page](https://example.org/page), `([code](https://example.org/c))`, ([2](https://example.org/two)).
""")
    assert "Depth helps [1] [2]. See also (see [the docs](https://example.org/docs)) and" in text
    assert "[a page](https://example.org/page), `([code](https://example.org/c))`, ([3])." in text
    assert text.endswith("# References\n\n[1] WL test - Wikipedia\n[2] Sampling in GNNs\n"
                         "[3] https://example.org/two\n")
    assert report.surveys[0]["citations"] == 3


# ------------------------------------------------------------------------------------------ nothing else rewritten

#: What the test takes for a citation mark, independently of the importer's rules: a bracketed group of numbers or of
#: key-shaped words (``[3]``, ``[1, 2]``, ``[^4]``, ``[gao2023x]``, ``[@a; @b]``), and a linked number
#: (``[[3]](url)``, ``[\[3\]](url)``), and a ChatGPT source chip, one link alone in parentheses (``([Title](url))``).
_MARK_RE = re.compile(r"\[\s*(?:\\?\[\s*\d+\s*\\?\]\s*)+\]\([^()\s]*\)|\[\^?@?[\w:.#&+/\-]+(?:\s*[,;]\s*@?[\w:.#&+/\-]+)*\]"
                      r"(?!\()|\(\s*\[[^\[\]]+\]\([^()\s]*\)\s*\)")


#: A flattened superscript as a Gemini export writes it: digits straight after a sentence's mark that ends a word,
#: maybe after a closing quote or emphasis (``system.13``, ``"context".1``, ``*game*.5``).
_FLAT_MARK_RE = re.compile(r"(?:(?<=[^\W\d_][.,;:!?])|(?<=[^\W\d_][\"\u201d*_)][.,;:!?]))\d{1,3}(?:,\d{1,3})*\b")


def _outside_marks(text: str) -> str:
    """The text with every citation mark removed, heading markers and setext underlines dropped, spaces collapsed."""
    text = _FLAT_MARK_RE.sub("", _MARK_RE.sub("", text))
    text = re.sub(r"(?m)^ {0,3}(?:#{1,6}[ \t]+|[=-]{3,}[ \t]*$)", "", text)
    return " ".join(text.split())


@pytest.mark.parametrize(("system", "fmt", "folders"), [(s, f, d) for s, f, d in RUNS if f != "latex"],
                         ids=[f"{s}-{f}-{sorted(d.values())[0]}" for s, f, d in RUNS if f != "latex"])
def test_import_changes_nothing_but_citation_marks_and_the_reference_list(data, tmp_path, system, fmt, folders):
    """Every real fixture read as text (Markdown, JSON lines): the written body equals the source's body (the
    reader's, without its reference list) outside the citation marks."""
    for folder, survey in folders.items():
        shutil.copytree(GENERATED / system / survey, tmp_path / "in" / folder,
                        ignore=(lambda _d, names: [n for n in names if Path(n).suffix in (".tex", ".bbl")]))
    sources = {Path(item.source.split("#")[0]).parent.name: item for item in read_documents(fmt, tmp_path / "in")
               if not isinstance(item, tuple)}
    report = import_outputs(fmt, tmp_path / "in", data, tmp_path / "out", links=OFF)
    assert report.surveys
    for record in report.surveys:
        written = Path(record["output"]).read_text(encoding="utf-8").split("\n# References\n")[0]
        source = sources[Path(record["source"].split("#")[0]).parent.name].body
        assert _outside_marks(written) == _outside_marks(source), record["source"]


def test_a_linked_report_changes_nothing_but_its_citation_marks(data, tmp_path):
    body = f"""# {SURVEY0}

## Findings

Growth [[3]](https://www.nejm.org/doi/x) and [\\[1\\]](https://pubmed.ncbi.nlm.nih.gov/15620689/#:~:text=); see
[https://pubmed.ncbi.nlm.nih.gov/15620689/](https://pubmed.ncbi.nlm.nih.gov/15620689/) and `code [2]` and $[0, 1]$.
"""
    _, text = _import(data, tmp_path, body)
    assert "[https://pubmed.ncbi.nlm.nih.gov/15620689/](https://pubmed.ncbi.nlm.nih.gov/15620689/)" in text
    assert _outside_marks(text.split("\n# References\n")[0]) == _outside_marks(body)


# ------------------------------------------------------------------------------------------ STORM and Co-STORM


def test_storm_without_url_to_info_reads_the_articles_own_source_lines(data, tmp_path):
    """A minimal reconstruction of a STORM article whose url_to_info.json is absent: its trailing ``[n] ... Retrieved
    from`` lines are its sources, not a citation."""
    run = tmp_path / "in" / "0"
    run.mkdir(parents=True)
    (run / "storm_gen_article_polished.txt").write_text(
        f"# Summary\n\nMessage passing [1] and batching [2].\n\n[1] {WL}. Retrieved from https://arxiv.org/abs/1\n"
        f"[2] {CLUSTER}. Retrieved from https://arxiv.org/abs/2\n", encoding="utf-8")
    record = import_outputs("storm", tmp_path / "in", data, tmp_path / "out", links=OFF).surveys[0]
    assert (record["citations"], record["references"], record["citations_without_entry"]) == (2, 2, 0)
    assert record["resolved_exact"] == 2


def test_costorm_sources_come_from_the_instance_dump(data, tmp_path):
    """A minimal reconstruction of a Co-STORM run folder (report.md and instance_dump.json's knowledge base)."""
    run = tmp_path / "in" / "0"
    run.mkdir(parents=True)
    (run / "report.md").write_text(f"# {SURVEY0}\n\n## Body\n\nMessage passing [1] and batching [2][1].\n",
                                   encoding="utf-8")
    infos = {"1": {"url": "https://arxiv.org/abs/1", "title": WL, "snippets": []},
             "2": {"url": "https://arxiv.org/abs/2", "title": CLUSTER, "snippets": []}}
    (run / "instance_dump.json").write_text(json.dumps({"knowledge_base": {"info_uuid_to_info_dict": infos}}),
                                            encoding="utf-8")
    record = import_outputs("storm", tmp_path / "in", data, tmp_path / "out", links=OFF).surveys[0]
    assert (record["citations"], record["references"], record["resolved_exact"]) == (3, 2, 2)


def test_a_bare_references_line_in_a_storm_lead_is_prose_not_the_list(data, tmp_path):
    """``--format markdown`` on a STORM article: its lead says ``References:`` above prose; only a final block of
    entries under such a line (or a References heading) is the reference list."""
    (tmp_path / "in" / "0").mkdir(parents=True)
    (tmp_path / "in" / "0" / "storm_gen_article_polished.md").write_text(
        f"Graph networks pass messages [1].\nReferences:\nThe lead goes on about batching [2].\n\n# Methods\n\n"
        f"More [1].\n\n[1] {WL}\n[2] {CLUSTER}\n", encoding="utf-8")
    record = import_outputs("markdown", tmp_path / "in", data, tmp_path / "out", links=OFF).surveys[0]
    text = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8")
    assert "References:\nThe lead goes on about batching [2]." in text
    assert (record["citations"], record["references"], record["lost"]) == (3, 2, [])
    # a final block of entries under a bare label is the list
    (tmp_path / "in" / "0" / "storm_gen_article_polished.md").write_text(
        f"# Methods\n\nMore [1].\n\n**References:**\n\n1. {WL}\n2. {CLUSTER}\n", encoding="utf-8")
    record = import_outputs("markdown", tmp_path / "in", data, tmp_path / "out2", links=OFF).surveys[0]
    assert (record["citations"], record["references"], record["resolved_exact"]) == (1, 2, 2)


# ------------------------------------------------------------------------------------------ quality notes


def test_quality_notes_name_twice_written_headings_cut_sections_restarts_and_uncited_entries(data, tmp_path):
    body = f"""# {SURVEY0}

## Methods

Message passing [1] and batching [2]. Sampling [3]

## Methods

The second copy of the section [3]. The text stops in the middle of a

## Results

Restarted numbering [1] and again [2], as a per-section writer does [1].

## Outlook

- a list item ends without a full stop
| a table | row |

# References

[1] {WL}
[2] {CLUSTER}
[3] A paper that exists nowhere
[4] An entry nothing cites
[5] Another entry nothing cites
"""
    report, text = _import(data, tmp_path, body)
    record = report.surveys[0]
    quality = record["quality"]
    assert quality["headings_twice"] == ["methods"]
    assert [c["section"] for c in quality["cut_mid_sentence"]] == ["Methods", "Methods"]
    assert quality["cut_mid_sentence"][1]["ends"].endswith("in the middle of a")
    assert quality["citations_restarted"] == ["Results"]
    assert quality["uncited_entries"] == 2
    assert len(quality["notes"]) == 4 and quality["notes"][-1] == "2 of 5 entries of the reference list are cited by no citation"
    assert "The text stops in the middle of a" in text  # notes only: nothing is changed
    assert record["references"] == 5


def test_quality_notes_on_real_outputs(data, tmp_path):
    """AutoSurveyClaw's Markdown writes its review and conclusion twice; the DeepResearch Bench records are clean."""
    shutil.copytree(GENERATED / "autosurveyclaw" / "nesy_e4b_survey", tmp_path / "in" / "0")
    record = import_outputs("markdown", tmp_path / "in", data, tmp_path / "out", links=OFF).surveys[0]
    assert "conclusion" in record["quality"]["headings_twice"] and len(record["quality"]["headings_twice"]) == 6
    shutil.copytree(GENERATED / "deepresearchbench" / "claude37_auction", tmp_path / "drb" / "0")
    record = import_outputs("llmxmr", tmp_path / "drb", data, tmp_path / "out2", links=OFF).surveys[0]
    assert record["quality"]["notes"] == []


def test_chatgpt_citation_tokens_are_named_as_sourceless_not_read(data, tmp_path):
    """A minimal reconstruction of ChatGPT's deep-research Markdown download (``deep-research-report.md``): its
    ``citeturn..`` tokens point to sources the download leaves out; they stay as written and the report says so."""
    body = (f"# {SURVEY0}\n\n## Findings\n\nMessage passing is expressive. citeturn18view0turn17view1\n\n"
            "A router skips a check. fileciteturn22file0L1-L1 And batching helps [1].\n\n## References\n\n"
            f"[1] {CLUSTER}\n")
    report, text = _import(data, tmp_path, body)
    quality = report.surveys[0]["quality"]
    assert quality["sourceless_citation_tokens"] == 2 and report.surveys[0]["citations"] == 1
    assert any(note.startswith("2 ChatGPT citation token(s) ('citeturn0search3') name no source") for note in
               quality["notes"])
    assert "expressive. citeturn18view0turn17view1\n" in text
