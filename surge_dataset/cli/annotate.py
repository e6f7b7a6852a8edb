"""``surge data annotate``: the expert filtering of a fresh split (SurGE paper §3.2), the sheet and the merge."""

from __future__ import annotations

from pathlib import Path

import typer

from surge_dataset.cli.console import out_console
from surge_dataset.cli.data import data_app
from surge_dataset.core.errors import SettingError


@data_app.command("annotate")
def data_annotate(
    source: Path | None = typer.Argument(
        None, help="A `surge data fresh` folder (surveys.json, fresh_manifest.json): write its annotation sheet."),
    out: Path | None = typer.Option(
        None, "--out", help="The sheet to write (CSV, e.g. labels.csv; instructions go to labels.README.md); with "
        "--merge, a JSON file of the merge (kappa, kept and dropped surveys)."),
    force: bool = typer.Option(
        False, "--force", help="Overwrite a sheet that holds labels, or replace an existing --filtered-out folder."),
    merge: tuple[Path, Path] | None = typer.Option(
        None, "--merge", help="Two filled sheets, A.csv B.csv: print Cohen's kappa on usable (the SurGE paper "
        "reports 0.792), agreement and confusion counts, and keep the surveys both marked usable."),
    src: Path | None = typer.Option(
        None, "--src", help="With --merge: the folder the sheets were written from (its survey ids are checked; "
        "dropped surveys are named with their arXiv id and title)."),
    filtered_out: Path | None = typer.Option(
        None, "--filtered-out", help="With --merge and --src: write a new source folder holding only the kept "
        "surveys, their queries, the corpus and the manifest with an annotation entry (then `surge data build`)."),
) -> None:
    """Expert filtering of a fresh split: write the sheet for two annotators, or merge their two filled sheets.

    Sheet: `surge data annotate fresh-src/ --out labels.csv`.

    Merge: `surge data annotate --merge a.csv b.csv --src fresh-src/ --filtered-out fresh-annotated/`.
    A survey stays only if both annotators marked it usable; docs/data/annotate.md says more.
    """
    from surge_dataset.core.io import atomic_write_json
    from surge_dataset.fresh.annotate import (
        agreement_lines,
        annotation_record,
        merge_sheets,
        source_entries,
        write_filtered_source,
        write_sheet,
    )

    if merge is None:
        if source is None or out is None:
            raise SettingError("give a source folder and --out (surge data annotate fresh-src/ --out labels.csv), "
                               "or --merge A.csv B.csv")
        if src or filtered_out:
            raise SettingError("--src and --filtered-out go with --merge")
        rows, readme = write_sheet(source, out, force=force)
        out_console.print(f"{out}: {rows} survey(s) to annotate, by two annotators each; instructions: {readme}",
                          highlight=False)
        return
    if source is not None and src is not None and source != src:
        raise SettingError(f"two source folders: {source} and --src {src}; give one")
    src = src or source
    if filtered_out is not None and src is None:
        raise SettingError("--filtered-out needs --src, the folder the sheets were written from")
    agreement = merge_sheets(*merge)
    entries = source_entries(src, agreement) if src is not None else {}
    for line in agreement_lines(agreement):
        out_console.print(line, highlight=False)
    if filtered_out is not None:
        write_filtered_source(src, agreement, filtered_out, force=force)
        out_console.print(f"{filtered_out}: the {len(agreement.kept)} kept survey(s); build it with "
                          f"`surge data build --source {filtered_out}`", highlight=False)
    if out is not None:
        atomic_write_json(out, annotation_record(agreement, entries))
        out_console.print(f"{out}: kept and dropped surveys", highlight=False)
