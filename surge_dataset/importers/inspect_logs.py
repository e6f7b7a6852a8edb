"""Reading Inspect logs of ``surge/survey``: the reader of ``surge import --format inspect LOG --out DIR``.

:func:`read_inspect_logs` has the shape of every reader in :data:`surge_dataset.importers.READERS`: a file
or folder in, :class:`~surge_dataset.importers.PeerDocument` records (or ``(source, reason)`` for what
it has to skip) out. ``LOG`` is one log (``.eval`` or ``.json``) or a folder of them (searched
recursively). Each sample of the first epoch that ran to the end is one survey, keyed by its survey id:
its Markdown is the one the task's solver wrote (the store's ``surge:markdown``), else its final answer
rendered by the same writer. Every document notes the log, the evaluated model, the prompts version and
the Inspect version, which the import report records.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import SettingError
from surge_dataset.generation.inspect_survey import MARKDOWN_KEY, sample_markdown
from surge_dataset.importers.markdown import read_markdown
from surge_dataset.importers.records import PeerDocument

__all__ = ["EXCLUDED_FIELDS", "LogItem", "inspect_log_files", "log_provenance", "read_inspect_logs", "surge_samples"]

#: What a reader yields (as :data:`surge_dataset.importers.formats.Item`): a peer survey, or ``(source, reason)``.
LogItem = PeerDocument | tuple[str, str]
#: Sample fields a log reader never needs (the transcript): not loaded from ``.eval`` logs.
EXCLUDED_FIELDS = {"messages", "events"}


def inspect_log_files(root: Path) -> list[Path]:
    """``root`` itself, or every ``.eval`` / ``.json`` file under it (recursively, sorted)."""
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".eval", ".json")
                  and not p.name.startswith("."))


def log_provenance(log: Any) -> dict[str, Any]:
    """Who wrote a log and how: task, model (and roles), the task's SurGE settings, Inspect's version."""
    spec = log.eval
    surge = dict((spec.metadata or {}).get("surge") or {})
    roles = {name: getattr(role, "model", str(role)) for name, role in (getattr(spec, "model_roles", None) or {}).items()}
    return {
        "task": spec.task,
        "model": spec.model,
        "model_roles": roles,
        "prompts_version": surge.get("prompts_version"),
        "inspect_ai": (spec.packages or {}).get("inspect_ai"),
        "surge_bench": surge.get("surge_bench"),
        "eval_id": spec.eval_id,
        "created": spec.created,
        "status": log.status,
        "surge": surge,
    }


def surge_samples(path: Path) -> Iterator[tuple[Any, Any | None, str | None]]:
    """``(header, sample, None)`` per usable sample of a ``surge/survey`` log (first epoch, no error), and
    ``(header, sample or None, reason)`` for the log or a sample that cannot be used."""
    if find_spec("inspect_ai") is None:
        raise SettingError("reading Inspect logs needs inspect-ai: pip install -e '.[inspect]'")
    from inspect_ai.log import read_eval_log, read_eval_log_samples

    try:
        header = read_eval_log(str(path), header_only=True)
    except Exception as exc:  # noqa: BLE001 - whatever Inspect cannot read is skipped with its reason
        yield None, None, f"not an Inspect log ({type(exc).__name__}: {exc})"
        return
    found = False
    for sample in read_eval_log_samples(str(path), all_samples_required=False, resolve_attachments=True,
                                        exclude_fields=EXCLUDED_FIELDS):
        found = True
        if "survey_id" not in (sample.metadata or {}):
            yield header, None, f"sample {sample.id}: no survey_id in its metadata (not a surge/survey sample)"
        elif sample.epoch != 1:
            yield header, sample, f"sample {sample.id}, epoch {sample.epoch}: only the first epoch is imported"
        elif sample.error is not None:
            yield header, sample, f"sample {sample.id}: the sample failed ({sample.error.message})"
        else:
            yield header, sample, None
    if not found:
        yield header, None, f"the log has no samples (status {header.status})"


def read_inspect_logs(root: Path) -> Iterator[LogItem]:
    """Every survey of the ``surge/survey`` logs under ``root`` as a peer document (key: its survey id)."""
    root = Path(root)
    for path in inspect_log_files(root):
        for header, sample, problem in surge_samples(path):
            source = f"{path}#{sample.id}" if sample is not None else str(path)
            if problem is not None:
                yield source, problem
                continue
            info = log_provenance(header)
            markdown = sample_markdown(sample.store or {}, sample.output.completion if sample.output else "",
                                       sample.metadata)
            doc = read_markdown(markdown, str(sample.metadata["survey_id"]), source)
            doc.title = str(sample.metadata.get("title") or doc.title or "")
            written = "the solver's Markdown" if MARKDOWN_KEY in (sample.store or {}) else "the final answer, rendered"
            doc.notes.append(
                f"Inspect log {path.name}: task {info['task']}, model {info['model']}, prompts "
                f"{sample.metadata.get('prompts_version') or info['prompts_version']}, inspect_ai {info['inspect_ai']}, "
                f"surge-bench {info['surge_bench']}; survey from {written}")
            yield doc
