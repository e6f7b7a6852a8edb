"""Before a run loads anything: is every model it needs here, and can the Hub be reached at all?

Offline, ``huggingface_hub`` does not say so at once: each file a model loader asks for is retried with
back-off (a minute or more per model when the Hub cannot be reached, even for a model already in the cache), and
a run learns of its second missing model only after the first one failed. :func:`preflight` looks at every
model of the run first, on disk only: a local folder or file, or a snapshot in the Hugging Face cache; it asks
the Hub once, with a short timeout and no retry, whether it can be reached, and only when a model is named by
its Hub id and ``HF_HUB_OFFLINE`` is not set. What is missing is one :class:`ModelsUnavailableError` naming
every model, what needs it and the command that fetches it. When the Hub cannot be reached but every model is
cached, the run goes on with the Hub switched off (:func:`hub_offline`), so the loaders read the cache
straight away.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from surge_dataset.core.errors import SurgeError
from surge_dataset.models.base import BUNDLED_STAND_INS, hub_is_offline, looks_like_path

__all__ = ["HUB_PROBE_TIMEOUT", "HubState", "ModelNeed", "ModelsUnavailableError", "hub_offline", "hub_state",
           "in_hub_cache", "missing_models", "preflight"]

#: Seconds the one request that asks whether the Hub can be reached may take (connect and answer).
HUB_PROBE_TIMEOUT = 5.0

HubState = Literal["offline", "unreachable", "reachable"]


@dataclass(frozen=True)
class ModelNeed:
    """One model a run needs: as the user named it, the option that names it and the metrics that need it.

    ``local``: the file or folder the name stands for, when it names one; otherwise the model is looked for as
    ``file`` of the Hub repository ``repo`` (``config.json`` of a model; a GGUF file of a ``gguf:`` judge).
    """

    name: str
    flag: str
    needed_for: tuple[str, ...]
    repo: str | None = None
    file: str = "config.json"
    local: Path | None = None

    @classmethod
    def named(cls, name: str, flag: str, needed_for: Sequence[str]) -> ModelNeed:
        """A model given as a Hub id or a local folder (``--nli-model``, ``--embedding-model``, ``hf:``)."""
        path = Path(name).expanduser()
        if path.exists() or looks_like_path(name):
            return cls(name, flag, tuple(needed_for), local=path)
        return cls(name, flag, tuple(needed_for), repo=name)


class ModelsUnavailableError(SurgeError):
    """Models a run needs that are neither on disk nor downloadable now: all of them, in one line."""

    def __init__(self, missing: Sequence[tuple[ModelNeed, str]], state: HubState | None) -> None:
        self.missing = list(missing)
        self.state = state
        parts = []
        for need, why in missing:
            text = f"{need.name} ({', '.join(need.needed_for)}; {need.flag}): {why}"
            if need.repo is not None:
                text += f"; fetch it with `surge models download {need.repo}`"
                if need.flag in BUNDLED_STAND_INS:
                    bundled, note = BUNDLED_STAND_INS[need.flag]
                    text += f", or try offline now with {need.flag} $(surge models path {bundled}) ({note})"
            else:
                text += f"; pass {need.flag} with a local copy"
            parts.append(text)
        fetched = [need.repo for need, _ in missing if need.repo is not None]
        hint = ""
        if fetched:
            hint = (f". Fetch {'them all' if len(fetched) > 1 else 'it'} where the Hub is reachable with "
                    f"`surge models download {' '.join(fetched)}` (runs then find them offline), or pass local copies "
                    "with the options named")
        noun = "model this run needs is" if len(missing) == 1 else "models this run needs are"
        super().__init__(f"{len(missing)} {noun} not available, nothing was evaluated: " + "; ".join(parts) + hint)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.missing, self.state))


def in_hub_cache(repo: str, file: str = "config.json") -> bool:
    """Whether the Hugging Face cache holds ``file`` of ``repo``'s default revision (no network)."""
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(repo, file), str)
    except Exception:  # noqa: BLE001 - an id the Hub would refuse is simply not in the cache
        return False


def hub_state(endpoint: str | None = None, timeout: float = HUB_PROBE_TIMEOUT) -> HubState:
    """``offline`` (``HF_HUB_OFFLINE`` is set), ``reachable`` (one request got any answer) or ``unreachable``.

    One request, ``timeout`` seconds, no retry: any HTTP answer, an error status included, means a server is
    there; a refused connection, a timeout or an unknown host means the Hub cannot be reached.
    """
    if hub_is_offline():
        return "offline"
    import httpx
    from huggingface_hub import constants

    try:
        httpx.head(endpoint or constants.ENDPOINT, timeout=timeout, follow_redirects=False)
    except httpx.HTTPError:
        return "unreachable"
    return "reachable"


def missing_models(needs: Sequence[ModelNeed], state: HubState | None) -> list[tuple[ModelNeed, str]]:
    """Each needed model that is not on disk and cannot be downloaded in ``state``, with why (None: Hub not asked)."""
    missing = []
    for need in needs:
        if need.local is not None:
            if not need.local.exists():
                missing.append((need, f"no such {'file' if need.local.suffix == '.gguf' else 'folder'}"))
        elif not in_hub_cache(need.repo or need.name, need.file) and state != "reachable":
            from huggingface_hub import constants

            cache = f"not in the Hugging Face cache ({constants.HF_HUB_CACHE})"
            missing.append((need, f"{cache} and HF_HUB_OFFLINE is set" if state == "offline" else
                            f"{cache} and the Hub ({constants.ENDPOINT}) cannot be reached"))
    return missing


def preflight(needs: Sequence[ModelNeed]) -> HubState | None:
    """Check every model of a run before it starts; raise :class:`ModelsUnavailableError` listing all that are
    missing. Returns the Hub's state when a model is named by Hub id (None otherwise): ``unreachable`` means
    every such model is cached and the run should load them with the Hub off (:func:`hub_offline`)."""
    state = hub_state() if any(need.repo is not None for need in needs) else None
    missing = missing_models(needs, state)
    if missing:
        raise ModelsUnavailableError(missing, state)
    return state


@contextlib.contextmanager
def hub_offline(active: bool = True) -> Iterator[None]:
    """Within: ``huggingface_hub`` (and so transformers, sentence-transformers) never asks the Hub, it reads the
    cache, as with ``HF_HUB_OFFLINE=1`` set before the libraries were imported. Restored on exit."""
    if not active:
        yield
        return
    from huggingface_hub import constants

    before_env, before_constant = os.environ.get("HF_HUB_OFFLINE"), constants.HF_HUB_OFFLINE
    os.environ["HF_HUB_OFFLINE"] = "1"  # libraries imported later read the variable
    constants.HF_HUB_OFFLINE = True  # huggingface_hub.constants.is_offline_mode() reads this at every call
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE = before_constant
        if before_env is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
        else:
            os.environ["HF_HUB_OFFLINE"] = before_env
