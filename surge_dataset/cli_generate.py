"""``surge generate``: run a survey generator (a baseline or your own) over a split, resumably.

Registered in ``cli.py`` as ``app.command("generate")(generate)``; also runnable on its own, which is
what ``accelerate launch`` needs for data parallelism::

    python -m surge_dataset.cli_generate --system rag --llm hf:Qwen/Qwen2.5-14B-Instruct --run run.trec --out outputs/rag
    accelerate launch --num_processes 8 -m surge_dataset.cli_generate --system rag --llm hf:... --out outputs/rag

Under ``accelerate launch`` (several processes) the surveys are split with
``PartialState().split_between_processes``; each process loads its own model replica on its own GPU
and writes its surveys (atomically, one folder each) into the same ``--out``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from .cli_options import data_option
from .console import console, out_console, reporting_user_errors
from .console import fail as _fail

_LLM_MEMO: dict[tuple[Any, ...], Any] = {}



def _parse_ids(text: str) -> list[int]:
    """'10,11' or '0-40' or '1,5-7' -> ids."""
    ids: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        ids.extend(range(int(lo), int(hi) + 1) if sep else [int(part)])
    return ids


def _parse_options(items: list[str] | None) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--option {item!r}: expected KEY=VALUE")
        options[key.strip().replace("-", "_")] = value.strip()
    return options


def _distributed_state() -> Any:
    """accelerate's PartialState when launched with several processes, else None (no torch import)."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return None
    import torch
    from accelerate import PartialState

    return PartialState(cpu=not torch.cuda.is_available())


