"""The network and reading limits of ``surge data fresh``: arXiv's empty pages, one transport per host under
threads, an ``\\input`` fan-out, and the topic search's date bound (values worked out by hand)."""

from __future__ import annotations

import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from surge_dataset.core.cache import JsonStore
from surge_dataset.core.http import Transport
from surge_dataset.core.vocabulary import BROKEN_LATEX
from surge_dataset.fresh import sources
from surge_dataset.fresh.candidates import ArxivApi
from surge_dataset.fresh.corpus import topic_query
from surge_dataset.fresh.latex import SourceError, read_eprint
from surge_dataset.fresh.sources import HostPool
from tests.support.arxiv_server import ArxivPaper, ArxivServer
from tests.support.tarballs import tar_gz

PAPERS = [ArxivPaper(f"2506.{n:05d}", f"A Survey of Topic {n}", f"2025-06-{n + 1:02d}") for n in range(5)]
QUERY = "ti:survey"


class EmptyPagesServer(ArxivServer):
    """An arXiv that answers ``empty`` pages after the first with no entry (the total unchanged), as arXiv does."""

    def __init__(self, papers: list[ArxivPaper], empty: int) -> None:
        self.empty = empty
        super().__init__(papers)

    def query(self, params: dict[str, list[str]]) -> tuple[int, bytes]:
        status, body = super().query(params)
        if params.get("start", ["0"])[0] != "0" and self.empty > 0:
            self.empty -= 1
            full = super().query({**params, "start": ["99"]})[1]  # past the end: the feed with no entry
            return status, full
        return status, body


def _api(server: ArxivServer, cache_dir: Path) -> ArxivApi:
    hosts = HostPool(rate_seconds=0, timeout=5, max_retries=0, user_agent="test")
    return ArxivApi(server.address, hosts, JsonStore(cache_dir, name="fresh"))


def test_an_empty_page_is_asked_again_and_the_search_completes(tmp_path):
    with EmptyPagesServer(PAPERS, empty=2) as server:
        found = _api(server, tmp_path).search(QUERY, page_size=2)
        # pages start 0, 2 (empty twice, then answered), 4: 1 + 3 + 1 requests
        assert [r.arxiv_id for r in found] == [p.arxiv_id for p in PAPERS]
        assert server.count("api") == 5


def test_a_page_that_stays_empty_ends_the_search_short_and_is_not_cached(tmp_path):
    reported: list[tuple[int, int]] = []
    with EmptyPagesServer(PAPERS, empty=3) as server:
        found = _api(server, tmp_path).search(QUERY, page_size=2, on_page=lambda n, total: reported.append((n, total)))
        assert len(found) == 2 and reported[-1] == (2, 5)  # the caller sees 2 of 5
        assert server.count("api") == 4  # page 0, then page 2 three times
        found = _api(server, tmp_path).search(QUERY, page_size=2)  # the rerun: page 0 cached, page 2 asked again
        assert len(found) == 5 and server.count("api") == 6


