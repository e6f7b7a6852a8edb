"""``surge generate``: run a survey generator (a baseline or your own) over a split, resumably.

Registered in ``cli.py`` as ``app.command("generate")(generate)``; also runnable on its own, which is
what ``accelerate launch`` needs for data parallelism::

    python -m surge_dataset.cli.generate --system rag --llm hf:Qwen/Qwen2.5-14B-Instruct --run run.trec --out outputs/rag
    accelerate launch --num_processes 8 -m surge_dataset.cli.generate --system rag --llm hf:... --out outputs/rag

Under ``accelerate launch`` (several processes) the surveys are split with
``PartialState().split_between_processes``; each process loads its own model replica on its own GPU
and writes its surveys (atomically, one folder each) into the same ``--out``.

The command is options -> config -> run -> print: its settings are declared once, with their help and
checks, in :mod:`surge_dataset.generation.settings` (:class:`GenerationConfig`: what changes the text;
:class:`GenerationRunOptions`: how the run goes), and :func:`run_with_progress` and :func:`print_report`
do the work.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import typer
from rich.table import Table

from surge_dataset.cli.console import console, out_console, reporting_user_errors
from surge_dataset.cli.options import data_option, settings_options
from surge_dataset.core.distributed import distributed_state, process_device
from surge_dataset.core.errors import SurgeError
from surge_dataset.core.settings import split_keywords
from surge_dataset.generation.settings import GenerationConfig, GenerationRunOptions

_LLM_MEMO: dict[tuple[Any, ...], Any] = {}


class Process(NamedTuple):
    """This process's share of a run: all of it, or under ``accelerate launch`` its part of the surveys."""

    state: Any  #: accelerate's PartialState, None in a single process
    ids: list[int]  #: the surveys this process generates
    device: str | None  #: its GPU (one model replica per GPU), None for the backend's own choice
    rank: str  #: "[process i/n] " before each of its lines, "" in a single process

    @property
    def show_progress(self) -> bool:
        return self.state is None or self.state.is_local_main_process


def this_process(ids: list[int]) -> Process:
    """Split ``ids`` between the processes of an ``accelerate launch`` (``split_between_processes``)."""
    state = distributed_state()
    if state is None:
        return Process(None, list(ids), None, "")
    with state.split_between_processes(ids) as part:
        mine = list(part)
    device = process_device(state)
    return Process(state, mine, device, f"[process {state.process_index}/{state.num_processes}] ")


@contextlib.contextmanager
def naming_the_process(rank: str = "") -> Iterator[None]:
    """Under ``accelerate launch`` (``rank``) every user error names its process; the errors themselves are
    SurgeErrors where they arise (a run of another query type, a folder that is no built dataset)."""
    try:
        yield
    except SurgeError as exc:
        if not rank:
            raise
        raise SurgeError(f"{rank}{exc}") from exc


def open_data(data: str) -> Any:
    """``--data``, opened (a folder that is no built dataset is a DatasetNotFoundError: one line, exit 2)."""
    from surge_dataset.data.dataset import SurgeData

    return SurgeData.open(data)