class _StageBars:
    """One progress bar per survey in flight: its stage, LLM calls answered / asked, tokens per second.

    Off a terminal (a log file, CI) bars are not drawn, so each finished stage is printed as one line,
    and a stage still running is printed every :attr:`HEARTBEAT` seconds (:attr:`SLOW_HEARTBEAT` once it
    has run :attr:`SLOW_AFTER` s) by a background thread: a local model reading a long prompt or
    decoding hundreds of tokens on a CPU can take minutes per stage, which used to be minutes of silence
    (issue 16). Use as a context manager (the thread stops on exit).
    """

    HEARTBEAT = 10.0
    SLOW_HEARTBEAT = 30.0
    SLOW_AFTER = 120.0

    def __init__(self, progress: Any, *, enabled: bool, prefix: str) -> None:
        import threading

        self.progress = progress
        self.enabled = enabled
        self.prefix = prefix
        self.tasks: dict[int | None, Any] = {}
        self._lock = threading.Lock()
        #: Per survey in flight: its latest event, when it came, and when a line was last printed for it.
        self._latest: dict[int | None, tuple[Any, float]] = {}
        self._printed: dict[int | None, float] = {}
        self._started: dict[int | None, float] = {}  # surveys started that have not asked the LLM yet
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def _lines(self) -> bool:
        return self.enabled and not self.progress.console.is_terminal

    def __enter__(self) -> _StageBars:
        import threading

        if self._lines:
            self._thread = threading.Thread(target=self._beat, name="surge-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _print(self, text: str) -> None:
        self.progress.console.print(f"{self.prefix}: {text}", highlight=False)

    def start(self, survey_id: int) -> None:
        if self._lines:
            with self._lock:
                self._printed[survey_id] = self._started[survey_id] = time.monotonic()
            self._print(f"survey {survey_id} started")

    @staticmethod
    def _rate(event: Any) -> str:
        speed = event.tokens_per_second
        return f"{speed:,.1f} tok/s" if speed else ("cached" if event.cached and event.cached == event.done else "")

    def update(self, event: Any) -> None:
        if not self.enabled:
            return
        rate = self._rate(event)
        description = f"  survey {event.survey_id} · {event.stage}"
        finished = bool(event.total) and event.done == event.total
        with self._lock:
            task = self.tasks.get(event.survey_id)
            if task is None:
                task = self.tasks[event.survey_id] = self.progress.add_task(description, total=event.total, rate=rate)
            self.progress.update(task, description=description, completed=event.done, total=event.total, rate=rate)
            self._latest[event.survey_id] = (event, time.monotonic())
            self._started.pop(event.survey_id, None)
            if finished:
                self._printed[event.survey_id] = time.monotonic()
        if finished and self._lines:
            self._print(f"survey {event.survey_id} · {event.stage}: {event.done}/{event.total} LLM calls "
                        f"({event.cached} cached), {event.new_tokens:,} new tokens, {rate or '-'}, {event.seconds:.0f} s")

    def _beat(self) -> None:
        """The heartbeat thread: a line for each survey in flight that has printed nothing for a while."""
        while not self._stop.wait(1.0):
            now = time.monotonic()
            due: list[str] = []
            with self._lock:
                for survey_id, since in self._started.items():  # no LLM call yet: e.g. reading a GGUF config
                    if now - self._printed.get(survey_id, since) >= self.HEARTBEAT:
                        self._printed[survey_id] = now
                        due.append(f"survey {survey_id}: preparing the first LLM calls, {now - since:.0f} s")
                for survey_id, (event, received) in self._latest.items():
                    elapsed = event.seconds + (now - received)
                    every = self.SLOW_HEARTBEAT if elapsed >= self.SLOW_AFTER else self.HEARTBEAT
                    if event.done == event.total or now - self._printed.get(survey_id, received) < every:
                        continue
                    self._printed[survey_id] = now
                    tokens = "no token decoded yet"
                    if event.new_tokens:
                        tokens = f"{event.new_tokens:,} new tokens, {self._rate(event) or '-'}"
                    due.append(f"survey {survey_id} · {event.stage}: {event.done}/{event.total} LLM calls so far, "
                               f"{tokens}, {elapsed:.0f} s")
            for line in due:
                self._print(line)

    def finish(self, survey_id: int) -> None:
        with self._lock:
            task = self.tasks.pop(survey_id, None)
            self._latest.pop(survey_id, None)
            self._printed.pop(survey_id, None)
            self._started.pop(survey_id, None)
        if task is not None:
            self.progress.remove_task(task)


@contextlib.contextmanager
def _local_model_messages(print_line: Any, rank: str) -> Iterator[None]:
    """Show the local backend's log (the "loaded in N s on cpu, K torch threads" line, its warnings) in the run.

    Printed through the progress console so lines do not tear the bars; the logger is restored afterwards.
    """
    from rich.markup import escape

    logger = logging.getLogger("surge_dataset.llm.local")

    class ToConsole(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            label = "[yellow]warning:[/] " if record.levelno >= logging.WARNING else ""
            print_line(f"{escape(rank)}{label}{escape(record.getMessage())}")

    handler, level = ToConsole(logging.INFO), logger.level
    logger.addHandler(handler)
    if level == logging.NOTSET or level > logging.INFO:
        logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def make_generation_llm(spec: str, **kwargs: Any) -> Any:
    """``make_llm`` memoised per process: running several systems in one process loads a local model once."""
    from .llm import make_llm

    key = (spec, *sorted((k, str(v)) for k, v in kwargs.items()))
    if key not in _LLM_MEMO:
        _LLM_MEMO[key] = make_llm(spec, **kwargs)
    return _LLM_MEMO[key]


def generate(
    system: str = typer.Option(..., "--system", help="rag, autosurvey, stepsurvey, surveyforge, qualsg, llm_only, "
                                                      "guided, any generator an installed package declares in the "
                                                      "surge.generators entry-point group, or module:Class."),
    llm: str = typer.Option(..., "--llm", help="openai:<model>, hf:<model id or folder> or gguf:<file>."),
    out: Path = typer.Option(None, "--out", help="Output folder: <out>/<survey_id>/survey.md + survey.json "
                                                 "(required unless --dry-run)."),
    data: str = data_option(),
    run: Path = typer.Option(None, "--run", help="TREC run of survey-title queries (surge retrieve); needed by "
                                                 "retrieval-based systems."),
    split: str = typer.Option("test", "--split", help="test, train or all."),
    survey_ids: str = typer.Option(None, "--survey-ids", help="Only these surveys, e.g. '10,11' or '0-40'."),
    top_k: int = typer.Option(100, "--top-k", help="Papers of the run given to the system per survey."),
    limit: int = typer.Option(None, "--limit", help="Only the first N surveys (after --split/--survey-ids)."),
    base_url: str = typer.Option(None, "--base-url", help="OpenAI-compatible server for openai: (vLLM, llama.cpp)."),
    cache_dir: Path = typer.Option(None, "--cache-dir", help="LLM answer cache (default $SURGE_CACHE or ~/.cache/surge)."),
    concurrency: int = typer.Option(8, "--concurrency", help="Requests in flight at once per survey (openai:)."),
    parallel_surveys: int = typer.Option(1, "--parallel-surveys", help="Surveys generated at once (openai: only; "
                                                                          "up to this x --concurrency requests in flight)."),
    max_new_tokens: int = typer.Option(1024, "--max-new-tokens", help="Token budget of each LLM answer."),
    temperature: float = typer.Option(0.0, "--temperature", help="0 = greedy (reproducible)."),
    batch_size: int = typer.Option(8, "--batch-size", help="Prompts per forward batch (hf:/gguf:)."),
    dtype: str = typer.Option(None, "--dtype", help="bf16, fp16 or fp32 for hf:/gguf: (default bf16 on GPU, fp32 on CPU)."),
    threads: int = typer.Option(
        None, "--threads", help="CPU threads of torch for hf:/gguf: (default: $SURGE_NUM_THREADS, else $OMP_NUM_THREADS, "
        "else half the usable cores; 0 = leave torch's own choice, one per core, which busy-waits on a loaded machine)."),
    timeout: float = typer.Option(600.0, "--timeout", help="Seconds per openai: request before it is retried."),
    context_length: int = typer.Option(
        None, "--context-length", help="Tokens the model reads at most (prompt + answer); longer prompts get fewer/"
        "shorter papers. Default: from the model's config (hf:/gguf:), none for openai: (0 = never shorten)."),
    option: list[str] = typer.Option(None, "--option", "-o", help="System option KEY=VALUE (repeatable), e.g. "
                                                                  "-o max_sections=6 -o signals=surveygen_signals.json."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate LLM calls and tokens per survey with a stand-in "
                                                          "LLM; send nothing, write nothing."),
    price_per_1k: str = typer.Option(None, "--price-per-1k", help="With --dry-run: IN,OUT price per 1,000 tokens."),
) -> None:
    """Generate surveys with one system; resumable (finished surveys and cached LLM answers are reused).

    Exit 1 if any survey failed (the others are still written; rerun to retry the failed ones).
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .data.dataset import SurgeData
    from .generation import generate_surveys, get_generator
    from .llm import BackendSpec, LLMError, redact_url
    from .models.base import ModelLoadError

    try:
        BackendSpec.parse(llm)
        generator = get_generator(system, max_new_tokens=max_new_tokens, temperature=temperature,
                                  **_parse_options(option))
    except (ValueError, KeyError, ImportError, AttributeError, LLMError) as exc:
        _fail(str(exc).strip("'\""))
    if parallel_surveys > 1 and not llm.startswith("openai:"):
        _fail("--parallel-surveys is for openai: servers; local hf:/gguf: models batch within a survey (use "
              "accelerate launch for several GPUs)")
    if generator.inputs == "retrieval":
        if run is None:
            _fail(f"--system {system} writes from retrieved papers: give a run with --run (surge retrieve)")
        if not run.is_file():
            _fail(f"--run {run}: no such file")
    try:
        dataset = SurgeData.open(data)
    except FileNotFoundError as exc:
        _fail(str(exc))
    if split not in ("test", "train", "all"):
        _fail(f"--split must be test, train or all, not {split!r}")
    if survey_ids:
        try:
            ids = _parse_ids(survey_ids)
        except ValueError:
            _fail(f"--survey-ids {survey_ids!r}: expected numbers such as '10,11' or '0-40'")
        unknown = [i for i in ids if not dataset.has_survey(i)]
        if unknown:
            _fail(f"--survey-ids: no survey {', '.join(map(str, unknown))} in {data}")
    else:
        ids = [s.survey_id for s in dataset.surveys(None if split == "all" else split)]
    if limit is not None:
        ids = ids[: max(0, limit)]
    if price_per_1k and not dry_run:
        _fail("--price-per-1k goes with --dry-run (real runs record tokens in each survey.json)")
    if dry_run:
        from .cli_cost import generate_dry_run
        from .llm.usage import parse_price

        try:
            generate_dry_run(dataset, generator, llm, ids, run=run, top_k=top_k, context_length=context_length,
                             per_1k=parse_price(price_per_1k))
        except (LLMError, ModelLoadError, ValueError) as exc:
            _fail(str(exc))
        return
    if out is None:
        _fail("--out is required (a folder for the generated surveys)")

    state = _distributed_state()
    device = None
    mine = ids
    if state is not None:
        with state.split_between_processes(ids) as part:
            mine = list(part)
        if str(state.device).startswith("cuda"):
            device = f"cuda:{state.local_process_index}"  # one model replica per GPU
    rank = f"[process {state.process_index}/{state.num_processes}] " if state is not None else ""
    show_progress = state is None or state.is_local_main_process

    local = llm.split(":", 1)[0] in ("hf", "gguf")
    thread_count = None
    if local and threads != 0:
        from .models.threads import resolve_threads

        try:  # checked now (a bad $SURGE_NUM_THREADS is a usage error); applied when the model loads
            thread_count = resolve_threads(threads).threads
        except ValueError as exc:
            _fail(str(exc))
    llm_kwargs: dict[str, Any] = {"base_url": base_url, "concurrency": concurrency, "timeout": timeout,
                                  "device": device, "dtype": dtype, "batch_size": batch_size, "cache_dir": cache_dir}
    if local:
        llm_kwargs["threads"] = threads
    try:
        model = make_generation_llm(llm, **llm_kwargs)
    except (LLMError, ValueError) as exc:
        _fail(str(exc))
    llm_info = {"base_url": redact_url(base_url), "concurrency": concurrency, "batch_size": batch_size,
                "dtype": dtype, "device": device, "processes": state.num_processes if state is not None else 1,
                "process_index": state.process_index if state is not None else 0, "threads": thread_count}

    failures: dict[int, str] = {}
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), console=console, transient=True,
                        disable=not show_progress)
    with (
        progress,
        _StageBars(progress, enabled=show_progress, prefix=f"{rank}{system}") as stages,
        _local_model_messages(lambda line: progress.console.print(line, highlight=False), rank),
    ):
        task = progress.add_task(f"[bold]{rank}{system}[/] surveys", total=len(mine), rate="")

        def started(survey_id: int) -> None:
            stages.start(survey_id)

        def done(survey_id: int, status: str, error: str | None) -> None:
            stages.finish(survey_id)
            progress.advance(task)
            if status == "failed":
                failures[survey_id] = error or ""
                progress.console.print(f"[red]{rank}survey {survey_id} failed:[/] {error}", highlight=False)

        def warn(message: str) -> None:
            progress.console.print(f"[yellow]{rank}warning:[/] {message}", highlight=False)

        try:
            report = generate_surveys(dataset, generator, model, out, mine, run=run, top_k=top_k, llm_info=llm_info,
                                      parallel_surveys=parallel_surveys, on_start=started, on_done=done,
                                      on_progress=stages.update, on_warning=warn, context_length=context_length)
        except (LLMError, ModelLoadError, ValueError) as exc:
            _fail(f"{rank}{exc}")
    table = Table(title=f"{rank}{system} -> {out}")
    for column in ("generated", "skipped (complete)", "failed"):
        table.add_column(column, justify="right")
    table.add_row(str(len(report.generated)), str(len(report.skipped)), str(len(report.failed)))
    out_console.print(table)
    if report.failed:
        console.print(f"{rank}{len(report.failed)} survey(s) failed (details in {out / '.failed'}); rerun the same "
                      "command to retry them: finished surveys and cached LLM answers are reused", highlight=False)
        raise typer.Exit(1)


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
app.command()(reporting_user_errors(generate))  # `-m surge_dataset.cli_generate`: no `surge` root to catch them


def main() -> None:
    """``python -m surge_dataset.cli_generate`` (what ``accelerate launch -m`` runs)."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
