"""Corpus at full scale: ``surge data build``, our title index, and the released evaluator's way.

Generates a synthetic ``corpus.json`` (official schema, ``--n`` papers, default the real 1,086,992)
and a ``surveys.json`` of 205 surveys, then measures, each step in its own child process so that
peak RSS is per step:

* build     ``surge data build --source SRC --out OUT`` (the CLI): wall time, peak RSS;
* ours      ``Corpus.open(OUT)`` + resolve 10,000 reference titles in batches of 100 (half present,
            taken from the corpus with case and punctuation perturbed; half absent): time to open,
            time to the first resolved title, total, peak RSS;
* released  the released evaluator's approach, re-implemented here for measurement only:
            ``json.load`` the whole corpus.json into Python dicts, build a dict normalised title ->
            doc_id over every paper (letters a-z of the lower-cased title; a later duplicate
            overwrites), then look the same 10,000 titles up in it.

Times to the first resolved title are measured inside the child from its first statement, so they
include importing what the step needs (numpy + pyarrow + surge_dataset for ours, json for released).
Wall times are those of the whole child process, measured by the parent. Peak RSS is the child's
maximum resident set size (``/usr/bin/time -v`` when present, else ``getrusage(RUSAGE_CHILDREN)`` of
a fresh wrapper process). Both lookups run on a warm page cache (the files were just written).

    python -m benchmarks.corpus_scale --n 1086992 [--workdir DIR] [--keep] [--report FILE]

Exit status 1 when a correctness check fails (a present title not resolved to its doc_id, an absent one
resolved, or ours and the released way disagree); missed targets are reported as FAIL but exit 0.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The synthetic data (benchmarks/synthetic_corpus.py); re-exported here, where retrieval_scale.py finds them.
from benchmarks import synthetic_corpus as _synthetic

N_SURVEYS, N_REFS, SEED, GEN_VERSION = _synthetic.N_SURVEYS, _synthetic.N_REFS, _synthetic.SEED, _synthetic.GEN_VERSION
Synth, generate = _synthetic.Synth, _synthetic.generate

N_REAL = 1_086_992
BATCH = 100  # titles per resolve() call: about one survey's reference list
TIME_BIN = Path("/usr/bin/time")

TARGETS = {
    "build_s": 240.0,
    "build_mb": 8000.0,
    "ours_s": 5.0,
    "ours_mb": 1500.0,
    "first_ratio": 10.0,
    "rss_ratio": 4.0,
}


# --------------------------------------------------------------------------------------------------
# Steps (each runs in its own child process)
# --------------------------------------------------------------------------------------------------


def step_ours(workdir: Path) -> dict[str, Any]:
    """Open our memory-mapped index and resolve the test titles in batches of ``BATCH``."""
    t0 = time.perf_counter()
    from surge_dataset.data.corpus import Corpus

    t_import = time.perf_counter()
    titles = [r["title"] for r in json.loads((workdir / "src" / "refs.json").read_text(encoding="utf-8"))]
    t_refs = time.perf_counter()
    corpus = Corpus.open(workdir / "built")
    t_open = time.perf_counter()
    resolved = corpus.resolve(titles[:1])
    t_first = time.perf_counter()
    for start in range(1, len(titles), BATCH):
        resolved.extend(corpus.resolve(titles[start : start + BATCH]))
    t_end = time.perf_counter()
    refs_s = t_refs - t_import  # reading our own test file is not part of either approach
    return {
        "import_s": t_import - t0,
        "open_s": t_open - t_refs,
        "first_s": t_first - t0 - refs_s,
        "total_s": t_end - t0 - refs_s,
        "resolved": resolved,
    }


_NON_LETTERS = re.compile(r"[^a-z]")


def _released_norm(title: str) -> str:
    return _NON_LETTERS.sub("", title.lower())


def step_released(workdir: Path) -> dict[str, Any]:
    """The released evaluator's approach: whole corpus into Python, a dict of normalised titles."""
    t0 = time.perf_counter()
    titles = [r["title"] for r in json.loads((workdir / "src" / "refs.json").read_text(encoding="utf-8"))]
    t_refs = time.perf_counter()
    with open(workdir / "src" / "corpus.json", encoding="utf-8") as handle:
        corpus = json.load(handle)
    t_load = time.perf_counter()
    table = {}
    for paper in corpus:
        table[_released_norm(paper["Title"])] = paper["doc_id"]  # a later duplicate overwrites
    t_dict = time.perf_counter()
    resolved = [table.get(_released_norm(titles[0]))]
    t_first = time.perf_counter()
    resolved.extend(table.get(_released_norm(t)) for t in titles[1:])
    t_end = time.perf_counter()
    refs_s = t_refs - t0
    return {
        "load_s": t_load - t_refs,
        "dict_s": t_dict - t_load,
        "first_s": t_first - t0 - refs_s,
        "total_s": t_end - t0 - refs_s,
        "resolved": resolved,
        "n_papers": len(corpus),
    }


