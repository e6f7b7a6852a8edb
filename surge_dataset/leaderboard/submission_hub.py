"""Opening a pull request with a packed submission on a Hub submissions dataset (``surge submit --repo``)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass

from surge_dataset.leaderboard.submission import Submission, load_submission, verified_bytes
from surge_dataset.leaderboard.submission_rules import (
    HUB_FOLDER,
    MANIFEST,
    REPO_RE,
    SubmissionError,
    read_bytes,
)


def hub_token() -> str:
    """The Hub token from the environment (``HF_TOKEN``), never from a file or the command line."""
    for variable in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        if os.environ.get(variable, "").strip():
            return os.environ[variable].strip()
    raise SubmissionError("--repo needs a Hugging Face token with write access in the environment: export "
                          "HF_TOKEN=... (it is read from the environment only)")


def open_pull_request(submission: Submission | str | os.PathLike[str], repo: str) -> str:
    """Open a pull request adding ``submission`` under ``submissions/<system>/`` of the Hub dataset ``repo``
    (``HF_ENDPOINT`` chooses the Hub, ``HF_TOKEN`` authenticates); returns the pull request's URL."""
    if not REPO_RE.fullmatch(repo):
        raise SubmissionError(f"--repo {repo!r}: expected ORG/NAME of a Hub dataset")
    token = hub_token()
    if not isinstance(submission, Submission):
        submission = load_submission(submission)
    from huggingface_hub import CommitOperationAdd, HfApi

    folder = f"{HUB_FOLDER}/{re.sub(r'[^a-z0-9]+', '-', submission.name.lower()).strip('-') or 'system'}"
    operations = []
    for entry in submission.manifest["files"]:  # the bytes checked against the manifest, not re-read later
        content = verified_bytes(submission.root, entry["path"], entry["size"], entry["sha256"])
        operations.append(CommitOperationAdd(path_in_repo=f"{folder}/{entry['path']}", path_or_fileobj=content))
    operations.append(CommitOperationAdd(path_in_repo=f"{folder}/{MANIFEST}",
                                         path_or_fileobj=read_bytes(submission.root / MANIFEST, MANIFEST,
                                                                     str(submission.root / MANIFEST))))
    manifest = submission.manifest
    description = (f"System: {submission.name}\nSurveys: {len(submission.survey_ids)}\nProtocol: {manifest['protocol']}\n"
                   f"Data fingerprint: {manifest['data_fingerprint']}\nsurge-bench: {manifest.get('surge_bench')}\n\n"
                   "Packed and checked by `surge submit`; `surge leaderboard build` checks it again.")
    api = HfApi(token=token)
    try:
        api.repo_info(repo, repo_type="dataset")
        info = api.create_commit(repo, operations, commit_message=f"Submission: {submission.name}",
                                 commit_description=description, repo_type="dataset", create_pr=True)
    except _hub_errors() as exc:
        raise SubmissionError(_hub_failure(exc, repo, api.endpoint, submission.root)) from None
    return str(info.pr_url or info.commit_url)


def _hub_errors() -> tuple[type[BaseException], ...]:
    """The Hub client's failures: HTTP answers and offline mode are ``OSError``s; transport errors come from
    the HTTP library it uses (httpx2, httpx or requests, whichever it imported)."""
    transport = [sys.modules[name].HTTPError for name in ("httpx2", "httpx") if name in sys.modules]
    return (OSError, *transport)


def _hub_failure(exc: BaseException, repo: str, endpoint: str, root: Path) -> str:
    from huggingface_hub import errors

    detail = " ".join(str(exc).split())[:200]
    ready = f"the submission folder {root} is ready: rerun with --repo (and --overwrite) later"
    if isinstance(exc, getattr(errors, "RepositoryNotFoundError", ())):
        return f"--repo {repo}: no dataset repository {repo} at {endpoint}, or HF_TOKEN's token cannot see it; {ready}"
    if isinstance(exc, getattr(errors, "OfflineModeIsEnabled", ())):
        return f"--repo {repo}: HF_HUB_OFFLINE is set, so the Hub is not contacted; unset it; {ready}"
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    if status in (401, 403):
        return f"--repo {repo}: the Hub refused HF_TOKEN's token (HTTP {status}): use a token with write access; {ready}"
    if status is not None:
        return f"--repo {repo}: the Hub answered HTTP {status} ({detail}); {ready}"
    return f"--repo {repo}: cannot reach the Hub at {endpoint} ({detail or 'no answer'}); {ready}"
