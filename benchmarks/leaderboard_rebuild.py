"""Rebuilding the leaderboard re-scores only what it has not seen: four ``surge leaderboard build`` runs per set.

Each submission folder a build meets is re-scored (``surge evaluate``'s engine on its surveys); the store of
re-computations (:mod:`surge_dataset.leaderboard.rescore_store`, ``SPACE/verifications/``) keeps each one under the
sha256 of what it covered, so a rebuild compares with it instead. Measured in one run, on two sets of inputs:

* ``sample``: the shipped sample's 3 test surveys, rendered from the GT (``render_surveys``) and edited differently
  per system (system k drops the second citation of every (k+2)-th citation line and names itself once), so
  every submission has its own survey files; each evaluated by ``surge evaluate --metrics
  recall,citation_accuracy,shr`` with the tiny NLI cross-encoder of ``surge_dataset.testing`` and the bundled
  MiniLM, then packed (``pack_submission``). ``--systems`` (4) submissions, plus one added later;
* ``synthetic``: ``--surveys`` (205) surveys of ``benchmarks.leaderboard_scale``'s generator (GT surveys of 30
  headings, 60 cited papers each; per system 205 generated surveys of its own), built with every survey in the
  test split, each system evaluated with ``--metrics recall,shr`` (model-free recall, SHR with the bundled
  MiniLM) and packed. ``--synthetic-systems`` (2) submissions, plus one added later.

Per set, four builds of one Space folder, each ``build_space`` in a process of its own (as one ``surge
leaderboard build`` per rebuild: no model loaded or weights file hashed by an earlier build helps a later one):
the full build (everything re-scored), an unchanged rebuild, a rebuild with one new submission, and
``reverify=True`` (the store read by none). Printed per build: ``build_space``'s wall time and the process's
(start and imports too), ``BuildSummary.rescored`` / ``.reused``, the seconds spent re-scoring (inside the
engine's ``evaluate_run``: model loading and scoring) and in verification as a whole (``verify_results``: survey
fingerprints, store look-up, re-scoring, comparison), and the verdicts (all must be ``verified``, and
rescored/reused what the store promises, or the script fails).

The builder's model-output cache (``$SURGE_CACHE``) starts empty for each set and is kept across its four builds,
as ``surge leaderboard build`` run again on one machine keeps ``~/.cache/surge``: a builder who has not scored
these surveys, whose GT embeddings (SHR) are then cached by the first build. The ``reverify`` build therefore
re-runs everything but reads the model outputs it computed before (what re-scoring costs even with a warm model
cache). ``--cold-model-cache`` gives every build an empty cache instead (each build's first re-scoring embeds the
GT again). The submitters' own evaluations use another cache folder.

Inputs (submission folders) are written once into ``--workdir`` and reused by a later run with the same options;
the builds are always measured. Pinned to 2 CPU cores (``os.sched_setaffinity``).

    python -m benchmarks.leaderboard_rebuild [--systems 4] [--synthetic-systems 2] [--surveys 205] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TQDM_DISABLE", "1")

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample"
SAMPLE_METRICS = "recall,citation_accuracy,shr"
SYNTHETIC_METRICS = "recall,shr"
SYNTHETIC_CITATIONS = 60  # citation sentences per generated survey (leaderboard_scale's default is 200)
SEED = 43
BUILDS = ("full build", "unchanged rebuild", "rebuild + 1 new", "reverify=True")


@dataclass
class Inputs:
    data: Path
    submissions: list[Path]  # the first ones built, then the one added
    models: dict[str, str] = field(default_factory=dict)  # NAME=PATH given to build_space


@dataclass
class Row:
    name: str
    systems: int
    process: float  # the whole build process: start, imports, build
    imports: float  # torch, transformers, sentence-transformers
    wall: float  # build_space's own seconds (BuildSummary.seconds)
    cpu: float  # build_space's CPU seconds
    rescored: int
    reused: int
    calls: list[tuple[float, float]]  # (wall, CPU) seconds of each evaluate_run call
    verification: float  # wall seconds inside verify_results
    verdicts: str

    @property
    def rescoring(self) -> float:
        return sum(w for w, _ in self.calls)

    @property
    def rescoring_cpu(self) -> float:
        return sum(c for _, c in self.calls)


# ------------------------------------------------------------------------------------------------- inputs


def _evaluate(data: Path, passages: Path, out: Path, metrics: str, models: list[str]) -> None:
    """``surge evaluate`` in this process (the CLI, as a submitter runs it)."""
    from typer.testing import CliRunner

    from surge_dataset.cli import app

    result = CliRunner().invoke(app, ["evaluate", "--data", str(data), "--passages", str(passages), "--metrics",
                                      metrics, *models, "--device", "cpu", "--out", str(out)])
    if result.exit_code != 0:
        raise SystemExit(f"surge evaluate {passages} failed:\n{result.output}")


def _variant(text: str, k: int) -> str:
    """System k's edit of a rendered GT survey: the second citation of every (k+2)-th ``See [a], [b].`` line
    dropped, and one sentence naming the system (so no two systems share a survey file)."""
    lines, seen, named = [], 0, False
    for line in text.split("\n"):
        if line.startswith("See ["):
            seen += 1
            if seen % (k + 2) == 0 and ", " in line:
                line = line.split(", ")[0] + "."
        elif not named and line and not line.startswith("#"):
            line, named = f"{line} This overview was written by system {k}.", True
        lines.append(line)
    return "\n".join(lines)


def _spec_matches(root: Path, spec: dict) -> bool:
    stamp = root / "inputs.json"
    return stamp.is_file() and json.loads(stamp.read_text(encoding="utf-8")) == spec


def sample_inputs(root: Path, systems: int) -> Inputs:
    """``systems + 1`` packed submissions of the sample (the last is the one added later)."""
    from surge_dataset import SurgeData
    from surge_dataset.data.build import build_dataset
    from surge_dataset.data.render import render_surveys
    from surge_dataset.leaderboard.submission import pack_submission
    from surge_dataset.models.download import bundled_model_path
    from surge_dataset.testing.models import build_tiny_nli_cross_encoder

    spec = {"systems": systems, "metrics": SAMPLE_METRICS, "version": 1}
    names = [f"Sample-{k}" for k in range(systems + 1)]
    inputs = Inputs(root / "surge", [root / "submissions" / n for n in names],
                    {"tiny-nli": str(root / "tiny-nli")})
    if _spec_matches(root, spec):
        return inputs
    shutil.rmtree(root, ignore_errors=True)
    build_dataset(SAMPLE, root / "surge")
    data = SurgeData.open(root / "surge")
    nli = build_tiny_nli_cross_encoder(root / "tiny-nli", seed=0)
    models = ["--nli-model", str(nli), "--embedding-model", str(bundled_model_path("minilm"))]
    render_surveys(data.surveys("test"), data.corpus, root / "gt")
    for k, name in enumerate(names):
        passages = root / "passages" / name
        for path in sorted((root / "gt").glob("*/survey.md")):
            target = passages / path.parent.name / "survey.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_variant(path.read_text(encoding="utf-8"), k), encoding="utf-8")
        results = root / "results" / f"{name}.json"
        _evaluate(root / "surge", passages, results, SAMPLE_METRICS, models)
        # not verified at packing: the builds below re-score it anyway, and that is what is measured
        pack_submission(results, passages, root / "submissions" / name, data=data, name=name, verify=False)
    (root / "inputs.json").write_text(json.dumps(spec), encoding="utf-8")
    return inputs


def synthetic_inputs(root: Path, systems: int, surveys: int) -> Inputs:
    """``systems + 1`` packed submissions of ``surveys`` synthetic surveys each (leaderboard_scale's generator)."""
    from benchmarks.leaderboard_scale import generate
    from surge_dataset import SurgeData
    from surge_dataset.data.build import build_dataset
    from surge_dataset.leaderboard.submission import pack_submission
    from surge_dataset.models.download import bundled_model_path

    spec = {"systems": systems, "surveys": surveys, "metrics": SYNTHETIC_METRICS, "citations": SYNTHETIC_CITATIONS,
            "seed": SEED, "version": 1}
    names = [f"system-{k:02d}" for k in range(systems + 1)]
    inputs = Inputs(root / "surge", [root / "submissions" / n for n in names])
    if _spec_matches(root, spec):
        return inputs
    shutil.rmtree(root, ignore_errors=True)
    generated = root / "generated"
    generate(generated, systems + 1, surveys, SYNTHETIC_CITATIONS, SEED)  # its results.json (made-up scores): unused
    build_dataset(generated / "source", root / "surge", test_ids=range(surveys))  # every survey is a test survey
    data = SurgeData.open(root / "surge")
    models = ["--embedding-model", str(bundled_model_path("minilm"))]
    for name in names:
        results = root / "results" / f"{name}.json"
        _evaluate(root / "surge", generated / "passages" / name, results, SYNTHETIC_METRICS, models)
        pack_submission(results, generated / "passages" / name, root / "submissions" / name, data=data,
                        name=name, verify=False)
    (root / "inputs.json").write_text(json.dumps(spec), encoding="utf-8")
    return inputs


# ------------------------------------------------------------------------------------------------- builds


@contextlib.contextmanager
def _timed_verification(spent: dict[str, list[list[float]]]) -> Iterator[None]:
    """(wall, CPU) seconds of each ``evaluate_run`` call (a re-scoring) and each ``verify_results`` call (all of
    one submission's verification) during a build.

    Both are looked up by name at call time (``build._verify`` imports ``verify_results`` from its module,
    ``verify._rescored`` imports ``evaluate_run`` from ``surge_dataset.evaluation``), so wrapping the module
    attributes times exactly the builder's calls. CPU time is the process's (all torch threads): other work on a
    shared machine moves it much less than wall time."""
    import surge_dataset.evaluation as evaluation
    import surge_dataset.leaderboard.verify as verify

    def timing(function, key):
        def wrapper(*args, **kwargs):
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[key].append([time.perf_counter() - wall, time.process_time() - cpu])
        return wrapper

    originals = {(evaluation, "evaluate_run"): evaluation.evaluate_run,
                 (verify, "verify_results"): verify.verify_results}
    evaluation.evaluate_run = timing(originals[evaluation, "evaluate_run"], "rescoring")
    verify.verify_results = timing(originals[verify, "verify_results"], "verification")
    try:
        yield
    finally:
        for (module, name), function in originals.items():
            setattr(module, name, function)


def child(spec_path: Path) -> None:
    """One build, in a process of its own (as ``surge leaderboard build`` runs): its summary and timings as JSON.

    torch, transformers and sentence-transformers are imported first and timed apart: every build imports torch
    (the device is resolved for each submission, reused or not), so that is the process's fixed cost, not
    re-scoring's."""
    started = time.perf_counter()
    import sentence_transformers  # noqa: F401
    import torch
    import transformers  # noqa: F401

    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    torch.set_num_threads(spec["threads"])
    imports = time.perf_counter() - started
    from surge_dataset.leaderboard import build_space

    os.environ["SURGE_CACHE"] = spec["cache"]  # the builder's model-output cache (read when the models are made)
    spent: dict[str, list[list[float]]] = {"rescoring": [], "verification": []}
    cpu = time.process_time()
    with _timed_verification(spent):
        summary = build_space(spec["submissions"], spec["space"], data=spec["data"], models=spec["models"],
                              resamples=spec["resamples"], overwrite=True, reverify=spec["reverify"])
    Path(spec["out"]).write_text(json.dumps({
        "systems": summary.systems, "seconds": summary.seconds, "cpu": time.process_time() - cpu,
        "imports": imports, "rescored": summary.rescored, "reused": summary.reused, **spent,
        "refused": summary.refused, "statuses": {n: v.get("status") for n, v in summary.verification.items()}}),
        encoding="utf-8")


def _build(name: str, inputs: Inputs, submissions: list[Path], space: Path, cache: Path, resamples: int,
           threads: int, reverify: bool = False) -> Row:
    """A build in a fresh process: nothing loaded, hashed or imported by an earlier build helps it (a weights
    fingerprint is memoised per process, models are loaded in it), as with one CLI run per build."""
    spec = {"submissions": [str(p) for p in submissions], "space": str(space), "data": str(inputs.data),
            "models": inputs.models, "resamples": resamples, "reverify": reverify, "cache": str(cache), "threads": threads,
            "out": str(space.parent / f"{space.name}.build.json")}
    spec_path = space.parent / f"{space.name}.spec.json"
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p),
           "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "benchmarks.leaderboard_rebuild", "--child", str(spec_path)], cwd=root,
                   env=env, check=True)
    process = time.perf_counter() - started
    found = json.loads(Path(spec["out"]).read_text(encoding="utf-8"))
    verdicts = Counter(found["statuses"].values())
    row = Row(name, found["systems"], process, found["imports"], found["seconds"], found["cpu"], found["rescored"],
              found["reused"], [tuple(c) for c in found["rescoring"]],
              sum(w for w, _ in found["verification"]), ", ".join(f"{n} {s}" for s, n in sorted(verdicts.items())))
    if found["refused"] or set(verdicts) != {"verified"}:
        raise SystemExit(f"{name}: not every submission verified: {found['statuses']} {found['refused']}")
    calls = " ".join(f"{w:.1f}" for w, _ in row.calls) or "-"
    print(f"  {row.name:<18} {row.systems:>3} {row.process:>7.1f} {row.imports:>7.1f} {row.wall:>7.1f} "
          f"{row.cpu:>7.1f} {row.rescored:>8} {row.reused:>6} {row.rescoring:>7.1f} {row.rescoring_cpu:>7.1f} "
          f"{row.verification:>7.1f}  {calls}", flush=True)
    return row


