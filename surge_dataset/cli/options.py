"""Options that several ``surge`` commands share, declared once so they read and default alike everywhere."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from dataclasses import MISSING
from typing import Any

import typer

from surge_dataset.core.defaults import DEFAULT_DATA
from surge_dataset.core.settings import declared_field, field_default, flag_of, help_text

__all__ = ["DEFAULT_DATA", "data_option", "option", "settings_options"]


def option(cls: Any, name: str, default: Any = MISSING, **kwargs: Any) -> Any:
    """The ``typer.Option`` of setting ``name`` of ``cls``: its flag, default and help, read off the field.

    ``default`` overrides the field's (e.g. ``None`` where the CLI leaves the config to pick a
    protocol-dependent default, or a string form such as ``"all"``).
    """
    f = declared_field(cls, name)
    value = field_default(f) if default is MISSING else default
    if value is MISSING:
        value = ...
    extra = {"metavar": f.metadata["metavar"]} if f.metadata.get("metavar") else {}
    flags = (flag_of(f), f.metadata["short"]) if f.metadata.get("short") else (flag_of(f),)
    return typer.Option(value, *flags, help=help_text(f), **extra, **kwargs)


def data_option(what: str = "") -> Any:
    """``--data``: a built dataset folder or Hub id, ``./surge`` unless given (one rule for every command)."""
    return typer.Option(
        DEFAULT_DATA, "--data",
        help="Built dataset folder or Hub id (org/name)" + (f": {what}" if what else "") + "; default ./surge, "
             "where `surge data build` writes.",
    )


def model_copies_option() -> Any:
    """``--model NAME=PATH`` (repeatable): where the models a results file names are on this machine, for
    re-scoring it (``surge submit``, ``surge leaderboard build``; :func:`surge_dataset.models.identity.locate_model`)."""
    return typer.Option(
        None, "--model", help="NAME=PATH: a local copy of a model the results name (by default looked for in the Hub "
        "cache and among the bundled models), for re-scoring. Repeat for several.")


def _cli_type(hint: Any) -> Any:
    """The type typer parses for a setting: ``X | None`` -> X, a ``Literal`` vocabulary -> str (checked by the
    config's ``__post_init__``, which names the closest word), a list -> its comma-list text."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return str
    if origin in (list, tuple):
        return str
    if args and origin is not None and type(None) in typing.get_args(hint):
        return _cli_type(args[0])
    return hint


def settings_options(*classes: Any, defaults: dict[str, Any] | None = None, skip: tuple[str, ...] = ()) -> Any:
    """Give a command one option per exposed setting of ``classes``, read off the declarations.

    The command takes them as ``**settings`` (hand them to :func:`surge_dataset.core.settings.split_keywords`);
    its own options (folders, ``--dry-run``) stay ordinary parameters. So a new setting declared in a config
    reaches the CLI with no edit here or in the command. ``defaults`` overrides a field's default for the CLI
    (``--metrics all``).
    """
    from surge_dataset.core.settings import declared

    chosen = defaults or {}

    def decorate(command: Any) -> Any:
        signature = inspect.signature(command)
        own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        added = []
        for cls in classes:
            hints = typing.get_type_hints(cls)
            for f in declared(cls, exposed_only=True):
                if f.name not in skip:
                    default = option(cls, f.name, chosen.get(f.name, dataclasses.MISSING))
                    annotation = f.metadata.get("cli_type") or _cli_type(hints[f.name])
                    added.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                                   annotation=annotation))
        command.__signature__ = signature.replace(parameters=[*own, *added])
        command.__annotations__ = {**typing.get_type_hints(command), **{p.name: p.annotation for p in added}}
        return command

    return decorate
