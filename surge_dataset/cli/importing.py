"""``surge import``: other systems' outputs -> the evaluator's layout (logic in ``surge_dataset.importers``).

Registered by ``cli.py`` as ``app.command("import")(import_outputs_command)``.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from surge_dataset.cli.console import console, out_console
from surge_dataset.cli.options import data_option
from surge_dataset.core.vocabulary import PROTOCOLS, check_choice
from surge_dataset.importers import DEFAULT_THRESHOLD, FORMATS


def import_outputs_command(
    source: Path = typer.Argument(..., help="Folder (or file) holding the other system's outputs."),
    fmt: str = typer.Option(..., "--format", help=f"The other system's output layout. One of: {', '.join(FORMATS)}."),
    out: Path = typer.Option(..., "--out", help="Folder to write: OUT/<survey_id>/survey.md, ready for `surge evaluate`."),
    data: str = data_option("its ground-truth titles and corpus resolve the references"),
    threshold: float = typer.Option(
        DEFAULT_THRESHOLD, "--threshold", help="Fuzzy title match: rapidfuzz fuzz.ratio (0-100) on processed titles, at least this."),
    bib: Path = typer.Option(None, "--bib", help=escape(
        "Bibliography (.bib or .bbl) for citations by key ([key], [@key], \\cite{key}), instead of the .bib/.bbl beside each survey.")),
    json_field: str = typer.Option(None, "--field", help="llmxmr: the key of each JSON record that holds the report (default: content, article, report or survey)."),
    no_lookup: bool = typer.Option(False, "--no-lookup", help="Ask no service: a reference given only as a URL, DOI or arXiv id keeps its address (default: its title from arXiv / Crossref / OpenAlex or its landing page, cached)."),
    report: Path = typer.Option(None, "--report", help="Report JSON (default: <OUT>.import_report.json beside OUT)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Write into an --out folder that an earlier `surge import` wrote (never into other files)."),
) -> None:
    """Convert other systems' surveys (AutoSurvey, STORM, LLMxMapReduce, SurveyForge, LaTeX, Inspect logs, any Markdown) for `surge evaluate`.

    References resolve to corpus papers by exact normalised title, then fuzzily; the report lists every
    fuzzy match, every reference that did not resolve, and what `surge evaluate` will count per protocol.
    Each survey's losses are printed (citations without an entry, lines that are no references...).
    Exit status 1 when an input could not be imported (an empty file or an empty survey included: a
    generation run that failed; a source of which nothing could be read).
    """
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.importers import import_outputs, report_path
    from surge_dataset.importers.links import LinkOptions

    check_choice("--format", fmt, FORMATS)  # a ChoiceError: one line and exit 2 (cli.py's root)
    result = import_outputs(fmt, source, SurgeData.open(data), out, threshold=threshold, report=report,
                            overwrite=overwrite, bib=bib, json_field=json_field, links=LinkOptions(lookup=not no_lookup))
    keys = ("headings", "references", "resolved_exact", "resolved_fuzzy", "unresolved", "citations",
            "citations_without_entry")
    table = Table(title=escape(f"{source} ({fmt}) -> {out}"))
    for column in ("survey", "headings", "references", "exact", "fuzzy", "unresolved", "citations",
                   "without entry", "evaluate reads citations (official / paper)"):
        table.add_column(column, justify="right")
    for record in [*result.surveys, {"survey_id": "[bold]all", **result.totals}]:
        read = record["evaluate_counts"]
        table.add_row(str(record["survey_id"]), *(str(record[k]) for k in keys),
                      " / ".join(str(read[p].get("citations", 0)) for p in PROTOCOLS))
    out_console.print(table)
    for record in result.surveys:
        lost = "; ".join(record["lost"]) or "nothing"
        console.print(f"survey {record['survey_id']} ({escape(record['source'])}): lost: {escape(lost)}",
                      highlight=False)
        for note in record.get("notes", []):  # guesses, references left as URLs, look-ups that failed
            console.print(f"survey {record['survey_id']}: note: {escape(note)}", highlight=False)
        for note in record.get("quality", {}).get("notes", []):
            console.print(f"survey {record['survey_id']}: quality: {escape(note)}", highlight=False)
    linked = result.totals.get("link_entries", {})
    if any(linked.values()):
        console.print(f"references given only as an address: {linked.get('id', 0)} titled by arXiv id or DOI, "
                      f"{linked.get('page', 0)} by their landing page, {linked.get('title', 0)} by their own words, "
                      f"{linked.get('url', 0)} left as URLs", highlight=False)
    for skipped in result.skipped:
        console.print(f"[yellow]skipped:[/] {escape(skipped['source'])}: {escape(skipped['reason'])}", highlight=False)
    console.print(f"report (fuzzy matches, unresolved references, what was lost, how each count is made): "
                  f"{escape(str(report or report_path(out)))}", highlight=False)
    if result.results:
        console.print(f"the log's scores, for `surge report`: {escape(result.results)}", highlight=False)
    if result.skipped or not result.surveys:
        raise typer.Exit(1)
