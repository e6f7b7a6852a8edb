"""``surge data quiz``: an LLM writes the quiz set of the GT surveys (surge_dataset.quiz.writer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from surge_dataset.cli.console import console, out_console
from surge_dataset.cli.console import fail as _fail
from surge_dataset.cli.data import data_app, open_data
from surge_dataset.cli.options import data_option, settings_options
from surge_dataset.core.records import QUIZ_FILE
from surge_dataset.quiz.settings import QuizOptions

__all__ = ["data_quiz"]


@data_app.command("quiz")
@settings_options(QuizOptions)
def data_quiz(
    data: str = data_option(),
    out: Path = typer.Option(Path(QUIZ_FILE), "--out", help="The quiz set (one question a line); its manifest is "
                                                            "written beside it as <name>.manifest.json."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the LLM calls and estimated tokens; send nothing, "
                                                          "write nothing."),
    price_per_1k: str = typer.Option(None, "--price-per-1k", help="Price per 1,000 tokens, IN,OUT (with --dry-run)."),
    **settings: Any,
) -> None:
    """Multiple-choice questions on each GT survey, written one section at a time; cached, resumable.

    Then pin them: `surge data build --source DIR --quizzes OUT` (every user answers the same questions), or
    pass them to `surge evaluate --metrics quiz --quiz OUT --judge ...`.
    """
    from surge_dataset.core.settings import split_keywords

    (own,) = split_keywords(settings, QuizOptions, where="surge data quiz")
    options = QuizOptions(**own)
    if price_per_1k and not dry_run:
        _fail("--price-per-1k goes with --dry-run (a real run records the tokens in the manifest)")
    dataset = open_data(data)
    if dry_run:
        _print_estimate(dataset, options, price_per_1k)
        return
    from surge_dataset.quiz.writer import write_outputs, write_quiz_set

    writing = write_quiz_set(dataset, options, progress=lambda m: console.print(f"[dim]{m}[/]", highlight=False))
    manifest = write_outputs(out, writing)
    info = writing.manifest
    table = Table(title=f"quiz set written to {out} ({options.judge}, {info['prompt_version']})")
    for column in ("survey", "questions asked", "kept"):
        table.add_column(column, justify="right")
    for survey_id, line in info["by_survey"].items():
        table.add_row(survey_id, str(line["asked"]), str(line["kept"]))
    table.add_row("[bold]total", f"[bold]{info['questions_asked']}", f"[bold]{info['questions']}")
    out_console.print(table)
    dropped = ", ".join(f"{reason} {n}" for reason, n in info["dropped"].items() if n)
    console.print(f"dropped: {dropped or 'none'}; fingerprint {info['fingerprint']}; manifest {manifest}",
                  highlight=False)
    if info["dropped"]["no_answer"]:
        console.print(f"[yellow]note:[/] {info['dropped']['no_answer']} questions got no readable answer from the "
                      "writer; answers that failed in transport are asked again by a rerun (the rest are cached)",
                      highlight=False)
    if not writing.questions:
        _fail(f"no question was kept: see {manifest} for why")
    console.print(f"next: surge data build --source DIR --quizzes {out}   or   surge evaluate --metrics quiz "
                  f"--quiz {out} --judge ...", highlight=False)


def _print_estimate(dataset: Any, options: QuizOptions, price_per_1k: str | None) -> None:
    from surge_dataset.cli.cost import method_line, price_lines
    from surge_dataset.llm.usage import parse_price
    from surge_dataset.quiz.writer import estimate_writing

    estimate = estimate_writing(dataset, options)
    table = Table(title=f"dry run: quiz writing with {options.judge}, {estimate['questions']} questions asked; "
                        "nothing sent")
    for column in ("LLM calls", "cached", "to send", "input tokens", "output tokens (at most)"):
        table.add_column(column, justify="right")
    cached = estimate["cached"]
    table.add_row(f"{estimate['calls']:,}", "–" if cached is None else f"{cached:,}",
                  "–" if cached is None else f"{estimate['calls'] - cached:,}", f"{estimate['prompt_tokens']:,}",
                  f"{estimate['completion_tokens']:,}")
    out_console.print(table)
    for line in [method_line(estimate["token_method"], options.judge),
                 *price_lines(estimate["prompt_tokens_to_send"], estimate["completion_tokens_to_send"],
                              parse_price(price_per_1k), "the calls to send")]:
        out_console.print(line, highlight=False)
    console.print(f"[yellow]note:[/] first tries only: an unreadable answer is asked again, up to {options.max_tries} "
                  "answers per section", highlight=False)