def measure(label: str, inputs: Inputs, work: Path, resamples: int, threads: int, cold_cache: bool) -> list[Row]:
    """The four builds of one Space folder: full, unchanged, one submission added, reverify."""
    space, first = work / f"space-{label}", inputs.submissions[:-1]
    shutil.rmtree(space, ignore_errors=True)
    caches = work / f"builder-cache-{label}"
    shutil.rmtree(caches, ignore_errors=True)
    print(f"\n{label}: {len(first)} submissions, then {len(first) + 1} (seconds; re-scoring = inside evaluate_run, "
          f"verif. = inside verify_results)\n"
          f"  {'build':<18} {'sys':>3} {'process':>7} {'imports':>7} {'build':>7} {'cpu':>7} {'rescored':>8} "
          f"{'reused':>6} {'re-sc.':>7} {'re-cpu':>7} {'verif.':>7}  each re-scoring", flush=True)
    rows = []
    for i, (name, submissions, reverify) in enumerate([
            (BUILDS[0], first, False), (BUILDS[1], first, False), (BUILDS[2], inputs.submissions, False),
            (BUILDS[3], inputs.submissions, True)]):
        cache = caches / str(i) if cold_cache else caches
        rows.append(_build(name, inputs, submissions, space, cache, resamples, threads, reverify))
    expected = [(len(first), 0), (0, len(first)), (1, len(first)), (len(first) + 1, 0)]
    found = [(r.rescored, r.reused) for r in rows]
    if found != expected:
        raise SystemExit(f"{label}: (rescored, reused) per build {found}, expected {expected}")
    stored = len(list((space / "verifications").glob("*.json")))
    full, unchanged = rows[0], rows[1]
    print(f"  store: {stored} entries in {space.name}/verifications/; unchanged rebuild {unchanged.wall:.1f} s "
          f"({unchanged.wall / full.wall:.2f} x the full build), nothing re-scored", flush=True)
    return rows


