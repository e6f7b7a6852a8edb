"""One rule for a name that two providers declare, shared by the metric, generator and index-kind registries.

A name (``recall``, ``rag``, ``bm25``) can come from three kinds of provider:

``built-in``
    shipped with surge-bench: the metrics of ``surge_dataset/evaluation/metrics/``, the index kinds and
    re-rankers registered in ``surge_dataset/retrieval/``, and the generators that surge-bench's own
    ``pyproject.toml`` declares as entry points (the ``baselines``, a plugin package the core never imports);
an installed package
    an entry point of another distribution (groups ``surge.metrics``, ``surge.generators``,
    ``surge.indexes``);
registered in this process
    ``register`` / ``register_generator`` / ``register_index`` called by the running code (a script, a
    notebook, a test).

The rule, the same in the three registries:

1. **The same object twice is not a clash**: an entry point that names the built-in class itself (surge-bench's
   own entry points, an install seen twice on ``sys.path``), a module imported twice re-registering its class,
   a notebook cell run again (same ``module:Class``).
2. **A built-in name keeps its meaning whatever is installed**: an installed package that declares it for
   another object does not take it; the built-in is used, with a :class:`NameClashWarning` naming both
   providers (so installing a package never changes or breaks ``recall``, ``rag`` or ``bm25``).
3. **Two installed packages declaring one name** is a :class:`NameClashError` naming both and the ways out
   (uninstall one; pick one by ``module:Class``; register the one you want in code) -- never first-come,
   first-served, which would depend on the order of ``sys.path``. It is raised when that name is used, so the
   registry's other names keep working; metrics load every entry point when the registry is first read, so a
   metric clash is raised then.
4. **Code registering in this process chooses on purpose**: it takes a name from an installed package (the
   documented ``@register_generator`` use: try a variant of an installed system), but taking a built-in name
   or one already registered in this process needs ``replace=True``; without it, a :class:`NameClashError`.

Every clash message comes from :func:`clash_error`: what is declared twice, by whom (``module:attr`` and
where it comes from), and how to resolve it (uninstall one package, choose one explicitly the way the
registry offers -- ``--system module:Class``, ``register_index(kind, 'module:Class', replace=True)`` --, or
``replace=True`` in the code that registers).
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from surge_dataset.core.errors import SurgeError

__all__ = [
    "BUILT_IN",
    "DISTRIBUTION",
    "IN_PROCESS",
    "NameClashError",
    "NameClashWarning",
    "Provider",
    "Registry",
    "choose",
    "clash_error",
    "entry_point_providers",
    "from_entry_point",
    "load",
    "provider_of",
    "same_provider",
    "settle_registration",
    "target_of",
]

#: The distribution whose entry points are built-ins (its generators are declared as entry points).
DISTRIBUTION = "surge-bench"
BUILT_IN = "built-in"
IN_PROCESS = "registered in this process"
_MISSING: Any = object()


class NameClashError(SurgeError, ValueError):
    """Two different providers for one metric, generator or index-kind name (see the module docstring)."""


class NameClashWarning(UserWarning):
    """An installed package declares a built-in name for another object: the built-in is used."""


@dataclass(frozen=True)
class Provider:
    """Who declares a name: its ``module:attr`` and where it comes from (:data:`BUILT_IN`, ``package 'x'``,
    :data:`IN_PROCESS`). ``obj`` is the object itself when it is already loaded (run-time registrations)."""

    target: str
    source: str
    obj: Any = field(default=_MISSING, compare=False, repr=False)
    entry_point: metadata.EntryPoint | None = field(default=None, compare=False, repr=False)

    @property
    def builtin(self) -> bool:
        return self.source == BUILT_IN

    @property
    def installed(self) -> bool:
        return self.source not in (BUILT_IN, IN_PROCESS)

    def load(self) -> Any:
        """The object (imported now when it was only named)."""
        if self.obj is not _MISSING:
            return self.obj
        return self.entry_point.load() if self.entry_point is not None else load(self.target)

    def __str__(self) -> str:
        return f"{self.target} ({self.source})"


def target_of(obj: Any) -> str:
    """``module:qualname`` of a class or function (a ``"module:attr"`` string is returned as it is)."""
    if isinstance(obj, str):
        return obj
    if not isinstance(obj, type) and not callable(obj):
        obj = type(obj)
    return f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', repr(obj))}"


def load(target: str) -> Any:
    """Import ``"package.module:attr.sub"`` and return the attribute (what an entry point's ``load`` does)."""
    module, _, attr = target.partition(":")
    value: Any = importlib.import_module(module.strip())
    for part in filter(None, attr.strip().split(".")):
        value = getattr(value, part)
    return value


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def from_entry_point(entry_point: metadata.EntryPoint) -> Provider:
    """The provider an entry point declares: built-in when it is surge-bench's own (:data:`DISTRIBUTION`)."""
    dist = getattr(entry_point, "dist", None)
    name = getattr(dist, "name", None) if dist is not None else None
    if name and _normalised(name) == DISTRIBUTION:
        source = BUILT_IN
    else:
        source = f"package {name!r}" if name else "an installed package"
    return Provider(entry_point.value.replace(" ", ""), source, entry_point=entry_point)


def entry_point_providers(group: str) -> dict[str, list[Provider]]:
    """Name -> the distinct providers the installed entry points of ``group`` declare, built-ins first
    (entries naming the same ``module:attr`` count once; nothing is imported)."""
    found: dict[str, list[Provider]] = {}
    for entry_point in metadata.entry_points(group=group):
        provider = from_entry_point(entry_point)
        providers = found.setdefault(entry_point.name, [])
        same = next((i for i, p in enumerate(providers) if p.target == provider.target), None)
        if same is None:
            providers.append(provider)
        elif provider.builtin and not providers[same].builtin:
            providers[same] = provider
    for providers in found.values():
        providers.sort(key=lambda p: not p.builtin)  # stable: otherwise in metadata order
    return found


def same_provider(a: Provider, b: Provider) -> bool:
    """Rule 1: the same ``module:attr``, or two names of one object (both imported to compare; a name that
    does not import is another object)."""
    if a.target == b.target or (a.obj is not _MISSING and a.obj is b.obj):
        return True
    try:
        return a.load() is b.load()
    except Exception:  # noqa: BLE001 - a broken plugin is simply not the same object
        return False


def clash_error(kind: str, name: str, first: Provider, second: Provider, pick: str) -> NameClashError:
    """The one message of a clash: what is declared twice, by whom, and how to resolve it.

    ``pick``: how this registry chooses one provider explicitly, a template with ``{name}`` and ``{target}``
    (``--system {target}``; ``register_index({name!r}, {target!r}, replace=True)``).
    """
    def choice(provider: Provider) -> str:
        return pick.format(name=name, target=provider.target)

    if second.source == IN_PROCESS:  # a registration refused: the fix is in the code that registers
        return NameClashError(f"{kind} {name!r} is already registered: {first}; to register {second.target} "
                              "instead, pass replace=True")
    declared = f"{kind} {name!r} is declared twice, by {first} and by {second}"
    if first.builtin:
        return NameClashError(f"{declared}: the built-in keeps the name; to use the other: {choice(second)}")
    return NameClashError(f"{declared}: uninstall one of the two packages, or choose one explicitly: "
                          f"{choice(first)} or {choice(second)}")


_WARNED: set[tuple[str, str, str]] = set()


def choose(kind: str, name: str, providers: Sequence[Provider], *, pick: str) -> Provider:
    """The provider of ``name`` among the declared ones (built-ins and installed packages; rules 1-3).

    ``providers``: built-ins first. A built-in wins over every other (a :class:`NameClashWarning` once per
    other provider); two different installed providers are a :class:`NameClashError`.
    """
    distinct: list[Provider] = []
    for provider in providers:
        if not any(same_provider(kept, provider) for kept in distinct):
            distinct.append(provider)
    if not distinct:
        raise ValueError(f"no provider of {kind} {name!r}")
    first = distinct[0]
    if first.builtin:
        for other in distinct[1:]:
            if (kind, name, other.target) not in _WARNED:
                _WARNED.add((kind, name, other.target))
                warnings.warn(str(clash_error(kind, name, first, other, pick)), NameClashWarning, stacklevel=3)
        return first
    if len(distinct) > 1:
        raise clash_error(kind, name, first, distinct[1], pick)
    return first


def settle_registration(kind: str, name: str, taken: Provider | None, new: Provider, *, replace: bool,
                        pick: str) -> bool:
    """Whether ``new`` takes ``name`` from ``taken`` (rules 1, 2 and 4); raises :class:`NameClashError` when
    neither may.

    ``True``: record ``new`` (no one had the name, the same object again, code taking an installed package's
    name, or ``replace=True``). ``False``: keep ``taken`` (``new`` is an installed package's entry point and
    ``taken`` a built-in -- with a :class:`NameClashWarning` -- or a run-time registration).
    """
    if taken is None or same_provider(taken, new):
        return True
    if new.installed:
        if taken.installed:
            raise clash_error(kind, name, taken, new, pick)
        if taken.builtin:
            choose(kind, name, [taken, new], pick=pick)  # the warning of rule 2
        return False
    if taken.installed or replace:
        return True
    raise clash_error(kind, name, taken, new, pick)


def provider_of(obj: Any, group: str, *, builtin_modules: Iterable[str] = ()) -> Provider:
    """Where an already loaded ``obj`` comes from: a built-in (its module under one of ``builtin_modules``),
    an installed entry point of ``group`` naming it, else a run-time registration."""
    target = target_of(obj if isinstance(obj, type) or callable(obj) else type(obj))
    module = target.partition(":")[0]
    if any(module == prefix or module.startswith(prefix + ".") for prefix in builtin_modules):
        return Provider(target, BUILT_IN, obj=obj)
    for entry_point in metadata.entry_points(group=group):
        provider = from_entry_point(entry_point)
        if provider.target == target:
            return Provider(target, provider.source, obj=obj, entry_point=entry_point)
    return Provider(target, IN_PROCESS, obj=obj)


class Registry(Mapping[str, Any]):
    """A name -> object registry of an open set other packages extend (importer formats, bibliographic services,
    LLM backends), under the rule of this module.

    Its providers: the built-in objects, registered by :meth:`register` (a decorator) in the modules of
    ``builtin_modules`` -- imported when the registry is first read, so adding a built-in is one decorated
    object in one of them (or a new module named there) --; the entry points of ``group`` (another package:
    ``[project.entry-points."surge.importers"] myformat = "my_pkg.reader:read"``), loaded only when their name
    is used; and :meth:`register` called by code outside surge-bench (a run-time registration). Everything
    listing the set -- CLI choices, help texts, docs tables, error messages -- reads :meth:`names` or
    :meth:`items`, so a new name is never copied by hand.
    """

    def __init__(self, kind: str, group: str, *, builtin_modules: Sequence[str], pick: str,
                 builtin_package: str = "surge_dataset") -> None:
        self.kind, self.group, self.pick = kind, group, pick
        self.builtin_modules = tuple(builtin_modules)
        self.builtin_package = builtin_package
        self._builtin: dict[str, Any] = {}
        self._runtime: dict[str, Any] = {}
        self._entry_points: dict[str, list[Provider]] | None = None
        self._importing = False

    # -- providers -------------------------------------------------------------------------------------
    def _load_builtins(self) -> None:
        if self._importing or all(m in _IMPORTED for m in self.builtin_modules):
            return
        self._importing = True  # a built-in module reading the registry while it is imported
        try:
            for module in self.builtin_modules:
                importlib.import_module(module)
                _IMPORTED.add(module)
        finally:
            self._importing = False

    def entry_points(self) -> dict[str, list[Provider]]:
        if self._entry_points is None:
            self._entry_points = entry_point_providers(self.group)
        return self._entry_points

    def refresh(self) -> None:
        """Read the installed entry points again (after installing a package in this process)."""
        self._entry_points = None

    def _runtime_provider(self, obj: Any) -> Provider:
        """A run-time registration: an object, or a ``"module:attr"`` string imported when first loaded."""
        return Provider(obj, IN_PROCESS) if isinstance(obj, str) else provider_of(obj, self.group)

    def _declared(self, name: str) -> list[Provider]:
        """The built-in and installed providers of ``name``, the built-in first."""
        builtin = ([Provider(target_of(self._builtin[name]), BUILT_IN, obj=self._builtin[name])]
                   if name in self._builtin else [])
        return builtin + self.entry_points().get(name, [])

    def _provider(self, name: str) -> Provider | None:
        if name in self._runtime:
            return self._runtime_provider(self._runtime[name])
        declared = self._declared(name)
        return choose(self.kind, name, declared, pick=self.pick) if declared else None

    # -- the public face -------------------------------------------------------------------------------
    def register(self, name: str, obj: Any = None, *, replace: bool = False) -> Any:
        """Register ``obj`` as ``name`` (used as ``@registry.register("name")``): a built-in when ``obj`` lives
        in surge-bench, else a run-time registration under rule 4 (``replace=True`` to take a built-in's name).
        ``obj`` may be a ``"module:attr"`` string, a run-time registration imported when the name is first loaded."""
        if obj is None:
            return lambda target: self.register(name, target, replace=replace)
        module = "" if isinstance(obj, str) else getattr(obj, "__module__", None) or type(obj).__module__
        if module == self.builtin_package or module.startswith(self.builtin_package + "."):
            old = self._builtin.get(name)
            if old is not None and target_of(old) != target_of(obj):
                raise clash_error(self.kind, name, Provider(target_of(old), BUILT_IN),
                                  Provider(target_of(obj), IN_PROCESS), self.pick)
            self._builtin[name] = obj
            return obj
        self._load_builtins()
        new = self._runtime_provider(obj)
        if new.installed:  # a plugin module decorating what its entry point names: nothing to record
            return obj
        # what holds the name now, without choosing among installed providers: code may take a name that two
        # installed packages declare (rule 4), which is how it settles their clash
        taken = (self._runtime_provider(self._runtime[name]) if name in self._runtime
                 else next(iter(self._declared(name)), None))
        if settle_registration(self.kind, name, taken, new, replace=replace, pick=self.pick):
            self._runtime[name] = obj
        return obj

    def unregister(self, name: str) -> None:
        """Forget a run-time registration (a shadowed built-in or entry point comes back)."""
        self._runtime.pop(name, None)

    def names(self) -> tuple[str, ...]:
        """Every known name, sorted (a stable order for help texts and docs), nothing of a plugin imported."""
        self._load_builtins()
        return tuple(sorted({*self._builtin, *self.entry_points(), *self._runtime}))

    def targets(self) -> dict[str, str]:
        """Every known name -> where its object lives (``module:attr``; a name two installed packages declare lists
        both, ``a:X | b:Y``), sorted, nothing of a plugin imported."""
        self._load_builtins()
        found = {name: " | ".join(p.target for p in providers) for name, providers in self.entry_points().items()}
        found.update(self.builtins())
        found.update({name: self._runtime_provider(obj).target for name, obj in self._runtime.items()})
        return dict(sorted(found.items()))

    def builtins(self) -> dict[str, str]:
        """The built-in names -> where their object lives (``module:attr``)."""
        self._load_builtins()
        return {name: target_of(obj) for name, obj in sorted(self._builtin.items())}

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def load(self, name: str, *, setting: str | None = None) -> Any:
        """The object of ``name`` (a plugin's imported now; also ``registry[name]``). Unknown: a one-line
        :class:`~surge_dataset.core.vocabulary.ChoiceError` naming ``setting`` (default: the kind), the names
        and the closest one."""
        from surge_dataset.core.vocabulary import check_choice

        self._load_builtins()
        provider = self._provider(name) if isinstance(name, str) else None
        if provider is None:
            check_choice(setting or self.kind, name, self.names())
            raise AssertionError("unreachable")  # pragma: no cover
        return provider.load()

    def check(self, name: object, setting: str | None = None) -> str:
        """``name`` when the registry knows it, else the :meth:`load` error (nothing imported)."""
        from surge_dataset.core.vocabulary import check_choice

        check_choice(setting or self.kind, name, self.names())
        return str(name)

    def __getitem__(self, name: str) -> Any:
        return self.load(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __repr__(self) -> str:
        return f"<{self.kind} registry: {', '.join(self.names())}>"


_IMPORTED: set[str] = set()
