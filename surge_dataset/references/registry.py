"""The registry of bibliographic web services ``reference_existence`` (``--bib-services``) and ``surge import``
ask for a title, found by name.

A service is an object with ``name``, ``default_base_url``, ``default_rate`` (requests per second),
``package`` (the client library it needs, or ``None``) and the pure functions ``request(title, base_url,
environ) -> Request`` and ``parse(status, body) -> list[Candidate]`` (:class:`~.base.WebService`). The
built-in ones register their class with :func:`bib_service` in their own module (``openalex.py``, ...);
another package adds one with one entry point, naming the class or an instance::

    [project.entry-points."surge.bib_services"]
    dblp = "my_package.dblp:DBLP"

The ``--bib-services`` choices, the help of ``--bib-rate-limit`` (each service's ``default_rate``) and the
error for an unknown name are read off :data:`BIB_SERVICES`. ``surveygen`` (SurveyGen's local reference lists)
is a source of the chain, not a web service: :func:`source_names` adds it.
"""

from __future__ import annotations

from typing import Any

from surge_dataset.core.registries import Registry
from surge_dataset.core.vocabulary import SURVEYGEN

__all__ = ["BIB_SERVICES", "ENTRY_POINT_GROUP", "bib_service", "rates_help", "source_names", "web_service"]

ENTRY_POINT_GROUP = "surge.bib_services"

#: Service name -> its class (or instance): built-ins, installed and registered ones alike (a live mapping).
BIB_SERVICES = Registry(
    "bibliographic service", ENTRY_POINT_GROUP,
    builtin_modules=tuple(f"surge_dataset.references.{m}"
                          for m in ("openalex", "semantic_scholar", "arxiv_search", "crossref")),
    pick="BIB_SERVICES.register({name!r}, load({target!r}), replace=True)")

_INSTANCES: dict[type, Any] = {}


def bib_service(cls: Any) -> Any:
    """``@bib_service`` on a service class registers it under its ``name``."""
    return BIB_SERVICES.register(cls.name, cls)


def web_service(name: str) -> Any:
    """The service object of ``name`` (one instance per class; its module imports no client library until it
    builds a request). Unknown: a one-line ``ChoiceError`` naming the closest service."""
    obj = BIB_SERVICES.load(name, setting="bib_services")
    if not isinstance(obj, type):
        return obj
    if obj not in _INSTANCES:
        _INSTANCES[obj] = obj()
    return _INSTANCES[obj]


def source_names() -> tuple[str, ...]:
    """What ``--bib-services`` accepts: ``surveygen`` and every web service."""
    return (SURVEYGEN, *BIB_SERVICES)


def rates_help() -> str:
    """``openalex 10, semanticscholar 1, ...``: each service's default requests per second, read off it."""
    return ", ".join(f"{name} {round(web_service(name).default_rate, 2):g}" for name in BIB_SERVICES)
