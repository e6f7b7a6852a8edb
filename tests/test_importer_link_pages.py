"""`surge import`'s link entries titled by a DataCite arXiv DOI, by OpenAlex for a DOI Crossref misses, and by the
entry's landing page, end to end against a local server replaying real recorded answers and real saved pages
(tests/fixtures/services/, origins in its README); faults (404, 500, a redirect to ``file:``, a page over the size
cap) are the only hand-written answers.

The report below is a minimal reconstruction of a deep-research report's source list (bare links), not a copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from surge_dataset import SurgeData
from surge_dataset.importers import import_outputs
from surge_dataset.importers.links import LinkOptions, LinkResolver, entry_ids
from surge_dataset.importers.pages import page_title, page_url, without_site_name
from surge_dataset.importers.records import RefEntry
from tests.support.replay import FIXTURES, ReplayServer

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample"
PAGES = FIXTURES / "pages"
ARXIV_PAGE = PAGES / "arxiv.org-abs-1706.03762.html"
PLOS_PAGE = PAGES / "journals.plos.org-plosone-article-id-10.1371-journal.pone.0000001.html"
PMC_PAGE = PAGES / "pmc.ncbi.nlm.nih.gov-articles-PMC3531190.html"
#: The titles the replayed answers give, added to the sample's corpus and to survey 0's references.
ATTENTION, HEAT_BATH = "Attention Is All You Need", "Heat-bath random walks with Markov bases"
PLASMA, GENBANK = "Convalescent-anti-sars-cov-2-plasma/immune-globulin", "GenBank"
SURVEY0 = "Graph Neural Networks: A Survey of Architectures, Expressive Power and Applications"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    """The sample with four more corpus papers (the replayed titles), all four cited by survey 0."""
    from surge_dataset.data.build import build_dataset

    src = tmp_path_factory.mktemp("links-src")
    shutil.copytree(SAMPLE, src, dirs_exist_ok=True)
    corpus = json.loads((src / "corpus.json").read_text(encoding="utf-8"))
    added = []
    for title in (ATTENTION, HEAT_BATH, PLASMA, GENBANK):
        added.append(len(corpus))
        corpus.append({**corpus[0], "Title": title, "doc_id": len(corpus)})
    (src / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    surveys = json.loads((src / "surveys.json").read_text(encoding="utf-8"))
    surveys[0]["all_cites"] = [*surveys[0]["all_cites"], *added]
    (src / "surveys.json").write_text(json.dumps(surveys), encoding="utf-8")
    out = tmp_path_factory.mktemp("links") / "surge"
    build_dataset(src, out)
    return out


def _options(server: ReplayServer, cache: Path, **kwargs) -> LinkOptions:
    return LinkOptions(base_urls=dict(o.split("=", 1) for o in server.base_url_options()), cache_dir=cache,
                       max_retries=0, **kwargs)


def _import(dataset: Path, folder: Path, text: str, links: LinkOptions):
    (folder / "in" / "0").mkdir(parents=True, exist_ok=True)
    (folder / "in" / "0" / "report.md").write_text(text, encoding="utf-8")
    out = folder / f"out{len(list(folder.glob('out*')))}"
    report = import_outputs("markdown", folder / "in", SurgeData.open(dataset), out, links=links)
    return report.surveys[0], (out / "0" / "survey.md").read_text(encoding="utf-8"), out


def _report(*urls: str) -> str:
    cites = " ".join(f"[[{n}]]({url})" for n, url in enumerate(urls, 1))
    return f"# {SURVEY0}\n\n## Findings\n\nThe sources agree {cites}.\n"


# ------------------------------------------------------------------------------------------ pages read alone


def test_a_saved_landing_page_gives_its_citation_title():
    assert page_title(ARXIV_PAGE.read_bytes()) == ATTENTION
    assert page_title(PMC_PAGE.read_bytes()) == GENBANK
    # PLOS also carries citation_reference tags whose content holds "citation_title=...": never the work's title
    assert page_title(PLOS_PAGE.read_bytes()) == "Neural Substrate of Cold-Seeking Behavior in Endotoxin Shock"


@pytest.mark.parametrize(("title", "url", "site", "expected"), [
    # the <title>s of the saved pages, as written
    ("Neural Substrate of Cold-Seeking Behavior in Endotoxin Shock | PLOS One",
     "https://journals.plos.org/plosone/article?id=1", "", "Neural Substrate of Cold-Seeking Behavior in Endotoxin Shock"),
    ("GenBank - PMC", "https://pmc.ncbi.nlm.nih.gov/articles/PMC3531190/", "PubMed Central (PMC)", GENBANK),
    ("[1706.03762] Attention Is All You Need", "https://arxiv.org/abs/1706.03762", "arXiv.org",
     "[1706.03762] Attention Is All You Need"),
    ("DeClarE: Debunking Fake News - ACL Anthology", "https://aclanthology.org/D18-1003/", "", "DeClarE: Debunking Fake News"),
    # a dash inside the title, no site name after it: kept whole
    ("Self-Attention - A Study of Heads", "https://example.org/p", "", "Self-Attention - A Study of Heads"),
])
def test_the_title_tag_loses_only_a_trailing_site_name(title, url, site, expected):
    assert without_site_name(title, url, site) == expected


def test_only_http_pages_that_are_no_pdf_are_fetched():
    assert page_url("[x](https://aclanthology.org/2023.acl-long.1/#:~:text=a)") == "https://aclanthology.org/2023.acl-long.1/"
    assert page_url("https://aclanthology.org/2023.acl-long.1.pdf") is None
    assert page_url("file:///etc/passwd ftp://example.org/a") is None
    arxiv_doi = RefEntry("https://doi.org/10.48550/arXiv.2303.08774", "https://doi.org/10.48550/arXiv.2303.08774v2")
    assert entry_ids(arxiv_doi) == ("2303.08774", None)  # DataCite's arXiv DOI is asked of arXiv, by id


# ------------------------------------------------------------------------------------------ end to end


def test_pages_arxiv_dois_and_openalex_titles_resolve_to_the_corpus_and_evaluate(dataset, tmp_path):
    """Five bare links: two landing pages (their citation_title), a DataCite arXiv DOI (arXiv's recorded answer for
    its id), a DOI Crossref misses that OpenAlex holds (its recorded work), and one neither knows (OpenAlex's
    recorded 404), which keeps its address. A rerun asks nothing: every answer, misses included, is cached."""
    from typer.testing import CliRunner

    from surge_dataset.cli import app

    with ReplayServer() as server:
        text = _report(server.page("/abs/1706.03762"), "https://doi.org/10.48550/arXiv.1605.08386",
                       "https://doi.org/10.1007/s40278-023-41815-2", "https://doi.org/10.1046/j.1365-2699.2003.00795",
                       server.page("/articles/PMC3531190/"))
        options = _options(server, tmp_path / "cache")
        record, written, out = _import(dataset, tmp_path, text, options)
        assert not server.unmatched
        assert server.answers() == [
            "arxiv/heat-bath-random-walks.xml", "crossref/askldjrq-empty.json", "crossref/askldjrq-empty.json",
            "openalex/convalescent-plasma-work.json", "openalex/doi-not-found-404.html",
            "pages/arxiv.org-abs-1706.03762.html", "pages/pmc.ncbi.nlm.nih.gov-articles-PMC3531190.html"]
        asked = len(server.served)
        again, _, _ = _import(dataset, tmp_path, text, options)
        assert len(server.served) == asked  # the rerun asked nothing
    assert record["link_entries"] == {"id": 2, "page": 2, "title": 0, "url": 1, "id_arxiv": 1, "id_crossref": 0,
                                      "id_openalex": 1}
    assert again["link_entries"] == record["link_entries"]
    assert (record["references"], record["resolved_exact"], record["unresolved"]) == (5, 4, 1)
    assert written.endswith(f"[1] {ATTENTION}\n[2] {HEAT_BATH}\n[3] {PLASMA}\n"
                            "[4] https://doi.org/10.1046/j.1365-2699.2003.00795\n[5] GenBank\n")
    assert not any("failed" in note for note in record["notes"])
    results = tmp_path / "r.json"
    done = CliRunner().invoke(app, ["evaluate", "--data", str(dataset), "--passages", str(out), "--metrics",
                                    "recall", "--protocol", "paper", "--out", str(results)])
    assert done.exit_code == 0, done.output
    # hand count: survey 0 cites 21 sample papers plus the 4 added; the import resolves the 4 added ones
    assert json.loads(results.read_text())["surveys"]["0"]["recall"] == pytest.approx(4 / 25)


@pytest.mark.parametrize(("rule", "says"), [
    ({"status": 404, "body": "<html><title>Not Found</title></html>"}, "HTTP 404"),
    ({"status": 500, "body": "oops"}, "HTTP 500 after 1 try"),
    ({"status": 302, "headers": {"Location": "file:///etc/passwd"}}, "No connection adapters"),
])
def test_a_page_that_cannot_be_read_keeps_its_address_is_reported_and_not_cached(dataset, tmp_path, rule, says):
    with ReplayServer(extra_rules={"pages": [{"path": "/forum", "match": {}, **rule}]}) as server:
        url = server.page("/forum?id=abc")
        text = _report(url)
        options = _options(server, tmp_path / "cache")
        record, written, _ = _import(dataset, tmp_path, text, options)
        _import(dataset, tmp_path, text, options)
        assert len(server.served) == 2  # not cached: the rerun asked again
    assert record["link_entries"]["url"] == 1 and f"[1] {url}\n" in written
    failed = [note for note in record["notes"] if note.startswith("look-ups that failed")]
    assert failed and f"page {url}: " in failed[0] and says in failed[0]


def test_a_page_over_the_size_cap_is_not_read(dataset, tmp_path):
    with ReplayServer() as server:
        options = _options(server, tmp_path / "cache", page_max_bytes=10_000)  # the saved page has 43,628 bytes
        record, _, _ = _import(dataset, tmp_path, _report(server.page("/abs/1706.03762")), options)
    assert record["link_entries"]["url"] == 1
    assert any("over 10,000 bytes" in note for note in record["notes"])


def test_offline_and_no_lookup_fetch_no_page(dataset, tmp_path, monkeypatch):
    with ReplayServer() as server:
        page = server.page("/abs/1706.03762")
        text = _report(page, "https://doi.org/10.48550/arXiv.1605.08386")
        record, _, _ = _import(dataset, tmp_path, text, _options(server, tmp_path / "cache", lookup=False))
        monkeypatch.setenv("SURGE_OFFLINE", "1")
        offline = LinkResolver(_options(server, tmp_path / "cache")).titles({"1": RefEntry(page, page)})
        assert server.served == []
    assert record["link_entries"]["url"] == 2 and any("--no-lookup" in note for note in record["notes"])
    assert offline == {"1": (page, "url")}


@pytest.mark.allow_hosts([f"127.0.0.{n}" for n in range(1, 21)])  # loopback hosts of their own (pytest-socket)
def test_pages_stop_being_asked_when_host_after_host_cannot_be_reached(tmp_path):
    """No network (nothing listens on port 9 of 127.0.0.1, each host a name of its own): after DOWN_AFTER
    unreachable pages in a row the rest are not asked, rather than each waiting out its retries."""
    from surge_dataset.core.http import DOWN_AFTER

    urls = {str(n): f"http://127.0.0.{n}:9/paper" for n in range(1, DOWN_AFTER + 3)}
    resolver = LinkResolver(LinkOptions(cache_dir=tmp_path / "cache", max_retries=0, timeout=2), environ={})
    titled = resolver.titles({key: RefEntry(url, url) for key, url in urls.items()})
    assert titled == {key: (url, "url") for key, url in urls.items()}
    assert [f.split(": ", 1)[1].startswith("cannot connect") for f in resolver.failures] == [True] * DOWN_AFTER + [False] * 2
    assert resolver.failures[-1].endswith(f"not asked ({DOWN_AFTER} pages in a row could not be reached)")
