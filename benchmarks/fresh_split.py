"""`surge data fresh` at the issue's scale: 50 candidate surveys end to end, then the cached rerun.

Against the local arXiv stand-in (``tests.support.arxiv_server.ArxivServer``: the query API and the
e-prints) and OpenAlex (``BibServer``) on 127.0.0.1, with ``--rate 0`` (no pause between requests; the real
arXiv asks for 3 s, which makes a real run last hours: one title search per cited paper). Each survey is a
small e-print (``tarballs``: nested sections, ``\\cite{a,b}``, a ``.bbl`` or a ``.bib``) citing ``--refs``
papers, of which 80% are on the fake arXiv (a tenth of those with a slightly different title: fuzzy matches)
and 20% are not; every tenth candidate has no source (404). Half the references on arXiv carry their arXiv id, as
in real bibliographies (``eprint``/``archivePrefix`` in a ``.bib``; ``arXiv:<id>``, an arxiv.org URL or the arXiv
DOI in a ``.bbl``): those are fetched by ``id_list`` (100 a request), not searched by title. Prints the seconds of
the first run and of the rerun (targets: at most 5 minutes and 30 seconds on 2 cores), the requests the rerun sent
(target: 0), and the arXiv API requests saved against the same world with titles only (``--no-baseline`` skips
that second build) and what they cost at arXiv's 3 s a request.

    python -m benchmarks.fresh_split                     # 50 candidates, 60 references each
    python -m benchmarks.fresh_split --surveys 200 --refs 80 --topic-papers 20
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from surge_dataset.fresh.pipeline import FreshOptions, run_fresh
from tests.support.arxiv_server import ArxivPaper, ArxivServer
from tests.support.bib_server import BibServer, KnownPaper
from tests.support.tarballs import Reference, Section, bbl_text, bib_text, survey_tex, tar_gz

TOPICS = ["graph neural networks", "speech recognition", "protein folding", "federated learning", "code generation",
          "image segmentation", "question answering", "robot navigation", "text to speech", "machine translation"]


def _word(n: int) -> str:
    """A pronounceable letters-only code for ``n`` (titles must differ in their letters: the matching rule
    keeps letters only, so "Study 1" and "Study 2" would be one title)."""
    consonants, vowels, out = "bdfgklmnprstvz", "aeiou", ""
    while True:
        out += consonants[n % 14] + vowels[n // 14 % 5]
        n //= 70
        if not n:
            return out.capitalize()


def _id_note(arxiv_id: str, r: int) -> str:
    """How a ``.bbl`` entry writes its arXiv id, varied as in real bibliographies."""
    return [f"arXiv preprint arXiv:{arxiv_id}v2", f"\\url{{https://arxiv.org/abs/{arxiv_id}}}",
            f"doi: 10.48550/arXiv.{arxiv_id}"][r // 2 % 3]


def world(surveys: int, refs: int, *, ids: bool = True) -> tuple[list[ArxivPaper], list[KnownPaper]]:
    """The papers of the fake arXiv and the OpenAlex works (module docstring); ``ids=False``: titles only."""
    papers, works = [], []
    for s in range(surveys):
        topic = TOPICS[s % len(TOPICS)]
        references, sections, bbl = [], [], s % 2 == 1
        for r in range(refs):
            title = f"{_word(s * 1000 + r)} networks for {topic} with the {_word(r * 7 + 3)} method"
            arxiv_id = f"24{s % 12 + 1:02d}.{s * 1000 + r:05d}"
            if r % 5 != 4:  # 80% on arXiv
                shown = title.replace("networks", "network") if r % 10 == 3 else title  # fuzzy
                papers.append(ArxivPaper(arxiv_id, title, f"2024-{s % 12 + 1:02d}-10", abstract=f"We study {topic}.",
                                         categories=("cs.LG",)))
                title = shown
            on_arxiv, with_id = r % 5 != 4, ids and r % 2 == 0
            eprint = arxiv_id if on_arxiv and with_id and not bbl else None
            note = _id_note(arxiv_id, r) if on_arxiv and with_id and bbl else ""
            references.append(Reference(f"ref{r}", title, eprint=eprint, note=note))
        keys = [f"ref{r}" for r in range(refs)]
        for part in range(0, refs, 6):
            level = "section" if part % 12 == 0 else "subsection"
            cites = ",".join(keys[part:part + 3]) + "} and \\cite{" + ",".join(keys[part + 3:part + 6])
            sections.append(Section(f"Part {part} of {topic}", f"Work on {topic} \\cite{{{cites}}}.", level=level))
        title = f"A Survey of {topic.title()}: the {_word(s)} Perspective"
        tex = survey_tex(title, "We review the field.", sections)
        files = {"main.tex": tex, "main.bbl": bbl_text(references)} if s % 2 else \
            {"main.tex": tex, "refs.bib": bib_text(references)}  # s % 2 == 1: bbl
        papers.append(ArxivPaper(f"2506.{s:05d}", title, f"2025-06-{s % 28 + 1:02d}T12:00:00",
                                 abstract="In this survey we review the field.", categories=("cs.CL",),
                                 source=None if s % 10 == 9 else tar_gz(files)))
        works.append(KnownPaper(title, 2025, doi=f"10.48550/arXiv.2506.{s:05d}", cited_by_count=s))
    return papers, works


def _api_requests(arxiv: ArxivServer) -> dict[str, int]:
    """The arXiv API requests recorded so far: title searches, id_list requests, all."""
    api = [r for r in arxiv.requests if r.kind == "api"]
    return {"title": sum(1 for r in api if r.params.get("search_query", [""])[0].startswith("ti:")),
            "id_list": sum(1 for r in api if r.params.get("id_list", [""])[0]), "all": len(api)}


@dataclass
class Build:
    """One build of the world: seconds, requests sent, arXiv API requests by kind, the manifest; the cached rerun."""

    seconds: float
    sent: int
    api: dict[str, int]
    manifest: dict[str, Any]
    rerun_seconds: float = 0.0
    resent: int = 0
    same: bool = True


def build(surveys: int, refs: int, topic_papers: int, *, ids: bool, rerun: bool) -> Build:
    """Build the world once (``ids=False``: its titles-only twin), then rerun it from the cache when asked."""
    papers, works = world(surveys, refs, ids=ids)
    with ArxivServer(papers) as arxiv, BibServer({"openalex": works}) as bib, tempfile.TemporaryDirectory() as tmp:
        options = FreshOptions(since="2025-06-01", until="2025-06-30", categories="cs.CL,cs.LG", rate=0.0,
                               topic_papers=topic_papers, bib_base_url=[f"arxiv={arxiv.address}",
                                                                        f"openalex={bib.base_url('openalex')}"])
        started = time.perf_counter()
        first = run_fresh(Path(tmp) / "fresh", options)
        result = Build(time.perf_counter() - started, len(arxiv.requests) + bib.count(), _api_requests(arxiv),
                       first.manifest)
        if rerun:
            started = time.perf_counter()
            second = run_fresh(Path(tmp) / "fresh", options)
            result.rerun_seconds = time.perf_counter() - started
            result.resent = len(arxiv.requests) + bib.count() - result.sent
            result.same = second.manifest["surveys"] == first.manifest["surveys"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--surveys", type=int, default=50)
    parser.add_argument("--refs", type=int, default=60)
    parser.add_argument("--topic-papers", type=int, default=10)
    parser.add_argument("--no-baseline", action="store_true", help="Skip the titles-only build.")
    args = parser.parse_args()
    run = build(args.surveys, args.refs, args.topic_papers, ids=True, rerun=True)
    counts = run.manifest["counts"]
    print(f"{args.surveys} candidates x {args.refs} references: kept {counts['kept']}, dropped "
          f"{counts['dropped_by_reason']}, corpus {counts['corpus']:,} papers, {counts['queries']:,} queries, "
          f"{counts['resolved_keys']:,} of {counts['cited_keys']:,} cited keys resolved "
          f"({counts['resolved_by_id']:,} by id, {counts['resolved_by_title']:,} by title)")
    print(f"first run: {run.seconds:.1f} s ({run.sent:,} requests; target <= 300 s); arXiv API: {run.api}")
    print(f"cached rerun: {run.rerun_seconds:.1f} s ({run.resent} requests; target <= 30 s, 0 requests); "
          f"same surveys: {run.same}")
    if args.no_baseline:
        return
    base = build(args.surveys, args.refs, args.topic_papers, ids=False, rerun=False)
    saved = base.api["all"] - run.api["all"]
    print(f"titles only: {base.seconds:.1f} s, arXiv API: {base.api}, "
          f"{base.manifest['counts']['resolved_keys']:,} keys resolved")
    print(f"ids read from the bibliographies save {saved:,} of {base.api['all']:,} arXiv API requests "
          f"({saved / max(1, base.api['all']):.0%}; {saved * 3 / 60:.0f} minutes at arXiv's 3 s a request)")


if __name__ == "__main__":
    main()
