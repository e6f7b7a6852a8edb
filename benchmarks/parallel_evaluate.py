"""NLI pairs per second of ``surge evaluate``'s model pass on 1, 2, ... processes (``accelerate launch``).

The figure is the scaling, not the absolute time: the same SurGE-shaped workload (``nli_throughput``'s) is
scored by the code ``surge evaluate`` runs under ``accelerate launch`` (``evaluation.parallel``: length-sorted
chunks dealt round robin, scores gathered), once per process count, and the logits of every count are
checked to be identical to one process's. On CPUs each process gets one torch thread (``OMP_NUM_THREADS=1``),
so N processes use N cores; with CUDA the script launches with ``--multi_gpu`` and each process takes its own
GPU: the same command runs unchanged on a GPU machine.

    python -m benchmarks.parallel_evaluate                        # 1 and 2 processes, a small random BERT
    python -m benchmarks.parallel_evaluate --processes 1,2,4,8 --model PATH --batch-size 64   # on GPUs
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

HERE = Path(__file__).resolve().parent


def worker(args: argparse.Namespace) -> None:
    """One process of a launch: score the pairs through the sharded model pass; the main one writes timings."""
    import numpy as np

    from surge_dataset.evaluation.models import PrefetchedNLI
    from surge_dataset.evaluation.parallel import ProcessGroup, ShardedCompute, process_group
    from surge_dataset.models import NLIScorer

    pairs = [tuple(pair) for pair in json.loads(Path(args.pairs).read_text(encoding="utf-8"))]
    group: ProcessGroup | None = process_group()
    scorer = NLIScorer(args.model, device=(group.device if group else None) or args.device,
                       batch_size=args.batch_size, cache_dir=False)
    scorer.logits(pairs[:8])  # warm-up, untimed (not cached: cache_dir=False)
    nli = PrefetchedNLI(scorer)
    if group is not None:
        nli.shard_with(ShardedCompute(group, "nli", nli, nli.unsharded_compute))
        group.gather(None)  # start together: model loading is not timed
    start = time.perf_counter()
    logits = nli.logits(pairs)
    seconds = time.perf_counter() - start
    if group is None or group.is_main:
        np.save(args.logits, logits)
        Path(args.timing).write_text(json.dumps({"seconds": seconds, "device": str(scorer.model.device)}))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="NLI cross-encoder folder (default: build a small random BERT)")
    parser.add_argument("--processes", default="1,2", help="comma list of process counts")
    parser.add_argument("--surveys", type=int, default=30)
    parser.add_argument("--per-level", type=int, default=33, help="pairs per survey and level")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--device", default=None)
    parser.add_argument("--hidden-size", type=int, default=128, help="size of the built model")
    parser.add_argument("--layers", type=int, default=2, help="layers of the built model")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--pairs", help=argparse.SUPPRESS)
    parser.add_argument("--timing", help=argparse.SUPPRESS)
    parser.add_argument("--logits", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return

    import numpy as np
    import torch

    from benchmarks.nli_throughput import build_workload
    from surge_dataset.testing.models import build_tiny_nli_cross_encoder

    counts = [int(n) for n in args.processes.split(",")]
    gpus = torch.cuda.device_count()
    with tempfile.TemporaryDirectory(prefix="surge-parallel-bench-") as tmp:
        model = args.model or str(build_tiny_nli_cross_encoder(Path(tmp) / "model", hidden_size=args.hidden_size,
                                                               num_layers=args.layers))
        pairs = list(dict.fromkeys(p for _, _, ps in build_workload(args.surveys, args.per_level) for p in ps))
        (Path(tmp) / "pairs.json").write_text(json.dumps(pairs), encoding="utf-8")
        env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
        rows, reference = [], None
        for n in counts:
            timing, logits = Path(tmp) / f"timing{n}.json", Path(tmp) / f"logits{n}.npy"
            script = [str(Path(__file__).resolve()), "--worker", "--pairs", str(Path(tmp) / "pairs.json"),
                      "--model", model, "--batch-size", str(args.batch_size), "--timing", str(timing),
                      "--logits", str(logits), *(["--device", args.device] if args.device else [])]
            launch = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", str(n),
                      "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
                      "--main_process_port", str(_free_port()), *(["--multi_gpu"] if n > 1 else []), *script]
            subprocess.run(launch if n > 1 else [sys.executable, *script], env=env, check=True)
            measured = json.loads(timing.read_text(encoding="utf-8"))
            scores = np.load(logits)
            reference = scores if reference is None else reference
            rows.append((n, measured, bool(np.array_equal(scores, reference))))

    print(f"model: {args.model or f'built random BERT (hidden {args.hidden_size}, {args.layers} layers)'}; "
          f"{len(pairs):,} unique NLI pairs, batch size {args.batch_size}; "
          + (f"{gpus} GPU(s)" if gpus else f"CPU, {os.cpu_count()} cores, 1 torch thread per process"))
    print(f"{'processes':>9} {'device (main)':>14} {'seconds':>8} {'pairs/s':>9} {'speed-up':>8}  same logits as 1st")
    base = rows[0][1]["seconds"]
    for n, measured, same in rows:
        print(f"{n:>9} {measured['device']:>14} {measured['seconds']:>8.2f} {len(pairs) / measured['seconds']:>9.1f} "
              f"{base / measured['seconds']:>8.2f}  {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
