"""``surge data download``: fetch the authors' official files from Google Drive with ``gdown``.

Resumable (gdown's ``resume=True`` continues a partial file) and explicit about a missing network,
since many clusters' compute nodes are offline.
"""

from __future__ import annotations

import socket
from pathlib import Path

from surge_dataset.core.errors import SurgeError, error_text

DRIVE_FOLDER_ID = "1ZZPeZvjexFcCmgFqxftKeCPn1vYeBR0Q"
DRIVE_FILE_IDS = {
    "corpus.json": "1QAZV9nL7xhtkdiiqPpM0I8do6cF7mY3j",
    "surveys.json": "1-hK_RrOwvvMQ5Zk9Pnsn6c67pGokGWqp",
}


class NetworkUnavailableError(SurgeError, RuntimeError):
    """Google Drive cannot be reached from this machine."""


def _check_network(host: str = "drive.google.com", port: int = 443, timeout: float = 5.0) -> None:
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise NetworkUnavailableError(
            f"cannot reach {host} ({error_text(exc)}). Download the files on a machine with "
            f"internet access from https://drive.google.com/drive/folders/{DRIVE_FOLDER_ID} and copy "
            "surveys.json, corpus.json (and queries.json) into the --out folder, then run `surge data build`."
        ) from None


def download_official(out: str | Path, *, include_queries: bool = True, quiet: bool = False) -> list[Path]:
    """Download surveys.json and corpus.json (by file id) and queries.json (from the folder listing)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _check_network()
    import gdown

    written = []
    for name, file_id in DRIVE_FILE_IDS.items():
        target = out / name
        gdown.download(id=file_id, output=str(target), quiet=quiet, resume=True, retries=5)
        if not target.is_file():
            raise RuntimeError(f"gdown did not produce {target}")
        written.append(target)
    if include_queries and not (out / "queries.json").is_file():
        # queries.json has no published file id; list the folder and fetch it if it is there.
        files = gdown.download_folder(id=DRIVE_FOLDER_ID, output=str(out), quiet=quiet, skip_download=True) or []
        for item in files:
            if Path(item.path).name == "queries.json":
                gdown.download(id=item.id, output=str(out / "queries.json"), quiet=quiet, resume=True, retries=5)
                written.append(out / "queries.json")
    return written


def push_dataset(folder: str | Path, repo_id: str, *, private: bool = False) -> str:
    """Upload a built dataset folder to the Hub as a dataset repo (thin wrapper over huggingface_hub)."""
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    info = api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="dataset")
    return str(info)