class SlowTransport(Transport):
    """A transport slow to build, so that threads asking for a new host really overlap."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        time.sleep(0.05)
        super().__init__(*args, **kwargs)


def test_threads_asking_for_a_new_host_at_once_share_one_transport(monkeypatch):
    monkeypatch.setattr(sources, "Transport", SlowTransport)
    hosts = HostPool(rate_seconds=3, timeout=5, max_retries=0, user_agent="test")
    barrier, seen = threading.Barrier(8), []

    def ask() -> None:
        barrier.wait()
        seen.append(hosts.transport("http://127.0.0.1:9/src/2506.00001v1"))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and len({id(t) for t in seen}) == 1  # one rate limiter for the host


def test_an_input_fan_out_is_broken_latex_not_an_exponential_expansion():
    # main inputs l1 ten times, l1 inputs l2 ten times, ... l5: 10 + 100 + ... + 100,000 expansions > 10,000
    files = {"main.tex": "\\documentclass{article}\\begin{document}\\section{A}" + "\\input{l1}" * 10
             + "\\end{document}"}
    files.update({f"l{n}.tex": f"\\input{{l{n + 1}}}" * 10 for n in range(1, 5)})
    files["l5.tex"] = "x"
    with pytest.raises(SourceError) as caught:
        read_eprint(tar_gz(files), name="2506.00009v1")
    assert caught.value.reason == BROKEN_LATEX and "2506.00009v1" in str(caught.value)


def test_the_topic_search_ends_the_day_before_the_survey():
    assert topic_query("Graph neural networks: recommendation", ["cs.LG", "cs.IR"], date(2025, 3, 1)) == (
        '(ti:"Graph neural networks recommendation" OR abs:"Graph neural networks recommendation") '
        "AND (cat:cs.LG OR cat:cs.IR) AND submittedDate:[199101010000 TO 202502282359]")
    assert topic_query(" : ", ["cs.CL"], date(2025, 3, 1)) is None


def test_an_e_print_over_the_answer_cap_is_dropped_for_good_and_not_asked_again(tmp_path):
    big = ArxivPaper("2506.00009", "A Survey of Big Sources", "2025-06-10", source=b"%" * 5000)
    small = ArxivPaper("2506.00008", "A Survey of Small Sources", "2025-06-09", source=b"%" * 100)
    with ArxivServer([big, small]) as server:
        hosts = HostPool(rate_seconds=0, timeout=5, max_retries=3, user_agent="test", max_answer_bytes=1000)
        store = sources.EprintStore(tmp_path / "eprints", hosts)
        url = f"{server.address}/src/2506.00009v1"
        first = store.fetch("2506.00009", "v1", url)
        assert first.data is None and first.error is None and "over 1,000 bytes" in (first.too_large or "")
        assert server.count("src") == 1  # not retried: it would be as long
        again = store.fetch("2506.00009", "v1", url)
        assert again.too_large == first.too_large and again.cached and server.count("src") == 1
        assert store.fetch("2506.00008", "v1", f"{server.address}/src/2506.00008v1").data == b"%" * 100


def test_an_unreachable_arxiv_is_one_line_naming_the_host_and_the_option(tmp_path):
    """`surge data fresh` offline: the arXiv API on a closed local port (no outside traffic). One line, exit 2:
    the host is unreachable, and --bib-base-url arxiv=URL points the run at a mirror or a replay; no library
    connection-pool text, no exception class name."""
    from typer.testing import CliRunner

    from surge_dataset.cli import app
    from tests.processes import free_port

    host = f"127.0.0.1:{free_port()}"  # nobody listens there
    result = CliRunner().invoke(app, ["data", "fresh", "--since", "2025-06-01", "--until", "2025-06-30",
                                      "--categories", "cs.CL", "--rate", "0", "--max-retries", "1", "--timeout", "5",
                                      "--bib-base-url", f"arxiv=http://{host}", "--out", str(tmp_path / "fresh")])
    assert result.exit_code == 2, result.output
    message = " ".join(result.output.split())
    assert f"the arXiv API at {host} is unreachable (cannot connect to {host} after 2 tries)" in message
    assert "--bib-base-url arxiv=URL" in message and "docs/data/fresh.md" in message
    for raw in ("HTTPConnectionPool", "Max retries", "ConnectionError", "/api/query"):
        assert raw not in message, raw


def test_the_docs_offline_recipe_runs_as_written(tmp_path, monkeypatch):
    """docs/data/fresh.md, 'Without the network': the block a user pastes in the clone root builds a split from
    the local stand-ins alone."""
    import contextlib
    import io
    import json

    from tests.conftest import REPO_ROOT
    from tests.doc_blocks import blocks, section

    (code,) = blocks(section((REPO_ROOT / "docs" / "data" / "fresh.md").read_text(encoding="utf-8"),
                             "Without the network"), "python")
    monkeypatch.chdir(tmp_path)
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(code, "docs/data/fresh.md", "exec"), {})
    assert "kept 1 of 1 surveys" in printed.getvalue()
    surveys = json.loads((tmp_path / "fresh-offline" / "surveys.json").read_text(encoding="utf-8"))
    assert [s["survey_title"] for s in surveys] == ["A Survey of Transformers"] and len(surveys[0]["all_cites"]) == 2
