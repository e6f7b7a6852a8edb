"""A setting is declared once: a dataclass field made with :func:`setting`, which carries its help text, its
choices and its journal-key rule. Everything else is read off that declaration:

- the CLI option (:func:`option`: flag, default, help with the choices appended);
- the keywords of :func:`surge_dataset.evaluation.compute` and their check (:func:`split_keywords`);
- the ``evaluate`` modules' inputs description (:func:`describe`);
- the journal key (:func:`key_payload`).

So adding an evaluation setting is one field in ``evaluation/config.py`` plus the code that uses it
(docs/architecture.md, "Adding a setting", runs that example as a test).

Key rules (``key=``), what decides whether a field enters the journal key of a resumed run:

``always``  it changes the numbers (the protocol, a model name);
``never``   it never changes the numbers (which surveys are scored, batch sizes, folders);
``judge``   only when a judge is set (judge settings are meaningless without one);
``models``  only when a selected metric runs a local model (precision, device).

``added_later=True`` marks a field added after journals were first written: at its default it stays out
of the key, so those journals keep resuming (``tests/test_journal_keys.py`` pins keys of earlier runs).
"""

from __future__ import annotations

import dataclasses
import inspect
import textwrap
import typing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import MISSING, Field
from typing import Any, Literal

from surge_dataset.core.vocabulary import closest_hint

__all__ = ["KeyRule", "declared", "declared_field", "describe", "field_default", "flag_of", "help_text", "key_payload",
           "keyword_parameters", "setting", "split_keywords"]

KeyRule = Literal["always", "never", "judge", "models"]
KEY_RULES: tuple[KeyRule, ...] = typing.get_args(KeyRule)


def setting(
    default: Any = MISSING,
    *,
    help: str,  # noqa: A002 - the word every CLI library uses
    key: KeyRule = "always",
    choices: Sequence[str] = (),
    added_later: bool = False,
    exposed: bool = True,
    flag: str | None = None,
    short: str | None = None,
    metavar: str | None = None,
    cli_type: Any = None,
    default_factory: Callable[[], Any] | Any = MISSING,
) -> Any:
    """A dataclass field that declares a setting (see the module docstring).

    ``choices``: the closed vocabulary (from :mod:`surge_dataset.core.vocabulary`), appended to the help and
    checked by the config's ``__post_init__``. ``exposed=False``: filled in by the code (``prompts_version``)
    or set through another setting (``embedding_dtype`` through ``dtype``): no CLI option, no keyword.
    ``flag``: the CLI flag when it is not ``--`` + the name with dashes; ``short``: a one-letter alias (``-o``);
    ``cli_type``: what the CLI parses when the field's type is not it (``list[str]`` for repeated ``KEY=VALUE``).
    """
    if key not in KEY_RULES:
        raise ValueError(f"key rule must be one of {', '.join(KEY_RULES)}, not {key!r}")
    metadata = {"help": help, "key": key, "choices": tuple(choices), "added_later": added_later,
                "exposed": exposed, "flag": flag, "short": short, "metavar": metavar,
                "cli_type": cli_type}
    if default_factory is not MISSING:
        return dataclasses.field(default_factory=default_factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def declared(cls: Any, *, exposed_only: bool = False) -> list[Field]:
    """The fields of ``cls`` made with :func:`setting`, in declaration order."""
    return [f for f in dataclasses.fields(cls) if "help" in f.metadata and (f.metadata["exposed"] or not exposed_only)]


def declared_field(cls: Any, name: str) -> Field:
    """The field of setting ``name`` of ``cls``; an unknown name is a KeyError naming the closest."""
    for f in dataclasses.fields(cls):
        if f.name == name:
            return f
    raise KeyError(f"{cls.__name__} declares no setting {name!r} ({closest_hint(name, [f.name for f in declared(cls)])})")


def field_default(f: Field) -> Any:
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return MISSING


def help_text(f: Field) -> str:
    """The field's help with its choices appended (the only place they are written into help)."""
    text = f.metadata["help"]
    if f.metadata["choices"]:
        text = f"{text.rstrip('.')}. One of: {', '.join(f.metadata['choices'])}."
    return text


def flag_of(f: Field) -> str:
    return f.metadata.get("flag") or "--" + f.name.replace("_", "-")


def key_payload(config: Any, *, judge: bool, models: bool) -> dict[str, Any]:
    """What of ``config`` enters its journal key, read off each field's key rule (module docstring)."""
    payload: dict[str, Any] = {}
    for f in declared(type(config)):
        rule, value = f.metadata["key"], getattr(config, f.name)
        if rule == "never" or (rule == "judge" and not judge) or (rule == "models" and not models):
            continue
        if f.metadata["added_later"] and value == field_default(f):
            continue
        payload[f.name] = value
    return payload


def split_keywords(
    keywords: dict[str, Any], *classes: Any, where: str, skip: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """Share ``keywords`` out among the exposed settings of ``classes`` (one dict per class, in order).

    An unknown keyword (or one in ``skip``) is a ``TypeError`` that names it and the closest valid one.
    """
    shares: list[dict[str, Any]] = [{} for _ in classes]
    skipped = set(skip)
    owners = {f.name: i for i, cls in enumerate(classes) for f in declared(cls, exposed_only=True)
              if f.name not in skipped}
    for name, value in keywords.items():
        if name not in owners:
            raise TypeError(f"{where} got an unexpected keyword argument {name!r} ({closest_hint(name, owners)})")
        shares[owners[name]][name] = value
    return shares


def keyword_parameters(*classes: Any, skip: Iterable[str] = ()) -> list[inspect.Parameter]:
    """Keyword-only parameters for the exposed settings of ``classes``: a function taking ``**settings``
    sets its ``__signature__`` from these, so ``help()`` and editors show every keyword and default."""
    skipped = set(skip)
    return [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY,
                              default=None if f.default is MISSING else f.default, annotation=f.type)
            for cls in classes for f in declared(cls, exposed_only=True) if f.name not in skipped]


def _type_name(f: Field) -> str:
    """``str`` for a vocabulary type (its words follow in the help), else the annotation as written."""
    text = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    if f.metadata["choices"]:
        return "str | None" if "None" in text else "str"
    return text


def describe(classes: Iterable[Any], *, indent: str = "    ", skip: Iterable[str] = ()) -> str:
    """One ``name (type, default ...): help`` entry per exposed setting: the ``Args:`` text of cards and docs."""
    skipped = set(skip)
    lines: list[str] = []
    for cls in classes:
        for f in declared(cls, exposed_only=True):
            if f.name in skipped:
                continue
            shown = "" if f.default is MISSING else f", default {f.default!r}"
            lines.append(textwrap.fill(f"{f.name} ({_type_name(f)}{shown}): {help_text(f)}", width=110,
                                       initial_indent=indent, subsequent_indent=indent * 2))
    return "\n".join(lines)
