"""``surge submit``: pack a scored run into a checked leaderboard submission; optionally open a Hub pull request.

``cli.py`` registers it with one line::

    app.command("submit")(submit)

The checks, the folder layout and the limits live in :mod:`surge_dataset.leaderboard.submission`.
"""

from __future__ import annotations

from pathlib import Path

import typer

from surge_dataset.cli.console import console, out_console
from surge_dataset.cli.options import data_option, model_copies_option

__all__ = ["submit"]


def submit(
    results: Path = typer.Argument(
        ..., help="`surge evaluate` results.json of the run to submit (official protocol, the full test split)."),
    passages: Path = typer.Option(
        ..., "--passages", help="Folder DIR/<survey_id>/<file> of the surveys those results scored."),
    out: Path = typer.Option(
        Path("submission"), "--out", help="Submission folder to write (new or empty; --overwrite replaces one)."),
    name: str = typer.Option(
        None, "--name", help="System name on the leaderboard (default: the sidecars' system, else RESULTS' name)."),
    details: Path = typer.Option(
        None, "--details", help="The same run's --details JSONL: the leaderboard then shows every citation's verdict."),
    data: str = data_option("the dataset the results were scored against"),
    repo: str = typer.Option(
        None, "--repo", help="Also open a pull request on this Hub dataset (ORG/NAME); the token is read from HF_TOKEN."),
    verify: bool = typer.Option(
        True, "--verify/--no-verify", help="Re-score the deterministic metrics from the surveys first and refuse a "
        "score they do not give (the leaderboard re-scores anyway)."),
    model: list[str] = model_copies_option(),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a submission folder written before."),
) -> None:
    """Pack results, surveys and config into a checked submission folder; with --repo, open a Hub pull request."""
    from rich.markup import escape

    from surge_dataset.cli.data import open_data
    from surge_dataset.leaderboard.submission import pack_submission
    from surge_dataset.leaderboard.submission_hub import hub_token, open_pull_request
    from surge_dataset.models.identity import model_copies

    if repo:
        hub_token()  # no token: refused before anything is written
    submission = pack_submission(results, passages, out, data=open_data(data), name=name, details=details,
                                 overwrite=overwrite, verify=verify, models=model_copies(model or ()))
    manifest = submission.manifest
    if manifest.get("verification"):
        console.print(f"verification: {escape(manifest['verification']['summary'])}", highlight=False)
    size = sum(entry["size"] for entry in manifest["files"])
    out_console.print(
        f"{out}: submission '{submission.name}': {len(submission.survey_ids)} surveys, {len(manifest['files']) + 1} "
        f"files, {size:,} bytes ({manifest['protocol']} protocol, data {manifest['data_fingerprint']})", highlight=False,
        markup=False)
    if manifest["relocated"]:
        console.print(f"[yellow]note:[/] {len(manifest['relocated'])} field(s) held a local path, kept as its last part "
                      f"or the model's name (e.g. {escape(manifest['relocated'][0])}; all listed in submission.json)",
                      highlight=False)
    if repo:
        out_console.print(f"pull request: {open_pull_request(submission, repo)}", highlight=False)