def _comparison(label: str, rows: list[Row]) -> str:
    """The rebuild with one new submission against the full build: its re-scoring against the whole and against one
    submission's. The full build's first re-scoring also pays what a build does once (the GT's embeddings into the
    model cache, the first model call of the process), so one submission is measured by its later ones."""
    full, grown = rows[0], rows[2]
    n = full.rescored
    first, new = full.calls[0][0], grown.rescoring
    later = sum(w for w, _ in full.calls[1:]) / (n - 1) if n > 1 else first
    return (f"{label}: rebuild + 1 new re-scores 1 of {grown.systems}: {new:.1f} s = {new / full.rescoring:.2f} x "
            f"the full build's {full.rescoring:.1f} s for {n} (one submission's share 1/{n} = {1 / n:.2f}; CPU "
            f"{grown.rescoring_cpu / full.rescoring_cpu:.2f} x); the full build re-scored its first submission in "
            f"{first:.1f} s (once per build {first - later:.1f} s) and each later one in {later:.1f} s: the new one "
            f"costs {new / later:.2f} x one submission; build {grown.wall:.1f} s vs {full.wall:.1f} s "
            f"({grown.wall / full.wall:.2f} x)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", type=int, default=4, help="sample submissions in the first build (one more "
                                                               "is added later)")
    parser.add_argument("--synthetic-systems", type=int, default=2, help="synthetic submissions in the first build "
                                                                         "(one more is added later; 0: skip the set)")
    parser.add_argument("--surveys", type=int, default=205, help="surveys of the synthetic set")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of each build")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of each build (1: steadier timings "
                                                               "on a shared machine)")
    parser.add_argument("--cold-model-cache", action="store_true",
                        help="an empty model-output cache for every build (default: one for a set's four builds)")
    parser.add_argument("--workdir", type=Path, help="inputs kept and reused between runs (default: a folder under "
                                                     "/tmp, removed)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return 0
    if args.systems < 1 or args.synthetic_systems < 0 or args.surveys < 1:
        parser.error("--systems >= 1, --synthetic-systems >= 0, --surveys >= 1")
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > 2:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workdir = (args.workdir or Path(tempfile.mkdtemp(prefix="surge-leaderboard-rebuild-"))).resolve()
    started = time.perf_counter()
    os.environ["SURGE_CACHE"] = str(workdir / "submitter-cache")  # the submitters' evaluations: not the builder's
    import torch

    torch.set_num_threads(args.threads)  # the submitters' evaluations too: steadier on a shared machine
    sets = [("sample", lambda: sample_inputs(workdir / "sample", args.systems))]
    if args.synthetic_systems:
        sets.append(("synthetic", lambda: synthetic_inputs(workdir / "synthetic", args.synthetic_systems,
                                                           args.surveys)))
    prepared = {}
    for label, make in sets:
        t0 = time.perf_counter()
        os.environ["SURGE_CACHE"] = str(workdir / "submitter-cache")
        prepared[label] = make()
        print(f"{label} inputs ready in {time.perf_counter() - t0:.1f} s "
              f"({len(prepared[label].submissions)} submission folders)", flush=True)
    print(f"{cores} CPU cores, {args.threads} torch thread(s) per build; resamples {args.resamples}; model cache: "
          f"{'empty at every build' if args.cold_model_cache else 'empty at a set first build, kept for its next three'}")
    results = {label: measure(label, inputs, workdir, args.resamples, args.threads, args.cold_model_cache)
               for label, inputs in prepared.items()}
    print()
    for label, rows in results.items():
        print(_comparison(label, rows))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"total {time.perf_counter() - started:.0f} s (load average {load:.1f} at the end)")
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
