"""ALCE citation recall/precision in ``surge evaluate``: the 30 shared baseline outputs, the tiny NLI model.

Inputs are those of ``benchmarks/evaluate_speed.py`` (imported, not copied): the shared outputs of ID,
Naive and AutoSurvey for survey ids 0-9, scored against its synthetic, deterministic ground truth whose
corpus holds about 60 % of the reference titles they cite (so some citations have a premise and some do
not, as with real outputs) plus filler papers (``--papers``). The NLI model is a tiny random BERT
cross-encoder (``build_tiny_nli_cross_encoder``): its decisions are meaningless, its cost per pair is not;
``--entail-bias`` is added to its entailment logit so that some sentences are supported and the precision
stages run as they would with a real model.

For each system, ``evaluate_run(metrics=["alce"])`` runs twice: cold (a fresh cache folder) and warm (new
``NLIScorer`` objects over the filled cache, a new results file so the journal skips nothing). Printed per
system: surveys, sentences, citations, distinct NLI pairs asked, how many the model computed, the number
of model calls (the run asks all surveys of a stage in one de-duplicated, length-sorted batch: joint
premises, then single citations, then leave-one-out premises), seconds, and the mean scores; the warm run
must compute nothing and give the same numbers (exit status 1 otherwise).

    python -m benchmarks.alce_speed [--systems ID,Autosurvey] [--papers 5000] [--threads 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]


def _inputs_module() -> Any:
    """``benchmarks/evaluate_speed.py``: its synthetic ground truth and passage links."""
    from benchmarks import evaluate_speed

    return evaluate_speed


class Biased:
    """The tiny model's logits with ``bias`` added to entailment, so that some sentences are supported and
    the precision stages (single citations, leave-one-out) run too; the model still scores every pair."""

    label_order = ("contradiction", "entailment", "neutral")

    def __init__(self, scorer: Any, bias: float) -> None:
        self.scorer = scorer
        self.bias = bias

    def logits(self, pairs: Any) -> Any:
        out = self.scorer.logits(pairs).copy()
        out[:, 1] += self.bias
        return out


def run(system_dir: Path, data: Any, nli_path: str, cache: Path, out: Path, bias: float) -> dict[str, Any]:
    from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
    from surge_dataset.models.nli import NLIScorer

    scorer = NLIScorer(nli_path, device="cpu", batch_size=32, cache_dir=cache)
    start = time.perf_counter()
    results = evaluate_run(data, system_dir, out,
                           EvaluationSession(EvaluationConfig(metrics=["alce"], protocol="official"), nli=Biased(scorer, bias)))
    seconds = time.perf_counter() - start
    counts = [r["counts"] for r in results["surveys"].values()]
    return {
        "seconds": seconds,
        "surveys": len(results["surveys"]),
        "sentences": sum(c["alce_sentences"] for c in counts),
        "citations": sum(c["alce_citations"] for c in counts),
        "unusable": sum(c["alce_unusable"] for c in counts),
        "supported": sum(c["alce_supported"] for c in counts),
        "pairs": scorer.stats.unique,
        "computed": scorer.stats.computed,
        "model_calls": scorer.stats.model_calls,
        "recall": results["average"]["alce_citation_recall"],
        "precision": results["average"]["alce_citation_precision"],
        "per_survey": {k: (v["alce_citation_recall"], v["alce_citation_precision"]) for k, v in results["surveys"].items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", default="ID,Naive,Autosurvey")
    parser.add_argument("--papers", type=int, default=20_000, help="corpus size (reference titles + filler)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1 keeps timings steady)")
    parser.add_argument("--entail-bias", type=float, default=1.0,
                        help="added to the tiny model's entailment logit so some sentences are supported")
    args = parser.parse_args(argv)

    import torch

    from surge_dataset import SurgeData
    from surge_dataset.data.build import build_dataset
    from surge_dataset.testing.models import build_tiny_nli_cross_encoder

    torch.set_num_threads(args.threads)
    inputs = _inputs_module()
    if not inputs.BASELINES.is_dir():
        print(f"{inputs.BASELINES} is absent: the shared baseline outputs are needed for this benchmark")
        return 0
    systems = [s for s in args.systems.split(",") if s]
    ids = list(inputs.SURVEY_IDS)
    with tempfile.TemporaryDirectory(prefix="surge-alce-") as tmp_name:
        tmp = Path(tmp_name)
        summary = inputs.generate_source(tmp / "src", n_papers=args.papers)
        build_dataset(tmp / "src", tmp / "surge")
        data = SurgeData.open(tmp / "surge")
        nli_path = str(build_tiny_nli_cross_encoder(tmp / "tiny-nli", seed=0))
        print(f"corpus {summary['papers']:,} papers ({summary['inserted']:,} of {summary['distinct_titles']:,} cited "
              f"titles inserted); tiny NLI cross-encoder, CPU, {args.threads} thread(s)\n")
        header = (f"{'system':<11}{'run':<6}{'surveys':>8}{'sentences':>10}{'citations':>10}{'no text':>8}"
                  f"{'supported':>10}{'pairs':>8}{'computed':>9}{'calls':>6}{'seconds':>9}{'recall':>8}{'precision':>10}")
        print(header)
        print("-" * len(header))
        status = 0
        for system in systems:
            folder = inputs.link_passages(tmp / "passages", system, ids)
            cold = run(folder, data, nli_path, tmp / "cache", tmp / f"{system}-cold.json", args.entail_bias)
            warm = run(folder, data, nli_path, tmp / "cache", tmp / f"{system}-warm.json", args.entail_bias)
            for name, r in (("cold", cold), ("warm", warm)):
                print(f"{system:<11}{name:<6}{r['surveys']:>8}{r['sentences']:>10,}{r['citations']:>10,}{r['unusable']:>8,}"
                      f"{r['supported']:>10,}{r['pairs']:>8,}{r['computed']:>9,}{r['model_calls']:>6}{r['seconds']:>9.2f}"
                      f"{r['recall']:>8.4f}{r['precision']:>10.4f}")
            if warm["computed"] or warm["per_survey"] != cold["per_survey"]:
                print(f"  {system}: the warm run computed {warm['computed']} pairs or changed a value")
                status = 1
        print("\npairs: distinct (premise, sentence) pairs asked of the NLI scorer; calls: model calls "
              "(each a length-sorted batch group); 'no text': citations of references absent from the corpus")
    return status


if __name__ == "__main__":
    sys.exit(main())
