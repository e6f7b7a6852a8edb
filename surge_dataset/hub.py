"""Publishing metric modules as Hub Spaces and pre-fetching the default models (thin huggingface_hub wrappers).

Compute nodes of many clusters are offline: ``surge models download`` fetches every model a run needs
on a login node, after which ``HF_HUB_OFFLINE=1`` runs work unchanged.
"""

from __future__ import annotations

from pathlib import Path

#: model -> what needs it (the paper's defaults).
DEFAULT_MODELS: dict[str, str] = {
    "cross-encoder/nli-deberta-v3-base": "citation_accuracy (--nli-model)",
    "BAAI/bge-large-en-v1.5": "shr (--embedding-model)",
    "roberta-base": "dense retriever training (training/train_retriever.py --model)",
}


def metric_folders() -> dict[str, Path]:
    """Every metric module folder this installation ships (checkout's metrics/ or the packaged copy)."""
    from . import metric_path

    found = {}
    base = Path(metric_path("shr")).parent
    for folder in sorted(base.iterdir()):
        if (folder / f"{folder.name}.py").is_file():
            found[folder.name] = folder
    return found


def push_metrics(namespace: str, names: list[str] | None = None, *, private: bool = False) -> list[str]:
    """Create/update one Gradio Space per metric so ``evaluate.load(f"{namespace}/<name>")`` works."""
    from huggingface_hub import HfApi

    api = HfApi()
    urls = []
    for name, folder in metric_folders().items():
        if names and name not in names:
            continue
        repo_id = f"{namespace}/{name}"
        api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
        api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="space")
        urls.append(f"https://huggingface.co/spaces/{repo_id}")
    return urls


def download_models(models: list[str] | None = None, cache_dir: str | None = None) -> dict[str, str]:
    """snapshot_download each model (default: the paper's); returns model -> local folder."""
    from huggingface_hub import snapshot_download

    return {m: snapshot_download(repo_id=m, cache_dir=cache_dir) for m in (models or list(DEFAULT_MODELS))}
