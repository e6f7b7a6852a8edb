"""Retrieval commands of the ``surge`` CLI: ``index bm25|dense``, ``retrieve``, ``retrieval-eval``,
``data export-retrieval``.

Kept out of ``cli.py`` so the retrieval area is one self-contained sub-app; ``cli.py`` registers it::

    app.add_typer(index_app, name="index")
    app.command("retrieve")(retrieve)
    app.command("retrieval-eval")(retrieval_eval)
    data_app.command("export-retrieval")(export_retrieval)

Heavy imports (bm25s, torch, faiss, ranx) happen inside the commands. No command catches an exception: what a
user can fix (a missing run or index, an unknown split, a bad ``--format``) is a ``SurgeError`` raised where it
happens, which the ``surge`` root prints as one line with exit 2 (``cli.SurgeGroup``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from surge_dataset.cli.console import console, out_console
from surge_dataset.cli.options import data_option
from surge_dataset.core.vocabulary import check_choice
from surge_dataset.retrieval.rerank import RERANKERS

index_app = typer.Typer(help="Build retrieval indexes over the corpus (BM25, dense + FAISS).", no_args_is_help=True)


def _say(message: str) -> None:
    console.print(f"[dim]{message}[/]", highlight=False)


def _open_data(data: str) -> Any:
    """The ``--data`` dataset (a missing one is a ``DatasetNotFoundError``: one line, exit 2)."""
    from surge_dataset.data.dataset import SurgeData

    return SurgeData.open(data)


@index_app.command("bm25")
def index_bm25(
    data: str = data_option(),
    out: Path = typer.Option(Path("indexes/bm25"), "--out", help="Index folder to write."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace --out if it exists."),
    k1: float = typer.Option(1.5, "--k1", help="BM25 k1."),
    b: float = typer.Option(0.75, "--b", help="BM25 b."),
    batch_size: int = typer.Option(50_000, "--batch-size", help="Papers tokenised per batch."),
) -> None:
    """BM25 (bm25s) over title + abstract: lower-cased, English stop-words, Snowball English stemmer."""
    from surge_dataset.retrieval.bm25 import build_bm25_index

    dataset = _open_data(data)
    manifest = build_bm25_index(dataset, out, k1=k1, b=b, batch_size=batch_size, overwrite=overwrite, progress=_say)
    out_console.print(
        f"{out}: BM25 index of {manifest['n_docs']:,} papers, {manifest['n_terms']:,} terms "
        f"({manifest['build_seconds']:.1f} s)"
    )


@index_app.command("dense")
def index_dense(
    model: Path = typer.Option(..., "--model", help="Retriever checkpoint (train_retriever.py output or HF model folder)."),
    data: str = data_option(),
    out: Path = typer.Option(Path("indexes/dense"), "--out", help="Index folder (rerun to resume a crashed run)."),
    batch_size: int = typer.Option(128, "--batch-size", help="Papers per forward pass."),
    shard_size: int = typer.Option(50_000, "--shard-size", help="Papers per on-disk embedding shard."),
    max_length: int | None = typer.Option(None, "--max-length", help="Max document tokens (default: the model's setting, else 256)."),
    faiss_index: str = typer.Option("flat", "--faiss", help="flat (exact inner product), ivf or hnsw."),
    nlist: int | None = typer.Option(None, "--nlist", help="IVF lists (default 4*sqrt(N))."),
    nprobe: int = typer.Option(32, "--nprobe", help="IVF lists probed per query."),
    hnsw_m: int = typer.Option(32, "--hnsw-m", help="HNSW graph degree."),
    ef_search: int = typer.Option(256, "--ef-search", help="HNSW search breadth (raised to k if smaller)."),
    fp16: bool | None = typer.Option(None, "--fp16/--no-fp16", help="Half precision (default: on GPU only)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Discard an existing --out, shards included."),
) -> None:
    """Encode the corpus ([CLS] of the last layer), sharded and resumable, then build a FAISS index.

    Several GPUs: `accelerate launch --multi_gpu --num_processes 8 -m surge_dataset.cli index dense ...`.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from surge_dataset.retrieval.encoding import encode_corpus
    from surge_dataset.retrieval.faiss_index import FAISS_KINDS

    check_choice("--faiss", faiss_index, FAISS_KINDS)  # --model is checked by encode_corpus
    dataset = _open_data(data)
    main_process = int(os.environ.get("RANK", "0")) == 0  # under accelerate launch, one bar (process 0's share)
    with Progress(TextColumn("[bold]encoding"), BarColumn(), MofNCompleteColumn(), TextColumn("papers"),
                  TextColumn("{task.fields[speed]}"), TimeRemainingColumn(), console=console, transient=True,
                  disable=not main_process) as progress:
        task = progress.add_task("encode", total=None, speed="")
        started = time.perf_counter()

        def on_papers(done: int, total: int | None) -> None:
            elapsed = time.perf_counter() - started
            progress.update(task, completed=done, total=total, speed=f"{done / elapsed:,.0f}/s" if elapsed > 0 else "")

        report = encode_corpus(
            model, dataset, out, batch_size=batch_size, shard_size=shard_size, max_length=max_length,
            fp16=fp16, faiss_index=faiss_index, nlist=nlist, nprobe=nprobe, hnsw_m=hnsw_m,
            ef_search=ef_search, overwrite=overwrite, progress=lambda m: progress.console.print(
                f"[dim]{m}[/]", highlight=False), on_papers=on_papers,
        )
    manifest = report.manifest
    line = (
        f"{out}: dense index ({manifest['faiss']}) of {manifest['n_docs']:,} papers, dim {manifest['dim']}; "
        f"encoded {len(report.encoded)} shard(s), reused {len(report.skipped)}"
    )
    recall = {k: v for k, v in manifest.items() if k.startswith("recall_vs_exact")}
    if recall:
        line += "; " + ", ".join(f"{k} = {v:.4f}" for k, v in recall.items())
    out_console.print(line)