STEPS = {"ours": step_ours, "released": step_released}


# --------------------------------------------------------------------------------------------------
# Measuring a child process
# --------------------------------------------------------------------------------------------------


def _parse_time_v(text: str) -> float:
    match = re.search(r"Maximum resident set size \(kbytes\):\s*(\d+)", text)
    if not match:
        raise RuntimeError(f"could not read the peak RSS from /usr/bin/time -v:\n{text[-2000:]}")
    return int(match.group(1)) * 1024 / 1e6


def measure(cmd: list[str], workdir: Path, name: str) -> tuple[float, float, str]:
    """Run ``cmd`` as a child; return (wall seconds, peak RSS in MB, its stdout+stderr)."""
    log = workdir / f"time-{name}.txt"
    if TIME_BIN.exists():
        full = [str(TIME_BIN), "-v", "-o", str(log), *cmd]
    else:  # a fresh wrapper process: its RUSAGE_CHILDREN covers exactly this one command
        full = [sys.executable, "-m", "benchmarks.corpus_scale", "--_wrap", str(log), "--", *cmd]
    t0 = time.perf_counter()
    proc = subprocess.run(full, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    wall = time.perf_counter() - t0
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise RuntimeError(f"step {name} failed ({proc.returncode}): {' '.join(cmd)}\n{output[-4000:]}")
    text = log.read_text()
    rss = _parse_time_v(text) if TIME_BIN.exists() else int(text) * 1024 / 1e6
    return wall, rss, output


def _wrap(log: str, cmd: list[str]) -> int:
    code = subprocess.call(cmd)
    Path(log).write_text(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))  # kB on Linux
    return code


def _surge_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("surge")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "surge_dataset.cli"]


# --------------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------------


