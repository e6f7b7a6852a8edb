"""``surge data``: build, export, download, render and convert the SurGE datasets."""

from __future__ import annotations

import warnings
from pathlib import Path

import typer
from rich.table import Table

from surge_dataset.cli.console import console, out_console
from surge_dataset.cli.options import data_option
from surge_dataset.core.vocabulary import parse_ids

data_app = typer.Typer(help="Build, export, download and convert the SurGE datasets.", no_args_is_help=True)




def _warn_to_console() -> None:
    """Show library warnings (unknown fields, unassigned queries) as one readable line each."""

    def show(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001
        console.print(f"[yellow]warning:[/] {message}", highlight=False)

    warnings.showwarning = show


@data_app.command("build")
def data_build(
    source: Path = typer.Option(..., "--source", help="Folder with surveys.json, corpus.json, queries.json (optional)."),
    out: Path = typer.Option(Path("surge"), "--out", help="Output dataset folder (HF dataset layout)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace --out if it exists."),
    test_ids: str = typer.Option("0-40", "--test-ids", help="Survey ids of the test split, e.g. '0-40'."),
    derive_queries: bool = typer.Option(
        False, "--derive-queries", help="Derive the queries config from surveys.json even when queries.json is "
        "there (done anyway when it is absent; the card and surge_meta.json mark it as derived)."),
    quizzes: Path = typer.Option(
        None, "--quizzes", help="A quiz set written by `surge data quiz`, pinned as the quizzes config (default: "
        "quizzes.jsonl in --source, if there)."),
) -> None:
    """Official JSON files -> Parquet shards per config, dataset card, corpus title index."""
    from surge_dataset.data.build import build_dataset

    _warn_to_console()
    report = build_dataset(source, out, overwrite=overwrite, test_ids=parse_ids(test_ids), derive_queries=derive_queries,
                           quizzes=quizzes, progress=lambda m: console.print(f"[dim]{m}[/]", highlight=False))
    table = Table(title=f"SurGE dataset written to {out}")
    for column in ("config", "split", "rows"):
        table.add_column(column, justify="right" if column == "rows" else "left")
    for config, splits in report.counts.items():
        for split, n in splits.items():
            table.add_row(config, split, f"{n:,}")
    out_console.print(table)
    unbuilt = [name for name in report.absent if name.removesuffix(".json") not in report.counts]
    if unbuilt:
        console.print(f"[yellow]absent (no config built):[/] {', '.join(unbuilt)}")
    for note in report.notes:
        console.print(f"[yellow]note:[/] {note}", highlight=False)


@data_app.command("export")
def data_export(
    data: str = data_option(),
    out: Path = typer.Option(..., "--out", help="Folder to write the official JSON files into."),
) -> None:
    """Built dataset -> the official surveys.json / corpus.json / queries.json (lossless)."""
    from surge_dataset.core.records import QUIZ_FILE
    from surge_dataset.data.export import export_dataset
    from surge_dataset.data.fresh_manifest import FRESH_MANIFEST

    written = export_dataset(data, out)
    for config, n in written.items():
        out_console.print(f"{out / (config + '.json')}: {n:,} records")
    if (out / QUIZ_FILE).is_file():  # written for a dataset with a quizzes config, removed otherwise
        out_console.print(f"{out / QUIZ_FILE}: the pinned quiz set")
    if (out / FRESH_MANIFEST).is_file():  # written for a fresh split, removed otherwise
        out_console.print(f"{out / FRESH_MANIFEST}: the fresh split's manifest (date window, dropped candidates)")


@data_app.command("download")
def data_download(
    out: Path = typer.Option(Path("data"), "--out", help="Folder for the official JSON files."),
    no_queries: bool = typer.Option(False, "--no-queries", help="Skip queries.json."),
) -> None:
    """Fetch the authors' files from Google Drive (resumable)."""
    from surge_dataset.data.download import download_official

    files = download_official(out, include_queries=not no_queries)
    for file in files:
        out_console.print(str(file))


@data_app.command("push")
def data_push(
    data: str = data_option(),
    repo_id: str = typer.Option(..., "--repo-id", help="Hub dataset repo, e.g. ORG/surge."),
    private: bool = typer.Option(False, "--private"),
) -> None:
    """Upload a built dataset folder to the HuggingFace Hub."""
    from surge_dataset.data.download import push_dataset

    out_console.print(push_dataset(data, repo_id, private=private))


@data_app.command("from-surveygen")
def data_from_surveygen(
    files: list[Path] = typer.Argument(..., help="SurveyGen gold-standard survey JSON files."),
    out: Path = typer.Option(..., "--out", help="Folder for the three official JSON files."),
    first_survey_id: int = typer.Option(0, "--first-survey-id"),
) -> None:
    """Convert SurveyGen gold surveys into the official SurGE JSON files (then `surge data build`)."""
    from surge_dataset.data.surveygen import convert_surveygen_with_signals, write_official_json

    _warn_to_console()
    result = convert_surveygen_with_signals(files, first_survey_id=first_survey_id)
    write_official_json(out, result.surveys, result.corpus, result.queries, signals=result.signals,
                        inputs=[("FILES", f) for f in files], survey_meta=result.survey_meta,
                        second_level=result.second_level or None)
    out_console.print(
        f"{out}: {len(result.surveys)} surveys, {len(result.corpus)} corpus papers, "
        f"{len(result.queries)} queries (+ the quality indicators of papers and surveys, and "
        f"{len(result.second_level):,} second-level references: works the cited papers cite)"
    )


@data_app.command("render")
def data_render(
    data: str = data_option(),
    out: Path = typer.Option(..., "--out", help="Folder: writes OUT/<survey_id>/survey.md."),
    survey_ids: str = typer.Option(None, "--survey-ids", help="e.g. '0-4,7' (default: all of --split)."),
    split: str = typer.Option(None, "--split", help="train or test (default: all surveys)."),
) -> None:
    """Write ground-truth surveys in the evaluator's Markdown (headings, text, [n] citations, references)."""
    from surge_dataset.data.render import render_surveys

    dataset = open_data(data)
    ids = parse_ids(survey_ids)  # [] without --survey-ids: all of --split
    surveys = [dataset.survey(i) for i in ids] if ids else dataset.surveys(split)
    for path in render_surveys(surveys, dataset.corpus, out):
        out_console.print(str(path))


@data_app.command("stats")
def data_stats(
    data: str = data_option(),
    as_json: bool = typer.Option(False, "--json", help="Print the statistics as JSON (for machines)."),
) -> None:
    """SurGE's Table 1 for a built dataset (surveys, tree depth and nodes, citations, corpus, abstract length),
    beside the published numbers when the data is SurGE's own."""
    import json

    from surge_dataset.data.stats import PAPER_TABLE1_SOURCE, statistics_of

    stats = statistics_of(open_data(data))
    if as_json:
        typer.echo(json.dumps(stats.as_json(), indent=2))  # plain stdout: no console wrapping in a pipe
        return
    table = Table(title=f"SurGE Table 1 statistics of {data}")
    for column in ("statistic", "this dataset", *((f"published ({PAPER_TABLE1_SOURCE})",) if stats.is_surge else ())):
        table.add_column(column, justify="left" if column == "statistic" else "right")
    for row in stats.rows():
        shown = [_number(row["value"]), *((_number(row["published"]),) if stats.is_surge else ())]
        table.add_row(row["statistic"], *shown)
    out_console.print(table)
    out_console.print("splits: " + ", ".join(f"{name} {n:,}" for name, n in stats.splits.items()), highlight=False)
    if not stats.is_surge:
        out_console.print(f"not SurGE's data: no published row (SurGE has 205 surveys and a 1,086,992-paper corpus; "
                          f"this has {stats.surveys:,} and {_number(stats.corpus_size)})", highlight=False)
    if stats.surveygen is not None:  # SurveyGen's data: its own Table 1 beside the published row
        sg = Table(title=f"SurveyGen Table 1 statistics of {data}")
        for column in ("statistic", "this dataset", f"published ({stats.surveygen['source']})"):
            sg.add_column(column, justify="left" if column == "statistic" else "right")
        for row in stats.surveygen["rows"]:
            sg.add_row(row["statistic"], _number(row["value"]), _number(row["published"]))
        out_console.print(sg)
        out_console.print("disciplines: " + ", ".join(f"{k} {n:,}" for k, n in stats.surveygen["disciplines"].items()),
                          highlight=False)
    for note in stats.notes:
        console.print(f"[yellow]note:[/] {note}", highlight=False)


def _number(value: float | bool | None) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):  # Table 1's check-mark columns
        return "✓" if value else "✗"
    return f"{value:,}" if isinstance(value, int) else f"{value:,.3f}"


def open_data(data: str):
    from surge_dataset.data.dataset import SurgeData

    return SurgeData.open(data)  # DatasetNotFoundError, a SurgeError: one line, exit 2 (cli.SurgeGroup)
