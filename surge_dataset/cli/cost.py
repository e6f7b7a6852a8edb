"""``--dry-run`` of ``surge evaluate`` and ``surge generate``: print LLM calls, tokens and a price.

Kept out of the commands (:mod:`.evaluate`, :mod:`.generate`); they call :func:`evaluate_dry_run` and
:func:`generate_dry_run`. Nothing here sends a request or writes a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table

from surge_dataset.cli.console import console, out_console
from surge_dataset.llm.usage import ESTIMATE_METHOD, price

__all__ = ["evaluate_dry_run", "generate_dry_run", "price_lines"]



def _n(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def method_line(method: str | None, what: str) -> str:
    if method == ESTIMATE_METHOD or method is None:
        return f"input tokens: estimated as characters / 4 ({what} has no local tokenizer)"
    return f"input tokens: counted with the {method}"


def price_lines(prompt_tokens: int, completion_tokens: int, per_1k: tuple[float, float] | None, scope: str) -> list[str]:
    """The price of ``scope`` at ``per_1k`` = (input, output) per 1,000 tokens, or a hint to give one."""
    if per_1k is None:
        return ["price: give --price-per-1k IN,OUT (per 1,000 input and output tokens) to see one"]
    total = price(prompt_tokens, completion_tokens, per_1k)
    return [f"price of {scope} at {per_1k[0]:g} / {per_1k[1]:g} per 1k tokens: about {total:,.4f} "
            f"(input {price(prompt_tokens, 0, per_1k):,.4f} + output at most {price(0, completion_tokens, per_1k):,.4f})"]


def evaluate_dry_run(data: Any, passages: Path, config: Any, *, per_1k: tuple[float, float] | None,
                     base_url: str | None, cache_dir: Any) -> dict[str, Any]:
    """Estimate a ``surge evaluate`` run and print it; returns the estimate."""
    from surge_dataset.evaluation.cost import estimate_evaluation

    report = estimate_evaluation(data, passages, config, base_url=base_url, cache_dir=cache_dir)
    table = Table(title=f"dry run: {report['surveys']} surveys, judge {config.judge or '(none)'}; nothing sent")
    for column in ("metric", "LLM calls", "cached", "to send", "input tokens", "output tokens (at most)"):
        table.add_column(column, justify="left" if column == "metric" else "right")

    def row(name: str, line: dict[str, Any], bold: bool = False) -> None:
        to_send = None if line["cached"] is None else line["calls"] - line["cached"]
        cells = [name, _n(line["calls"]), _n(line["cached"]), _n(to_send), _n(line["prompt_tokens"]),
                 _n(line["completion_tokens"])]
        table.add_row(*(f"[bold]{c}" for c in cells) if bold else cells)

    for name, line in report["metrics"].items():
        row(name, line)
    row("total", report["total"], bold=True)
    out_console.print(table)
    total = report["total"]
    lines = [method_line(report["token_method"], str(config.judge))] if config.judge else []
    lines += price_lines(total["prompt_tokens_to_send"], total["completion_tokens_to_send"], per_1k,
                         "the calls to send")
    for line in lines:
        out_console.print(line, highlight=False)
    for note in report["notes"]:
        console.print(f"[yellow]note:[/] {note}", highlight=False)
    for failure in report["failures"]:
        console.print(f"[red]would fail:[/] {failure['path']}: {failure['error']}", highlight=False)
    return report


def generate_dry_run(data: Any, generator: Any, llm: str, survey_ids: list[int], *, run: Path | None, top_k: int,
                     context_length: int | None, per_1k: tuple[float, float] | None) -> Any:
    """Estimate a ``surge generate`` run survey by survey (a stand-in LLM, nothing sent) and print it."""
    from surge_dataset.generation.dry_run import estimate_generation

    estimate = estimate_generation(data, generator, llm, survey_ids, run=run, top_k=top_k,
                                   context_length=context_length)
    table = Table(title=f"dry run (estimate): {generator.name} with {llm}, {len(survey_ids)} surveys; nothing sent")
    for column in ("survey", "LLM calls", "input tokens", "output tokens (at most)", "calls per stage"):
        table.add_column(column, justify="left" if column in ("survey", "calls per stage") else "right")
    for survey_id, line in estimate.surveys.items():
        stages = ", ".join(f"{stage} {n}" for stage, n in line["stages"].items())
        table.add_row(str(survey_id), _n(line["calls"]), _n(line["prompt_tokens"]), _n(line["completion_tokens"]),
                      stages)
    total = estimate.total
    table.add_row("[bold]total", f"[bold]{_n(total['calls'])}", f"[bold]{_n(total['prompt_tokens'])}",
                  f"[bold]{_n(total['completion_tokens'])}", "")
    out_console.print(table)
    for line in [method_line(estimate.token_method, llm),
                 *price_lines(total["prompt_tokens"], total["completion_tokens"], per_1k, "the run")]:
        out_console.print(line, highlight=False)
    for note in estimate.notes:
        console.print(f"[yellow]note:[/] {note}", highlight=False)
    for survey_id, error in estimate.failed.items():
        console.print(f"[red]would fail:[/] survey {survey_id}: {error}", highlight=False)
    return estimate