@index_app.command("list")
def index_list() -> None:
    """The index kinds `surge retrieve` can open: built-in, registered, and `surge.indexes` entry points."""
    from surge_dataset.retrieval.registry import INDEXES

    table = Table(title="index kinds")
    table.add_column("kind")
    table.add_column("searcher")
    table.add_column("source")
    builtins = INDEXES.builtins()
    for kind, target in INDEXES.targets().items():
        table.add_row(kind, target, "built-in" if builtins.get(kind) == target else "plugin")
    out_console.print(table)


def retrieve(
    index: Path = typer.Option(..., "--index", help="Index folder from `surge index bm25|dense` (any kind of `surge index list`)."),
    data: str = data_option(),
    queries: str = typer.Option("test", "--queries", help="Split whose queries are run (test or train)."),
    query_type: str = typer.Option("titles", "--query-type", help="titles (survey titles, Table 3) or questions (queries.json)."),
    k: int = typer.Option(1000, "--k", help="Papers retrieved per query."),
    out: Path = typer.Option(Path("run.trec"), "--out", help="TREC run file (metadata beside it: <out>.meta.json)."),
    date_cutoff: bool = typer.Option(False, "--date-cutoff", help="Drop papers dated after the query's survey."),
    model: Path | None = typer.Option(None, "--model", help="Dense (and indexes that take it): query encoder (default: the index's model)."),
    batch_size: int = typer.Option(64, "--batch-size", help="Dense (and indexes that take it): queries per forward pass."),
    min_cites: int = typer.Option(0, "--min-cites", help="Only queries of surveys whose GT cites at least N papers."),
    exclude_empty: bool = typer.Option(
        False, "--exclude-empty", help="Skip surveys that cite nothing or have no section with 100 characters."),
    rerank: str | None = typer.Option(
        None, "--rerank", help=f"Re-rank each query's top papers: {', '.join(RERANKERS)} (or a surge.rerankers plugin)."),
    rerank_llm: str | None = typer.Option(
        None, "--rerank-llm", help="The re-ranker's LLM: gguf:<file> or hf:<model> (upr, rankgpt), openai:<model> "
                                   "(rankgpt; upr only where the server echoes prompt log-probabilities)."),
    rerank_depth: int = typer.Option(100, "--rerank-depth", help="Papers re-ranked per query (the rest follow)."),
) -> None:
    """Retrieve the top-k papers for each query of a split and write a TREC run."""
    from surge_dataset.data.filters import SurveyFilter
    from surge_dataset.retrieval.index_base import read_manifest
    from surge_dataset.retrieval.runs import QUERY_TYPES, run_retrieval

    check_choice("--query-type", query_type, QUERY_TYPES)
    survey_filter = SurveyFilter(min_cites, exclude_empty)
    read_manifest(index)  # no index there: fail before the dataset is read (an unknown kind fails in open_index)
    # every kind is offered the same options; open_index passes each searcher those it takes
    kwargs: dict[str, Any] = {"batch_size": batch_size}
    if model is not None:
        kwargs["model"] = str(model)
    if rerank:
        kwargs.update(reranker=_reranker(rerank, rerank_llm), rerank_depth=rerank_depth)
    meta = run_retrieval(index, _open_data(data), out, split=queries, query_type=query_type, k=k,
                         date_cutoff=date_cutoff, survey_filter=survey_filter, **kwargs)
    out_console.print(
        f"{out}: {meta['n_queries']} queries ({query_type}, split {queries}), top {k} from {index} "
        f"({meta['index_kind']}{', date cutoff' if date_cutoff else ''}"
        f"{f', re-ranked by {rerank}' if rerank else ''}) in {meta['seconds']:.1f} s"
    )


