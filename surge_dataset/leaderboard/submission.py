"""Leaderboard submissions: pack a scored run into a checked folder, read one back, open a Hub pull request.

A submission folder (written by ``surge submit``, read by ``surge leaderboard build``)::

    submission/
      submission.json               manifest, written last: system name, created, versions, data fingerprint,
                                    protocol, survey ids, and every other file with its size and sha256
      results.json                  the ``surge evaluate`` results (official protocol, the full test split)
      details.jsonl                 optional: the same run's ``--details`` records
      passages/<survey_id>/<file>   the generated surveys as evaluated (survey.md, its survey.json sidecar)

A submission from someone else is untrusted. :func:`load_submission` checks everything
:func:`pack_submission` checked, from the bytes on disk: only the files the manifest lists, no path outside
the folder (``../``, absolute, symbolic links), the size limits below, UTF-8 text, the checksums, no API key
and no absolute path. The checksums catch a file changed after packing, not a forged manifest: they are
integrity, not authenticity.

Location fields that surge itself writes -- ``config.data`` and ``config.passages`` of the results, ``data``
and ``run`` of a generation sidecar -- keep only their last part when they are absolute paths (a Hub
snapshot path becomes ``org/name``); the manifest's ``relocated`` lists each one, and ``config.passages``
becomes ``passages`` (the folder beside it). Any other absolute path is refused.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any

from surge_dataset.core.metadata import installed_versions
from surge_dataset.core.output_folder import check_output_folder, replacing_output_folder
from surge_dataset.evaluation.config import record_models
from surge_dataset.evaluation.schema import SURVEY_KEY

if TYPE_CHECKING:
    from surge_dataset.data.dataset import SurgeData

__all__ = [
    "HUB_FOLDER",
    "LIMITS",
    "MAX_DETAILS_BYTES",
    "MAX_FILES",
    "MAX_FILES_PER_SURVEY",
    "MAX_MANIFEST_BYTES",
    "MAX_RESULTS_BYTES",
    "MAX_SURVEY_FILE_BYTES",
    "MAX_TOTAL_BYTES",
    "Submission",
    "SubmissionError",
    "load_submission",
    "pack_submission",
]

from surge_dataset.leaderboard.schema import FORMAT, FORMAT_VERSION, NAME_RE
from surge_dataset.leaderboard.submission_rules import (  # the rules both ways; public names re-exported
    ABSOLUTE_PATH_RE,
    DETAILS,
    ENTRY_RE,
    FILE_NAME_RE,
    HUB_ARTEFACTS,
    HUB_FOLDER,
    LIMITS,
    MANIFEST,
    MAX_DETAILS_BYTES,
    MAX_FILES,
    MAX_FILES_PER_SURVEY,
    MAX_MANIFEST_BYTES,
    MAX_RESULTS_BYTES,
    MAX_SURVEY_FILE_BYTES,
    MAX_TOTAL_BYTES,
    PASSAGES,
    RESULTS,
    RESULTS_LOCATIONS,
    SIDECAR_LOCATIONS,
    SubmissionError,
    check_details,
    check_paths,
    check_results_record,
    check_survey_folder,
    checked_content,
    environment_secrets,
    format_ids,
    format_size,
    json_bytes,
    read_bytes,
    shown_path,
)


@dataclass(frozen=True)
class Submission:
    """A checked submission folder: what ``surge leaderboard build`` reads."""

    name: str
    root: Path
    manifest: dict[str, Any] = field(repr=False)

    @property
    def results(self) -> Path:
        return self.root / RESULTS

    @property
    def passages(self) -> Path:
        return self.root / PASSAGES

    @property
    def details(self) -> Path | None:
        return self.root / DETAILS if DETAILS in self.files else None

    @property
    def files(self) -> list[str]:
        """The manifest's files (``submission.json`` itself not included), relative POSIX paths."""
        return [entry["path"] for entry in self.manifest["files"]]

    @property
    def survey_ids(self) -> list[int]:
        return list(self.manifest["surveys"])


