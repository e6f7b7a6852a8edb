"""NLI throughput: the released evaluator's way of calling the cross-encoder vs this package's engine.

One run, one machine, one model, the same deterministic SurGE-shaped workload (surveys x 3 levels, with
the duplicate pairs real runs have: a paper cited several times in one section, popular papers cited
under generic headings in many surveys, boilerplate sentences). Modes:

- released: one model call per (survey, level), pairs in document order, fixed batches of 32 without
  length sorting (what ``CrossEncoder.predict`` did when the evaluator was released), no dedupe, no cache;
- engine cold: ``NLIScorer.logits`` on all pairs of the run: de-duplicated, length-sorted, batched, empty cache;
- engine cold, per call: the same engine called once per (survey, level); the cache dedupes across calls;
- engine warm: a fresh ``NLIScorer`` rerunning the whole run against the filled cache.

    python -m benchmarks.nli_throughput                 # builds a small random BERT NLI model
    python -m benchmarks.nli_throughput --model PATH    # e.g. a local copy of cross-encoder/nli-deberta-v3-base
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import numpy as np

Pair = tuple[str, str]
Workload = list[tuple[int, str, list[Pair]]]  # (survey, level, pairs)

_TOPIC_WORDS = (
    "graph neural network language model retrieval attention transformer federated privacy reinforcement "
    "learning vision image speech knowledge question answering reasoning optimization robust efficient "
    "benchmark evaluation generation scientific survey data training representation contrastive sparse"
).split()
_FILLER = "we propose a new method and show that it improves the results on the task with less data".split()
_GENERIC_HEADINGS = [
    "Introduction",
    "Background",
    "Related Work",
    "Challenges",
    "Future Directions",
    "Conclusion",
]
_BOILERPLATE = [
    "Transformers have become the dominant architecture in natural language processing [1]",
    "Large language models show strong performance on many reasoning benchmarks [1]",
    "Graph neural networks learn node representations by message passing [1]",
    "Retrieval augmented generation grounds model outputs in external documents [1]",
]
_BOILERPLATE_CITES = [0, 1, 2, 3]  # the most popular papers back the boilerplate sentences


def _sentence(rng: random.Random, low: int, high: int) -> str:
    words = [
        rng.choice(_TOPIC_WORDS if rng.random() < 0.6 else _FILLER) for _ in range(rng.randint(low, high))
    ]
    return " ".join(words).capitalize()


def build_workload(n_surveys: int = 30, per_level: int = 33, n_papers: int = 1500, seed: int = 0) -> Workload:
    """Deterministic (survey, level, pairs) groups shaped like one SurGE evaluation run."""
    rng = random.Random(seed)
    papers = []
    for _ in range(n_papers):
        title = _sentence(rng, 5, 12)
        abstract = ". ".join(_sentence(rng, 10, 25) for _ in range(rng.randint(4, 9))) + "."
        papers.append((title, f"There is a paper. Title: '{title}'. Abstract: {abstract}"))
    # Citation popularity is heavy-tailed: a few papers are cited by almost every survey.
    weights = [1.0 / (rank + 1) ** 1.1 for rank in range(n_papers)]

    def cite() -> tuple[str, str]:
        return rng.choices(papers, weights=weights)[0]

    workload: Workload = []
    for survey in range(n_surveys):
        survey_title = "A survey of " + _sentence(rng, 3, 7).lower()
        headings = _GENERIC_HEADINGS + [_sentence(rng, 2, 6) for _ in range(6)]

        refs: list[tuple[str, str]] = []  # reference list: unique papers
        while len(refs) < per_level:
            paper = cite()
            if paper not in refs:
                refs.append(paper)
        doc = [(p, f"The paper titled '{t}' with the given abstract could be cited in the paper: '{survey_title}'.")
               for t, p in refs]  # fmt: skip

        sec: list[Pair] = []
        while len(sec) < per_level:
            title, premise = rng.choice(refs[:12]) if rng.random() < 0.5 else cite()
            heading = rng.choice(headings[:6] if rng.random() < 0.5 else headings)
            hyp = (
                f"The paper titled '{title}' with the given abstract is relevant to the section: '{heading}'."
            )
            sec.extend(
                [(premise, hyp)] * min(rng.choice([1, 1, 2, 3]), per_level - len(sec))
            )  # cited n times

        sent: list[Pair] = []
        while len(sent) < per_level:
            if rng.random() < 0.25:
                title, premise = papers[_BOILERPLATE_CITES[len(sent) % len(_BOILERPLATE_CITES)]]
                text = rng.choice(_BOILERPLATE)
            else:
                title, premise = cite()
                text = _sentence(rng, 8, 30) + " [1]"
            hyp = f"The paper titled '{title}' with the given abstract could be cited in the sentence: '{text}'."
            sent.append((premise, hyp))
        workload += [(survey, "document", doc), (survey, "section", sec), (survey, "sentence", sent)]
    return workload


@dataclass
class Measure:
    """Best wall time and CPU time over repeats, plus the model work of one repeat (deterministic)."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    forward_calls: int = 0
    padded_tokens: int = 0
    real_tokens: int = 0
    scored: int = 0


