"""How far a model metric moves when the models run in half precision: the measured basis of ``PRECISION_SLACK``.

``surge leaderboard build`` re-scores a submission on the builder's machine (CPU, fp32) while the submitter may
have scored on a GPU in fp16 or bf16; ``surge_dataset.leaderboard.verify`` accepts a per-survey difference up to
``PRECISION_SLACK`` on a model's metric as precision, not forgery. This script measures that difference, in one
run, on the same surveys scored once per precision:

* surveys: the sample's test surveys rendered from their GT (``surge data render``), plus ``--variants`` perturbed
  copies of each (seeded: headings reworded and top-level sections shuffled, about a third of the citation markers
  moved to another section's text, about a fifth of the reference entries swapped for corpus papers the GT does
  not cite, so the document level asks the model too), so scores are not all 1.0;
* models: the bundled all-MiniLM-L6-v2 (encoder: ``shr``, ``sim``) and a tiny random NLI cross-encoder built with
  a fixed seed (``build_tiny_nli_cross_encoder``: ``citation_accuracy``), or the ``--nli-model`` /
  ``--embedding-model`` given; ``recall`` is model-free, a control that must not move;
* ``evaluate_run`` once with ``dtype=embedding_dtype="fp32"`` on the CPU (the reference, what the builder
  re-computes) and once per ``--dtypes`` (default bf16 and fp16) on ``--device`` (default cpu; a dtype the device
  cannot run is skipped with a note). With ``--device cuda`` the comparison is exactly the leaderboard's.

Printed per precision and result key: the largest per-survey |delta| against fp32, the |delta| of the mean over all
surveys, and how many surveys differ at all (beyond 1e-12); then, per NLI level, how many item scores changed (and
how many of those are a flipped top label), the most in one survey, the smallest fp32 decision margin (the smallest
logit gap among the comparisons that decide an item's score) and the largest change of a logit difference (both read
off the details file's probabilities, rounded to 6 digits: good to ~1e-5). Citation accuracy is a decision per item
(``official``: entailment top 1; neutral top 0.5 only while entailment beats contradiction; else 0): one changed
item moves a survey's accuracy by 0.5/n or 1/n, n = its reference entries (Doc-Acc) or citation instances
(Sec-/Sent-Acc); that quantum is printed per level. Last, a recommended slack per model kind: the largest observed
per-survey |delta| x 2, rounded up to one significant digit, and for the NLI metrics the same as a count of changed
items per survey. The tiny NLI model is random: its logits sit close together (the quantum, not its size, is the
finding); ``--nli-model`` re-runs the measurement with the real one where it is available.

    python -m benchmarks.precision_slack [--variants 4] [--dtypes bf16,fp16] [--device cpu] [--nli-model PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample"
METRICS = ("recall", "citation_accuracy", "shr", "sim")
#: Result key -> model kind (None: model-free, the control).
KIND = {"recall": None, "doc_acc": "nli", "sec_acc": "nli", "sent_acc": "nli", "shr": "encoder", "sim": "encoder"}
LEVELS = ("doc", "sec", "sent")
#: Below this a difference is float noise of the aggregation, not a changed score.
SAME = 1e-12

# Heading rewording: enough to move an embedding, never so much that SHR falls to nothing.
_SYNONYMS = {
    "methods": "approaches", "learning": "training", "models": "architectures", "graph": "network",
    "applications": "use cases", "challenges": "open problems", "evaluation": "assessment",
    "foundations": "basics", "introduction": "overview", "retrieval": "search", "optimisation": "optimization",
    "privacy": "confidentiality", "efficient": "scalable", "neural": "deep", "networks": "nets",
}
_PREFIXES = ("Advances in ", "A Closer Look at ", "Revisiting ", "Notes on ")
_CITE = re.compile(r"\[(\d+)\]")


# --------------------------------------------------------------------------------------------------
# Surveys
# --------------------------------------------------------------------------------------------------


def _reword(title: str, rng: random.Random) -> str:
    words = title.split()
    choice = rng.randrange(4)
    if choice == 0:
        swapped = [_SYNONYMS.get(w.lower(), w) for w in words]
        if swapped != words:
            text = " ".join(swapped)
            return text[0].upper() + text[1:]
    if choice == 1 and len(words) > 2:
        del words[rng.randrange(len(words))]
        return " ".join(words)
    if choice == 2 and len(words) > 1:
        rng.shuffle(words)
        return " ".join(words)
    return rng.choice(_PREFIXES) + title


def perturb(markdown: str, rng: random.Random, foreign_titles: list[str]) -> str:
    """A rendered GT survey with headings reworded and shuffled, citations moved and references swapped."""
    body, _, refs = markdown.partition("\n# References\n")
    sections: list[list[str]] = []  # each: heading line, then its lines
    for line in body.splitlines():
        if line.startswith("#"):
            sections.append([line])
        elif sections:
            sections[-1].append(line)
    for section in sections:
        if rng.random() < 0.5:
            hashes, _, title = section[0].partition(" ")
            section[0] = f"{hashes} {_reword(title, rng)}"
    # Move a third of the citation markers from their "See [a], [b]." line into another section's first sentence.
    markers = [(i, n) for i, s in enumerate(sections) for line in s if line.startswith("See ")
               for n in _CITE.findall(line)]
    moved = rng.sample(markers, k=len(markers) // 3) if len(sections) > 1 else []
    for i, number in moved:
        section = sections[i]
        for k, line in enumerate(section):
            if line.startswith("See ") and f"[{number}]" in line:
                rest = [f"[{n}]" for n in _CITE.findall(line) if n != number]
                section[k] = "See " + ", ".join(rest) + "." if rest else ""
                break
        target = sections[rng.choice([j for j in range(len(sections)) if j != i])]
        texts = [k for k, line in enumerate(target) if k and line.strip() and not line.startswith("See ")]
        if texts:
            line = target[texts[0]]
            cut = line.find(". ")
            target[texts[0]] = (line[:cut] + f" [{number}]" + line[cut:]) if cut > 0 else f"{line} [{number}]"
        else:
            target.append(f"See [{number}].")
    # Shuffle the top-level sections (each with its subsections) after the first.
    blocks: list[list[list[str]]] = []
    for section in sections:
        if section[0].startswith("# ") or not blocks:
            blocks.append([])
        blocks[-1].append(section)
    head, tail = blocks[:1], blocks[1:]
    rng.shuffle(tail)
    lines = []
    for section in (section for block in head + tail for section in block):
        while section and not section[-1].strip():
            section.pop()
        lines += [*section, ""]
    # Swap a fifth of the reference entries for corpus papers the GT does not cite (same numbers).
    entries = [line for line in refs.splitlines() if line.strip()]
    for k in rng.sample(range(len(entries)), k=len(entries) // 5):
        number = entries[k].split("]", 1)[0] + "]"
        entries[k] = f"{number} {rng.choice(foreign_titles)}"
    return "\n".join(lines).rstrip() + "\n\n# References\n\n" + "\n".join(entries) + "\n"


def write_surveys(data: Any, out: Path, variants: int) -> list[Path]:
    """Folder 0: the test surveys rendered from their GT; folders 1..variants: perturbed copies (seed = folder)."""
    from surge_dataset.data.render import render_surveys

    surveys = data.surveys("test")
    folders = [out / f"v{k}" for k in range(variants + 1)]
    render_surveys(surveys, data.corpus, folders[0])
    cited = {doc for s in surveys for doc in s.all_cites}
    rows = [b.to_pydict() for b in data.iter_corpus_batches(columns=["doc_id", "title"])]
    foreign = sorted(t for r in rows for d, t in zip(r["doc_id"], r["title"], strict=True) if d not in cited)
    for k, folder in enumerate(folders[1:], start=1):
        for survey in surveys:
            rng = random.Random(f"{k}/{survey.survey_id}")
            text = (folders[0] / str(survey.survey_id) / "survey.md").read_text(encoding="utf-8")
            path = folder / str(survey.survey_id) / "survey.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(perturb(text, rng, foreign), encoding="utf-8")
    return folders


# --------------------------------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------------------------------


def runs_on(dtype: str, device: str) -> str | None:
    """None if ``device`` runs a linear layer in ``dtype``, else why not."""
    import torch

    from surge_dataset.models.base import resolve_dtype

    try:
        layer = torch.nn.Linear(8, 8).to(device=device, dtype=resolve_dtype(dtype, device))
        layer(torch.ones(2, 8, device=device, dtype=layer.weight.dtype)).sum().item()
    except (RuntimeError, TypeError) as exc:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    return None


def score(data: Any, folders: list[Path], out: Path, dtype: str, device: str, nli_path: str,
          embed_path: str) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, int, int, str], list[float]], float]:
    """Every folder scored with models in ``dtype``: (per survey "v<k>/<id>" -> values, NLI probabilities per
    (folder, survey, item, level), seconds)."""
    from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
    from surge_dataset.models import Embedder, NLIScorer

    start = time.perf_counter()
    config = EvaluationConfig(metrics=list(METRICS), nli_model=nli_path, embedding_model=embed_path, dtype=dtype,
                              embedding_dtype=dtype, device=device)
    # No score cache: every number is computed in this run, in this precision.
    nli = NLIScorer(nli_path, device=device, dtype=dtype, cache_dir=False)
    encoder = Embedder(embed_path, device=device, dtype=dtype, cache_dir=False)
    values: dict[str, dict[str, Any]] = {}
    probs: dict[tuple[str, int, int, str], list[float]] = {}
    for folder in folders:
        details = out / f"{folder.name}-{dtype}-{device.replace(':', '')}.details.jsonl"
        results = evaluate_run(data, folder, details.with_suffix(".json"),
                               EvaluationSession(config, nli=nli, encoder=encoder), details_path=details)
        assert results is not None and not results["failures"], results and results["failures"]
        for sid, row in results["surveys"].items():
            values[f"{folder.name}/{sid}"] = row
        items: dict[int, int] = {}
        for line in details.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            sid = int(record["survey_id"])
            index = items[sid] = items.get(sid, -1) + 1
            for level in LEVELS:
                if f"{level}_probs" in record:
                    p = record[f"{level}_probs"]
                    probs[folder.name, sid, index, level] = [p["contradiction"], p["entailment"], p["neutral"]]
    return values, probs, time.perf_counter() - start


# --------------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------------


def round_up_1sig(x: float) -> float:
    """``x`` rounded up to one significant digit (0.0123 -> 0.02); 0 stays 0."""
    if x <= 0:
        return 0.0
    exponent = math.floor(math.log10(x))
    mantissa = math.ceil(round(x / 10**exponent, 9))
    if mantissa == 10:
        mantissa, exponent = 1, exponent + 1
    return float(f"{mantissa}e{exponent}")


def _logits(p: list[float]) -> list[float]:
    """Logits up to a shared constant (every comparison the scoring makes is unchanged by it)."""
    return [math.log(max(v, 1e-12)) for v in p]


def _label(p: list[float]) -> int:
    return max(range(3), key=p.__getitem__)


def _item_score(p: list[float]) -> float:
    from surge_dataset.scoring.citations import nli_item_score

    return nli_item_score(_logits(p), "official")


def _decision_margin(p: list[float]) -> float:
    """Smallest logit gap among the comparisons that decide the item's ``official`` score: entailment top (1)
    needs e > c and e > n; neutral top earns 0.5 only while e > c too -- an order of the two LOSING labels."""
    c, e, n = _logits(p)
    if e > c and e > n:
        return min(e - c, e - n)
    if n > c and n > e:
        return min(n - c, n - e, abs(e - c))
    return c - max(e, n)


def _max_logit_change(p: list[float], q: list[float]) -> float:
    """Largest change of a logit difference (i, j) between two rows of probabilities."""
    lp, lq = _logits(p), _logits(q)
    return max(abs((lp[i] - lp[j]) - (lq[i] - lq[j])) for i in range(3) for j in range(i + 1, 3))


def compare(ref: dict[str, dict[str, Any]], other: dict[str, dict[str, Any]]) -> dict[str, tuple[float, float, int, int]]:
    """Per key: (max per-survey |delta|, |delta of the mean|, surveys differing, surveys compared)."""
    table = {}
    for key in KIND:
        pairs = [(ref[s][key], other[s][key]) for s in ref if ref[s].get(key) is not None
                 and other[s].get(key) is not None]
        deltas = [abs(a - b) for a, b in pairs]
        mean_delta = abs(sum(a for a, _ in pairs) - sum(b for _, b in pairs)) / len(pairs) if pairs else 0.0
        table[key] = (max(deltas, default=0.0), mean_delta, sum(d > SAME for d in deltas), len(pairs))
    return table


def quanta(ref: dict[str, dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Per NLI level: (smallest, largest) number of scored items per survey -- a flip moves 1/n or 0.5/n."""
    doc = [row["counts"]["references"] for row in ref.values() if row["counts"].get("references")]
    cites = [row["counts"]["citations"] for row in ref.values() if row["counts"].get("citations")]
    return {"doc": (min(doc), max(doc)), "sec": (min(cites), max(cites)), "sent": (min(cites), max(cites))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", type=int, default=4, help="perturbed copies of each test survey")
    parser.add_argument("--dtypes", default="bf16,fp16", help="precisions compared with CPU fp32")
    parser.add_argument("--device", default="cpu", help="where the compared precisions run (cpu, cuda)")
    parser.add_argument("--nli-model", help="NLI cross-encoder folder (default: build the tiny one, seed 0)")
    parser.add_argument("--nli-seed", type=int, default=0, help="seed of the built tiny NLI model")
    parser.add_argument("--embedding-model", help="encoder folder (default: the bundled all-MiniLM-L6-v2)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1: steady on a shared machine)")
    args = parser.parse_args()

    import torch
    from transformers.utils import logging as hf_logging

    from surge_dataset.data.build import build_dataset
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.models.download import bundled_model_path
    from surge_dataset.testing import build_tiny_nli_cross_encoder

    hf_logging.disable_progress_bar()
    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory(prefix="surge-precision-slack-") as tmp_name:
        tmp = Path(tmp_name)
        nli_path = args.nli_model or str(build_tiny_nli_cross_encoder(tmp / "tiny-nli", seed=args.nli_seed))
        embed_path = args.embedding_model or str(bundled_model_path("minilm"))
        build_dataset(SAMPLE, tmp / "data")
        data = SurgeData.open(tmp / "data")
        folders = write_surveys(data, tmp / "surveys", args.variants)
        (tmp / "out").mkdir()
        ref, ref_probs, seconds = score(data, folders, tmp / "out", "fp32", "cpu", nli_path, embed_path)
        nli_name = args.nli_model or f"tiny random BERT (seed {args.nli_seed})"
        print(f"surveys: {len(ref)} ({len(data.surveys('test'))} test surveys x (GT + {args.variants} perturbed)); "
              f"NLI: {nli_name}; encoder: {args.embedding_model or 'bundled all-MiniLM-L6-v2'}; "
              f"torch {torch.__version__}, {args.threads} thread(s)")
        print(f"reference: fp32 on cpu ({seconds:.1f} s); its means, GT-rendered / perturbed surveys:")
        for key in KIND:
            gt = [row[key] for sid, row in ref.items() if sid.startswith("v0/") and row.get(key) is not None]
            moved = [row[key] for sid, row in ref.items() if not sid.startswith("v0/") and row.get(key) is not None]
            print(f"  {key:<9} {sum(gt) / max(1, len(gt)):.3f} / {sum(moved) / max(1, len(moved)):.3f}")
        observed: dict[str, float] = {"nli": 0.0, "encoder": 0.0}
        most_changed = 0  # most NLI item scores changed in one survey and level, any precision
        for dtype in args.dtypes.split(","):
            why = runs_on(dtype, args.device)
            if why:
                print(f"\n{dtype} on {args.device}: SKIPPED, the device does not run it ({why})")
                continue
            other, other_probs, seconds = score(data, folders, tmp / "out", dtype, args.device, nli_path, embed_path)
            print(f"\n{dtype} on {args.device} vs fp32 on cpu ({seconds:.1f} s)")
            print(f"  {'key':<9} {'kind':<8} {'max |d| per survey':>19} {'|d| of mean':>12} {'surveys differing':>18}")
            for key, (worst, mean_delta, differ, n) in compare(ref, other).items():
                kind = KIND[key] or "control"
                print(f"  {key:<9} {kind:<8} {worst:>19.3g} {mean_delta:>12.3g} {f'{differ}/{n}':>18}")
                if KIND[key]:
                    observed[KIND[key]] = max(observed[KIND[key]], worst)
            print(f"  {'NLI level':<9} {'items':>6} {'scores changed':>15} {'top label flipped':>18} "
                  f"{'most in 1 survey':>17} {'min fp32 margin':>16} {'max |d logit diff|':>19}")
            for level in LEVELS:
                keys = [k for k in ref_probs if k[3] == level and k in other_probs]
                changed = [k for k in keys if _item_score(ref_probs[k]) != _item_score(other_probs[k])]
                flips = sum(_label(ref_probs[k]) != _label(other_probs[k]) for k in keys)
                per_survey = Counter(k[:2] for k in changed)
                most_changed = max(most_changed, max(per_survey.values(), default=0))
                margin = min((_decision_margin(ref_probs[k]) for k in keys), default=float("nan"))
                change = max((_max_logit_change(ref_probs[k], other_probs[k]) for k in keys), default=float("nan"))
                print(f"  {level:<9} {len(keys):>6} {len(changed):>15} {flips:>18} {max(per_survey.values(), default=0):>17}"
                      f" {margin:>16.3g} {change:>19.3g}")
        print("\nOne changed NLI item score moves a survey's accuracy by 0.5/n (to or from neutral's 0.5) or 1/n "
              "(1 <-> 0), n = the survey's scored items at that level:")
        for level, (low, high) in quanta(ref).items():
            items = "reference entries" if level == "doc" else "citation instances"
            print(f"  {level}_acc: n = {low}..{high} {items} -> one change = {0.5 / high:.3g} .. {1 / low:.3g}")
        print("\nRecommended slack (largest per-survey |d| observed x 2, rounded up to one significant digit):")
        for kind, worst in observed.items():
            keys = ", ".join(key for key, k in KIND.items() if k == kind)
            print(f"  {kind:<8} {round_up_1sig(2 * worst):<6g} ({keys}; observed max {worst:.3g})")
        low = min(low for low, _ in quanta(ref).values())
        allowed = 2 * max(1, most_changed)
        print(f"  NLI metrics are arg-max decisions per item (under official also the order of the two losing labels,\n"
              f"  which earns neutral its 0.5): they move by whole quanta or not at all. An absolute slack below 0.5/n\n"
              f"  forbids even one changed item (1e-2 does for every survey under 50 items; here n >= {low}); one above\n"
              f"  1/n admits several. Per survey, as a count: at most {most_changed} item score(s) changed in one level here\n"
              f"  -> x2: allow {allowed} changed item(s), i.e. |d| <= {allowed}/n (n = that survey's items at the level).")

if __name__ == "__main__":
    main()
