"""Rich consoles for the CLI that never cut a table to 80 columns when the output is piped or captured.

Rich sizes output to the terminal and falls back to 80 columns without one, so ``surge evaluate ... |
tee log`` or a CI log got tables with wrapped or elided cells. Off a terminal these consoles are as wide
as the content needs (up to :data:`PIPE_WIDTH`); ``COLUMNS`` still wins when set.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any, NoReturn, TypeVar

from rich.console import Console, ConsoleDimensions
from rich.markup import escape

__all__ = ["PIPE_WIDTH", "SurgeConsole", "console", "fail", "make_console", "out_console", "quiet_libraries",
           "reporting_user_errors", "user_errors"]

#: Width off a terminal: wide enough for any table the CLI prints, so none is cut.
PIPE_WIDTH = 1000


class SurgeConsole(Console):
    """A :class:`rich.console.Console` whose width off a terminal is :data:`PIPE_WIDTH`, not 80."""

    @property
    def size(self) -> ConsoleDimensions:
        size = Console.size.fget(self)  # type: ignore[attr-defined]
        if self._width is None and not self.is_terminal and not self._environ.get("COLUMNS", "").isdigit():
            return ConsoleDimensions(PIPE_WIDTH, size.height)
        return size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]


def make_console(*, stderr: bool = False) -> SurgeConsole:
    """The CLI's consoles: ``stderr=True`` for messages and progress, the default for results on stdout."""
    return SurgeConsole(stderr=stderr, soft_wrap=stderr)


#: Messages and progress (stderr) and results (stdout): shared by every ``surge`` sub-command.
console = make_console(stderr=True)
out_console = make_console()


def fail(message: str, code: int = 2) -> NoReturn:
    """A usage error: one red line on stderr and exit status ``code`` (2), no traceback."""
    import typer

    console.print(f"[bold red]error:[/] {escape(message)}", highlight=False)  # the message is text, never markup
    raise typer.Exit(code)


#: Loggers whose warnings are about the libraries' own affairs (a checkpoint "LOAD REPORT" with ANSI codes,
#: "Converting SentenceTransformer model ... to CrossEncoder"), not about the user's run.
CHATTY_LOGGERS = ("transformers", "sentence_transformers", "accelerate", "datasets", "huggingface_hub")


def quiet_libraries() -> None:
    """Keep the CLI's stderr for the run: library warnings off, their progress bars off a terminal.

    ``SURGE_VERBOSE=1`` (or the libraries' own variables, e.g. ``TRANSFORMERS_VERBOSITY``) brings them back.
    A surge error is then the last line a user sees, not one buried under a checkpoint report.
    """
    if os.environ.get("SURGE_VERBOSE", "").strip().lower() in {"1", "true", "yes", "on"}:
        return
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if not sys.stderr.isatty():  # "Loading weights" bars in a log are a wall of carriage returns
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    for name in CHATTY_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.ERROR)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Every :class:`~surge_dataset.core.errors.SurgeError`, and a full disk, as one line and exit 2 (:func:`fail`)."""
    from surge_dataset.core.errors import SurgeError, disk_full_message

    try:
        yield
    except SurgeError as exc:
        fail(str(exc))
    except OSError as exc:
        message = disk_full_message(exc)
        if message is None:
            raise
        fail(message)


F = TypeVar("F", bound=Callable[..., Any])


def reporting_user_errors(command: F) -> F:
    """A command run through :func:`user_errors` (for apps outside the ``surge`` root, e.g. ``-m cli_generate``)."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        quiet_libraries()
        with user_errors():
            return command(*args, **kwargs)

    return run  # type: ignore[return-value]