# ----------------------------------------------------------------------------------------------- packing


def pack_submission(
    results: str | os.PathLike[str],
    passages: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    data: SurgeData | str | os.PathLike[str],
    name: str | None = None,
    details: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    verify: bool = True,
    models: Mapping[str, str] | None = None,
    device: str | None = None,
) -> Submission:
    """Check a ``surge evaluate`` run and write it as a submission folder ``out``; returns it, read back.

    Refused (:class:`SubmissionError`, naming the file): another protocol than official, a test survey not
    scored or failed, a data fingerprint other than ``data``'s, an API key or absolute path, a file over
    the limits or not UTF-8 text, a symbolic link, and (``verify``) a score that re-scoring the surveys does not
    give (:mod:`.verify`; ``models``: ``NAME=PATH`` local copies of the models the results name). Models named
    by a local path (results written before models were recorded by name) are renamed by their identity
    (:func:`~surge_dataset.models.identity.model_identity`). ``out`` must be new, empty or an earlier
    submission (replaced whole only with ``overwrite``); the folder appears complete or not at all.
    """
    from surge_dataset.data.dataset import SurgeData

    dataset = data if isinstance(data, SurgeData) else SurgeData.open(data)
    results, passages, out = Path(results), Path(passages), Path(out)
    details = None if details is None else Path(details)
    inputs = [("RESULTS", results), ("--passages", passages), ("--details", details)]
    check_output_folder(out, "submission", inputs=inputs, overwrite=overwrite)  # before reading anything
    secrets = environment_secrets()

    record = checked_content(str(results), RESULTS, read_bytes(results, RESULTS, str(results)), secrets)
    survey_ids = check_results_record(str(results), record, dataset)
    config = record["config"]
    relocated = [f"{RESULTS}: config.{key}" for key in RESULTS_LOCATIONS if _relocate(config, key)]
    relocated += [f"{RESULTS}: config.{key}" for key in record_models(record, local_only=True)]
    config["passages"] = PASSAGES  # where the surveys are now, relative to the submission folder
    check_paths(str(results), record)
    files: dict[str, bytes] = {RESULTS: json_bytes(record)}
    if details is not None:
        content = read_bytes(details, DETAILS, str(details))
        records = checked_content(str(details), DETAILS, content, secrets)
        check_paths(str(details), records)
        check_details(str(details), records, survey_ids)
        files[DETAILS] = content

    systems = set()
    for rel, source in _passage_files(passages, survey_ids).items():
        content = read_bytes(source, rel, str(source))
        value = checked_content(str(source), rel, content, secrets)
        if isinstance(value, dict) and "sidecar_version" in value:  # a `surge generate` sidecar
            moved = [key for key in SIDECAR_LOCATIONS if _relocate(value, key)]
            relocated += [f"{rel}: {key}" for key in moved]
            content = json_bytes(value) if moved else content
            systems.update([value["system"]] if isinstance(value.get("system"), str) else [])
        check_paths(str(source), value)
        files[rel] = content
    verification = _verified(str(results), record, passages, dataset, models, device) if verify else None
    total = sum(len(content) for content in files.values())
    if total > MAX_TOTAL_BYTES:
        raise SubmissionError(f"{out}: the submission would be {format_size(total)}, over the {format_size(MAX_TOTAL_BYTES)} limit "
                              "(MAX_TOTAL_BYTES)")
    name = _system_name(name, systems, results)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "name": name,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "surge_bench": installed_versions(("surge-bench",))["surge-bench"],  # the version that packed it
        "versions": config.get("versions", {}),  # the evaluation's packages
        "data_fingerprint": config["data_fingerprint"],
        "protocol": config["protocol"],
        "aggregate": config.get("aggregate"),
        "metrics": config.get("metrics"),
        "surveys": survey_ids,
        "relocated": relocated,
        "verification": verification,  # what `surge submit` found; the leaderboard re-scores on its own
        "files": [{"path": rel, "size": len(content), "sha256": hashlib.sha256(content).hexdigest()}
                  for rel, content in files.items()],
    }
    with replacing_output_folder(out, "submission", "surge submit", inputs=inputs, overwrite=overwrite) as tmp:
        for rel, content in files.items():
            target = tmp.joinpath(*rel.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        (tmp / MANIFEST).write_bytes(json_bytes(manifest))  # last
    return load_submission(out, data=dataset)


def _verified(label: str, record: dict[str, Any], passages: Path, dataset: SurgeData,
              models: Mapping[str, str] | None, device: str | None) -> dict[str, Any]:
    """Re-score the results from the surveys (:func:`.verify.verify_results`); a mismatch is refused, naming the
    first differing value."""
    from surge_dataset.leaderboard.verify import MISMATCH, verify_results

    found = verify_results(record, passages, dataset, models=models, device=device)
    if found.status == MISMATCH and found.mismatch:
        m = found.mismatch
        why = f" ({m['error']})" if m.get("error") else ""
        raise SubmissionError(f"{label}: {found.summary().removeprefix('mismatch: ')} from {passages.name}/"
                              f"{m['survey_id']}{why}: the results do not match the surveys; evaluate this folder "
                              "again (`surge evaluate`) and submit those results")
    return found.record()


def _passage_files(passages: Path, survey_ids: list[int]) -> dict[str, Path]:
    """``passages/<id>/<file>`` -> the source file, for every scored survey; hidden entries are left out, as
    ``surge evaluate`` leaves them (the folder's marker, ``.failed/``)."""
    if not passages.is_dir():
        raise SubmissionError(f"--passages {passages}: no such folder")
    found: dict[int, Path] = {}
    for entry in sorted(passages.iterdir()):
        if entry.name.startswith("."):
            continue
        _refuse_link(entry)
        if not entry.is_dir() or not SURVEY_KEY.fullmatch(entry.name):
            raise SubmissionError(f"{entry}: not a survey folder <survey_id>/; --passages must hold the evaluated "
                                  "surveys only")
        found[int(entry.name)] = entry
    missing, extra = sorted(set(survey_ids) - set(found)), sorted(set(found) - set(survey_ids))
    if missing:
        raise SubmissionError(f"--passages {passages}: no folder for the scored surveys {format_ids(missing)}: pass the "
                              "folder the results were computed from")
    if extra:
        raise SubmissionError(f"--passages {passages}: surveys {format_ids(extra)} have no scores in the results: pass the "
                              "folder the results were computed from, or evaluate again")
    files: dict[str, Path] = {}
    for survey_id, folder in sorted(found.items()):
        entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
        for path in entries:
            _refuse_link(path)
            if not path.is_file():
                raise SubmissionError(f"{path}: not a plain file; a survey folder holds files only")
            if not FILE_NAME_RE.fullmatch(path.name):
                raise SubmissionError(f"{path}: a file name may hold letters, digits, '.', '_' and '-' only")
        check_survey_folder(str(folder), [p.name for p in entries])
        files.update({f"{PASSAGES}/{survey_id}/{p.name}": p for p in entries})
    return files


def _refuse_link(path: Path) -> None:
    if path.is_symlink():
        raise SubmissionError(f"{path}: a symbolic link; a submission holds plain files only (copy the file in)")


def _relocate(record: dict[str, Any], key: str) -> bool:
    """Replace an absolute path at ``record[key]`` by its last part (``org/name`` for a Hub snapshot)."""
    value = record.get(key)
    if not isinstance(value, str) or not ABSOLUTE_PATH_RE.match(value):
        return False
    windows = re.match(r"\s*(?:[A-Za-z]:[\\/]|\\\\)", value)
    path = (PureWindowsPath if windows else PurePosixPath)(value.strip().removeprefix("file://"))
    hub = [part for part in path.parts if part.startswith("datasets--")]
    record[key] = hub[0].removeprefix("datasets--").replace("--", "/", 1) if hub else path.name
    return True


def _system_name(name: str | None, systems: set[str], results: Path) -> str:
    """``--name``, else the sidecars' system when they agree, else the results file's name."""
    chosen = name if name is not None else systems.pop() if len(systems) == 1 else results.stem
    if not NAME_RE.fullmatch(chosen):
        given = "--name" if name is not None else "the system name taken from the files"
        raise SubmissionError(f"{given} {chosen!r}: a system name is 1-64 letters, digits, spaces and . _ + ( ) -; "
                              "pass one with --name")
    return chosen


# ----------------------------------------------------------------------------------------------- reading


def load_submission(path: str | os.PathLike[str], *, data: SurgeData | None = None) -> Submission:
    """Read a submission folder, checking it all again (it may come from anyone); raises :class:`SubmissionError`.

    With ``data`` (the dataset the leaderboard ranks on) the data fingerprint and the full test split are
    checked too; without it, the folder's own consistency (manifest, results, surveys, checksums) is.
    """
    root = Path(path)
    if not root.is_dir():
        raise SubmissionError(f"{root}: no such submission folder")
    present = _walk(root)
    if MANIFEST not in present:
        raise SubmissionError(f"{root}: no {MANIFEST}, so not a submission folder (`surge submit` writes one)")
    secrets = environment_secrets()
    shown = lambda rel: shown_path(root / rel)  # noqa: E731
    content = read_bytes(root / MANIFEST, MANIFEST, shown(MANIFEST))
    manifest = checked_content(shown(MANIFEST), MANIFEST, content, secrets)
    listed = _check_manifest(shown(MANIFEST), manifest)  # its paths first: '../x' is named as such
    check_paths(shown(MANIFEST), manifest)
    unlisted = sorted(set(present) - set(listed) - {MANIFEST})
    if unlisted:
        raise SubmissionError(f"{shown(unlisted[0])}: not listed in {MANIFEST}; a submission holds the listed files "
                              "only")
    absent = sorted(set(listed) - set(present))
    if absent:
        raise SubmissionError(f"{shown(absent[0])}: listed in {MANIFEST} but absent")
    total = sum(size for size, _ in listed.values())
    if total > MAX_TOTAL_BYTES:
        raise SubmissionError(f"{root}: {format_size(total)}, over the {format_size(MAX_TOTAL_BYTES)} limit (MAX_TOTAL_BYTES)")

    values: dict[str, Any] = {}
    for rel, (size, digest) in listed.items():
        content = verified_bytes(root, rel, size, digest)
        values[rel] = checked_content(shown(rel), rel, content, secrets)
        check_paths(shown(rel), values[rel])
    survey_ids = check_results_record(shown(RESULTS), values[RESULTS], data)
    config = values[RESULTS]["config"]
    for key in ("protocol", "data_fingerprint"):
        if manifest.get(key) != config.get(key):
            raise SubmissionError(f"{shown(MANIFEST)}: {key} {manifest.get(key)!r} differs from {RESULTS}'s "
                                  f"{config.get(key)!r}")
    if manifest.get("surveys") != survey_ids:
        raise SubmissionError(f"{shown(MANIFEST)}: its surveys differ from those {RESULTS} scores ({format_ids(survey_ids)})")
    folders: dict[int, list[str]] = {}
    for rel in listed:
        if rel.startswith(PASSAGES + "/"):
            _, survey_id, name = rel.split("/")
            folders.setdefault(int(survey_id), []).append(name)
    if sorted(folders) != survey_ids:
        missing = sorted(set(survey_ids) - set(folders)) or sorted(set(folders) - set(survey_ids))
        raise SubmissionError(f"{shown(PASSAGES)}: its survey folders differ from the surveys {RESULTS} scores "
                              f"(differing: {format_ids(missing)})")
    for survey_id, names in folders.items():
        check_survey_folder(shown(f"{PASSAGES}/{survey_id}"), names)
    if DETAILS in values:
        check_details(shown(DETAILS), values[DETAILS], survey_ids)
    return Submission(name=manifest["name"], root=root, manifest=manifest)


def _walk(root: Path) -> list[str]:
    """Every file under ``root`` as a relative POSIX path; refuses links, special files and deep folders."""
    found: list[str] = []

    def visit(folder: Path, parts: tuple[str, ...]) -> None:
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                rel = (*parts, entry.name)
                if not parts and entry.name in HUB_ARTEFACTS:
                    continue
                if entry.is_symlink():
                    raise SubmissionError(f"{shown_path(root.joinpath(*rel))}: a symbolic link; a submission holds plain "
                                          "files only (a link can point outside the folder)")
                if entry.is_dir(follow_symlinks=False):
                    if len(rel) > 2:
                        raise SubmissionError(f"{shown_path(root.joinpath(*rel))}: a folder too deep; a submission holds "
                                              f"{PASSAGES}/<survey_id>/<file> at most")
                    visit(Path(entry.path), rel)
                elif entry.is_file(follow_symlinks=False):
                    found.append("/".join(rel))
                    if len(found) > MAX_FILES:
                        raise SubmissionError(f"{shown_path(root)}: more than {MAX_FILES:,} files (MAX_FILES)")
                else:
                    raise SubmissionError(f"{shown_path(root.joinpath(*rel))}: not a plain file (a device, pipe or "
                                          "socket)")

    visit(root, ())
    return found


def _check_manifest(label: str, manifest: Any) -> dict[str, tuple[int, str]]:
    """The manifest's files as {path: (size, sha256)}: the schema (:class:`.schema.Manifest`), then the layout."""
    from pydantic import ValidationError

    from surge_dataset.evaluation.schema import refusal
    from surge_dataset.leaderboard.schema import Manifest

    for entry in manifest.get("files") or [] if isinstance(manifest, dict) and isinstance(manifest.get("files"), list) \
            else []:  # a path outside the folder is named as such, before any other problem of the entry
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            _check_entry_path(label, entry["path"])
    try:
        checked = Manifest.model_validate(manifest)
    except ValidationError as exc:
        raise SubmissionError(refusal(label, exc)) from None
    listed: dict[str, tuple[int, str]] = {}
    for entry in checked.files:
        _check_entry_path(label, entry.path)
        if entry.path in listed:
            raise SubmissionError(f"{label}: lists {entry.path!r} twice")
        listed[entry.path] = (entry.size, entry.sha256)
    if RESULTS not in listed:
        raise SubmissionError(f"{label}: lists no {RESULTS}")
    return listed


def _check_entry_path(label: str, rel: Any) -> None:
    if not isinstance(rel, str) or not rel:
        raise SubmissionError(f"{label}: a file entry without a path")
    if rel.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", rel):
        raise SubmissionError(f"{label}: lists {rel!r}, an absolute path outside the submission folder")
    if any(part in ("", ".", "..") for part in re.split(r"[/\\]", rel)):
        raise SubmissionError(f"{label}: lists {rel!r}, a path outside the submission folder ('..', '.' or an empty "
                              "part)")
    if not ENTRY_RE.fullmatch(rel):
        raise SubmissionError(f"{label}: lists {rel!r}; a submission holds {RESULTS}, {DETAILS} and "
                              f"{PASSAGES}/<survey_id>/<file> only (file names of letters, digits, '.', '_', '-')")


def verified_bytes(root: Path, rel: str, size: int, digest: str) -> bytes:
    label = shown_path(root / rel)
    content = read_bytes(root.joinpath(*rel.split("/")), rel, label)
    if len(content) != size:
        raise SubmissionError(f"{label}: {len(content):,} bytes where {MANIFEST} says {size:,}: the file was changed "
                              "after packing")
    if hashlib.sha256(content).hexdigest() != digest:
        raise SubmissionError(f"{label}: its sha256 differs from {MANIFEST}'s: the file was changed after packing")
    return content