class _StageBars:
    """One progress bar per survey in flight: its stage, LLM calls answered / asked, tokens per second.

    Off a terminal (a log file, CI) bars are not drawn, so each finished stage is printed as one line,
    and a stage still running is printed every :attr:`HEARTBEAT` seconds (:attr:`SLOW_HEARTBEAT` once it
    has run :attr:`SLOW_AFTER` s) by a background thread: a local model reading a long prompt or
    decoding hundreds of tokens on a CPU can take minutes per stage, which used to be minutes of silence.
    Use as a context manager (the thread stops on exit).
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
    from surge_dataset.llm import make_llm

    key = (spec, *sorted((k, str(v)) for k, v in kwargs.items()))
    if key not in _LLM_MEMO:
        _LLM_MEMO[key] = make_llm(spec, **kwargs)
    return _LLM_MEMO[key]


def dry_run_report(dataset: Any, ids: list[int], config: GenerationConfig, options: GenerationRunOptions) -> None:
    """``--dry-run``: print the calls and tokens each survey would cost (and the price); nothing sent or written."""
    from surge_dataset.cli.cost import generate_dry_run

    with naming_the_process():
        generate_dry_run(dataset, config.generator, config.llm, ids, run=config.run, top_k=config.top_k,
                         context_length=config.context_length, per_1k=options.price_per_1k)


def _load_llm(config: GenerationConfig, options: GenerationRunOptions, process: Process) -> tuple[Any, dict[str, Any]]:
    """The LLM (memoised per process, nothing loaded yet) and what each survey.json records of how it ran."""
    from surge_dataset.core.http import redact_url

    threads = options.thread_count(config)  # checked now; applied when the model loads
    kwargs: dict[str, Any] = {"base_url": options.base_url, "concurrency": options.concurrency,
                              "timeout": options.timeout, "device": process.device, "dtype": config.dtype,
                              "batch_size": options.batch_size, "cache_dir": options.cache_dir}
    if config.local:
        kwargs["threads"] = options.threads
    model = make_generation_llm(config.llm, **kwargs)
    state = process.state
    info = {"base_url": redact_url(options.base_url), "concurrency": options.concurrency,
            "batch_size": options.batch_size, "dtype": config.dtype, "device": process.device,
            "processes": state.num_processes if state is not None else 1,
            "process_index": state.process_index if state is not None else 0, "threads": threads}
    return model, info


def run_with_progress(dataset: Any, config: GenerationConfig, options: GenerationRunOptions, process: Process) -> Any:
    """Generate this process's surveys into ``options.out``: a bar per survey in flight (a line per stage off a
    terminal), each failure and warning printed as it comes. Returns the :class:`~.generation.RunReport`."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from surge_dataset.generation import generate_surveys

    rank, label = process.rank, f"{process.rank}{config.system}"
    with naming_the_process(rank):
        model, llm_info = _load_llm(config, options, process)
        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), console=console, transient=True,
                            disable=not process.show_progress)
        with (
            progress,
            _StageBars(progress, enabled=process.show_progress, prefix=label) as stages,
            _local_model_messages(lambda line: progress.console.print(line, highlight=False), rank),
        ):
            task = progress.add_task(f"[bold]{label}[/] surveys", total=len(process.ids), rate="")

            def done(survey_id: int, status: str, error: str | None) -> None:
                stages.finish(survey_id)
                progress.advance(task)
                if status == "failed":
                    progress.console.print(f"[red]{rank}survey {survey_id} failed:[/] {error}", highlight=False)

            def warn(message: str) -> None:
                progress.console.print(f"[yellow]{rank}warning:[/] {message}", highlight=False)

            return generate_surveys(
                dataset, config.generator, model, options.out, process.ids, run=config.run, top_k=config.top_k,
                llm_info=llm_info, parallel_surveys=options.parallel_surveys, on_start=stages.start, on_done=done,
                on_progress=stages.update, on_warning=warn, context_length=config.context_length)


def print_report(report: Any, config: GenerationConfig, options: GenerationRunOptions, rank: str = "") -> int:
    """The run's counts on stdout, how to retry failed surveys on stderr; the exit status (1: a survey failed)."""
    table = Table(title=f"{rank}{config.system} -> {options.out}")
    for column in ("generated", "skipped (complete)", "failed"):
        table.add_column(column, justify="right")
    table.add_row(str(len(report.generated)), str(len(report.skipped)), str(len(report.failed)))
    out_console.print(table)
    if not report.failed:
        return 0
    console.print(f"{rank}{len(report.failed)} survey(s) failed (details in {Path(options.out) / '.failed'}); rerun "
                  "the same command to retry them: finished surveys and cached LLM answers are reused", highlight=False)
    return 1


@settings_options(GenerationConfig, GenerationRunOptions, defaults={"system_options": None})
def generate(data: str = data_option(), **settings: Any) -> None:
    """Generate surveys with one system; resumable (finished surveys and cached LLM answers are reused).

    Exit 1 if any survey failed (the others are still written; rerun to retry the failed ones).
    """
    config_settings, run_settings = split_keywords(settings, GenerationConfig, GenerationRunOptions,
                                                   where="surge generate")
    config = GenerationConfig(**config_settings)
    options = GenerationRunOptions(**run_settings, llm=config.llm)
    dataset = open_data(data)
    ids = config.select_surveys(dataset)
    if options.dry_run:
        dry_run_report(dataset, ids, config, options)
        return
    process = this_process(ids)
    report = run_with_progress(dataset, config, options, process)
    raise typer.Exit(print_report(report, config, options, process.rank))


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
app.command()(reporting_user_errors(generate))  # `-m surge_dataset.cli.generate`: no `surge` root to catch them


def main() -> None:
    """``python -m surge_dataset.cli.generate`` (what ``accelerate launch -m`` runs)."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
