"""``surge import``: other systems' outputs -> the evaluator's layout (logic in ``surge_dataset.importers``).

Registered by ``cli.py`` as ``app.command("import")(import_outputs_command)``.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from .cli_options import data_option
from .console import console, out_console
from .console import fail as _fail
from .importers import DEFAULT_THRESHOLD, FORMATS


def import_outputs_command(
    source: Path = typer.Argument(..., help="Folder (or file) holding the other system's outputs."),
    fmt: str = typer.Option(..., "--format", help=f"The other system's output layout. One of: {', '.join(FORMATS)}."),
    out: Path = typer.Option(..., "--out", help="Folder to write: OUT/<survey_id>/survey.md, ready for `surge evaluate`."),
    data: str = data_option("its ground-truth titles and corpus resolve the references"),
    threshold: float = typer.Option(
        DEFAULT_THRESHOLD, "--threshold", help="Fuzzy title match: rapidfuzz fuzz.ratio (0-100) on processed titles, at least this."),
    report: Path = typer.Option(None, "--report", help="Report JSON (default: <OUT>.import_report.json beside OUT)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Write into an --out folder that an earlier `surge import` wrote (never into other files)."),
) -> None:
    """Convert other systems' surveys (AutoSurvey, STORM, LLMxMapReduce, SurveyForge, any Markdown) for `surge evaluate`.

    References resolve to corpus papers by exact normalised title, then fuzzily; the report lists every
    fuzzy match and every reference that did not resolve. Exit status 1 when an input could not be imported.
    """
    from .data.dataset import SurgeData
    from .importers import import_outputs, report_path
    from .vocabulary import check_choice

    check_choice("--format", fmt, FORMATS)  # a ChoiceError: one line and exit 2 (cli.py's root)
    try:
        dataset = SurgeData.open(data)
        result = import_outputs(fmt, source, dataset, out, threshold=threshold, report=report, overwrite=overwrite)
    except (FileNotFoundError, ValueError) as exc:
        _fail(str(exc))
    table = Table(title=f"{source} ({fmt}) -> {out}")
    for column in ("survey", "references", "exact", "fuzzy", "unresolved", "citations", "unmatched citations"):
        table.add_column(column, justify="right")
    for record in result.surveys:
        table.add_row(str(record["survey_id"]), *(str(record[k]) for k in (
            "references", "resolved_exact", "resolved_fuzzy", "unresolved", "citations", "unmatched_citation_count")))
    totals = result.totals
    table.add_row("[bold]all", *(f"[bold]{totals[k]}" for k in (
        "references", "resolved_exact", "resolved_fuzzy", "unresolved", "citations", "unmatched_citation_count")))
    out_console.print(table)
    for skipped in result.skipped:
        console.print(f"[yellow]skipped:[/] {skipped['source']}: {skipped['reason']}", highlight=False)
    console.print(f"report (fuzzy matches, unresolved references): {report or report_path(out)}", highlight=False)
    if result.skipped or not result.surveys:
        raise typer.Exit(1)
