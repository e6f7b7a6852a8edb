"""The :class:`Generator` base class and the registry that finds generators by name.

A generator is found by ``surge generate --system NAME`` (or :func:`get_generator`) in this order:

1. ``package.module:ClassName``: imported directly, no registration needed;
2. a class registered in this process with the :func:`register_generator` decorator (quick experiments,
   tests, notebooks);
3. an entry point of the ``surge.generators`` group (:data:`ENTRY_POINT_GROUP`), loaded only when its
   name is asked for. The built-in systems of the ``surge_baselines`` package (folder ``baselines/``) are declared this way in
   ``pyproject.toml``, as any installed third-party package can declare its own::

       [project.entry-points."surge.generators"]
       rag = "surge_baselines.rag:RAG"

The core never imports a generator's package by name. Two providers of one name are settled by the rule
of :mod:`surge_dataset.core.registries`: a built-in name (an entry point of surge-bench itself) keeps its
system whatever is installed; two installed packages declaring one name are a ``NameClashError`` when
that name is asked for; the decorator takes an installed package's name, but a built-in's or an earlier
registration's only with ``replace=True``.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from typing import Any, ClassVar

from surge_dataset.core.errors import SettingError, SurgeError
from surge_dataset.core.records import Paper
from surge_dataset.core.registries import (
    IN_PROCESS,
    Provider,
    choose,
    entry_point_providers,
    settle_registration,
)
from surge_dataset.core.vocabulary import UnknownNameError
from surge_dataset.generation.draft import Draft, Topic
from surge_dataset.generation.llm_calls import RecordingLLM

__all__ = [
    "ENTRY_POINT_GROUP",
    "GenerationError",
    "Generator",
    "available_generators",
    "get_generator",
    "register_generator",
]

#: The entry-point group under which installed packages declare their generators.
ENTRY_POINT_GROUP = "surge.generators"
_INPUTS = ("retrieval", "none", "ground_truth")


class GenerationError(SurgeError, RuntimeError):
    """One survey could not be generated (e.g. an LLM request failed after every retry)."""


class Generator:
    """Base class of survey generators: options with defaults, LLM calls through named prompts.

    Subclasses set ``name``, optionally ``inputs`` (``retrieval``: the top-k papers of a run;
    ``none``: no papers; ``ground_truth``: the GT survey's cited papers and :attr:`Topic.guidance`) and
    ``defaults`` (extra options), and implement :meth:`generate`. Options come from
    ``get_generator(name, **options)`` or ``surge generate -o key=value``; values are converted to the
    type of the default.
    """

    name: ClassVar[str] = ""
    inputs: ClassVar[str] = "retrieval"
    defaults: ClassVar[dict[str, Any]] = {}
    #: Version of the prompt templates the system uses, recorded per survey (and part of the resume key).
    prompts_version: ClassVar[str] = ""

    def __init__(self, *, max_new_tokens: int = 1024, temperature: float = 0.0, **options: Any) -> None:
        from surge_dataset.llm import GenerationSettings

        self.settings = GenerationSettings(max_new_tokens=int(max_new_tokens), temperature=float(temperature))
        known = self.option_defaults()
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise SettingError(
                f"system {self.name!r} has no option(s) {', '.join(unknown)}; its options: {', '.join(sorted(known))}"
            )
        self.options = {key: _coerce(key, options.get(key, default), default) for key, default in known.items()}
        for key, value in self.options.items():
            setattr(self, key, value)

    @classmethod
    def option_defaults(cls) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            merged.update(getattr(klass, "defaults", {}) or {})
        return merged

    def config(self) -> dict[str, Any]:
        """What changes this system's output besides the LLM: recorded in the sidecar and its key."""
        return {"system": self.name, "inputs": self.inputs, "options": dict(self.options), **asdict(self.settings)}

    def bind(self, data: Any) -> None:
        """Called once by the run driver before the first survey; systems that need the corpus keep it."""

    def generate(self, topic: Topic, papers: Sequence[Paper], llm: Any) -> Draft:
        raise NotImplementedError

    def placeholder_answer(self, conversation: Sequence[tuple[str, str]], settings: Any) -> str | None:
        """What the stand-in LLM of ``surge generate --dry-run`` answers to ``conversation``; None (default)
        = its generic placeholders (see :mod:`.dry_run`). Override when your parser needs another shape."""
        return None

    # -- helpers for subclasses -----------------------------------------------------------------------

    def ask(
        self, llm: Any, stage: str, prompt: str, values: Sequence[Mapping[str, Any]], *, max_new_tokens: int | None = None
    ) -> list[str]:
        """Render ``prompt`` once per value set, ask the LLM in one batch, return the answers' texts.

        ``max_new_tokens`` lowers the token budget of short answers (a score) below the system's setting.

        A request that failed after every retry raises :class:`GenerationError` (the survey is reported
        as failed and resumes from the cache on a rerun); any answer text, even garbage, is returned.
        """
        from surge_dataset.llm.prompts import get_prompt

        if not values:
            return []
        template = get_prompt(prompt)
        settings = self.settings
        if max_new_tokens is not None and max_new_tokens < settings.max_new_tokens:
            settings = replace(settings, max_new_tokens=max_new_tokens)
        conversations = [template.render(**dict(v)) for v in values]
        if isinstance(llm, RecordingLLM):
            llm.stage = stage
            conversations = [llm.fit(stage, template, v, c, settings.max_new_tokens)
                             for v, c in zip(values, conversations, strict=True)]
        completions = llm.generate(conversations, settings)
        errors = [c.error for c in completions if c.text is None]
        if errors:
            raise GenerationError(f"{stage}: {len(errors)} of {len(completions)} LLM request(s) failed: {errors[0]}")
        return [c.text or "" for c in completions]


def _coerce(key: str, value: Any, default: Any) -> Any:
    """Option text from the command line -> the type of the default."""
    if not isinstance(value, str) or isinstance(default, str) or default is None:
        return value
    if isinstance(default, bool):
        lowered = value.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise SettingError(f"option {key}: expected true/false, got {value!r}")
    try:
        return type(default)(value)
    except (TypeError, ValueError):
        raise SettingError(f"option {key}: expected {type(default).__name__}, got {value!r}") from None


# ---------------------------------------------------------------------------------------- registry

#: Generators registered in this process with :func:`register_generator` (they win over entry points).
_REGISTRY: dict[str, type[Generator]] = {}
#: Entry-point generators already loaded, by entry-point name.
_LOADED: dict[str, type[Generator]] = {}
_LOCK = threading.Lock()


def _check(cls: Any, origin: str) -> type[Generator]:
    if not (isinstance(cls, type) and issubclass(cls, Generator)):
        raise ValueError(f"{origin} is not a surge_dataset.generation.Generator subclass")
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    if cls.inputs not in _INPUTS:
        raise ValueError(f"{cls.__name__}.inputs must be retrieval, none or ground_truth, not {cls.inputs!r}")
    return cls


def register_generator(cls: type[Generator] | None = None, *, replace: bool = False) -> Any:
    """Class decorator: make a generator available to :func:`get_generator` / ``--system`` by its name.

    For a generator defined in this process (a script, a notebook, a test). An installed package
    declares its generators in the ``surge.generators`` entry-point group instead (no import needed).
    It wins over an installed package's entry point of the same name; taking a built-in system's name
    or one registered before needs ``replace=True`` (``@register_generator(replace=True)``).
    """
    if cls is None:
        return lambda target: register_generator(target, replace=replace)
    cls = _check(cls, cls.__name__ if isinstance(cls, type) else repr(cls))
    new = Provider(f"{cls.__module__}:{cls.__qualname__}", IN_PROCESS, obj=cls)
    if cls.name in _REGISTRY:
        earlier = _REGISTRY[cls.name]
        taken: Provider | None = Provider(f"{earlier.__module__}:{earlier.__qualname__}", IN_PROCESS, obj=earlier)
    else:
        taken = next((p for p in _entry_points().get(cls.name, []) if p.builtin), None)
    settle_registration("generator", cls.name, taken, new, replace=replace, pick=_PICK)
    _REGISTRY[cls.name] = cls
    return cls


#: How a user chooses one of two providers of a generator name (the end of a clash message).
_PICK = "--system {target}"


def _entry_points() -> dict[str, list[Provider]]:
    """The ``surge.generators`` entry points by name: every distinct provider, built-ins first (none loaded)."""
    return entry_point_providers(ENTRY_POINT_GROUP)


def _load_entry_point(name: str) -> type[Generator] | None:
    with _LOCK:
        if name in _LOADED:
            return _LOADED[name]
        providers = _entry_points().get(name)
        if not providers:
            return None
        provider = choose("generator", name, providers, pick=_PICK)
        origin = f"entry point {name!r} ({provider.target}) of {ENTRY_POINT_GROUP!r}"
        cls = _check(provider.load(), origin)
        if cls.name != name:
            raise ValueError(f"{origin} loads {cls.__name__}, whose name is {cls.name!r}: the two must agree")
        _LOADED[name] = cls
        return cls


def _generator_class(name: str) -> type[Generator]:
    if ":" in name:  # "package.module:ClassName" -- a user's own generator, no registration needed
        module, _, attr = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise SettingError(f"--system {name!r}: {exc}") from None
        if not (isinstance(cls, type) and issubclass(cls, Generator)):
            raise SettingError(f"{name} is not a surge_dataset.generation.Generator subclass")
        return cls
    cls = _REGISTRY.get(name) or _load_entry_point(name)
    if cls is None:
        raise UnknownNameError("generator", name, available_generators())
    return cls


def available_generators() -> list[str]:
    """Names of the known systems: registered in this process or declared as entry points (not loaded)."""
    return sorted(set(_REGISTRY) | set(_entry_points()))


def get_generator(name: str, **options: Any) -> Generator:
    """A generator by name (``rag``, ``autosurvey`` ..., see :mod:`this module <.generator>`) or ``module:Class``.

    An unknown name is a :class:`~surge_dataset.core.vocabulary.UnknownNameError` (a ``KeyError``) naming the
    closest known one; a name two installed packages declare, a ``NameClashError`` (a ``ValueError``).
    """
    return _generator_class(name)(**options)
