"""Pairwise judging speed: sequential verdict requests vs ``--judge-concurrency 16``, then a cached rerun.

The ``pairwise_gt`` workload of the SurGE test split: 41 surveys, each compared with its human survey in both
orders (82 verdict questions of realistic length, about 6,000 characters per survey), asked through
:func:`surge_dataset.scoring.pairwise.ask_verdicts` (the path the metric and ``surge arena`` take) against the
scripted OpenAI-compatible server on 127.0.0.1, which waits ``--latency`` seconds (default 50 ms) before each
answer and prefers the longer survey. Each timed mode runs ``--repeats`` times on an empty cache and its best
time counts (as ``timeit`` does: the client and the server share one process and its CPU, so a busy machine only
ever adds time); then a concurrent run fills a cache and a rerun reads it. Prints both timings and the speed-up;
exits 1 when the concurrent run is not at least ``--min-speedup`` (default 8) times faster than the sequential one.

    python -m benchmarks.pairwise_speed
    python -m benchmarks.pairwise_speed --surveys 41 --latency 0.05 --concurrency 16
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from benchmarks import judge_throughput  # the timed pass, shared
from surge_dataset.scoring.pairwise import fit_text, pair_requests
from tests.support.openai_server import ScriptedOpenAIServer


def workload(surveys: int) -> list:
    """Both orders of each survey's pair: a generated survey against a (longer) human one."""
    requests = []
    for s in range(surveys):
        generated = f"# Survey {s}\n\n" + f"Graph neural networks, part {s}, pass messages along edges. " * 90
        human = f"# Human survey {s}\n\n" + f"Message passing networks, part {s}, aggregate neighbours. " * 110
        requests += pair_requests(f"Graph learning {s}", fit_text(generated)[0], fit_text(human)[0])
    return requests


def longer(messages: list[dict[str, str]]) -> str:
    text = messages[-1]["content"]
    a = text.split("Survey A:\n<<<\n", 1)[1].split("\n>>>", 1)[0]
    b = text.split("Survey B:\n<<<\n", 1)[1].split("\n>>>", 1)[0]
    return "[[A]]" if len(a) > len(b) else "[[B]]"


def run(server: ScriptedOpenAIServer, requests: list, concurrency: int, cache: Path | bool) -> dict:
    """judge_throughput.run with the verdicts asked the way the metric and ``surge arena`` ask them."""
    from surge_dataset.scoring.pairwise import ask_verdicts

    return judge_throughput.run(server, requests, concurrency, cache, ask=ask_verdicts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--surveys", type=int, default=41)
    parser.add_argument("--latency", type=float, default=0.05, help="server seconds per request")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--min-speedup", type=float, default=8.0)
    parser.add_argument("--repeats", type=int, default=3, help="runs per timed mode; the best counts")
    args = parser.parse_args()

    requests = workload(args.surveys)
    with tempfile.TemporaryDirectory() as tmp, ScriptedOpenAIServer(responder=longer, latency=args.latency) as server:
        run(server, requests[:32], args.concurrency, False)  # warm-up: imports, first connections

        def best(concurrency: int) -> dict:
            return min((run(server, requests, concurrency, False) for _ in range(args.repeats)),
                       key=lambda r: r["seconds"])

        cache = Path(tmp) / "cache"
        rows = [
            ("sequential (concurrency 1)", best(1)),
            (f"concurrent (concurrency {args.concurrency})", best(args.concurrency)),
            (f"concurrent (concurrency {args.concurrency}), filling a cache", run(server, requests, args.concurrency, cache)),
            (f"cached rerun (concurrency {args.concurrency})", run(server, requests, args.concurrency, cache)),
        ]
    print(f"{len(requests)} verdict requests ({args.surveys} surveys x 2 orders), server latency "
          f"{args.latency * 1000:.0f} ms per request, scripted server on 127.0.0.1; best of {args.repeats} for the "
          "first two rows")
    header = ["mode", "requests sent", "cache hits", "wall s", "verdicts/s", "speed-up"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("-" * (len(h) + 2) for h in header) + "|")
    base = rows[0][1]["seconds"]
    for name, r in rows:
        print(f"| {name} | {r['sent']} | {r['hits']} | {r['seconds']:.2f} | {len(requests) / r['seconds']:,.0f} | "
              f"{base / r['seconds']:,.1f}x |")
    speedup = base / rows[1][1]["seconds"]
    print(f"sequential {base:.2f} s, concurrent {rows[1][1]['seconds']:.2f} s: {speedup:.1f}x "
          f"({'meets' if speedup >= args.min_speedup else 'BELOW'} the {args.min_speedup:g}x target)")
    return 0 if speedup >= args.min_speedup else 1


if __name__ == "__main__":
    sys.exit(main())
