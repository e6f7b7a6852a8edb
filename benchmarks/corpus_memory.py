"""Peak RSS at corpus scale: the streamed build and row-only corpus reads, against the old whole-file ways.

Generates (or reuses) the synthetic corpus of ``synthetic_corpus.py`` (``--papers`` papers, default the
real 1,086,992; official schema, ~1,000-character abstracts), builds it once, then measures in one run,
each step in its own child process (peak RSS = that child's maximum resident set size, as
``corpus_scale.py`` measures it):

* build        ``surge data build`` (the CLI): streams corpus.json;
* build, old   what the old build began with: ``orjson.loads`` of the whole corpus.json
               (``read_json_array``); its peak is a lower bound for the old build's;
* lookup       ``Corpus.open`` + resolve 3 surveys' reference titles (300 of ``refs.json``, half present)
               + ``Corpus.get`` of those papers and of the 3 surveys' ``all_cites``;
* lookup, old  the same lookups, papers taken as the old ``Corpus.get`` did: ``read_all()`` of the
               memory-mapped ``papers.arrow`` and ``Table.take`` of the rows.

Both lookups must return the same papers (exit status 1 otherwise); targets missed print FAIL, exit 0.

    python -m benchmarks.corpus_memory [--papers N] [--workdir DIR] [--keep] [--report FILE]

Measured (2 cores, ext4; 1,086,992 papers, corpus.json 1.37 GB; one run):

| step | wall time (s) | peak RSS (MB) |
|---|---:|---:|
| build: ``surge data build``, corpus streamed | 66.1 | 721 |
| old build's first step: ``orjson.loads`` of the whole corpus.json | 14.9 | 5,419 |
| lookup: ``Corpus.open`` + resolve 300 titles + get the papers of 3 surveys | 0.58 | 127 |
| old lookup: the same, papers by ``read_all()`` + ``take`` | 3.39 | 2,568 |

The whole old build (``surge data build`` before streaming) peaked at 5,514 MB on the same machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import (
    corpus_scale,  # measure(): peak RSS of a child; its --_wrap fallback
    synthetic_corpus,
)

N_REAL = 1_086_992
N_SURVEYS = 3
N_TITLES = 300  # reference titles of 3 surveys
TARGETS_MB = {"build": 2000.0, "lookup": 300.0}


# --------------------------------------------------------------------------------------------------
# Steps (each runs in its own child process)
# --------------------------------------------------------------------------------------------------


def _lookup_inputs(workdir: Path) -> tuple[list[str], list[int]]:
    refs = json.loads((workdir / "src" / "refs.json").read_text(encoding="utf-8"))
    surveys = json.loads((workdir / "src" / "surveys.json").read_text(encoding="utf-8"))
    cites = [d for s in surveys[:N_SURVEYS] for d in s["all_cites"]]
    return [r["title"] for r in refs[:N_TITLES]], cites


def step_lookup(workdir: Path) -> dict[str, Any]:
    """Open the index and look up 3 surveys' papers, reading only their rows."""
    from surge_dataset.data.corpus import Corpus

    titles, cites = _lookup_inputs(workdir)
    t0 = time.perf_counter()
    corpus = Corpus.open(workdir / "built")
    resolved = corpus.resolve(titles)
    papers = corpus.get([d for d in resolved if d is not None] + cites)
    return {"s": time.perf_counter() - t0, "papers": [None if p is None else [p.doc_id, p.title, p.abstract]
                                                      for p in papers]}


def step_lookup_old(workdir: Path) -> dict[str, Any]:
    """The same lookups with papers taken as the old ``Corpus.get`` did: ``read_all()`` + ``take``."""
    import pyarrow as pa

    from surge_dataset.data.corpus import Corpus

    titles, cites = _lookup_inputs(workdir)
    t0 = time.perf_counter()
    corpus = Corpus.open(workdir / "built")  # title keys and doc ids: unchanged, memory-mapped numpy
    table = pa.ipc.open_file(pa.memory_map(str(workdir / "built" / "index" / "papers.arrow"), "r")).read_all()
    ids = table.column("doc_id")
    resolved = [None if r is None else ids[r].as_py() for r in corpus.resolve_rows(titles)]
    rows = corpus.rows_of([d for d in resolved if d is not None] + cites)
    present = [r for r in rows if r is not None]
    taken = dict(zip(present, table.take(pa.array(present, type=pa.int64())).to_pylist(), strict=True))
    papers = [None if r is None else taken[r] for r in rows]
    return {"s": time.perf_counter() - t0, "papers": [None if p is None else [p["doc_id"], p["title"], p["abstract"]]
                                                      for p in papers]}


def step_parse_whole(workdir: Path) -> dict[str, Any]:
    """What the old build began with: the whole corpus.json parsed into Python objects."""
    from surge_dataset.data.validate import read_json_array

    t0 = time.perf_counter()
    corpus = read_json_array(workdir / "src" / "corpus.json")
    return {"s": time.perf_counter() - t0, "n": len(corpus)}


