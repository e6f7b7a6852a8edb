"""``surge arena``, ``surge judge-agreement`` and ``surge meta-eval``: one screen each (options -> run -> print).

The judge options are read off the settings they share with ``surge evaluate`` (``--judge``, ``--base-url``,
``--judge-concurrency``, ...), so help and defaults read alike. The work lives in :mod:`surge_dataset.judging`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from surge_dataset.cli.console import console, out_console
from surge_dataset.cli.options import data_option, option
from surge_dataset.evaluation.config import EvaluationConfig
from surge_dataset.evaluation.run_options import RunOptions

__all__ = ["arena", "judge_agreement", "meta_eval"]


def _fmt(value: Any, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _interval(low: Any, high: Any, digits: int = 3) -> str:
    return "" if low is None else f" [{_fmt(low, digits)}, {_fmt(high, digits)}]"


def arena(
    results: list[Path] = typer.Argument(..., help="`surge evaluate` results files, one per system: they name the "
                                         "system, its passage folder and the surveys it was scored on."),
    passages_root: Path = typer.Option(None, "--passages-root", help="Folder holding DIR/<system>/<survey_id>/<file> "
                                       "(default: the passage folder each results file records)."),
    data: str = data_option("the topics' titles"),
    judge: str = option(EvaluationConfig, "judge", ...),
    pairs: int = typer.Option(200, "--pairs", help="Pairs (topic, two systems) drawn from all possible ones."),
    seed: int = typer.Option(0, "--seed", help="Seed of the draw of pairs and of the bootstrap."),
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap resamples (surveys drawn again) for the CIs."),
    out: Path = typer.Option(Path("arena.json"), "--out", help="Arena output JSON (give it to `surge report`)."),
    judge_max_tries: int = option(EvaluationConfig, "judge_max_tries"),
    base_url: str = option(RunOptions, "base_url"),
    judge_concurrency: int = option(RunOptions, "judge_concurrency"),
    judge_timeout: float = option(RunOptions, "judge_timeout"),
    judge_batch_size: int = option(RunOptions, "judge_batch_size"),
    cache_dir: Path = option(RunOptions, "cache_dir"),
) -> None:
    """Judge pairs of two systems' surveys on one topic, both orders; Bradley-Terry ratings with bootstrap CIs."""
    from surge_dataset.cli.data import open_data
    from surge_dataset.core.io import atomic_write_json
    from surge_dataset.evaluation.models import judge_report, model_factories
    from surge_dataset.judging.arena import consistency_warning, load_systems, run_arena

    systems = load_systems(results, passages_root)
    config = EvaluationConfig(metrics=[], judge=judge, judge_max_tries=judge_max_tries)
    run = RunOptions(base_url=base_url, judge_concurrency=judge_concurrency, judge_timeout=judge_timeout,
                     judge_batch_size=judge_batch_size, cache_dir=cache_dir)
    model = model_factories(config, run)["judge"]()
    output = run_arena(systems, open_data(data), model, pairs=pairs, seed=seed, resamples=resamples)
    output["judge"] = judge_report(model)
    atomic_write_json(out, output)
    table = Table(title=Text(f"arena: {len(output['pairs'])} pairs, judge {judge}, both orders; Bradley-Terry [95% CI]"))
    for column in ("rank", "system", "rating [95% CI]", "Elo", "W/T/L", "missing", "consistency"):
        table.add_column(column, justify="left" if column == "system" else "right")
    for name in output["ranking"]:
        s, rank = output["systems"][name], output["ranks"][name]
        table.add_row("–" if rank is None else str(rank), Text(name),
                      _fmt(s["rating"]) + _interval(s["ci_low"], s["ci_high"]), _fmt(s["elo"], 0),
                      f"{s['wins']}/{s['ties']}/{s['losses']}", str(s["missing"]), _fmt(s["consistency"], 2))
    flag = consistency_warning(output)
    if flag:
        table.caption = Text(f"⚠ {flag}", style="yellow")
    out_console.print(table)
    stats = output["judge"].get("llm", {})
    console.print(f"judge: {stats.get('requested', 0)} requests, {stats.get('cache_hits', 0)} from cache; "
                  f"{sum(p['missing'] for p in output['pairs'])} verdicts missing; surveys cut to fit: "
                  f"{len(output['cut'])}", highlight=False)
    for flag in output["injection"]:
        kinds = ", ".join(sorted({f["kind"] for f in flag["findings"]}))
        console.print(f"[yellow]judge_injection:[/] {flag['system']} survey {flag['survey_id']} addresses the judge "
                      f"({kinds})", highlight=False)
    out_console.print(f"{out}: ratings of {len(output['systems'])} systems", highlight=False)


