"""``surge evaluate``: score a folder of generated surveys against the ground truth, resumably.

Flow (architecture.md): passage file -> parse -> resolve (Corpus) -> scorers -> per-survey result ->
journal (append, fsync) -> results.json (atomic). NLI pairs and heading embeddings of the whole run
are de-duplicated and scored in one length-sorted batch before the per-survey loop, and every model
output is cached on disk, so a crashed or repeated run costs little; the journal makes a rerun skip
surveys already finished with the same settings.
"""

from __future__ import annotations

import hashlib
import json
import platform
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from .data.dataset import SurgeData
from .io import JsonlJournal, atomic_write_json, atomic_write_text
from .records import Paper, Survey
from .scoring.citations import CitationInstance, accuracy_pairs, citation_accuracy, citation_recall
from .scoring.shr import soft_heading_recall
from .survey import GeneratedSurvey, parse_survey, read_survey_file

DEFAULT_NLI_MODEL = "cross-encoder/nli-deberta-v3-base"
DEFAULT_EMBEDDING_MODEL = "BAAI/bge-large-en-v1.5"
GT_CONTENT_MIN_CHARS = 100

#: metric group -> the result keys it produces (keys used everywhere: results, reports, modules).
METRIC_KEYS: dict[str, tuple[str, ...]] = {
    "recall": ("recall",),
    "citation_accuracy": ("doc_acc", "sec_acc", "sent_acc"),
    "shr": ("shr",),
    "rouge_bleu": ("rouge1", "rouge2", "rougeL", "bleu"),
}
ALL_METRICS = tuple(METRIC_KEYS)


def parse_metrics(text: str | Sequence[str]) -> list[str]:
    """'recall,shr' or 'all' -> validated metric group names, in canonical order."""
    names = [t.strip() for t in (text.split(",") if isinstance(text, str) else text) if t.strip()]
    if "all" in names:
        return list(ALL_METRICS)
    unknown = [n for n in names if n not in METRIC_KEYS]
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; choose from {', '.join(ALL_METRICS)} or 'all'")
    return [m for m in ALL_METRICS if m in names]


