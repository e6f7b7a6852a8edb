"""``surge data fresh``: build a fresh split from recent arXiv surveys (surge_dataset.fresh.pipeline)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from surge_dataset.cli.console import console, out_console
from surge_dataset.cli.data import data_app
from surge_dataset.cli.options import settings_options
from surge_dataset.fresh.settings import FreshOptions

__all__ = ["data_fresh"]


@data_app.command("fresh")
@settings_options(FreshOptions)
def data_fresh(
    out: Path = typer.Option(..., "--out", help="Folder for surveys.json, corpus.json, queries.json, "
                                                "fresh_manifest.json (and cache/); a rerun resumes."),
    **settings: Any,
) -> None:
    """Recent arXiv surveys -> SurGE's official files (a split no model has read); resumable, polite (--rate).

    Then: `surge data annotate OUT --out labels.csv` (expert filtering) and `surge data build --source OUT`.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from surge_dataset.core.settings import split_keywords
    from surge_dataset.fresh.pipeline import run_fresh

    (own,) = split_keywords(settings, FreshOptions, where="surge data fresh")
    options = FreshOptions(**own)
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), console=console,
                  transient=True) as bar:
        tasks: dict[str, Any] = {}

        def progress(stage: str, done: int, total: int | None) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        result = run_fresh(out, options, progress=progress)
    manifest = result.manifest
    counts = manifest["counts"]
    table = Table(title="candidates dropped")
    for column in ("stage", "reason", "candidates"):
        table.add_column(column, justify="right" if column == "candidates" else "left")
    reasons: dict[tuple[str, str], int] = {}
    for dropped in manifest["dropped"]:
        reasons[dropped["stage"], dropped["code"]] = reasons.get((dropped["stage"], dropped["code"]), 0) + 1
    for (stage, code), n in sorted(reasons.items()):
        table.add_row(stage, code, f"{n:,}")
    out_console.print(table)
    out_console.print(f"{out}: kept {counts['kept']:,} of {counts['surveys_by_rule']:,} surveys found "
                      f"({counts['searched']:,} search results)", highlight=False)
    corpus = counts["corpus_detail"]
    console.print(f"corpus: {counts['corpus']:,} papers ({corpus['new']:,} new: {corpus['new_by_origin']}); "
                  f"{counts['queries']:,} queries; cited keys resolved {counts['resolved_keys']:,} of "
                  f"{counts['cited_keys']:,}", highlight=False)
    hosts = manifest["requests"]["hosts"]
    console.print(f"requests: {sum(h['requests'] for h in hosts.values()):,} sent, e-prints "
                  f"{manifest['requests']['eprints_downloaded']} downloaded / {manifest['requests']['eprints_from_cache']} "
                  f"from the cache ({manifest['settings']['cache_dir']})", highlight=False)
    if counts["not_fetched"]:
        console.print(f"[yellow]not fetched:[/] {counts['not_fetched']} candidates (network); rerun the same "
                      "command to ask again for exactly those", highlight=False)
    for note in manifest["notes"]:
        console.print(f"[yellow]note:[/] {note}", highlight=False)
    if counts["kept"]:
        console.print(f"next: surge data annotate {out} --out labels.csv; surge data build --source {out} --out "
                      f"fresh --test-ids 0-{counts['kept'] - 1}", highlight=False)
