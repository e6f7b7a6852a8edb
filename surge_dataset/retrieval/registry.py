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

A searcher needs ``search(queries, k, cutoff_days=None) -> list[list[Hit]]`` and the ``doc_ids`` /
``doc_days`` arrays (:class:`~surge_dataset.retrieval.common.Searcher`). :func:`open_index` passes an
opener only the keyword arguments its signature takes (all of them when it takes ``**kwargs``), so
``surge retrieve`` can offer every kind the same options (``--model``, ``--batch-size``) and each uses
what it understands.
"""

from __future__ import annotations

import importlib
import inspect
import warnings
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from .common import Searcher, read_manifest

ENTRY_POINT_GROUP = "surge.indexes"

#: kind -> "module:attr" of its searcher class (``load`` classmethod) or opener function.
BUILTIN_INDEXES: dict[str, str] = {
    "bm25": "surge_dataset.retrieval.bm25:BM25Index",
    "dense": "surge_dataset.retrieval.dense:DenseIndex",
}

Opener = Callable[..., Searcher]
_RUNTIME: dict[str, Any] = {}  # kind -> class, callable or "module:attr"
_ENTRY_POINTS: dict[str, str] | None = None  # kind -> "module:attr", read once


def _entry_points() -> dict[str, str]:
    """The ``surge.indexes`` entry points of the installed distributions (read once, nothing imported)."""
    global _ENTRY_POINTS
    if _ENTRY_POINTS is None:
        found: dict[str, str] = {}
        for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
            builtin = BUILTIN_INDEXES.get(ep.name)
            if builtin is not None and ep.value != builtin:
                warnings.warn(f"entry point {ENTRY_POINT_GROUP}:{ep.name} = {ep.value} ignored: {ep.name!r} is a "
                              "built-in index kind", stacklevel=2)
                continue
            found.setdefault(ep.name, ep.value)
        _ENTRY_POINTS = found
    return _ENTRY_POINTS


def register_index(kind: str, opener: Any = None, *, replace: bool = False) -> Any:
    """Register ``opener`` for index folders whose manifest says ``"kind": kind``.

    ``opener``: a class with a ``load(index_dir, **kwargs)`` classmethod, a callable
    ``(index_dir, **kwargs) -> Searcher`` or a ``"module:attr"`` string (imported on first use).
    Without ``opener``, returns a decorator (``@register_index("toy")`` on the class). Registering a
    kind that exists raises ``ValueError`` unless ``replace=True``.
    """
    if opener is None:
        def decorator(target: Any) -> Any:
            register_index(kind, target, replace=replace)
            return target

        return decorator
    if not kind or not isinstance(kind, str):
        raise ValueError(f"an index kind is a non-empty string, got {kind!r}")
    if not replace and kind in index_kinds():
        raise ValueError(f"index kind {kind!r} is already registered ({index_kinds()[kind]}); pass replace=True")
    if not (isinstance(opener, str) or callable(opener)):
        raise TypeError(f"opener of {kind!r} must be a class, a callable or a 'module:attr' string, got {opener!r}")
    _RUNTIME[kind] = opener
    return opener


def unregister_index(kind: str) -> None:
    """Forget a kind registered at run time (built-in and entry-point kinds come back, if shadowed)."""
    _RUNTIME.pop(kind, None)


def _describe(target: Any) -> str:
    if isinstance(target, str):
        return target
    return f"{getattr(target, '__module__', '?')}:{getattr(target, '__qualname__', repr(target))}"


def index_kinds() -> dict[str, str]:
    """Every known kind -> where its opener lives (``module:attr``), without importing any of them."""
    kinds = {**_entry_points(), **BUILTIN_INDEXES}
    kinds.update({kind: _describe(target) for kind, target in _RUNTIME.items()})
    return dict(sorted(kinds.items()))


def available_index_kinds() -> list[str]:
    """The names of every known kind, sorted (like ``available_generators``)."""
    return list(index_kinds())


def _resolve(spec: str) -> Any:
    module, _, attr = spec.partition(":")
    target: Any = importlib.import_module(module)
    for part in filter(None, attr.split(".")):
        target = getattr(target, part)
    return target


def get_index_opener(kind: str) -> Opener:
    """The callable that opens an index folder of ``kind`` (its module imported now, not before)."""
    if kind in _RUNTIME:
        target = _RUNTIME[kind]
    elif kind in BUILTIN_INDEXES:
        target = BUILTIN_INDEXES[kind]
    elif kind in _entry_points():
        target = _entry_points()[kind]
    else:
        raise KeyError(kind)
    if isinstance(target, str):
        target = _resolve(target)
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
    except KeyError:
        known = ", ".join(index_kinds()) or "none"
        raise ValueError(f"{index_dir}: unknown index kind {kind!r} (known: {known})") from None
    return opener(index_dir, **_accepted(opener, kwargs))


__all__ = [
    "BUILTIN_INDEXES",
    "ENTRY_POINT_GROUP",
    "available_index_kinds",
    "get_index_opener",
    "index_kinds",
    "open_index",
    "register_index",
    "unregister_index",
]
