"""Retrieval at corpus scale: BM25 index build and search, rank-bm25 vs bm25s, FAISS exact search.

On the synthetic corpus of the data benchmark (``benchmarks/corpus_scale.py``'s generator, official
schema, ``--n`` papers, default the real 1,086,992; built with ``surge data build``), each step in its
own child process so that peak RSS is per step:

* bm25-build   ``build_bm25_index`` over title + abstract (what ``surge index bm25`` runs): wall, peak RSS;
* bm25-search  open the index (memory-mapped) + retrieve k=1000 for the 205 survey titles;
* subset       the first ``--subset`` papers (default 100,000), one tokenisation (bm25s' tokenizer, the same
               stemmer and stop-words) handed to both libraries: ``rank_bm25.BM25Okapi`` (what many users
               reach for) vs ``bm25s``: index time and the time to rank all papers for the 205 titles (top
               1000), and the overlap of their top-10s;
* faiss        ``IndexFlatIP`` (exact inner product, the dense index's default) over ``--n`` random
               768-d float32 vectors: add time, then 205 queries at k=1000; with ``--ivf`` also an IVF
               index on a ``--subset`` sample, with its recall against exact search (random vectors are
               the hardest case for IVF: this is a floor, not a forecast).

    python -m benchmarks.retrieval_scale [--n 1086992] [--subset 100000] [--workdir DIR] [--keep]

A work folder is reused when it already holds the generated and built corpus (``--keep``). Targets:
BM25 build <= 5 min and <= 8 GB on 2 cores; bm25s >= 20x rank-bm25; FAISS <= 10 s.
Missed targets are reported as FAIL (exit 0); a failed step exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

N_REAL = 1_086_992
N_QUERIES = 205
DIM = 768
K = 1000
TIME_BIN = Path("/usr/bin/time")
TARGETS = {"bm25_build_s": 300.0, "bm25_build_mb": 8000.0, "speedup": 20.0, "faiss_s": 10.0}


# --------------------------------------------------------------------------------------------------
# Steps (child processes)
# --------------------------------------------------------------------------------------------------


def _titles(workdir: Path) -> list[str]:
    surveys = json.loads((workdir / "src" / "surveys.json").read_text(encoding="utf-8"))
    return [s["survey_title"] for s in surveys][:N_QUERIES]


def step_bm25_build(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.retrieval.bm25 import build_bm25_index

    t0 = time.perf_counter()
    manifest = build_bm25_index(SurgeData.open(workdir / "built"), workdir / "bm25", overwrite=True)
    return {"seconds": time.perf_counter() - t0, "n_terms": manifest["n_terms"], "nnz": manifest["nnz"]}


def step_bm25_search(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    t0 = time.perf_counter()
    from surge_dataset.retrieval.bm25 import BM25Index

    titles = _titles(workdir)
    t1 = time.perf_counter()
    index = BM25Index.load(workdir / "bm25", backend="numba")  # what backend "auto" picks for 205 x 1.09M
    t2 = time.perf_counter()
    first = index.search(titles[:1], k=K)  # the numba scorer compiles on first use
    t3 = time.perf_counter()
    hits = index.search(titles, k=K)
    t4 = time.perf_counter()
    numpy_index = BM25Index.load(workdir / "bm25", backend="numpy")
    t5 = time.perf_counter()
    numpy_hits = numpy_index.search(titles, k=K)
    t6 = time.perf_counter()
    same = sum(len({h.doc_id for h in a[:10]} & {h.doc_id for h in b[:10]}) for a, b in zip(hits, numpy_hits, strict=True))
    return {"import_s": t1 - t0, "open_s": t2 - t1, "first_query_s": t3 - t2, "search_s": t4 - t3,
            "numpy_search_s": t6 - t5, "n_hits": sum(len(h) for h in hits) + 0 * len(first),
            "top10_agreement": same / (10 * len(hits))}


def step_subset(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    import bm25s
    import numpy as np
    import rank_bm25

    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.retrieval.bm25 import Tokenizer
    from surge_dataset.retrieval.index_base import batch_texts

    data = SurgeData.open(workdir / "built")
    texts: list[str] = []
    for batch in data.iter_corpus_batches(["title", "abstract"], batch_size=50_000):
        texts += batch_texts(batch)
        if len(texts) >= args.subset:
            break
    texts = texts[: args.subset]
    titles = _titles(workdir)
    tokenizer = Tokenizer()
    t0 = time.perf_counter()

    def split(ids: np.ndarray, lengths: np.ndarray) -> list[list[int]]:
        return [chunk.tolist() for chunk in np.split(ids, np.cumsum(lengths)[:-1])]

    corpus_ids = split(*tokenizer.tokenize(texts, update=True))
    query_ids = split(*tokenizer.tokenize(titles, update=False))
    tokenize_s = time.perf_counter() - t0
    vocab = tokenizer.vocab
    inverse = {i: s for s, i in vocab.items()}
    corpus_tokens = [[inverse[i] for i in doc] for doc in corpus_ids]
    query_tokens = [[inverse[i] for i in q] for q in query_ids]

    t0 = time.perf_counter()
    okapi = rank_bm25.BM25Okapi(corpus_tokens)
    rank_index_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    rank_top = []
    for query in query_tokens:
        scores = okapi.get_scores(query)
        rank_top.append(np.argsort(-scores, kind="stable")[:K])
    rank_query_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    retriever = bm25s.BM25(method="robertson", k1=1.5, b=0.75)  # rank-bm25's Okapi formula
    retriever.index((corpus_ids, vocab), show_progress=False)
    bm25s_index_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    docs, _ = retriever.retrieve([q or [vocab[""]] for q in query_ids], k=K, show_progress=False)
    bm25s_query_s = time.perf_counter() - t0
    overlap = float(np.mean([len(set(a[:10].tolist()) & set(b[:10].tolist())) / 10 for a, b in zip(rank_top, docs, strict=True)]))
    return {
        "n": len(texts), "tokenize_s": tokenize_s,
        "rank_index_s": rank_index_s, "rank_query_s": rank_query_s,
        "bm25s_index_s": bm25s_index_s, "bm25s_query_s": bm25s_query_s, "top10_overlap": overlap,
    }


def step_faiss(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    import faiss
    import numpy as np

    rng = np.random.default_rng(0)
    index = faiss.IndexFlatIP(DIM)
    t_gen = 0.0
    t_add = 0.0
    for start in range(0, args.n, 100_000):
        t0 = time.perf_counter()
        block = rng.standard_normal((min(100_000, args.n - start), DIM), dtype=np.float32)
        t_gen += time.perf_counter() - t0
        t0 = time.perf_counter()
        index.add(block)
        t_add += time.perf_counter() - t0
    queries = rng.standard_normal((N_QUERIES, DIM), dtype=np.float32)
    t0 = time.perf_counter()
    scores, rows = index.search(queries, K)
    search_s = time.perf_counter() - t0
    from surge_dataset.retrieval.faiss_index import exact_topk, flat_vectors

    t0 = time.perf_counter()
    ours_scores, ours_rows = exact_topk(queries, flat_vectors(index), K)
    ours_s = time.perf_counter() - t0
    out: dict[str, Any] = {"n": index.ntotal, "threads": faiss.omp_get_max_threads(), "add_s": t_add,
                           "search_s": search_s, "exact_topk_s": ours_s, "generate_s": t_gen,
                           "max_score_diff": float(np.abs(ours_scores - scores).max())}
    if args.ivf:
        n = min(args.subset, args.n)
        vectors = index.reconstruct_n(0, n)
        exact = faiss.IndexFlatIP(DIM)
        exact.add(vectors)
        _, truth = exact.search(queries, 100)
        nlist = max(1, min(int(4 * np.sqrt(n)), n // 39))
        ivf = faiss.IndexIVFFlat(faiss.IndexFlatIP(DIM), DIM, nlist, faiss.METRIC_INNER_PRODUCT)
        t0 = time.perf_counter()
        ivf.train(vectors[rng.choice(n, size=min(n, 64 * nlist), replace=False)])
        ivf.add(vectors)
        out["ivf_build_s"] = time.perf_counter() - t0
        out["ivf_nlist"] = nlist
        for nprobe in (32, 128):
            t0 = time.perf_counter()
            _, approx = ivf.search(queries, 100, params=faiss.SearchParametersIVF(nprobe=nprobe))
            out[f"ivf_nprobe{nprobe}_search_s"] = time.perf_counter() - t0
            out[f"ivf_nprobe{nprobe}_recall@100"] = float(np.mean(
                [len(set(a) & set(b)) / 100 for a, b in zip(approx.tolist(), truth.tolist(), strict=True)]
            ))
        t0 = time.perf_counter()
        exact.search(queries, 100)
        out["ivf_exact_subset_search_s"] = time.perf_counter() - t0
    return out


STEPS = {"bm25-build": step_bm25_build, "bm25-search": step_bm25_search, "subset": step_subset, "faiss": step_faiss}


# --------------------------------------------------------------------------------------------------
# Measuring a child
# --------------------------------------------------------------------------------------------------


def measure(step: str, workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Run one step in a child; its JSON result plus wall seconds and peak RSS (MB)."""
    cmd = [sys.executable, "-m", "benchmarks.retrieval_scale", "--_step", step, "--workdir", str(workdir), "--n", str(args.n),
           "--subset", str(args.subset), *(["--ivf"] if args.ivf else [])]
    log = workdir / f"time-{step}.txt"
    full = [str(TIME_BIN), "-v", "-o", str(log), *cmd] if TIME_BIN.exists() else cmd
    t0 = time.perf_counter()
    proc = subprocess.run(full, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"step {step} failed ({proc.returncode}):\n{(proc.stdout + proc.stderr)[-4000:]}")
    if TIME_BIN.exists():
        match = re.search(r"Maximum resident set size \(kbytes\):\s*(\d+)", log.read_text())
        rss = int(match.group(1)) * 1024 / 1e6 if match else float("nan")
    else:
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 / 1e6  # an upper bound
    result = {**json.loads((workdir / f"result-{step}.json").read_text()), "wall_s": wall, "rss_mb": rss}
    (workdir / f"measured-{step}.json").write_text(json.dumps(result))
    return result