def _reranker(name: str, llm: str | None) -> Any:
    """``--rerank NAME --rerank-llm SPEC`` -> the re-ranker (an unknown name: one line naming the closest)."""
    from surge_dataset.core.errors import SettingError
    from surge_dataset.llm import make_llm
    from surge_dataset.retrieval.rerank import get_reranker, reranker_class

    reranker_class(name)
    if not llm:
        raise SettingError(f"--rerank {name} needs --rerank-llm (gguf:<file>, hf:<model> or openai:<model>)")
    return get_reranker(name, llm=make_llm(llm))


def retrieval_eval(
    run: Path = typer.Option(..., "--run", help="TREC run file."),
    qrels: str = typer.Option("test", "--qrels", help="A split name (qrels from the dataset), a TREC qrels file or "
                                                      "a BEIR one (qrels/<split>.tsv of an export)."),
    data: str = data_option(),
    query_type: str | None = typer.Option(None, "--query-type", help="titles or questions (default: from the run's metadata, else titles)."),
    out: Path | None = typer.Option(None, "--out", help="Write metrics (means + per query) as JSON here."),
    engine: str = typer.Option("numpy", "--engine", help="numpy (instant) or ranx (same numbers; numba compiles "
                                                         "~35 s on first use)."),
    min_cites: int | None = typer.Option(
        None, "--min-cites", help="Only queries of surveys whose GT cites at least N papers (default: the run's filter)."),
    exclude_empty: bool | None = typer.Option(
        None, "--exclude-empty/--keep-empty",
        help="Skip surveys that cite nothing or have no section with 100 characters (default: the run's filter)."),
    average: str = typer.Option(
        "qrels", "--average", help="The mean written to --out: qrels (every qrels query, missing from the run = 0) or "
                                   "run (the queries the run has: BEIR's, pytrec_eval's). Both are printed."),
) -> None:
    """Recall@20/30/100/200/500/1000 (Table 3), nDCG@10 and MRR of a run (trec_eval's definitions and tie order)."""
    from surge_dataset.core.io import atomic_write_json
    from surge_dataset.data.filters import SurveyFilter, filter_qrels
    from surge_dataset.retrieval.evaluation import AVERAGES, ENGINES, METRICS, TABLE3, evaluate_run
    from surge_dataset.retrieval.runs import (
        QUERY_TYPES,
        load_qrels,
        read_run_metadata,
        read_trec_qrels,
        read_trec_run,
    )

    check_choice("--engine", engine, ENGINES)
    check_choice("--average", average, AVERAGES)
    ranked = read_trec_run(run)  # a missing or malformed --run fails first
    meta = read_run_metadata(run)
    kind = query_type or meta.get("query_type") or "titles"
    check_choice("--query-type", kind, QUERY_TYPES)
    if Path(qrels).is_file():
        judgements = read_trec_qrels(qrels)
        source = qrels
    else:
        judgements = load_qrels(_open_data(data), qrels, kind)  # an unknown split names the dataset's splits
        source = f"split {qrels} ({kind})"
    run_filter = SurveyFilter.from_dict(meta.get("filters"))
    survey_filter = SurveyFilter(run_filter.min_cites if min_cites is None else min_cites,
                                 run_filter.exclude_empty if exclude_empty is None else exclude_empty)
    if survey_filter.active:
        judgements = filter_qrels(judgements, _open_data(data), kind, survey_filter)
        source += f" filtered {survey_filter.as_dict()}"
    result = evaluate_run(ranked, judgements, engine=engine, average=average)
    table = Table(title=f"{run} vs {source}: {result['n_queries']} queries, {result['n_run_queries']} in the run")
    table.add_column("run")
    table.add_column("averaged over", justify="left")
    for metric in METRICS:
        table.add_column(metric.replace("recall", "R"), justify="right")
    labels = {"qrels": f"{result['n_queries']} qrels queries, missing = 0",
              "run": f"{result['n_run_queries']} in the run (BEIR, pytrec_eval)"}
    for name in sorted(AVERAGES, key=lambda a: a != average):  # the chosen one first, the other beside it
        means = result["means"][name]
        table.add_row(run.name if name == average else "", labels[name],
                      *("" if means[m] is None else f"{means[m]:.4f}" for m in METRICS),
                      style=None if name == average else "dim")
    if kind == "titles" and qrels == "test":
        for name, row in TABLE3.items():
            table.add_row(name, "", *(f"{row[m]:.4f}" if m in row else "" for m in METRICS), style="dim")
    out_console.print(table)
    if out is not None:
        atomic_write_json(out, {**result, "run": str(run), "qrels": source, "query_type": kind,
                                "filters": survey_filter.as_dict()})
        out_console.print(f"metrics written to {out}")


def export_retrieval(
    data: str = data_option(),
    out: Path = typer.Option(..., "--out", help="Folder to write."),
    fmt: str = typer.Option("beir", "--format", help="beir (jsonl + qrels tsv) or mteb (HF dataset: corpus/queries/default configs)."),
    split: str = typer.Option("test", "--split", help="Split whose queries and qrels are exported."),
    query_type: str = typer.Option("titles", "--query-type", help="titles or questions."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace --out if it exists."),
) -> None:
    """Export corpus / queries / qrels in BEIR's or MTEB's layout, to run the benchmark inside them."""
    from surge_dataset.retrieval.export import FORMATS
    from surge_dataset.retrieval.export import export_retrieval as export
    from surge_dataset.retrieval.runs import QUERY_TYPES

    check_choice("--format", fmt, FORMATS)
    check_choice("--query-type", query_type, QUERY_TYPES)
    counts = export(_open_data(data), out, fmt=fmt, split=split, query_type=query_type, overwrite=overwrite)
    out_console.print(
        f"{out} ({fmt}): {counts['corpus']:,} papers, {counts['queries']:,} queries, {counts['qrels']:,} qrels"
    )


__all__ = ["export_retrieval", "index_app", "retrieval_eval", "retrieve"]
