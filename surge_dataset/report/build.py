"""``build_report``: every part of the report written into one folder, with ``report.json`` (input hashes,
versions, settings) so anyone can tell which results a table came from."""

from __future__ import annotations

import platform
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from surge_dataset.core.io import atomic_write_json, atomic_write_text
from surge_dataset.core.metadata import SURGE_BENCH_VERSION, installed_versions
from surge_dataset.core.stats import summarise
from surge_dataset.evaluation.summary import averaging_lines
from surge_dataset.report.constants import CI_LEVEL, SIGNIFICANCE_METHOD, ReportError
from surge_dataset.report.drilldown import drilldown_markdown
from surge_dataset.report.figures import plot_bars, plot_heatmap, plot_recall_at_k
from surge_dataset.report.judge_variance import judge_std, judge_std_markdown, judge_std_note
from surge_dataset.report.judging import (
    arena_markdown,
    arena_warnings,
    injection_flags,
    injection_markdown,
    injection_warnings,
    load_arenas,
    split_arena_inputs,
)
from surge_dataset.report.results import (
    check_same_surveys,
    comparability_warnings,
    load_results,
    load_retrieval,
    merge_runs,
    merged_notes,
    metrics_without_value,
    select_metrics,
    significance,
)
from surge_dataset.report.tables import (
    bold_rows,
    dataset_notes,
    no_value_notes,
    retrieval_markdown,
    significance_markdown,
    table_html,
    table_latex,
    table_markdown,
    table_notes,
    table_rows,
)


def _versions() -> dict[str, str]:
    return {"surge-bench": SURGE_BENCH_VERSION, "python": platform.python_version(),
            **installed_versions(("numpy", "scipy", "matplotlib"))}


def _one_per_figure(paths: Sequence[Path]) -> list[Path]:
    """Each figure once: its SVG where one was written, else its first other format."""
    chosen: dict[str, Path] = {}
    for path in paths:
        if path.stem not in chosen or path.suffix == ".svg":
            chosen[path.stem] = path
    return list(chosen.values())


def build_report(
    results: Sequence[str | Path],
    out: str | Path,
    *,
    retrieval: Sequence[str | Path] = (),
    with_paper: bool = False,
    metrics: str | Sequence[str] | None = None,
    seed: int = 0,
    resamples: int = 10_000,
    worst: int = 3,
    ci: bool = True,
    formats: Sequence[str] = ("png", "svg"),
) -> dict[str, Any]:
    """Write the whole report into ``out``; returns ``report.json``'s content (its ``files`` list included).

    Raises :class:`ReportError` (e.g. :class:`SurveySetMismatchError`) before writing anything.
    """
    if seed < 0:
        raise ReportError(f"--seed must be >= 0 (got {seed})")
    if resamples < 100:
        raise ReportError(f"--resamples must be at least 100 (got {resamples})")
    results, arena_files = split_arena_inputs(results)  # `surge arena` outputs among the files: arena.md
    if not results and not retrieval and not arena_files:
        raise ReportError("nothing to report: give results files of `surge evaluate` and/or --retrieval files")
    systems = merge_runs(load_results(results))  # an objective and a judged run of one system: one row
    runs = load_retrieval(retrieval)
    survey_ids = check_same_surveys(systems)
    chosen = select_metrics(systems, metrics) if systems else []
    if systems and not chosen:
        raise ReportError("the results files hold no metric values")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    report: dict[str, Any] = {
        "versions": _versions(),
        "settings": {"metrics": chosen, "seed": seed, "resamples": resamples, "ci_level": CI_LEVEL,
                     "with_paper": with_paper, "worst": worst, "significance": SIGNIFICANCE_METHOD},
        "inputs": [{"system": s.name, "path": str(f.path), "sha256": f.sha256, "surveys": len(f.surveys),
                    "config": {k: f.config.get(k) for k in ("metrics", "protocol", "nli_model", "embedding_model",
                                                             "data_fingerprint", "data_window", "data_survey_dates",
                                                             "judge_settings") if k in f.config}}
                   for s in systems for f in s.files],
        "retrieval_inputs": [{"system": r.name, "path": str(r.path), "sha256": r.sha256} for r in runs],
        "warnings": comparability_warnings(systems),
    }
    report["notes"] = merged_notes(systems) + [f"{s.name}: {line}" for s in systems
                                               for line in averaging_lines(s.averaging, scored_mean=True)]
    report["notes"] += no_value_notes(metrics_without_value(systems, None if metrics is None else chosen))
    averaging = {s.name: s.averaging for s in systems if s.averaging}
    if averaging:
        report["averaging"] = averaging
    flags = injection_flags(systems)
    report["warnings"] += injection_warnings(flags)
    if flags:
        atomic_write_text(out / "injection.md", injection_markdown(flags))
        written.append(out / "injection.md")
        report["injection"] = flags
    if arena_files:
        arenas = load_arenas(arena_files)
        report["warnings"] += arena_warnings(arenas)
        atomic_write_text(out / "arena.md", arena_markdown(arenas))
        written.append(out / "arena.md")
        report["arena"] = [{k: a.get(k) for k in ("path", "sha256", "config", "ranking", "systems")} for a in arenas]
    recall_figures = plot_recall_at_k(runs, out, with_paper=with_paper, formats=formats) if runs and formats else []
    if systems:
        summaries = summarise(systems, chosen, seed=seed, resamples=resamples)
        pairs = significance(systems, chosen, seed=seed, resamples=resamples)
        evaluated, published = table_rows(summaries, chosen, with_paper=with_paper, ci=ci, surveys=len(survey_ids))
        stds = judge_std(systems, chosen)
        general = table_notes(survey_ids, resamples, seed, ci, bool(published), bold_rows(evaluated), bold_rows(published))
        notes = (general[:1] + dataset_notes(systems) + [f"{n}." for n in report["notes"]] + general[1:]
                 + judge_std_note(stds) + [f"Warning: {w}." for w in report["warnings"]])
        if stds:
            atomic_write_text(out / "judge_variance.md", judge_std_markdown(stds))
            written.append(out / "judge_variance.md")
            report["judge_std"] = stds
        figures = plot_bars(summaries, chosen, out, formats) if formats else []
        for metric in chosen if formats else []:
            if any(s.values(metric) for s in systems):
                figures += plot_heatmap(systems, metric, out, formats)
        shown = _one_per_figure([*figures, *recall_figures])  # the HTML page shows each figure once
        for name, text in (("table.md", table_markdown(evaluated, published, chosen, notes)),
                           ("table.tex", table_latex(evaluated, published, chosen, notes)),
                           ("table.html", table_html(evaluated, published, chosen, notes, shown)),
                           ("significance.md", significance_markdown(pairs, systems=[s.name for s in systems])),
                           ("drilldown.md", drilldown_markdown(systems, chosen, worst=worst))):
            atomic_write_text(out / name, text)
            written.append(out / name)
        atomic_write_json(out / "significance.json", pairs)
        written += [out / "significance.json", *figures]
        report["survey_ids"] = survey_ids
        report["summary"] = {name: {m: vars(s) for m, s in per.items()} for name, per in summaries.items()}
    if runs:
        atomic_write_text(out / "retrieval.md", retrieval_markdown(runs, with_paper=with_paper))
        written += [out / "retrieval.md", *recall_figures]
        report["retrieval"] = {r.name: r.means for r in runs}
    report["files"] = [p.name for p in written] + ["report.json"]
    atomic_write_json(out / "report.json", report)
    return report
