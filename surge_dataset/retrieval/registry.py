"""Index kinds: which searcher opens an index folder, looked up by its ``surge_index.json`` ``kind``.

Three sources, in this order of precedence:

1. kinds registered at run time with :func:`register_index` (a class with a ``load(index_dir, **kw)``
   classmethod, any callable ``(index_dir, **kw) -> Searcher``, or a ``"module:attr"`` string);
2. the built-in kinds, declared as ``"module:attr"`` strings (:data:`BUILTIN_INDEXES`) and imported only
   when an index of that kind is opened -- so this module imports neither ``bm25`` nor ``dense``, and
   they need not import it;
3. the ``surge.indexes`` entry-point group, for indexes shipped by other packages::

       # their pyproject.toml
       [project.entry-points."surge.indexes"]
       colbert = "my_package.colbert:ColbertIndex"

:data:`BUILTIN_INDEXES` is the one declaration of the built-in kinds: surge-bench's ``pyproject.toml`` does
not repeat them as entry points (``tests/test_index_registry.py`` keeps it so), since this module, which reads
them first, needs no installed metadata to find them. Two providers of one kind are settled by the rule of
:mod:`surge_dataset.core.registries`: a built-in kind keeps its searcher whatever is installed; two installed
packages declaring one kind are a ``NameClashError`` when an index of that kind is opened; run-time
registration takes an installed package's kind, a built-in's or an earlier registration's only with
``replace=True``.

A searcher needs ``search(queries, k, cutoff_days=None) -> list[list[Hit]]`` and the ``doc_ids`` /
``doc_days`` arrays (:class:`~surge_dataset.retrieval.index_base.Searcher`). :func:`open_index` passes an
opener only the keyword arguments its signature takes (all of them when it takes ``**kwargs``), so
``surge retrieve`` can offer every kind the same options (``--model``, ``--batch-size``) and each uses
what it understands.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from surge_dataset.core.registries import (
    BUILT_IN,
    IN_PROCESS,
    Provider,
    choose,
    entry_point_providers,
    load,
    settle_registration,
)
from surge_dataset.core.vocabulary import UnknownNameError
from surge_dataset.retrieval.index_base import Searcher, read_manifest

ENTRY_POINT_GROUP = "surge.indexes"

#: kind -> "module:attr" of its searcher class (``load`` classmethod) or opener function. The one list of the
#: built-in kinds (not repeated as entry points in pyproject.toml).
BUILTIN_INDEXES: dict[str, str] = {
    "bm25": "surge_dataset.retrieval.bm25:BM25Index",
    "dense": "surge_dataset.retrieval.dense:DenseIndex",
}

#: How a user chooses one of two providers of a kind (the end of a clash message).
_PICK = "register_index({name!r}, {target!r}, replace=True)"

Opener = Callable[..., Searcher]
_RUNTIME: dict[str, Any] = {}  # kind -> class, callable or "module:attr"
_ENTRY_POINTS: dict[str, list[Provider]] | None = None  # kind -> its distinct providers, read once


class UnknownIndexKindError(UnknownNameError, ValueError):
    """An index kind no provider declares, with the closest known one: a ``KeyError`` (what
    :func:`get_index_opener` raised) and a ``ValueError`` (what :func:`open_index` raised)."""


def _entry_points() -> dict[str, list[Provider]]:
    """The ``surge.indexes`` entry points of the installed distributions (read once, nothing imported)."""
    global _ENTRY_POINTS
    if _ENTRY_POINTS is None:
        _ENTRY_POINTS = entry_point_providers(ENTRY_POINT_GROUP)
    return _ENTRY_POINTS


def _declared(kind: str) -> list[Provider]:
    """The built-in and installed providers of ``kind``, the built-in first."""
    builtin = [Provider(BUILTIN_INDEXES[kind], BUILT_IN)] if kind in BUILTIN_INDEXES else []
    return builtin + _entry_points().get(kind, [])


def register_index(kind: str, opener: Any = None, *, replace: bool = False) -> Any:
    """Register ``opener`` for index folders whose manifest says ``"kind": kind``.

    ``opener``: a class with a ``load(index_dir, **kwargs)`` classmethod, a callable
    ``(index_dir, **kwargs) -> Searcher`` or a ``"module:attr"`` string (imported on first use).
    Without ``opener``, returns a decorator (``@register_index("toy")`` on the class). A kind an installed
    package declares is taken; a built-in kind or one registered before (with another opener) is a
    :class:`~surge_dataset.core.registries.NameClashError` (a ``ValueError``) unless ``replace=True``.
    """
    if opener is None:
        def decorator(target: Any) -> Any:
            register_index(kind, target, replace=replace)
            return target

        return decorator
    if not kind or not isinstance(kind, str):
        raise ValueError(f"an index kind is a non-empty string, got {kind!r}")
    if not (isinstance(opener, str) or callable(opener)):
        raise TypeError(f"opener of {kind!r} must be a class, a callable or a 'module:attr' string, got {opener!r}")
    new = _runtime_provider(opener)
    if kind in _RUNTIME:
        taken: Provider | None = _runtime_provider(_RUNTIME[kind])
    else:
        declared = _declared(kind)
        taken = declared[0] if declared else None
    settle_registration("index kind", kind, taken, new, replace=replace, pick=_PICK)
    _RUNTIME[kind] = opener
    return opener


def _runtime_provider(target: Any) -> Provider:
    if isinstance(target, str):
        return Provider(target, IN_PROCESS)
    return Provider(_describe(target), IN_PROCESS, obj=target)


def unregister_index(kind: str) -> None:
    """Forget a kind registered at run time (built-in and entry-point kinds come back, if shadowed)."""
    _RUNTIME.pop(kind, None)


def _describe(target: Any) -> str:
    if isinstance(target, str):
        return target
    return f"{getattr(target, '__module__', '?')}:{getattr(target, '__qualname__', repr(target))}"


def index_kinds() -> dict[str, str]:
    """Every known kind -> where its opener lives (``module:attr``), without importing any of them.

    A kind two installed packages declare lists both (``a:X | b:Y``); opening it is a ``NameClashError``.
    """
    kinds = {kind: " | ".join(p.target for p in providers) for kind, providers in _entry_points().items()}
    kinds.update(BUILTIN_INDEXES)
    kinds.update({kind: _describe(target) for kind, target in _RUNTIME.items()})
    return dict(sorted(kinds.items()))


def available_index_kinds() -> list[str]:
    """The names of every known kind, sorted (like ``available_generators``)."""
    return list(index_kinds())


def get_index_opener(kind: str) -> Opener:
    """The callable that opens an index folder of ``kind`` (its module imported now, not before).

    An unknown kind is an :class:`UnknownIndexKindError` (a ``KeyError``) naming the closest known one.
    """
    if kind in _RUNTIME:
        target = _RUNTIME[kind]
    else:
        declared = _declared(kind)
        if not declared:
            raise UnknownIndexKindError("index kind", kind, index_kinds())
        target = choose("index kind", kind, declared, pick=_PICK).target
    if isinstance(target, str):
        target = load(target)
    if inspect.isclass(target) and callable(getattr(target, "load", None)):
        return target.load
    return target


def _accepted(opener: Opener, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments ``opener`` takes: all with ``**kwargs``, else those it names."""
    try:
        parameters = inspect.signature(opener).parameters
    except (TypeError, ValueError):  # a builtin without a signature: pass everything
        return kwargs
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return kwargs
    return {k: v for k, v in kwargs.items() if k in parameters}


def open_index(index_dir: str | Path, **kwargs: Any) -> Searcher:
    """Open an index folder with the searcher registered for its manifest's ``kind``.

    ``kwargs`` are options of the searchers (``backend`` for BM25; ``model``, ``batch_size``, ``device``,
    ``fp16`` for dense); each searcher receives those it takes.
    """
    kind = read_manifest(index_dir).get("kind")
    try:
        opener = get_index_opener(str(kind))
    except UnknownIndexKindError:
        raise UnknownIndexKindError("index kind", str(kind), index_kinds(),
                                    extra=f", named by {Path(index_dir) / 'surge_index.json'}") from None
    return opener(index_dir, **_accepted(opener, kwargs))


__all__ = [
    "BUILTIN_INDEXES",
    "ENTRY_POINT_GROUP",
    "UnknownIndexKindError",
    "available_index_kinds",
    "get_index_opener",
    "index_kinds",
    "open_index",
    "register_index",
    "unregister_index",
]
