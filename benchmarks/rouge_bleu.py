"""ROUGE/BLEU: the released way (RougeScorer per pair, sentence_bleu per section) vs ``rouge_bleu``.

Generated sections come from one long real baseline output (default: the longest AutoSurvey file);
GT sections are synthetic but realistic: ``--gt-sections`` chunks of about ``--gt-chars`` characters
assembled, with a fixed seed, from sentences of another system's output on the same topic (default: the
ID output in the same numbered folder). Both ways run once each in the same process; the numbers must be
identical.

    python -m benchmarks.rouge_bleu [--file PATH] [--gt-file PATH]
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

from surge_dataset.scoring.rouge_bleu import rouge_bleu, rouge_bleu_reference
from surge_dataset.survey import parse_survey, read_survey_file

BASELINES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "official" / "baseline_outputs"


def sections(path: Path) -> list[str]:
    """Sections with >= 100 characters (text before the first heading included), as the evaluator reads them."""
    text, _ = read_survey_file(path)
    return [node.content for node in parse_survey(text, protocol="official").content_sections(100)]


def longest_file(folder: Path) -> Path:
    files = [p for p in folder.rglob("*") if p.is_file()]
    if not files:
        sys.exit(f"no files under {folder}")
    return max(files, key=lambda p: p.stat().st_size)


def synthetic_gt(source: Path, n_sections: int, n_chars: int, seed: int = 0) -> list[str]:
    """Deterministic GT-like sections: shuffled sentences of ``source``, packed to ~``n_chars`` each."""
    text = " ".join(line.strip() for line in source.read_text(encoding="utf-8").splitlines() if line.strip())
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if len(s) >= 20 and not s.startswith("#")]
    rng = random.Random(seed)
    rng.shuffle(sentences)
    out: list[str] = []
    current: list[str] = []
    for sentence in sentences:
        current.append(sentence)
        if sum(len(s) + 1 for s in current) >= n_chars:
            out.append(" ".join(current))
            current = []
            if len(out) == n_sections:
                break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--file", type=Path, default=None, help="generated survey (default: longest AutoSurvey)"
    )
    parser.add_argument(
        "--gt-file", type=Path, default=None, help="source of GT sentences (default: ID, same topic)"
    )
    parser.add_argument("--gt-sections", type=int, default=40)
    parser.add_argument("--gt-chars", type=int, default=800)
    args = parser.parse_args()

    gen_file = args.file or longest_file(BASELINES / "Autosurvey")
    gt_file = args.gt_file or longest_file(BASELINES / "ID" / gen_file.parent.name)
    generated = sections(gen_file)
    gt = synthetic_gt(gt_file, args.gt_sections, args.gt_chars)
    print(f"generated: {gen_file.name} ({len(generated)} sections, {sum(map(len, generated)):,} chars)")
    source = "/".join(gt_file.parts[-3:])
    print(f"GT:        {len(gt)} synthetic sections of ~{args.gt_chars} chars from sentences of {source}")

    start = time.perf_counter()
    reference = rouge_bleu_reference(generated, gt)
    t_reference = time.perf_counter() - start
    start = time.perf_counter()
    ours = rouge_bleu(generated, gt)
    t_ours = time.perf_counter() - start
    assert ours == reference, (ours, reference)

    print()
    print(f"| {'way':<38} | {'time (s)':>9} |")
    print(f"|{'-' * 40}|{'-' * 11}|")
    print(f"| {'released (RougeScorer + sentence_bleu)':<38} | {t_reference:>9.2f} |")
    print(f"| {'rouge_bleu (ours)':<38} | {t_ours:>9.2f} |")
    print(f"| {'speed-up':<38} | {t_reference / t_ours:>8.1f}x |")
    print()
    print("| metric | value (identical in both) |")
    print("|--------|---------------------------|")
    for key in ("rouge1", "rouge2", "rougeL", "bleu"):
        print(f"| {key} | {ours[key]!r} |")
    print(f"| n_sections | {ours['n_sections']} |")


if __name__ == "__main__":
    main()