STEPS = {"lookup": step_lookup, "lookup_old": step_lookup_old, "parse_whole": step_parse_whole}


# --------------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------------


def _run_step(name: str, workdir: Path) -> dict[str, Any]:
    wall, rss, _ = corpus_scale.measure(
        [sys.executable, "-m", "benchmarks.corpus_memory", "--_step", name, "--workdir", str(workdir)], workdir, name
    )
    result = json.loads((workdir / f"result-{name}.json").read_text())
    result.update(wall_s=wall, rss_mb=rss)
    print(f"  {name}: {wall:.1f} s, {rss:,.0f} MB", flush=True)
    return result


def report(n: int, json_gb: float, res: dict[str, dict[str, Any]], same: bool) -> str:
    b, bo, lk, lo = res["build"], res["parse_whole"], res["lookup"], res["lookup_old"]
    mark = {True: "PASS", False: "FAIL"}
    lines = [
        f"### Corpus memory: {n:,} papers (corpus.json {json_gb:.2f} GB)",
        "",
        "| step | wall time (s) | peak RSS (MB) |",
        "|---|---:|---:|",
        f"| build: `surge data build`, corpus streamed | {b['wall_s']:.1f} | {b['rss_mb']:,.0f} |",
        f"| old build's first step: `orjson.loads` of the whole corpus.json | {bo['wall_s']:.1f} | {bo['rss_mb']:,.0f} |",
        f"| lookup: `Corpus.open` + resolve {N_TITLES} titles + get the papers of {N_SURVEYS} surveys "
        f"| {lk['wall_s']:.2f} | {lk['rss_mb']:,.0f} |",
        f"| old lookup: the same, papers by `read_all()` + `take` | {lo['wall_s']:.2f} | {lo['rss_mb']:,.0f} |",
        "",
        f"Peak RSS: build {bo['rss_mb'] / b['rss_mb']:.1f}× less than parsing the file whole, "
        f"lookup {lo['rss_mb'] / lk['rss_mb']:.1f}× less than the old lookup.",
        "",
        "| target | measured | result |",
        "|---|---:|---|",
        f"| build ≤ {TARGETS_MB['build']:,.0f} MB peak RSS | {b['rss_mb']:,.0f} MB "
        f"| {mark[b['rss_mb'] <= TARGETS_MB['build']]} |",
        f"| lookup ≤ {TARGETS_MB['lookup']:,.0f} MB peak RSS | {lk['rss_mb']:,.0f} MB "
        f"| {mark[lk['rss_mb'] <= TARGETS_MB['lookup']]} |",
        f"| lookup and old lookup return the same papers | {len(lk['papers']):,} papers | {mark[same]} |",
        "",
        "Wall time: the whole child process (interpreter start and imports included). MB = 10^6 bytes. "
        + ("Peak RSS from `/usr/bin/time -v`." if corpus_scale.TIME_BIN.exists()
           else "Peak RSS from getrusage(RUSAGE_CHILDREN)."),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=N_REAL, help="corpus papers (default: the real 1,086,992)")
    corpus_scale.add_run_arguments(parser, STEPS)
    args = parser.parse_args(argv)

    if args._step:  # internal: one measured step, result as JSON in the work folder
        result = STEPS[args._step](args.workdir)
        (args.workdir / f"result-{args._step}.json").write_text(json.dumps(result))
        return 0

    if args.papers < synthetic_corpus.N_REFS:
        parser.error(f"--papers must be at least {synthetic_corpus.N_REFS}")
    workdir = (args.workdir or Path(tempfile.mkdtemp(prefix="surge-corpus-memory-", dir="/tmp"))).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    src, built = workdir / "src", workdir / "built"
    try:
        if synthetic_corpus.is_generated(src, args.papers):
            print(f"reusing the generated data in {src}", flush=True)
        else:
            print(f"generating {args.papers:,} papers in {src} ...", flush=True)
            synthetic_corpus.generate(src, args.papers)
        json_gb = (src / "corpus.json").stat().st_size / 1e9
        shutil.rmtree(built, ignore_errors=True)
        res: dict[str, dict[str, Any]] = {}
        print("measuring (each step in its own process) ...", flush=True)
        surge = corpus_scale._surge_cmd()
        wall, rss, _ = corpus_scale.measure([*surge, "data", "build", "--source", str(src), "--out", str(built)],
                                            workdir, "build")
        res["build"] = {"wall_s": wall, "rss_mb": rss}
        print(f"  build: {wall:.1f} s, {rss:,.0f} MB", flush=True)
        for name in ("parse_whole", "lookup", "lookup_old"):
            res[name] = _run_step(name, workdir)
        same = res["lookup"]["papers"] == res["lookup_old"]["papers"]
        corpus_scale.emit_report(report(args.papers, json_gb, res, same), args.report)
        return 0 if same else 1
    finally:
        if not args.keep:
            corpus_scale._clean(workdir)


if __name__ == "__main__":
    sys.exit(main())