@dataclass
class EvaluationConfig:
    """Everything that changes the numbers (recorded in the results and used as the journal key)."""

    metrics: list[str] = field(default_factory=lambda: list(ALL_METRICS))
    protocol: str = "official"
    nli_model: str = DEFAULT_NLI_MODEL
    embedding_model: str = DEFAULT_EMBEDDING_MODEL

    def key(self, data_fingerprint: str) -> str:
        payload = json.dumps({**asdict(self), "data": data_fingerprint}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


@dataclass
class PreparedSurvey:
    """A generated survey read, parsed and resolved against the corpus; ready for scoring."""

    survey_id: int
    path: Path
    gt: Survey
    parsed: GeneratedSurvey
    references: dict[int, int | None]  # reference number -> resolved doc id
    papers: dict[int, Paper]  # doc id -> paper, for every resolved reference
    citations: list[CitationInstance]
    read_diagnostics: list[dict[str, Any]]


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("surge-bench", "torch", "transformers", "sentence-transformers", "rouge-score", "sacrebleu"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


# ------------------------------------------------------------------------------------------ discovery


def discover_passages(passage_dir: str | Path) -> tuple[list[tuple[int, Path]], list[dict[str, Any]]]:
    """``DIR/<survey_id>/<file>`` entries, and a failure record for every entry that cannot be used.

    With several files in a folder the one ending in ``.md`` is taken (the released evaluator's rule).
    """
    root = Path(passage_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: passage folder does not exist")
    found, failures = [], []
    for entry in sorted(root.iterdir(), key=lambda p: (not p.name.isdigit(), int(p.name) if p.name.isdigit() else 0, p.name)):
        if entry.name.startswith("."):
            continue
        if not entry.is_dir():
            failures.append({"survey_id": None, "path": str(entry), "error": "not a folder: expected DIR/<survey_id>/<file>"})
            continue
        if not entry.name.isdigit():
            failures.append({"survey_id": None, "path": str(entry), "error": "folder name is not a numeric survey id"})
            continue
        files = sorted(p for p in entry.iterdir() if p.is_file() and not p.name.startswith("."))
        markdown = [p for p in files if p.suffix.lower() == ".md"]
        if not files:
            failures.append({"survey_id": int(entry.name), "path": str(entry), "error": "folder holds no file"})
        elif len(files) == 1:
            found.append((int(entry.name), files[0]))
        elif len(markdown) == 1:
            found.append((int(entry.name), markdown[0]))
        else:
            failures.append(
                {"survey_id": int(entry.name), "path": str(entry),
                 "error": f"{len(files)} files and {len(markdown)} ending in .md: cannot tell which is the survey"}
            )
    return found, failures


def prepare_survey(data: SurgeData, survey_id: int, path: Path, protocol: str) -> PreparedSurvey:
    """Read, parse and resolve one generated survey (raises on unreadable files or unknown ids)."""
    if not data.has_survey(survey_id):
        raise KeyError(f"survey id {survey_id} has no ground truth in the dataset")
    gt = data.survey(survey_id)
    text, read_diagnostics = read_survey_file(path)
    parsed = parse_survey(text, protocol=protocol)
    numbers = list(parsed.references)
    resolved = data.corpus.resolve([parsed.references[n].title for n in numbers]) if numbers else []
    references = dict(zip(numbers, resolved, strict=True))
    ids = sorted({d for d in resolved if d is not None})
    papers = {p.doc_id: p for p in data.corpus.get(ids) if p is not None}
    citations = [CitationInstance(c.number, c.node_title, c.sentence) for c in parsed.citations]
    return PreparedSurvey(
        survey_id=survey_id, path=path, gt=gt, parsed=parsed, references=references, papers=papers,
        citations=citations, read_diagnostics=[asdict(d) for d in read_diagnostics],
    )


# ------------------------------------------------------------------------------------------ scoring


def gt_content_sections(gt: Survey) -> list[tuple[str, str]]:
    """(title, content) of GT nodes whose content has >= 100 characters, document order."""
    return [(s.title, s.content) for s in gt.tree().walk() if len(s.content) >= GT_CONTENT_MIN_CHARS]


def _date_key(value: str | None) -> str | None:
    """YYYY-MM-DD (or YYYY) prefix for comparing dates written in ISO-like forms."""
    if not value:
        return None
    text = value.strip()
    if len(text) >= 10 and text[4] == "-" and text[7] == "-":
        return text[:10]
    return text[:4] if text[:4].isdigit() else None


def _is_after(paper: Paper, gt: Survey) -> bool:
    paper_date, gt_date = _date_key(paper.date) or _date_key(paper.year), _date_key(gt.date) or _date_key(gt.year)
    if not paper_date or not gt_date:
        return False
    width = min(len(paper_date), len(gt_date))
    return paper_date[:width] > gt_date[:width]


def survey_counts(prepared: PreparedSurvey) -> dict[str, int]:
    resolved = [d for d in prepared.references.values() if d is not None]
    future = sum(1 for d in resolved if d in prepared.papers and _is_after(prepared.papers[d], prepared.gt))
    missing = sum(1 for c in prepared.citations if c.number not in prepared.references)
    return {
        "references": len(prepared.references),
        "resolved": len(resolved),
        "hallucinated": len(prepared.references) - len(resolved),
        "citations": len(prepared.citations),
        "citations_of_missing_numbers": missing,
        "future_citations": future,
    }


def score_survey(
    prepared: PreparedSurvey,
    config: EvaluationConfig,
    *,
    nli: Any = None,
    encoder: Any = None,
    with_details: bool = False,
) -> dict[str, Any]:
    """All requested metrics of one prepared survey -> the result record written to the journal."""
    gt = prepared.gt
    result: dict[str, Any] = {}
    diagnostics = list(prepared.read_diagnostics) + [asdict(d) for d in prepared.parsed.diagnostics]
    details: list[dict[str, Any]] = []
    if "recall" in config.metrics:
        result["recall"] = citation_recall(prepared.references.values(), gt.all_cites)
        if result["recall"] is None:
            diagnostics.append({"code": "gt_without_cites", "message": "the ground truth's all_cites is empty: recall is undefined", "line": None})
    if "citation_accuracy" in config.metrics:
        accuracy = citation_accuracy(
            prepared.references, prepared.citations, prepared.papers, gt.survey_title, gt.all_cites, nli,
            protocol=config.protocol, with_details=with_details,
        )
        result.update(doc_acc=accuracy.doc_acc, sec_acc=accuracy.sec_acc, sent_acc=accuracy.sent_acc)
        details = accuracy.details
        if accuracy.doc_acc is None:
            diagnostics.append({"code": "no_scored_citations", "message": "no reference entry or citation to score: citation accuracy is undefined", "line": None})
    gt_sections = gt_content_sections(gt)
    if "shr" in config.metrics:
        result["shr"] = soft_heading_recall([t for t, _ in gt_sections], prepared.parsed.heading_titles(), encoder)
    if "rouge_bleu" in config.metrics:
        from .scoring.rouge_bleu import rouge_bleu

        generated = [n.content for n in prepared.parsed.content_sections(GT_CONTENT_MIN_CHARS)]
        values = rouge_bleu(generated, [c for _, c in gt_sections])
        result.update({k: values[k] for k in ("rouge1", "rouge2", "rougeL", "bleu")})
    result["counts"] = survey_counts(prepared)
    result["diagnostics"] = diagnostics
    for record in details:
        record["survey_id"] = prepared.survey_id
    return {"result": result, "details": details}


class PrefetchedNLI:
    """Scores every pair of a run in one de-duplicated, length-sorted batch, then serves lookups."""

    def __init__(self, backend: Any):
        self.backend = backend
        self._memo: dict[tuple[str, str], np.ndarray] = {}

    def prefetch(self, pairs: Sequence[tuple[str, str]]) -> None:
        todo = list(dict.fromkeys(p for p in pairs if p not in self._memo))
        if todo:
            for pair, row in zip(todo, np.asarray(self.backend.logits(todo)), strict=True):
                self._memo[pair] = row

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.prefetch(pairs)
        return np.stack([self._memo[p] for p in pairs]) if pairs else np.zeros((0, 3))


class PrefetchedEncoder:
    """Same for heading embeddings (SHR)."""

    def __init__(self, backend: Any):
        self.backend = backend
        self._memo: dict[str, np.ndarray] = {}

    def prefetch(self, texts: Sequence[str]) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if todo:
            for text, row in zip(todo, np.asarray(self.backend.encode(todo)), strict=True):
                self._memo[text] = row

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.prefetch(texts)
        return np.stack([self._memo[t] for t in texts])


# ------------------------------------------------------------------------------------------ the run


def _average(surveys: dict[str, dict[str, Any]], keys: Sequence[str]) -> tuple[dict[str, float | None], dict[str, int]]:
    """Mean over surveys of each metric (protocol.md §4); undefined (None) values are left out and counted."""
    average, counted = {}, {}
    for key in keys:
        values = [r[key] for r in surveys.values() if r.get(key) is not None]
        average[key] = float(np.mean(values)) if values else None
        counted[key] = len(values)
    return average, counted


def journal_path(out: Path) -> Path:
    return out.with_name(out.name + ".journal.jsonl")


def evaluate_run(
    data: SurgeData,
    passage_dir: str | Path,
    out: str | Path,
    config: EvaluationConfig,
    *,
    nli: Any = None,
    encoder: Any = None,
    nli_factory: Callable[[], Any] | None = None,
    encoder_factory: Callable[[], Any] | None = None,
    details_path: str | Path | None = None,
    on_survey_done: Callable[[int, int, int], None] | None = None,
) -> dict[str, Any]:
    """Evaluate every survey in ``passage_dir`` and write ``out`` atomically; returns the results dict.

    Models are created (``nli_factory`` / ``encoder_factory``) only if a requested metric needs them and
    some survey still has to be scored. ``on_survey_done(survey_id, done, total)`` is called after each
    survey is journaled (progress bars; tests interrupt a run from it).
    """
    out = Path(out)
    key = config.key(data.fingerprint)
    journal = JsonlJournal(journal_path(out))
    finished = {rec["survey_id"]: rec for rec in journal.read() if rec.get("config_key") == key}
    entries, failures = discover_passages(passage_dir)
    prepared: list[PreparedSurvey] = []
    for survey_id, path in entries:
        if survey_id in finished:
            continue
        try:
            prepared.append(prepare_survey(data, survey_id, path, config.protocol))
        except Exception as exc:  # noqa: BLE001 - any unreadable survey is reported, the run goes on
            failures.append({"survey_id": survey_id, "path": str(path), "error": f"{type(exc).__name__}: {exc}"})

    if prepared and "citation_accuracy" in config.metrics:
        nli = PrefetchedNLI(nli if nli is not None else nli_factory())
        nli.prefetch([
            pair for p in prepared
            for pair in accuracy_pairs(p.references, p.citations, p.papers, p.gt.survey_title, p.gt.all_cites, config.protocol)
        ])
    if prepared and "shr" in config.metrics:
        encoder = PrefetchedEncoder(encoder if encoder is not None else encoder_factory())
        encoder.prefetch([t for p in prepared for t in [*(s for s, _ in gt_content_sections(p.gt)), *p.parsed.heading_titles()]])

    total = len(finished) + len(prepared)
    for p in prepared:
        scored = score_survey(p, config, nli=nli, encoder=encoder, with_details=details_path is not None)
        record = {"survey_id": p.survey_id, "config_key": key, "path": str(p.path), **scored}
        journal.append(record)
        finished[p.survey_id] = record
        if on_survey_done:
            on_survey_done(p.survey_id, len(finished), total)

    surveys = {str(i): finished[i]["result"] for i in sorted(finished)}
    keys = [k for m in config.metrics for k in METRIC_KEYS[m]]
    average, counted = _average(surveys, keys)
    results = {
        "config": {
            **asdict(config),
            "data": str(data.path),
            "data_fingerprint": data.fingerprint,
            "passages": str(passage_dir),
            "versions": package_versions(),
        },
        "surveys": surveys,
        "average": average,
        "average_counts": counted,
        "failures": sorted(failures, key=lambda f: (f["survey_id"] is None, f["survey_id"] or 0, f["path"])),
    }
    if details_path is not None:
        lines = [json.dumps(d, ensure_ascii=False) for i in sorted(finished) for d in finished[i].get("details", [])]
        atomic_write_text(details_path, "\n".join(lines) + ("\n" if lines else ""))
    atomic_write_json(out, results)
    return results