def _count_tokens(model: Any, measure: Measure) -> Callable[[], None]:
    """Count batches and padded/real tokens at the word-embedding layer (sentence-transformers calls the
    transformer's ``forward`` directly, bypassing its hooks); returns the function that removes the hook."""
    pad_id = model.config.pad_token_id

    def hook(_module: Any, args: tuple[Any, ...]) -> None:
        input_ids = args[0]
        measure.forward_calls += 1
        measure.padded_tokens += int(input_ids.numel())
        measure.real_tokens += (
            int((input_ids != pad_id).sum()) if pad_id is not None else int(input_ids.numel())
        )

    return model.get_input_embeddings().register_forward_pre_hook(hook).remove


def _run(measure: Measure, model: Any, fn: Callable[[], Any], count: bool) -> Any:
    remove = _count_tokens(model, measure) if count else None
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    measure.wall.append(time.perf_counter() - wall)
    measure.cpu.append(time.process_time() - cpu)
    if remove is not None:
        remove()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--model", help="NLI cross-encoder folder or hub id (default: build a small random one)"
    )
    parser.add_argument("--surveys", type=int, default=30)
    parser.add_argument("--per-level", type=int, default=33, help="pairs per survey and level")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--device", default=None)
    parser.add_argument("--hidden-size", type=int, default=128, help="size of the built model")
    parser.add_argument("--layers", type=int, default=2, help="layers of the built model")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--repeats", type=int, default=1, help="run every mode this many times, keep the best"
    )
    args = parser.parse_args()

    import torch

    from surge_dataset.models import NLIScorer
    from surge_dataset.testing.models import build_tiny_nli_cross_encoder

    with tempfile.TemporaryDirectory(prefix="surge-nli-bench-") as tmp:
        model = args.model or str(
            build_tiny_nli_cross_encoder(
                Path(tmp) / "model", seed=args.seed, hidden_size=args.hidden_size, num_layers=args.layers
            )
        )
        cache_dir = Path(tmp) / "cache"
        workload = build_workload(args.surveys, args.per_level, seed=args.seed)
        all_pairs = [pair for _, _, pairs in workload for pair in pairs]
        n_pairs, n_unique = len(all_pairs), len(set(all_pairs))

        released_model = NLIScorer(model, device=args.device, batch_size=args.batch_size, cache_dir=False)
        ce = released_model.model
        ce.predict([list(p) for p in all_pairs[:64]], batch_size=args.batch_size)  # warm-up, untimed

        def released() -> np.ndarray:
            rows = []
            with torch.inference_mode():
                for _, _, pairs in workload:
                    for start in range(0, len(pairs), args.batch_size):
                        batch = [list(p) for p in pairs[start : start + args.batch_size]]
                        rows.append(ce.predict(batch, batch_size=args.batch_size, show_progress_bar=False))
            return np.concatenate(rows)

        def scorer(name: str) -> NLIScorer:
            return NLIScorer(
                model, device=args.device, batch_size=args.batch_size, cache_dir=cache_dir / name
            )

        # Modes take turns in each repeat and the best time of each counts: a shared machine's noise
        # then hits all modes alike instead of whichever happened to run during a busy spell.
        modes = {name: Measure() for name in ("released", "cold", "per_call", "warm")}
        for repeat in range(args.repeats):
            first = repeat == 0
            out_released = _run(modes["released"], ce.model, released, first)
            cold = scorer(f"cold{repeat}")
            out_cold = _run(modes["cold"], cold.model.model, lambda: cold.logits(all_pairs), first)  # noqa: B023
            per_call = scorer(f"per-call{repeat}")
            _run(
                modes["per_call"],
                per_call.model.model,
                lambda: [per_call.logits(pairs) for _, _, pairs in workload],  # noqa: B023
                first,
            )
            warm = scorer(f"cold{repeat}")
            out_warm = _run(modes["warm"], warm.model.model, lambda: warm.logits(all_pairs), first)  # noqa: B023
            if first:
                modes["released"].scored = n_pairs
                for name, used in (("cold", cold), ("per_call", per_call), ("warm", warm)):
                    modes[name].scored = used.stats.computed

            # Same numbers whichever way they were computed (released output is in the model's label order).
            reordered = np.asarray(out_released)[:, cold._permutation]
            max_diff = float(np.abs(reordered - out_cold).max())
            assert np.array_equal(out_cold, out_warm)

    dtype = str(cold.dtype).removeprefix("torch.")
    print(f"model: {args.model or f'built random BERT (hidden {args.hidden_size}, {args.layers} layers)'}")
    print(f"device: {cold.model.device}, dtype: {dtype}, torch threads: {torch.get_num_threads()}")
    print(
        f"workload: {args.surveys} surveys x 3 levels, {n_pairs} pairs, {n_unique} unique "
        f"({n_pairs / n_unique:.2f} requests per unique pair)"
    )
    print(
        f"max |released - engine| logit difference: {max_diff:.2e}; repeats: {args.repeats} (best time kept)\n"
    )
    labels = {
        "released": "released: per survey x level, unsorted, no cache",
        "cold": "engine cold: dedupe + length sort + batch",
        "per_call": "engine cold, one call per survey x level",
        "warm": "engine warm: rerun on the filled cache",
    }
    print(
        "wall times per repeat (s):",
        {name: [round(t, 2) for t in m.wall] for name, m in modes.items()},
        "\n",
    )
    base = modes["released"]
    header = [
        "mode",
        "scored",
        "batches",
        "padded tok",
        "real tok",
        "wall s",
        "pairs/s",
        "speed-up",
        "cpu s",
        "cpu ratio",
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("-" * (len(h) + 2) for h in header) + "|")
    for name, m in modes.items():
        wall, cpu = min(m.wall), min(m.cpu)
        cells = [
            labels[name],
            str(m.scored),
            str(m.forward_calls),
            f"{m.padded_tokens:,}",
            f"{m.real_tokens:,}",
            f"{wall:.3f}",
            f"{n_pairs / wall:,.0f}",
            f"{min(base.wall) / wall:.2f}x",
            f"{cpu:.2f}",
            f"{min(base.cpu) / cpu:.2f}x",
        ]
        print("| " + " | ".join(cells) + " |")
    t_cold, t_warm = min(modes["cold"].wall), min(modes["warm"].wall)
    print(
        f"\ncold speed-up vs released (wall): {min(base.wall) / t_cold:.2f}x (target >= 1.5x); "
        f"padded tokens released / engine: {base.padded_tokens / max(1, modes['cold'].padded_tokens):.2f}x; "
        f"warm time / cold time: {100 * t_warm / t_cold:.2f} % (target <= 5 %)"
    )


if __name__ == "__main__":
    main()