def prepare(workdir: Path, n: int) -> None:
    """Generate (corpus_scale's generator) and build the synthetic dataset, unless already there."""
    from benchmarks.corpus_scale import GEN_VERSION, SEED, generate
    from surge_dataset.data.build import build_dataset

    src, built = workdir / "src", workdir / "built"
    wanted = {"n": n, "seed": SEED, "version": GEN_VERSION}
    meta = src / "gen_meta.json"
    if not (meta.exists() and json.loads(meta.read_text()) == wanted and (src / "corpus.json").exists()):
        print(f"generating {n:,} papers + 205 surveys in {src} ...", flush=True)
        t0 = time.perf_counter()
        generate(src, n)
        print(f"  {time.perf_counter() - t0:.1f} s", flush=True)
        shutil.rmtree(built, ignore_errors=True)
    if not (built / "surge_meta.json").exists():
        print(f"building the dataset in {built} ...", flush=True)
        t0 = time.perf_counter()
        build_dataset(src, built, overwrite=True)
        print(f"  {time.perf_counter() - t0:.1f} s", flush=True)


def _mark(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report(args: argparse.Namespace, res: dict[str, dict[str, Any]]) -> str:
    b, s, sub, f = res["bm25-build"], res["bm25-search"], res["subset"], res["faiss"]
    query_speedup = sub["rank_query_s"] / sub["bm25s_query_s"]
    index_speedup = sub["rank_index_s"] / sub["bm25s_index_s"]
    lines = [
        f"### Retrieval at scale: {args.n:,} synthetic papers, {N_QUERIES} survey-title queries, k = {K} "
        f"({os.cpu_count()} CPU cores)",
        "",
        "| step | wall (s) | peak RSS (MB) | detail |",
        "|---|---:|---:|---|",
        f"| BM25 build (`surge index bm25`) | {b['wall_s']:.1f} | {b['rss_mb']:,.0f} | in-process {b['seconds']:.1f} s; "
        f"{b['n_terms']:,} terms, {b['nnz']:,} postings |",
        f"| BM25 open + 205 queries | {s['wall_s']:.1f} | {s['rss_mb']:,.0f} | open (mmap) {s['open_s']:.2f} s; "
        f"numba scorer: JIT compile + 1st query {s['first_query_s']:.1f} s, then 205 queries {s['search_s']:.2f} s "
        f"({1000 * s['search_s'] / N_QUERIES:.0f} ms/query); numpy scorer: 205 queries {s['numpy_search_s']:.1f} s "
        f"(top-10 agreement {s['top10_agreement']:.3f}) |",
        f"| rank-bm25 on {sub['n']:,} papers | – | – | index {sub['rank_index_s']:.1f} s, 205 queries "
        f"{sub['rank_query_s']:.1f} s |",
        f"| bm25s on the same {sub['n']:,} | – | – | index {sub['bm25s_index_s']:.1f} s, 205 queries "
        f"{sub['bm25s_query_s']:.2f} s (shared tokenisation {sub['tokenize_s']:.1f} s; top-10 overlap "
        f"{sub['top10_overlap']:.3f}) |",
        f"| FAISS IndexFlatIP, {f['n']:,} x {DIM} | {f['wall_s']:.1f} | {f['rss_mb']:,.0f} | add {f['add_s']:.1f} s; "
        f"205 queries at k={K}: `IndexFlatIP.search` {f['search_s']:.2f} s ({f['threads']} threads), "
        f"our blockwise exact search over the same index (`surge retrieve`'s path) **{f['exact_topk_s']:.2f} s** "
        f"(max score difference {f['max_score_diff']:.1e}) |",
    ]
    if "ivf_nlist" in f:
        n = min(args.subset, args.n)
        lines.append(
            f"| IVF-Flat on {n:,} random vectors, nlist {f['ivf_nlist']} | – | – | build {f['ivf_build_s']:.1f} s; "
            f"recall@100 vs exact: nprobe 32 {f['ivf_nprobe32_recall@100']:.3f} "
            f"({f['ivf_nprobe32_search_s']:.2f} s), nprobe 128 {f['ivf_nprobe128_recall@100']:.3f} "
            f"({f['ivf_nprobe128_search_s']:.2f} s); exact {f['ivf_exact_subset_search_s']:.2f} s |"
        )
    lines += [
        "",
        f"bm25s vs rank-bm25: queries **{query_speedup:.0f}x** faster, indexing {index_speedup:.1f}x faster.",
        "",
        "| target | measured | result |",
        "|---|---:|---|",
        f"| BM25 build <= 5 min | {b['wall_s']:.1f} s | {_mark(b['wall_s'] <= TARGETS['bm25_build_s'])} |",
        f"| BM25 build <= 8 GB peak RSS | {b['rss_mb'] / 1000:.2f} GB | {_mark(b['rss_mb'] <= TARGETS['bm25_build_mb'])} |",
        f"| bm25s >= 20x rank-bm25 (queries) | {query_speedup:.0f}x | {_mark(query_speedup >= TARGETS['speedup'])} |",
        f"| exact search over the FAISS flat index, 205 queries <= 10 s | {f['exact_topk_s']:.2f} s "
        f"(FAISS' own: {f['search_s']:.2f} s) | {_mark(f['exact_topk_s'] <= TARGETS['faiss_s'])} |",
        "",
        "Wall: whole child process (interpreter start and imports included). MB = 10^6 bytes; peak RSS from "
        + ("`/usr/bin/time -v`." if TIME_BIN.exists() else "getrusage."),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=N_REAL, help="corpus papers (default: the real 1,086,992)")
    parser.add_argument("--subset", type=int, default=100_000, help="papers for rank-bm25 vs bm25s (and IVF)")
    parser.add_argument("--ivf", action=argparse.BooleanOptionalAction, default=True,
                        help="also measure IVF's recall cost on --subset random vectors")
    parser.add_argument("--workdir", type=Path, help="work folder (default: a temporary folder under /tmp)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (the corpus is reused)")
    parser.add_argument("--steps", default=",".join(STEPS), help="comma-separated subset of the steps")
    parser.add_argument("--report", type=Path, help="also write the table as Markdown here")
    parser.add_argument("--_step", choices=sorted(STEPS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args._step:
        result = STEPS[args._step](args.workdir, args)
        (args.workdir / f"result-{args._step}.json").write_text(json.dumps(result))
        return 0

    workdir = (args.workdir or Path(tempfile.mkdtemp(prefix="surge-retrieval-scale-", dir="/tmp"))).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    steps = [s for s in args.steps.split(",") if s]
    try:
        if set(steps) - {"faiss"}:
            prepare(workdir, args.n)
        res: dict[str, dict[str, Any]] = {}
        for step in steps:
            print(f"{step} ...", flush=True)
            res[step] = measure(step, workdir, args)
            print(f"  {json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in res[step].items()})}",
                  flush=True)
        for step in STEPS:  # steps not rerun now: their last measurement in this work folder, if any
            previous = workdir / f"measured-{step}.json"
            if step not in res and previous.exists():
                res[step] = json.loads(previous.read_text())
        if set(STEPS) <= set(res):
            text = report(args, res)
            print(text)
            if args.report:
                args.report.write_text(text, encoding="utf-8")
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        if not args.keep and args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
