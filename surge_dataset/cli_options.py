"""Options that several ``surge`` commands share, declared once so they read and default alike everywhere."""

from __future__ import annotations

from typing import Any

import typer

#: Where ``surge data build`` writes by default, and so what every ``--data`` reads by default.
DEFAULT_DATA = "surge"


def data_option(what: str = "") -> Any:
    """``--data``: a built dataset folder or Hub id, ``./surge`` unless given (one rule for every command)."""
    return typer.Option(
        DEFAULT_DATA, "--data",
        help="Built dataset folder or Hub id (org/name)" + (f": {what}" if what else "") + "; default ./surge, "
             "where `surge data build` writes.",
    )