def _mark(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report(n: int, res: dict[str, dict[str, Any]], checks: list[str]) -> str:
    """The results as a Markdown table, the ratios and the targets."""
    b, o, r = res["build"], res["ours"], res["released"]
    first_ratio = r["first_s"] / o["first_s"]
    rss_ratio = r["rss_mb"] / o["rss_mb"]
    t = TARGETS
    lines = [
        f"### Corpus at scale: {n:,} papers, {N_REFS:,} reference titles ({N_REFS // 2:,} present, "
        f"{N_REFS - N_REFS // 2:,} absent)",
        "",
        "| step | wall time (s) | time to first resolved title (s) | peak RSS (MB) | detail |",
        "|---|---:|---:|---:|---|",
        f"| build (`surge data build`) | {b['wall_s']:.1f} | – | {b['rss_mb']:,.0f} | "
        f"corpus.json {b['json_gb']:.2f} GB -> dataset folder {b['out_gb']:.2f} GB |",
        f"| ours open+resolve | {o['wall_s']:.2f} | {o['first_s']:.3f} | {o['rss_mb']:,.0f} | "
        f"imports {o['import_s']:.2f} s, open {o['open_s']:.3f} s, resolve all {o['total_s']:.2f} s "
        f"(in-process, batches of {BATCH}) |",
        f"| released way | {r['wall_s']:.1f} | {r['first_s']:.1f} | {r['rss_mb']:,.0f} | "
        f"json.load {r['load_s']:.1f} s, title dict {r['dict_s']:.1f} s, resolve all {r['total_s']:.1f} s |",
        "",
        f"Ratios (released / ours): time to first resolved title **{first_ratio:.1f}×**, "
        f"peak RSS **{rss_ratio:.1f}×**.",
        "",
        "| target | measured | result |",
        "|---|---:|---|",
        f"| build ≤ 4 min | {b['wall_s']:.1f} s | {_mark(b['wall_s'] <= t['build_s'])} |",
        f"| build ≤ 8 GB peak RSS | {b['rss_mb'] / 1000:.2f} GB | {_mark(b['rss_mb'] <= t['build_mb'])} |",
        f"| open + resolve ≤ 5 s | {o['wall_s']:.2f} s | {_mark(o['wall_s'] <= t['ours_s'])} |",
        f"| open + resolve ≤ 1.5 GB peak RSS | {o['rss_mb'] / 1000:.2f} GB | {_mark(o['rss_mb'] <= t['ours_mb'])} |",
        f"| ≥ 10× faster to first resolved title | {first_ratio:.1f}× | {_mark(first_ratio >= t['first_ratio'])} |",
        f"| ≥ 4× less memory than the released way | {rss_ratio:.1f}× | {_mark(rss_ratio >= t['rss_ratio'])} |",
        "",
        "Wall time: the whole child process (interpreter start included). Time to first resolved title: from the "
        "child's first statement (imports included). MB = 10^6 bytes. "
        + ("Peak RSS from `/usr/bin/time -v`." if TIME_BIN.exists() else "Peak RSS from getrusage(RUSAGE_CHILDREN)."),
        "",
        *[f"- {c}" for c in checks],
    ]
    return "\n".join(lines) + "\n"


def _clean(workdir: Path) -> None:
    """Remove what this script wrote into ``workdir``, then ``workdir`` itself if it is left empty."""
    for name in ("src", "built"):
        shutil.rmtree(workdir / name, ignore_errors=True)
    for pattern in ("result-*.json", "time-*.txt"):
        for path in workdir.glob(pattern):
            path.unlink()
    for path in workdir.glob(".built.*"):  # a build interrupted before its final rename
        shutil.rmtree(path, ignore_errors=True)
    try:
        workdir.rmdir()
    except OSError:
        pass


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def emit_report(table: str, path: Path | None) -> None:
    """Print a benchmark's Markdown table and, with ``--report``, keep a copy in ``path``."""
    print()
    print(table)
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(table, encoding="utf-8")


def add_run_arguments(parser: argparse.ArgumentParser, steps: dict[str, Any]) -> None:
    """The options every corpus benchmark takes: where it works, what it keeps, where the table goes."""
    parser.add_argument("--workdir", type=Path, help="work folder (default: a temporary folder under /tmp)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (generated data is reused)")
    parser.add_argument("--report", type=Path, help="also write the table as Markdown to this file")
    parser.add_argument("--_step", choices=sorted(steps), help=argparse.SUPPRESS)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_wrap":  # internal: measurement wrapper without /usr/bin/time
        return _wrap(argv[1], argv[3:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=N_REAL, help="corpus papers (default: the real 1,086,992)")
    add_run_arguments(parser, STEPS)
    args = parser.parse_args(argv)

    if args._step:  # internal: one measured step, result as JSON in the work folder
        result = STEPS[args._step](args.workdir)
        (args.workdir / f"result-{args._step}.json").write_text(json.dumps(result))
        return 0

    if args.n < N_REFS:
        parser.error(f"--n must be at least {N_REFS}")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="surge-corpus-scale-", dir="/tmp"))
    workdir.mkdir(parents=True, exist_ok=True)
    workdir = workdir.resolve()
    src, built = workdir / "src", workdir / "built"
    try:
        if _synthetic.is_generated(src, args.n):
            print(f"reusing the generated data in {src}", flush=True)
        else:
            print(f"generating {args.n:,} papers + {N_SURVEYS} surveys in {src} ...", flush=True)
            t0 = time.perf_counter()
            generate(src, args.n)
            print(f"  generated in {time.perf_counter() - t0:.1f} s "
                  f"(corpus.json {(src / 'corpus.json').stat().st_size / 1e9:.2f} GB)", flush=True)
        if built.exists():
            shutil.rmtree(built)
        res: dict[str, dict[str, Any]] = {}

        print("build: surge data build ...", flush=True)
        wall, rss, _ = measure([*_surge_cmd(), "data", "build", "--source", str(src), "--out", str(built)],
                               workdir, "build")
        res["build"] = {"wall_s": wall, "rss_mb": rss, "json_gb": (src / "corpus.json").stat().st_size / 1e9,
                        "out_gb": _dir_bytes(built) / 1e9}
        print(f"  {wall:.1f} s, {rss:,.0f} MB", flush=True)

        for step in ("ours", "released"):
            print(f"{step}: resolving {N_REFS:,} titles ...", flush=True)
            wall, rss, _ = measure([sys.executable, "-m", "benchmarks.corpus_scale", "--_step", step,
                                    "--workdir", str(workdir)], workdir, step)
            res[step] = json.loads((workdir / f"result-{step}.json").read_text())
            res[step].update(wall_s=wall, rss_mb=rss)
            print(f"  {wall:.2f} s, {rss:,.0f} MB", flush=True)

        refs = json.loads((src / "refs.json").read_text(encoding="utf-8"))
        expect = [r["expect"] for r in refs]  # doc_id = corpus row in the synthetic corpus
        present = [i for i, e in enumerate(expect) if e is not None]
        absent = [i for i, e in enumerate(expect) if e is None]
        checks = []
        ok_all = True
        for step in ("ours", "released"):
            got = res[step].pop("resolved")
            hits = sum(got[i] == expect[i] for i in present)
            misses = sum(got[i] is None for i in absent)
            ok = hits == len(present) and misses == len(absent)
            ok_all &= ok
            checks.append(f"{step}: {hits:,}/{len(present):,} present titles resolved to the right doc_id, "
                          f"{misses:,}/{len(absent):,} absent titles unresolved — {_mark(ok)}")
            res[step]["_got"] = got
        same = res["ours"].pop("_got") == res["released"].pop("_got")
        ok_all &= same
        checks.append(f"ours and the released way give identical results for all {N_REFS:,} titles — {_mark(same)}")
        emit_report(report(args.n, res, checks), args.report)
        return 0 if ok_all else 1
    finally:
        if not args.keep:
            _clean(workdir)


if __name__ == "__main__":
    sys.exit(main())
