"""What a submission may hold, checked the same way when packing and when reading: the layout's names, the
size limits, the secret and absolute-path patterns, and the checks of results, details and survey folders
(:mod:`.submission` packs and reads; see its docstring for the folder)."""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.vocabulary import OFFICIAL
from surge_dataset.evaluation.schema import SURVEY_KEY
from surge_dataset.leaderboard.schema import RankedResults

if TYPE_CHECKING:
    from surge_dataset.data.dataset import SurgeData


MANIFEST = "submission.json"
RESULTS = "results.json"
DETAILS = "details.jsonl"
PASSAGES = "passages"
#: Where a submission goes in the submissions dataset: ``submissions/<system-slug>/``.
HUB_FOLDER = "submissions"

_MIB = 2**20
#: Each file of ``passages/<survey_id>/`` (a generated survey is 10-100 KB; its sidecar less).
MAX_SURVEY_FILE_BYTES = 4 * _MIB
#: Files in one survey folder (the survey and its sidecar, usually).
MAX_FILES_PER_SURVEY = 8
#: ``results.json`` (about 20 KB per survey with its diagnostics).
MAX_RESULTS_BYTES = 64 * _MIB
#: ``details.jsonl`` (about 0.5-2 KB per citation; ~200 citations x 41 test surveys is ~10 MB). The Space's cost
#: per survey does not grow with it: the builder keeps at most 5,000 rows of a survey (``citations.py``) and the
#: viewer shows 250 a page, so this much for *one* survey (~550,000 records) builds in ~7 s (1.2 GB peak) and its
#: viewer page paints in about 1 s (``python -m benchmarks.viewer_first_paint``; the budget is 3 s).
MAX_DETAILS_BYTES = 256 * _MIB
#: ``submission.json``.
MAX_MANIFEST_BYTES = 4 * _MIB
#: The whole folder.
MAX_TOTAL_BYTES = 512 * _MIB
#: Files in the whole folder.
MAX_FILES = 10_000

#: Every limit by name, as documented in docs/submitting.md (a test checks the table).
LIMITS: dict[str, int] = {
    "MAX_SURVEY_FILE_BYTES": MAX_SURVEY_FILE_BYTES, "MAX_FILES_PER_SURVEY": MAX_FILES_PER_SURVEY,
    "MAX_RESULTS_BYTES": MAX_RESULTS_BYTES, "MAX_DETAILS_BYTES": MAX_DETAILS_BYTES,
    "MAX_MANIFEST_BYTES": MAX_MANIFEST_BYTES, "MAX_TOTAL_BYTES": MAX_TOTAL_BYTES, "MAX_FILES": MAX_FILES,
}

REPO_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")
FILE_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
ENTRY_RE = re.compile(rf"{re.escape(RESULTS)}|{re.escape(DETAILS)}|{PASSAGES}/(?:{SURVEY_KEY.pattern})/{FILE_NAME_RE.pattern}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: Left alone at the top of a folder downloaded from the Hub (never read).
HUB_ARTEFACTS = frozenset({".gitattributes", ".cache"})

#: Credentials that must never leave the machine, by what the refusal calls them.
SECRET_PATTERNS: dict[str, re.Pattern[str]] = {
    "an API key (sk-...)": re.compile(r"\bsk-[A-Za-z0-9_-]{16,}"),
    "a Hugging Face token (hf_...)": re.compile(r"\bhf_[A-Za-z0-9]{20,}"),
    "a bearer token (Bearer ...)": re.compile(r"\bBearer\s+(?=[A-Za-z._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{16,}"),
    "an AWS access key id": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "a GitHub token": re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}"),
    "a Google API key": re.compile(r"\bAIza[0-9A-Za-z_-]{35}"),
}
#: Environment variables whose values are secrets: a value of 12+ characters found in a file is refused.
_SECRET_VARIABLE = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
#: A JSON string that is an absolute path (POSIX, ``~``, Windows, UNC, ``file://``) ...
ABSOLUTE_PATH_RE = re.compile(r"\s*(?:file:/+)?(?:/[^/\s]|~[/\\]|[A-Za-z]:[\\/]|\\\\[^\\\s])")
#: ... or a model spec naming one (``gguf:/models/q.gguf``; ``http://`` is not a path) ...
_SPEC_PATH = re.compile(r"\s*[A-Za-z][\w.+-]*:(?:/(?!/)|~[/\\])")
#: ... or holds one of the usual home/scratch folders.
_LOCAL_FOLDER = re.compile(r"(?<![\w./~-])(?:/home/|/Users/|/root/|/scratch/|/mnt/|/tmp/|/var/folders/|/private/var/"
                           r"|[A-Za-z]:\\Users\\)")
