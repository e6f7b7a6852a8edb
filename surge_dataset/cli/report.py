"""``surge report`` command (kept out of ``cli.py`` so the report area is self-contained).

``cli.py`` registers it with one line::

    app.command("report")(report)

scipy and matplotlib are imported inside the command, so ``surge --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from surge_dataset.cli.console import console, out_console
from surge_dataset.core.vocabulary import parse_list


def report(
    results: list[Path] = typer.Argument(
        ..., help="`surge evaluate` results files, one per system, or folders of them (retrieval-eval and arena "
        "outputs are recognised too)."
    ),
    out: Path = typer.Option(Path("report"), "--out", help="Folder for tables, figures, significance.json, report.json."),
    with_paper: bool = typer.Option(False, "--with-paper", help="Add the paper's published rows (Table 4 / Table 3), marked †."),
    retrieval: list[str] = typer.Option(
        None, "--retrieval", help="retrieval-eval output(s) for the Recall@k curve; repeat or comma-separate."
    ),
    metrics: str = typer.Option(
        None, "--metrics", help="Comma list of result keys or groups (recall,shr,rouge_bleu,...) or 'all' "
        "(default: the Table 4 columns present)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap and permutation draws."),
    resamples: int = typer.Option(10_000, "--resamples", help="Bootstrap resamples / permutations."),
    worst: int = typer.Option(3, "--worst", help="Surveys per metric and system in drilldown.md."),
    ci: bool = typer.Option(True, "--ci/--no-ci", help="Show 95% CIs in the tables."),
) -> None:
    """Tables (Markdown/LaTeX/HTML), 95% CIs, paired significance, figures and drill-down from results files."""
    from rich.markup import escape

    from surge_dataset.report import build_report, classify_inputs, expand_folders, metric_label
    from surge_dataset.report.constants import format_value as fmt
    from surge_dataset.report.tables import n_text

    files, skipped = expand_folders(results)
    for path in skipped:
        console.print(f"[yellow]note:[/] skipped {path}: not a results file", highlight=False)
    evaluated, detected = classify_inputs(files)
    retrieval_files = [Path(p) for item in retrieval or [] for p in parse_list(item)]
    report_data = build_report(
        evaluated, out, retrieval=[*detected, *retrieval_files], with_paper=with_paper, metrics=metrics,
        seed=seed, resamples=resamples, worst=worst, ci=ci,
    )
    for warning in report_data["warnings"]:
        console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)  # names are text, not markup
    for note in report_data["notes"]:
        console.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    chosen = report_data["settings"]["metrics"]
    if chosen:
        table = Table(title=f"{len(report_data['survey_ids'])} surveys; mean [95% CI]")
        table.add_column("system")
        for metric in chosen:
            table.add_column(metric_label(metric), justify="right")
        for name, summary in report_data["summary"].items():
            cells = []
            for metric in chosen:
                s = summary[metric]
                n = n_text(s["n"], len(report_data["survey_ids"]))  # a mean over fewer surveys says so
                cells.append(f"– {n}".strip() if s["mean"] is None else
                             f"{fmt(metric, s['mean'])}\n[dim][{fmt(metric, s['ci_low'])}, {fmt(metric, s['ci_high'])}]"
                             f"{' ' + n if n else ''}[/]")
            table.add_row(escape(name), *cells)
        if with_paper:
            _add_published_rows(table, chosen)
        out_console.print(table)
    from surge_dataset.report.judge_variance import judge_std_note

    for line in judge_std_note(report_data.get("judge_std") or {}):
        out_console.print(line, highlight=False)
    out_console.print(f"{out}: {', '.join(report_data['files'])}", highlight=False)


def _add_published_rows(table: Table, metrics: list[str]) -> None:
    """The paper's Table 4 rows under the evaluated ones, as in table.md: for scale, marked †, not ranked."""
    from surge_dataset.report import PAPER_TABLE4, PUBLISHED_MARK
    from surge_dataset.report.constants import format_value as fmt

    if not any(metric in values for values in PAPER_TABLE4.values() for metric in metrics):
        return
    table.add_section()
    table.add_row("[italic]Published (paper, Table 4)", *("" for _ in metrics))
    for name, values in PAPER_TABLE4.items():
        table.add_row(f"{name} {PUBLISHED_MARK}", *(fmt(metric, values.get(metric)) for metric in metrics))
    table.caption = (f"{PUBLISHED_MARK} published numbers (the paper's systems on its 41 test surveys), copied "
                     "for scale, not comparable with the rows above")
