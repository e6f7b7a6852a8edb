"""Judge throughput: sequential requests (the released evaluator) vs concurrent ones, and a cached rerun.

One run against the scripted OpenAI-compatible server on 127.0.0.1, which waits ``--latency`` seconds
before answering each request (a stand-in for a remote model's response time). The workload is SurGE
shaped: per survey one SQS request and up to 20 CQS requests, all distinct. Modes:

- sequential: concurrency 1, empty cache (how the released evaluator called GPT-4o: one at a time);
- concurrent: ``--concurrency`` requests in flight (default 16), empty cache;
- cached rerun: a fresh judge on the cache the concurrent run filled: nothing is sent.

    python -m benchmarks.judge_throughput                      # 10 surveys x 21 requests, 50 ms latency
    python -m benchmarks.judge_throughput --surveys 41 --latency 0.2
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from surge_dataset.llm import Judge, JudgeRequest, make_llm
from surge_dataset.llm.prompts import get_prompt
from tests.support.openai_server import ScriptedOpenAIServer


def workload(surveys: int, sections: int) -> list[JudgeRequest]:
    """Distinct SQS and CQS requests shaped like a real run (prompt texts of realistic length)."""
    requests = []
    for s in range(surveys):
        outline = "\n".join(f"{'#' * (1 + i % 3)} Section {s}.{i} on graph learning" for i in range(40))
        requests.append(JudgeRequest.score(get_prompt("sqs").render(reference_outline=outline, generated_outline=outline[::-1]), 0, 5))
        for k in range(sections):
            text = f"Survey {s}, section {k}. " + "Graph neural networks pass messages along edges. " * 18
            requests.append(JudgeRequest.score(get_prompt("cqs").render(section=text[:1000]), 0, 5))
    return requests


def run(server: ScriptedOpenAIServer, requests: list[JudgeRequest], concurrency: int, cache: Path | bool,
        ask: Callable[[Judge, list[Any]], list[Any]] = Judge.run) -> dict:
    """One timed pass of ``ask(judge, requests)`` against ``server`` (pairwise_speed.py asks verdicts)."""
    llm = make_llm("openai:benchmark-judge", base_url=server.base_url, concurrency=concurrency, timeout=30,
                   cache_dir=cache)
    llm.backend.client()  # build the HTTP client (imports openai) outside the timed part
    before = len(server.requests)
    start = time.perf_counter()
    outcomes = ask(Judge(llm), requests)
    seconds = time.perf_counter() - start
    assert all(o.value is not None for o in outcomes)
    return {"seconds": seconds, "sent": len(server.requests) - before, "hits": llm.stats.cache_hits}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--surveys", type=int, default=10)
    parser.add_argument("--sections", type=int, default=20, help="CQS requests per survey")
    parser.add_argument("--latency", type=float, default=0.05, help="server seconds per request")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()

    requests = workload(args.surveys, args.sections)
    with tempfile.TemporaryDirectory() as tmp, ScriptedOpenAIServer(latency=args.latency) as server:
        cache = Path(tmp) / "cache"
        rows = [
            ("sequential (concurrency 1, released evaluator)", run(server, requests, 1, False)),
            (f"concurrent (concurrency {args.concurrency}), empty cache", run(server, requests, args.concurrency, cache)),
            (f"cached rerun (concurrency {args.concurrency})", run(server, requests, args.concurrency, cache)),
        ]
    print(f"{len(requests)} judge requests ({args.surveys} surveys x (1 SQS + {args.sections} CQS)), "
          f"server latency {args.latency * 1000:.0f} ms per request, scripted server on 127.0.0.1")
    header = ["mode", "requests sent", "cache hits", "wall s", "judge calls/s", "speed-up"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("-" * (len(h) + 2) for h in header) + "|")
    base = rows[0][1]["seconds"]
    for name, r in rows:
        rate = len(requests) / r["seconds"]
        print(f"| {name} | {r['sent']} | {r['hits']} | {r['seconds']:.2f} | {rate:,.0f} | {base / r['seconds']:,.1f}x |")


if __name__ == "__main__":
    main()