#: A path inside free text (an error message, a warning) with at least one folder: ``/a/b``, ``~/a``, ``C:\\a\\b``;
#: not a URL's path, not ``and/or``, not a lone ``/x``.
_PATH_IN_TEXT = re.compile(r"(?<![\w.:/\\~-])(?:~[/\\]|(?:[A-Za-z]:)?[/\\][^\s/\\'\"`<>|]+[/\\])"
                           r"(?:[^\s/\\'\"`<>|]+[/\\])*(?P<last>[^\s/\\'\"`<>|]*)")


def strip_local_paths(text: str) -> str:
    """Free text with every local path cut to its last part (``/home/alice/runs/x.json`` -> ``x.json``), for what
    is published: the same text, no folder of anyone's machine."""
    return _PATH_IN_TEXT.sub(lambda m: m["last"] or "/", text)


#: Fields surge writes as locations on the machine, made portable when packing (see the module docstring).
RESULTS_LOCATIONS = ("data", "passages")
SIDECAR_LOCATIONS = ("data", "run")


class SubmissionError(SurgeError, ValueError):
    """A submission that cannot be packed or read: the message names the file and the reason (exit 2)."""




def check_results_record(label: str, record: Any, data: SurgeData | None) -> list[int]:
    """The scored survey ids of a results file (checked by the one results loader with the leaderboard's
    :class:`~.schema.RankedResults`); refuses another protocol, failures and, with ``data``, another fingerprint or an
    incomplete test split."""
    from surge_dataset.core.errors import InputFileError
    from surge_dataset.evaluation.results import check_results

    try:
        check_results(label, record, RankedResults)
    except InputFileError as exc:
        raise SubmissionError(str(exc)) from None
    config = record["config"]
    if config.get("protocol") != OFFICIAL:
        raise SubmissionError(f"{label}: scored with the {config.get('protocol')!r} protocol; the leaderboard ranks "
                              f"the {OFFICIAL} protocol only: rerun `surge evaluate --protocol {OFFICIAL}`")
    failures = record.get("failures") or []
    if failures:
        shown = "; ".join(f"{f.get('survey_id')}: {f.get('error')}" if isinstance(f, dict) else str(f)
                          for f in failures[:3])
        raise SubmissionError(f"{label}: {len(failures)} survey folder(s) could not be evaluated ({shown}); fix them "
                              "and rerun `surge evaluate`")
    survey_ids = sorted(int(k) for k in record["surveys"])
    if data is not None:
        _check_against_data(label, record, survey_ids, data)
    return survey_ids


def _check_against_data(label: str, record: dict[str, Any], survey_ids: list[int], data: SurgeData) -> None:
    fingerprint = record["config"].get("data_fingerprint")
    if fingerprint != data.fingerprint:
        raise SubmissionError(f"{label}: scored on data {fingerprint!r}, not on --data {data.path} "
                              f"({data.fingerprint!r}): submit against the dataset the results were computed on")
    test = sorted(s.survey_id for s in data.surveys("test"))
    if not test:
        raise SubmissionError(f"--data {data.path}: no test split to rank on")
    why: dict[int, str] = {}
    for excluded in record.get("excluded") or []:
        if isinstance(excluded, dict) and isinstance(excluded.get("survey_id"), int):
            why[excluded["survey_id"]] = f"excluded: {excluded.get('reason')}"
    missing = sorted(set(test) - set(survey_ids))
    if missing:
        shown = ", ".join(f"{i} ({why[i]})" if i in why else str(i) for i in missing[:20])
        more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
        raise SubmissionError(f"{label}: {len(missing)} of the {len(test)} test surveys are not scored: {shown}{more}; "
                              "the leaderboard ranks the full test split: generate and evaluate every test survey "
                              "(without --min-cites / --exclude-empty)")
    extra = sorted(set(survey_ids) - set(test))
    if extra:
        raise SubmissionError(f"{label}: scores surveys outside the test split ({format_ids(extra)}); the leaderboard ranks "
                              "the test split only: evaluate a passages folder of test surveys")


def check_survey_folder(label: str, names: list[str]) -> None:
    """The evaluator's rule: one file, or one file ending in ``.md`` among a few."""
    if not names:
        raise SubmissionError(f"{label}: holds no file")
    if len(names) > MAX_FILES_PER_SURVEY:
        raise SubmissionError(f"{label}: {len(names)} files, over the {MAX_FILES_PER_SURVEY} of a survey folder "
                              "(MAX_FILES_PER_SURVEY)")
    markdown = [n for n in names if n.lower().endswith(".md")]
    if len(names) > 1 and len(markdown) != 1:
        raise SubmissionError(f"{label}: {len(names)} files and {len(markdown)} ending in .md: cannot tell which is "
                              "the survey")


def check_details(label: str, records: list[Any], survey_ids: list[int]) -> None:
    """Every line holds the details schema (:class:`.schema.DetailsRecord`) and is about a scored survey."""
    from pydantic import ValidationError

    from surge_dataset.evaluation.schema import DetailsRecord, refusal

    known = set(survey_ids)
    for number, record in enumerate(records, 1):
        try:
            DetailsRecord.model_validate(record)
        except ValidationError as exc:
            raise SubmissionError(refusal(f"{label}: line {number}", exc)) from None
        if record["survey_id"] not in known:
            raise SubmissionError(f"{label}: line {number} is about survey {record['survey_id']!r}, which the results "
                                  "do not score: pass the --details file of the same run")


