"""Rich consoles for the CLI that never cut a table to 80 columns when the output is piped or captured.

Rich sizes output to the terminal and falls back to 80 columns without one, so ``surge evaluate ... |
tee log`` or a CI log got tables with wrapped or elided cells. Off a terminal these consoles are as wide
as the content needs (up to :data:`PIPE_WIDTH`); ``COLUMNS`` still wins when set.
"""

from __future__ import annotations

from typing import NoReturn

from rich.console import Console, ConsoleDimensions

__all__ = ["PIPE_WIDTH", "SurgeConsole", "console", "fail", "make_console", "out_console"]

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

    console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)