def judge_agreement(
    runs: list[str] = typer.Argument(..., help="Runs to compare, each [NAME=]PATH[,PATH...]: one judge's results "
                                     "files (or a folder of them), one file per system."),
    metrics: str = typer.Option(None, "--metrics", help="Comma list of result keys (default: every key all runs hold)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap over surveys."),
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap resamples for the CIs of tau and rho."),
    out: Path = typer.Option(None, "--out", help="Also write the figures as JSON here."),
    rescore_judge: str = typer.Option(None, "--rescore-judge", help="Score the one RUN again with this judge "
                                      "(same surveys and settings; the cost is printed first), then compare."),
    rescore_out: Path = typer.Option(Path("rescored"), "--rescore-out", help="Folder for the re-scored results."),
    dry_run: bool = typer.Option(False, "--dry-run", help="With --rescore-judge: print the cost and stop."),
    price_per_1k: str = typer.Option(None, "--price-per-1k", help="IN,OUT price per 1,000 tokens for the cost."),
    base_url: str = option(RunOptions, "base_url"),
    judge_concurrency: int = option(RunOptions, "judge_concurrency"),
    cache_dir: Path = option(RunOptions, "cache_dir"),
) -> None:
    """Kendall's tau / Spearman's rho between the runs' system rankings (bootstrap CIs), Krippendorff's alpha,
    mean absolute difference and the systems whose rank changes, per metric."""
    from surge_dataset.cli.cost import evaluate_dry_run
    from surge_dataset.core.io import atomic_write_json
    from surge_dataset.core.vocabulary import parse_list
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.judging import JudgingError, need
    from surge_dataset.judging.agreement import judge_agreement as agree
    from surge_dataset.judging.agreement import load_run
    from surge_dataset.judging.rescore import rescore, rescore_configs
    from surge_dataset.llm.usage import parse_price

    need("krippendorff")
    loaded = [load_run(spec) for spec in runs]
    if rescore_judge:
        if len(loaded) != 1:
            raise JudgingError("--rescore-judge scores one run again: give exactly one RUN")
        plans = rescore_configs(loaded[0], rescore_judge, parse_list(metrics) or None)
        run = RunOptions(base_url=base_url, judge_concurrency=judge_concurrency, cache_dir=cache_dir)
        for plan in plans:  # each system's --dry-run estimate first: nothing sent, nothing written
            evaluate_dry_run(SurgeData.open(plan.data), plan.passages, plan.config, per_1k=parse_price(price_per_1k),
                             base_url=run.base_url, cache_dir=run.cache_dir)
        if dry_run:
            return
        loaded.append(load_run(f"{rescore_judge}={','.join(map(str, rescore(plans, rescore_out, run=run)))}"))
    figures = agree(loaded, parse_list(metrics) or None, seed=seed, resamples=resamples)
    for comparison in figures:
        print_agreement(comparison["metrics"], f"{comparison['a']} vs {comparison['b']}")
    if out is not None:
        atomic_write_json(out, figures)


def print_agreement(figures: dict[str, Any], title: str) -> None:
    """One row per metric: tau and rho [95% CI], alpha, mean |difference|, systems / units, rank changes."""
    table = Table(title=Text(f"{title}: agreement of system rankings and per-survey values"))
    for column in ("metric", "tau [95% CI]", "rho [95% CI]", "alpha", "mean |diff|", "systems/units", "rank changes"):
        table.add_column(column, justify="left" if column in ("metric", "rank changes") else "right")
    for metric, f in figures.items():
        changes = ", ".join(f"{c['system']} {c['rank_a']}→{c['rank_b']}" for c in f["rank_changes"]) or "none"
        table.add_row(Text(metric), _fmt(f["kendall_tau"]) + _interval(*f["tau_ci"]),
                      _fmt(f["spearman_rho"]) + _interval(*f["rho_ci"]), _fmt(f["krippendorff_alpha"]),
                      _fmt(f["mean_abs_diff"], 4), f"{f['systems']}/{f['units']}", Text(changes))
    out_console.print(table)


def meta_eval(
    human: Path = typer.Option(..., "--human", help="CSV with columns survey_id,system,rank (1 = best; system GT = the human survey)."),
    results_flag: bool = typer.Option(
        False, "--results", help="Marks the start of the results files (they can also be given without it)."),
    files: list[str] = typer.Argument(..., help="`surge evaluate` results, one per system: NAME=PATH or PATH (name = file stem)."),
    metrics: str = typer.Option(None, "--metrics", help="Comma list of result keys (default: every numeric key)."),
    out: Path = typer.Option(None, "--out", help="Also write the correlations as JSON here."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap over surveys (agreement CIs)."),
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap resamples for the agreement CIs."),
) -> None:
    """Kendall's tau and Spearman's rho between each metric's ranking of systems and the human ranking."""
    from importlib.util import find_spec

    from surge_dataset.core.io import atomic_write_json
    from surge_dataset.core.vocabulary import parse_list
    from surge_dataset.judging.meta_eval import (
        agreement_with_humans,
        load_results,
        meta_evaluate,
        read_human_rankings,
    )

    rankings, systems = read_human_rankings(human), load_results(files)
    unknown = sorted({s for ranks in rankings.values() for s in ranks} - set(systems))
    if unknown:
        console.print(f"[yellow]note:[/] ranked systems without a results file: {', '.join(unknown)}", highlight=False)
    table_data = meta_evaluate(rankings, systems, parse_list(metrics) or None)
    table = Table(title="Agreement with the human ranking (mean over surveys)")
    for column in ("metric", "tau (with GT)", "rho (with GT)", "tau (w/o GT)", "rho (w/o GT)", "surveys"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for metric, entry in table_data.items():
        w, wo = entry["with_gt"], entry["without_gt"]
        table.add_row(metric if entry["higher_is_better"] else f"{metric} (lower is better)", _fmt(w["kendall_tau"], 3), _fmt(w["spearman_rho"], 3), _fmt(wo["kendall_tau"], 3),
                      _fmt(wo["spearman_rho"], 3), f"{w['surveys']}/{wo['surveys']}")
    out_console.print(table)
    agreement = agreement_with_humans(rankings, systems, list(table_data), seed=seed, resamples=resamples)
    for variant, label in (("with_gt", "with GT"), ("without_gt", "without GT")):
        print_agreement({m: a[variant] for m, a in agreement.items()}, f"human vs metric ranks ({label})")
    if find_spec("krippendorff") is None:
        console.print("[yellow]note:[/] alpha needs the judging extra: pip install 'surge-bench[judging]'",
                      highlight=False)
    if out is not None:
        atomic_write_json(out, {m: {**entry, "agreement": agreement[m]} for m, entry in table_data.items()})