def checked_content(label: str, rel: str, content: bytes, secrets: Mapping[str, str]) -> Any:
    """UTF-8 text without credentials; parsed when JSON (``.json``) or JSON lines (``.jsonl``), else the text."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SubmissionError(f"{label}: not UTF-8 text (byte {exc.start}: {exc.reason}); a submission holds UTF-8 "
                              "text only") from None
    if "\x00" in text:
        raise SubmissionError(f"{label}: holds NUL characters, so binary data; a submission holds UTF-8 text only")
    for what, pattern in SECRET_PATTERNS.items():
        if found := pattern.search(text):
            raise SubmissionError(f"{label}: holds {what}, {_redacted(found.group())}; a submission must not carry "
                                  "credentials: remove it and pack again")
    for variable, value in secrets.items():
        if value in text:
            raise SubmissionError(f"{label}: holds the value of the environment variable {variable} "
                                  f"({_redacted(value)}); a submission must not carry credentials: remove it")
    if rel.endswith(".json"):
        return _parse_json(label, text)
    if rel.endswith(".jsonl"):
        records = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                record = _parse_json(f"{label}: line {number}", line)
                if not isinstance(record, dict):
                    raise SubmissionError(f"{label}: line {number} is not a JSON object")
                records.append(record)
        return records
    return text


def _parse_json(label: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SubmissionError(f"{label}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise SubmissionError(f"{label}: JSON nested too deeply") from None


def check_paths(label: str, value: Any) -> None:
    """No string (or key) of parsed JSON that is, or holds, an absolute path on someone's machine."""
    for where, text in _strings(value):
        if ABSOLUTE_PATH_RE.match(text) or _SPEC_PATH.match(text) or _LOCAL_FOLDER.search(text):
            shown = text if len(text) <= 60 else text[:57] + "..."
            raise SubmissionError(f"{label}: {where or 'the value'} is an absolute path ({shown!r}); a submission must "
                                  "not reveal local paths: use a Hub id or a relative name")


def _strings(value: Any) -> Iterator[tuple[str, str]]:
    """(where, string) for every string and key in parsed JSON, without recursion (deep JSON is fine)."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            yield where, item
        elif isinstance(item, dict):
            for key, child in item.items():
                path = f"{where}.{key}" if where else str(key)
                yield path, str(key)
                stack.append((path, child))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]" if where else f"line {i + 1}", child) for i, child in enumerate(item))


def environment_secrets() -> dict[str, str]:
    """Values of this machine's secret-named environment variables (``*KEY*``, ``*TOKEN*`` ...)."""
    return {name: value for name, value in os.environ.items()
            if _SECRET_VARIABLE.search(name) and len(value) >= 12 and not any(c.isspace() for c in value)
            and not ABSOLUTE_PATH_RE.match(value)}


def read_bytes(path: Path, rel: str, label: str) -> bytes:
    """A plain file's bytes, never through a link (``O_NOFOLLOW``), refused over the limit of ``rel``'s kind."""
    limit, what = _limit(rel)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if path.is_symlink():
        raise SubmissionError(f"{label}: a symbolic link; a submission holds plain files only (copy the file in)")
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SubmissionError(f"{label}: a symbolic link; a submission holds plain files only") from None
        raise SubmissionError(f"{label}: cannot be read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise SubmissionError(f"{label}: not a plain file")
        content = handle.read(min(info.st_size, limit) + 1)
    if max(info.st_size, len(content)) > limit:
        raise SubmissionError(f"{label}: {format_size(max(info.st_size, len(content)))}, over the {format_size(limit)} limit "
                              f"for {what}")
    return content


def _limit(rel: str) -> tuple[int, str]:
    """The size limit of a submission file, and what the refusal calls it."""
    if rel == RESULTS:
        return MAX_RESULTS_BYTES, "a results file (MAX_RESULTS_BYTES)"
    if rel == DETAILS:
        return MAX_DETAILS_BYTES, "a details file (MAX_DETAILS_BYTES)"
    if rel == MANIFEST:
        return MAX_MANIFEST_BYTES, "the manifest (MAX_MANIFEST_BYTES)"
    return MAX_SURVEY_FILE_BYTES, "a survey folder's file (MAX_SURVEY_FILE_BYTES)"


def format_size(n: int) -> str:
    return f"{n / _MIB:.1f} MiB" if n >= _MIB else f"{n:,} bytes"


def format_ids(ids: list[int]) -> str:
    return ", ".join(map(str, ids[:20])) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")


def _redacted(secret: str) -> str:
    return f"{secret[:4]}... ({len(secret)} characters)"


def shown_path(path: Path) -> str:
    text = str(path)
    return text if text.isprintable() else ascii(text)


def json_bytes(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
