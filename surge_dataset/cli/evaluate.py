"""``surge evaluate``: one screen (options -> config -> run -> print).

The evaluation settings are not listed here: :func:`~surge_dataset.cli.options.settings_options` gives the
command one option per declared field of :class:`~surge_dataset.evaluation.EvaluationConfig` and
:class:`~surge_dataset.evaluation.RunOptions`, so a new setting reaches the CLI without an edit here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from surge_dataset.cli.console import console, out_console
from surge_dataset.cli.console import fail as _fail
from surge_dataset.cli.data import open_data
from surge_dataset.cli.options import data_option, settings_options
from surge_dataset.evaluation.config import EvaluationConfig
from surge_dataset.evaluation.run_options import RunOptions

__all__ = ["evaluate", "print_results", "run_with_progress"]


@settings_options(EvaluationConfig, RunOptions, defaults={"metrics": "all"})
def evaluate(
    data: str = data_option(),
    passages: Path = typer.Option(..., "--passages", help="Folder DIR/<survey_id>/<file> of generated surveys."),
    out: Path = typer.Option(Path("results.json"), "--out", help="Results JSON (written atomically)."),
    details: Path = typer.Option(None, "--details", help="Write one JSON line per citation instance here."),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the LLM calls and estimated tokens of the run; send nothing, write nothing."),
    price_per_1k: str = typer.Option(None, "--price-per-1k", help="With --dry-run: IN,OUT price per 1,000 tokens."),
    quiet: bool = typer.Option(
        False, "--quiet", help="Print the table only: no line per kind of diagnostic (they stay in the results)."),
    strict: bool = typer.Option(
        False, "--strict", help="Exit 1 also when --passages holds an entry that is no survey folder (a file, a "
        "folder not named by a survey id); without it such an entry is skipped with a warning."),
    **settings: Any,
) -> None:
    """Score every generated survey in --passages; resumable; exit 1 if a survey folder could not be evaluated.

    Several GPUs or machines: `accelerate launch --num_processes N -m surge_dataset.cli evaluate ...` splits
    the NLI and embedding work between the processes; the result is the same as in one process.
    """
    from surge_dataset.core.settings import split_keywords
    from surge_dataset.evaluation import skipped_without_judge
    from surge_dataset.evaluation.parallel import process_group

    config_settings, run_settings = split_keywords(settings, EvaluationConfig, RunOptions, where="surge evaluate")
    config = EvaluationConfig.from_options(**config_settings)
    processes = process_group()  # under accelerate launch: the main process alone prints notes and results
    main = processes is None or processes.is_main
    if main and not config.judge and skipped_without_judge(settings["metrics"]):
        console.print(f"[yellow]note:[/] {', '.join(skipped_without_judge(settings['metrics']))} skipped: they need an "
                      "LLM judge (e.g. --judge openai:gpt-4o, the published judge model; our prompt wording differs "
                      "from the released one)", highlight=False)
    if price_per_1k and not dry_run:
        _fail("--price-per-1k goes with --dry-run (real runs record the tokens in results['judge']['llm'])")
    hub = None
    if not dry_run:  # every model the run loads is here, or one error names them all, before any work
        from surge_dataset.evaluation.models import model_needs
        from surge_dataset.models.availability import preflight

        hub = preflight(model_needs(config))
    dataset = open_data(data)
    run = RunOptions(**run_settings)
    if dry_run:
        from surge_dataset.cli.cost import evaluate_dry_run
        from surge_dataset.llm.usage import parse_price

        if main:
            evaluate_dry_run(dataset, passages, config, per_1k=parse_price(price_per_1k), base_url=run.base_url,
                             cache_dir=run.cache_dir)
        return
    from surge_dataset.evaluation.session import EvaluationSession
    from surge_dataset.models.availability import hub_offline

    # every Hub model is cached: read it, never wait on the Hub
    with hub_offline(hub == "unreachable"), EvaluationSession(config, run, data=dataset, processes=processes) as session:
        results = run_with_progress(dataset, passages, out, session, details)
    if processes is not None:
        processes.close()
    if results is None:  # another process of the launch: the main one writes the results and prints
        return
    raise typer.Exit(print_results(results, session.config, out, details=details, quiet=quiet, strict=strict))


def run_with_progress(dataset: Any, passages: Path, out: Path, session: Any, details: Path | None
                      ) -> dict[str, Any] | None:
    """:func:`~surge_dataset.evaluation.evaluate_run` of ``session`` (an ``EvaluationSession``) under a progress bar
    on stderr (None: not the main process of an ``accelerate launch``)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from surge_dataset.evaluation import evaluate_run

    processes = session.processes
    with Progress(TextColumn("[bold]evaluating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=console, transient=True, disable=processes is not None and not processes.is_main) as progress:
        task = progress.add_task("surveys", total=None)
        return evaluate_run(
            dataset, passages, out, session, details_path=details,
            on_survey_done=lambda _id, finished, total: progress.update(task, completed=finished, total=total),
        )


def _fmt(value: Any, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def print_results(results: dict[str, Any], config: EvaluationConfig, out: Path, *, details: Path | None = None,
                  quiet: bool = False, strict: bool = False) -> int:
    """The table on stdout; judge use, exclusions, diagnostics, details and failures on stderr. Returns the exit
    status: 1 when a survey folder could not be evaluated; an entry that is no survey folder (a failure without a
    survey id) is a warning, and 1 only when ``strict`` (a `set -e` script is not stopped by a stray ``notes/``)."""
    from surge_dataset.evaluation import result_keys
    from surge_dataset.evaluation.parallel import ModelShare

    keys = result_keys(config)
    table = Table(title=f"{out} ({config.protocol} protocol)")
    for column in ("survey", *keys, "refs (resolved)"):
        table.add_column(column, justify="right")
    for survey_id, record in results["surveys"].items():
        counts = record["counts"]
        table.add_row(survey_id, *(_fmt(record.get(k)) for k in keys), f"{counts['references']} ({counts['resolved']})")
    table.add_row("[bold]mean", *(f"[bold]{_fmt(results['average'][k])}" for k in keys), "")
    averaging = results.get("averaging") or {}
    if averaging.get("counted_zero"):  # the mean above counts zeros for some surveys: the mean without them
        table.add_row("mean of scored", *(_fmt(averaging["average_scored"].get(k)) for k in keys), "")
    out_console.print(table)
    from surge_dataset.evaluation.summary import averaging_lines

    for line in averaging_lines(averaging, results["config"].get("passages")):
        console.print(f"[yellow]note:[/] {line}", highlight=False)
    for share in results["config"].get("model_work", []):  # an accelerate launch: what each process computed
        console.print(ModelShare(**share).line(results["config"]["num_processes"]), markup=False, highlight=False)
    if "judge" in results:
        missing = sum(v for r in results["surveys"].values() for k, v in r["counts"].items() if k.endswith("_missing"))
        stats = results["judge"].get("llm", {})
        console.print(f"judge {config.judge}: {stats.get('requested', 0)} requests, {stats.get('cache_hits', 0)} from "
                      f"cache, {stats.get('retries', 0)} retries; {missing} judge answers missing; tokens "
                      f"{stats.get('prompt_tokens', 0):,} in / {stats.get('completion_tokens', 0):,} out (reported)"
                      + (f" + about {stats['estimated_prompt_tokens']:,} / {stats['estimated_completion_tokens']:,} "
                         "estimated (characters / 4, no usage came back)" if stats.get("usage_estimated") else ""),
                      highlight=False)
    for skipped in results.get("excluded", []):
        console.print(f"[yellow]excluded:[/] survey {skipped['survey_id']}: {escape(str(skipped['reason']))}",
                      highlight=False)
    if not quiet:
        from surge_dataset.evaluation.summary import summarise_diagnostics

        for kind in summarise_diagnostics(results["surveys"]):
            console.print(f"[yellow]diagnostic:[/] {escape(kind.line())}", highlight=False)
    if details is not None:
        records = sum(1 for line in details.read_text(encoding="utf-8").splitlines() if line.strip())
        console.print(f"details: {records:,} records in {details}" if records else
                      f"details: nothing to write to {details}: the surveys have no reference entry, citation or "
                      "per-item record of the chosen metrics", highlight=False)
    failed = [f for f in results["failures"] if f.get("survey_id") is not None]
    for failure in results["failures"]:
        if failure.get("survey_id") is None:
            console.print(f"[yellow]warning:[/] skipped {escape(str(failure['path']))}: {escape(str(failure['error']))}"
                          f"{'' if strict else ' (not a survey folder; --strict makes this an error)'}", highlight=False)
    for failure in failed:
        console.print(f"[red]failed:[/] {escape(str(failure['path']))}: {escape(str(failure['error']))}", highlight=False)
    return 1 if failed or (strict and results["failures"]) else 0
