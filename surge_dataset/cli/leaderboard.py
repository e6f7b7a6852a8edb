"""``surge leaderboard build`` / ``serve``: the leaderboard as a Gradio Space (kept out of ``cli.py``).

``cli.py`` registers the sub-app with one line::

    app.add_typer(leaderboard_app, name="leaderboard")

gradio is never imported here: ``build`` needs pandas/pyarrow only, ``serve`` runs the Space's ``app.py``.
"""

from __future__ import annotations

from pathlib import Path

import typer

from surge_dataset.cli.console import console, out_console
from surge_dataset.cli.options import data_option, model_copies_option

__all__ = ["leaderboard_app"]

leaderboard_app = typer.Typer(
    help="The leaderboard as a web app that is also a HuggingFace Space: build it from results, serve it locally.",
    no_args_is_help=True,
)


@leaderboard_app.command("build")
def build(
    results: list[Path] = typer.Argument(
        ..., help="`surge evaluate` results files, `surge submit` folders and retrieval-eval outputs (Recall@k)."),
    out: Path = typer.Option(Path("space"), "--out", help="The Space folder to write (app.py, README.md, data/)."),
    passages_root: Path = typer.Option(
        None, "--passages-root", help="Folder holding each system's surveys as DIR/<system or results stem>/<id>/<file>."),
    details: list[str] = typer.Option(
        None, "--details", help="NAME=FILE: a system's `surge evaluate --details` JSONL (default: <stem>.details.jsonl "
        "beside its results file; submissions carry their own). Repeat for several."),
    data: str = data_option("GT outlines and the cited papers' abstracts (left out, with a warning, when absent)"),
    title: str = typer.Option("SurGE leaderboard", "--title", help="Title of the Space and its page."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap and permutation draws (as `surge report`)."),
    resamples: int = typer.Option(10_000, "--resamples", help="Bootstrap resamples / permutations."),
    verify: bool = typer.Option(
        None, "--verify/--no-verify", help="Re-score the deterministic metrics of every input from its surveys and "
        "--data (default: of the submission folders only); the table shows verified / mismatch / unverified."),
    model: list[str] = model_copies_option(),
    device: str = typer.Option(None, "--device", help="Where re-scoring runs its models (default: the best available)."),
    reverify: bool = typer.Option(
        False, "--reverify", help="Re-score every submission again, reusing no stored re-scoring (by default a "
        "submission whose surveys, data, models and metric versions were re-scored before is only compared again)."),
    verifications: Path = typer.Option(
        None, "--verifications", help="Folder that keeps the re-scorings between builds (default: verifications/ "
        "inside the Space folder, carried from its previous build)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a Space folder this command wrote before."),
) -> None:
    """Write a self-contained Gradio Space: Table 4 with CIs, per-survey scores, every citation's verdict, plots."""
    from rich.markup import escape

    from surge_dataset.leaderboard import build_space

    summary = build_space(results, out, passages_root=passages_root, details=details or (), data=data, title=title,
                          seed=seed, resamples=resamples, overwrite=overwrite, verify=verify, models=model or (),
                          device=device, reverify=reverify, verifications=verifications, progress=lambda message: console.print(f"[dim]{escape(message)}[/]",
                                                                                highlight=False))
    for warning in summary.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    for item in summary.refused:  # the others were built
        console.print(f"[red]refused:[/] {escape(item['file'])}: {escape(item['reason'])}", highlight=False)
    for item in summary.duplicates:
        differs = f" ({item['differs']})" if item["differs"] else ""
        console.print(f"[yellow]duplicate:[/] {escape(item['file'])} ({escape(item['system'])}) scored the same survey "
                      f"files as {escape(item['duplicate_of'])}: not a row{escape(differs)}", highlight=False)
    for name, verification in summary.verification.items():
        colour = {"verified": "green", "mismatch": "red"}.get(verification.get("status", ""), "yellow")
        console.print(f"[{colour}]{escape(name)}:[/] {escape(verification.get('summary', ''))}", highlight=False)
    if summary.rescored or summary.reused:
        console.print(f"re-scored {summary.rescored} submission(s); reused {summary.reused} stored re-scoring(s)",
                      highlight=False, markup=False)
    size = sum(summary.files.values())
    out_console.print(  # markup=False: system names and paths are plain text
        f"{out}: {summary.systems} systems in {summary.groups} setting group(s), {summary.surveys} surveys, "
        f"{summary.citations:,} citation records; {len(summary.files)} files, {size / 2**20:.1f} MiB, "
        f"built in {summary.seconds:.1f} s", highlight=False, markup=False)
    out_console.print(f"run it: surge leaderboard serve {out}   (or: cd {out} && python app.py); "
                      "publish it: push the folder to a Space repository", highlight=False, markup=False)


@leaderboard_app.command("serve")
def serve(
    space: Path = typer.Argument(Path("space"), help="A folder written by `surge leaderboard build`."),
    port: int = typer.Option(7860, "--port", help="Port to listen on."),
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on (0.0.0.0: every interface)."),
) -> None:
    """Run the Space locally (its own app.py, exactly what the Space runs, in place of this process); Ctrl-C stops it."""
    from surge_dataset.leaderboard import serve_space

    out_console.print(f"serving {space} on http://{host}:{port}/ (Ctrl-C stops)", highlight=False, markup=False)
    out_console.file.flush()
    raise typer.Exit(serve_space(space, port=port, host=host))
