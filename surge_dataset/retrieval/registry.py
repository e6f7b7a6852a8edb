"""Index kinds: which searcher opens an index folder, looked up by its ``surge_index.json`` ``kind``.

The kinds are :data:`INDEXES`, a :class:`~surge_dataset.core.registries.Registry` like the importer formats, the
bibliographic services and the LLM backends:

1. the built-in kinds, registered with :func:`register_index` on their searcher class in their own module
   (``bm25.py``, ``faiss_index.py``);
2. the ``surge.indexes`` entry-point group, for indexes shipped by other packages::

       # their pyproject.toml
       [project.entry-points."surge.indexes"]
       colbert = "my_package.colbert:ColbertIndex"

3. kinds registered at run time with :func:`register_index` (a class with a ``load(index_dir, **kw)``
   classmethod, any callable ``(index_dir, **kw) -> Searcher``, or a ``"module:attr"`` string imported when
   first opened).

Two providers of one kind are settled by the rule of :mod:`surge_dataset.core.registries`: a built-in kind keeps
its searcher whatever is installed; two installed packages declaring one kind are a ``NameClashError`` when an
index of that kind is opened; run-time registration takes an installed package's kind, a built-in's or an earlier
registration's only with ``replace=True``. ``surge index list`` reads :meth:`~.Registry.targets`.

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

from surge_dataset.core.registries import Registry
from surge_dataset.core.vocabulary import UnknownNameError
from surge_dataset.retrieval.index_base import Searcher, read_manifest

ENTRY_POINT_GROUP = "surge.indexes"

#: Index kind -> its searcher class (``load`` classmethod) or opener function: a live mapping of the built-in,
#: installed and registered kinds.
INDEXES = Registry("index kind", ENTRY_POINT_GROUP,
                   builtin_modules=("surge_dataset.retrieval.bm25", "surge_dataset.retrieval.faiss_index"),
                   pick="register_index({name!r}, {target!r}, replace=True)")

Opener = Callable[..., Searcher]


class UnknownIndexKindError(UnknownNameError, ValueError):
    """An index kind no provider declares, with the closest known one: a ``KeyError`` (what
    :func:`get_index_opener` raised) and a ``ValueError`` (what :func:`open_index` raised)."""


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
    return INDEXES.register(kind, opener, replace=replace)


def unregister_index(kind: str) -> None:
    """Forget a kind registered at run time (built-in and entry-point kinds come back, if shadowed)."""
    INDEXES.unregister(kind)


def index_kinds() -> dict[str, str]:
    """Every known kind -> where its opener lives (``module:attr``), no plugin imported.

    A kind two installed packages declare lists both (``a:X | b:Y``); opening it is a ``NameClashError``.
    """
    return INDEXES.targets()


def available_index_kinds() -> list[str]:
    """The names of every known kind, sorted (like ``available_generators``)."""
    return list(INDEXES.names())


def get_index_opener(kind: str) -> Opener:
    """The callable that opens an index folder of ``kind`` (its module imported now, not before).

    An unknown kind is an :class:`UnknownIndexKindError` (a ``KeyError``) naming the closest known one.
    """
    if kind not in INDEXES:
        raise UnknownIndexKindError("index kind", kind, INDEXES.names())
    target = INDEXES.load(kind)
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
        raise UnknownIndexKindError("index kind", str(kind), INDEXES.names(),
                                    extra=f", named by {Path(index_dir) / 'surge_index.json'}") from None
    return opener(index_dir, **_accepted(opener, kwargs))


__all__ = [
    "ENTRY_POINT_GROUP",
    "INDEXES",
    "UnknownIndexKindError",
    "available_index_kinds",
    "get_index_opener",
    "index_kinds",
    "open_index",
    "register_index",
    "unregister_index",
]
