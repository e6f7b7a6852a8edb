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
import os
import platform
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from . import peer_metrics as peer
from .data.corpus import Corpus
from .data.dataset import SurgeData
from .filters import SurveyFilter, split_entries
from .io import JsonlJournal, atomic_write_json, atomic_write_text
from .records import Paper, Survey
from .scoring.citations import CitationInstance, accuracy_pairs, citation_accuracy, citation_recall
from .scoring.shr import soft_heading_recall
from .survey import GeneratedSurvey, parse_survey, read_survey_file

DEFAULT_NLI_MODEL = "cross-encoder/nli-deberta-v3-base"
DEFAULT_EMBEDDING_MODEL = "BAAI/bge-large-en-v1.5"
GT_CONTENT_MIN_CHARS = 100
#: Metric groups that need the sentence embedder.
EMBEDDING_METRICS = ("shr", "structure_overlap", "sim", "heading_soft_recall")

#: metric group -> the result keys it produces (keys used everywhere: results, reports, modules).
METRIC_KEYS: dict[str, tuple[str, ...]] = {
    "recall": ("recall",),
    "citation_accuracy": ("doc_acc", "sec_acc", "sent_acc"),
    "shr": ("shr",),
    "rouge_bleu": ("rouge1", "rouge2", "rougeL", "bleu"),
    # LLM-judged SurGE metrics (need --judge)
    "sqs": ("sqs",),
    "cqs": ("cqs",),
    # SurveyGen metrics (protocol.md §8)
    "citation_prf": ("cite_precision", "cite_recall", "cite_f1"),
    "structure_overlap": ("structure_overlap",),
    "sim": ("sim",),
    "rel_llm": ("rel_llm",),
    "kpr": ("kpr",),
    # metrics of peer benchmarks (ALCE, STORM): surge_dataset/peer_metrics.py
    **peer.PEER_METRIC_KEYS,
}
#: What 'all' means without a judge: the four objective SurGE metric groups (also the config default).
ALL_METRICS = ("recall", "citation_accuracy", "shr", "rouge_bleu")
#: Groups that need an LLM judge; 'all' adds the SurGE ones when a judge is given.
JUDGE_METRICS = ("sqs", "cqs", "rel_llm", "kpr")
SURGE_JUDGE_METRICS = ("sqs", "cqs")
#: The 'surveygen' alias: SurveyGen's metrics (the judged ones only with a judge).
SURVEYGEN_METRICS = ("citation_prf", "structure_overlap", "sim", "rel_llm", "kpr")
#: Judged groups that also get a probability-weighted key with --judge-weighted.
WEIGHTED_KEYS = {"sqs": "sqs_weighted", "cqs": "cqs_weighted", "rel_llm": "rel_llm_weighted"}
_ALIASES = {"all": (*ALL_METRICS, *SURGE_JUDGE_METRICS), "surveygen": SURVEYGEN_METRICS}


def _metric_names(text: str | Sequence[str]) -> list[str]:
    return [t.strip() for t in (text.split(",") if isinstance(text, str) else text) if t.strip()]


def parse_metrics(text: str | Sequence[str], *, judge: bool = False) -> list[str]:
    """'recall,shr', 'all' or 'surveygen' -> validated metric group names, in canonical order.

    Aliases drop the judged groups when there is no judge (see :func:`skipped_without_judge`); naming
    a judged group explicitly without a judge is an error.
    """
    names = _metric_names(text)
    chosen: set[str] = set()
    for name in names:
        if name in _ALIASES:
            chosen.update(m for m in _ALIASES[name] if judge or m not in JUDGE_METRICS)
        elif name in METRIC_KEYS:
            if name in JUDGE_METRICS and not judge:
                raise ValueError(f"metric {name!r} needs an LLM judge: pass --judge (e.g. openai:gpt-4o)")
            chosen.add(name)
        else:
            raise ValueError(f"unknown metric(s) {[name]}; choose from {', '.join(METRIC_KEYS)}, 'all' or 'surveygen'")
    return [m for m in METRIC_KEYS if m in chosen]


def skipped_without_judge(text: str | Sequence[str]) -> list[str]:
    """Judged groups an alias would have included had a judge been given (for a note to the user)."""
    names = _metric_names(text)
    return [m for m in METRIC_KEYS if m in JUDGE_METRICS and any(m in _ALIASES.get(n, ()) for n in names)]


def result_keys(config: EvaluationConfig) -> list[str]:
    """The per-survey result keys a configuration produces (weighted keys only with judge_weighted)."""
    keys = [k for m in config.metrics for k in METRIC_KEYS[m]]
    if config.judge_weighted:
        keys += [WEIGHTED_KEYS[m] for m in config.metrics if m in WEIGHTED_KEYS]
    return keys


AGGREGATIONS = ("released", "defined")
#: Keys that ``--aggregate released`` scores 0 when undefined: the released evaluator's objective
#: metrics. A judged score that stays missing after every try is left out under both aggregations
#: (the released judge loop would keep asking; it has no value to compare with).
RELEASED_ZERO_KEYS = frozenset(k for m in ALL_METRICS for k in METRIC_KEYS[m])
DTYPES = ("auto", "fp32", "fp16", "bf16")
#: Metric groups whose numbers depend on a model's device and precision (NLI or embedder).
MODEL_METRICS = ("citation_accuracy", "alce", "heading_entity_recall", *EMBEDDING_METRICS)


@dataclass
class EvaluationConfig:
    """Everything that changes the numbers (recorded in the results and used as the journal key).

    ``aggregate``: ``released`` scores an undefined value 0 (Doc-Acc without reference entries,
    Sec/Sent-Acc without citations, SHR with a zero denominator, ...) and averages over every survey
    folder, failed ones counted 0, as the released evaluator's mean does; ``defined`` leaves undefined
    values out of the mean and counts them. Default: ``released`` under ``official``, else ``defined``.
    ``dtype``: the models' compute precision; default ``fp32`` under ``official`` (what the released
    evaluator ran), ``auto`` (fp16 on CUDA) otherwise. ``device``: where the models run (resolved
    before any model loads). Both enter the journal key when a model metric is requested, so a resumed
    run never mixes precisions or devices.
    """

    metrics: list[str] = field(default_factory=lambda: list(ALL_METRICS))
    protocol: str = "official"
    aggregate: str | None = None
    nli_model: str = DEFAULT_NLI_MODEL
    embedding_model: str = DEFAULT_EMBEDDING_MODEL
    dtype: str | None = None
    #: The embedder's precision; default ``auto`` (the released evaluator's FlagModel runs fp16 on CUDA).
    embedding_dtype: str | None = None
    device: str | None = None
    #: LLM judge spec (``openai:gpt-4o``, ``hf:...``, ``gguf:...``); None = no judged metric.
    judge: str | None = None
    judge_weighted: bool = False
    judge_max_tries: int = 3
    #: ``released`` (default under ``official``): the released evaluator's judge settings, see
    #: ``surge_dataset.llm.judge``; ``surge`` otherwise. Prompt wording is ours in both.
    judge_style: str | None = None
    #: Version of ``surge_dataset.prompts`` the judge saw (filled in when a judge is set).
    prompts_version: str | None = None
    #: ALCE's entailment decisions: ``nli`` (the cross-encoder) or ``judge`` (the LLM judge as NLI).
    alce_backend: str = "nli"
    #: NER model of the heading entity recall (STORM's metric).
    ner_model: str = peer.DEFAULT_NER_MODEL
    #: Survey filters (surge_dataset/filters.py); the defaults keep every survey.
    min_cites: int = 0
    exclude_empty: bool = False

    def __post_init__(self) -> None:
        if self.aggregate is None:
            self.aggregate = "released" if self.protocol == "official" else "defined"
        if self.aggregate not in AGGREGATIONS:
            raise ValueError(f"aggregate must be one of {', '.join(AGGREGATIONS)}, not {self.aggregate!r}")
        if self.dtype is None:
            self.dtype = "fp32" if self.protocol == "official" else "auto"
        if self.embedding_dtype is None:
            self.embedding_dtype = "auto" if self.protocol == "official" else self.dtype
        for name in ("dtype", "embedding_dtype"):
            if getattr(self, name) not in DTYPES:
                raise ValueError(f"{name} must be one of {', '.join(DTYPES)}, not {getattr(self, name)!r}")
        if self.judge_style is None:
            self.judge_style = "released" if self.protocol == "official" else "surge"
        if self.judge and self.prompts_version is None:
            from .prompts import PROMPTS_VERSION

            self.prompts_version = PROMPTS_VERSION

    def key(self, data_fingerprint: str) -> str:
        payload = asdict(self)
        if not self.judge:  # journals written before judges existed keep their key
            for name in _JUDGE_FIELDS:
                payload.pop(name)
        if not any(m in MODEL_METRICS for m in self.metrics):  # precision cannot change these numbers
            for name in ("dtype", "embedding_dtype", "device"):
                payload.pop(name)
        for name, default in peer.PEER_CONFIG_DEFAULTS.items():  # fields added later: old keys stay valid
            if payload.get(name) == default:
                payload.pop(name)
        payload = json.dumps({**payload, "data": data_fingerprint}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


_JUDGE_FIELDS = ("judge", "judge_weighted", "judge_max_tries", "judge_style", "prompts_version")


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
    gt_titles: list[str] = field(default_factory=list)  # corpus titles of GT all_cites (SurveyGen's R_H)


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("surge-bench", "torch", "transformers", "sentence-transformers", "rouge-score", "sacrebleu"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


# ------------------------------------------------------------------------------------------ discovery


def discover_passages(
    passage_dir: str | Path, protocol: str = "official"
) -> tuple[list[tuple[int, Path]], list[dict[str, Any]]]:
    """``DIR/<survey_id>/<file>`` entries, and a failure record for every entry that cannot be used.

    With several files in a folder the one ending in ``.md`` is taken (the released evaluator's rule).
    With several ``.md`` files, ``official`` takes the first one the file system lists, as the released
    evaluator does (``os.listdir`` order); ``paper`` refuses to guess and reports the folder.
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
        elif markdown and protocol == "official":
            first = next(entry / name for name in os.listdir(entry) if name.endswith(".md") and (entry / name).is_file()
                         and not name.startswith("."))
            found.append((int(entry.name), first))
        else:
            failures.append(
                {"survey_id": int(entry.name), "path": str(entry),
                 "error": f"{len(files)} files and {len(markdown)} ending in .md: cannot tell which is the survey"}
            )
    return found, failures


def resolve_citations(
    parsed: GeneratedSurvey, corpus: Corpus
) -> tuple[dict[int, int | None], dict[int, Paper], list[CitationInstance]]:
    """Reference number -> resolved doc id, the resolved papers by id, and the citation instances."""
    numbers = list(parsed.references)
    titles = [parsed.references[n].title for n in numbers]
    # the released evaluator's dict also "resolves" a letterless title (see Corpus.resolve_rows)
    resolved = corpus.resolve(titles, empty_matches=parsed.protocol == "official") if numbers else []
    papers = {p.doc_id: p for p in corpus.get(sorted({d for d in resolved if d is not None})) if p is not None}
    citations = [CitationInstance(c.number, c.node_title, c.sentence) for c in parsed.citations]
    return dict(zip(numbers, resolved, strict=True)), papers, citations


def prepare_survey(data: SurgeData, survey_id: int, path: Path, protocol: str) -> PreparedSurvey:
    """Read, parse and resolve one generated survey (raises on unreadable files or unknown ids)."""
    if not data.has_survey(survey_id):
        raise KeyError(f"survey id {survey_id} has no ground truth in the dataset")
    gt = data.survey(survey_id)
    text, read_diagnostics = read_survey_file(path)
    parsed = parse_survey(text, protocol=protocol)
    references, papers, citations = resolve_citations(parsed, data.corpus)
    return PreparedSurvey(
        survey_id=survey_id, path=path, gt=gt, parsed=parsed, references=references, papers=papers,
        citations=citations, read_diagnostics=[asdict(d) for d in read_diagnostics],
        gt_titles=[p.title for p in data.corpus.get(list(gt.all_cites)) if p is not None],
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
    judge: Any = None,
    ner: Any = None,
    with_details: bool = False,
) -> dict[str, Any]:
    """All requested metrics of one prepared survey -> the result record written to the journal."""
    gt = prepared.gt
    result: dict[str, Any] = {}
    diagnostics = list(prepared.read_diagnostics) + [asdict(d) for d in prepared.parsed.diagnostics]
    details: list[dict[str, Any]] = []
    if "recall" in config.metrics:
        result["recall"] = citation_recall(prepared.references.values(), gt.all_cites, protocol=config.protocol)
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
        result["shr"] = soft_heading_recall(
            [t for t, _ in gt_sections], prepared.parsed.heading_titles(), encoder, protocol=config.protocol
        )
    if "rouge_bleu" in config.metrics:
        from .scoring.rouge_bleu import rouge_bleu

        generated = [n.content for n in prepared.parsed.content_sections(GT_CONTENT_MIN_CHARS)]
        values = rouge_bleu(generated, [c for _, c in gt_sections])
        result.update({k: values[k] for k in ("rouge1", "rouge2", "rougeL", "bleu")})
    extra_counts = _surveygen_and_judged(prepared, config, result, diagnostics, encoder=encoder, judge=judge)
    extra_counts.update(peer.score_peer(prepared, config, result, diagnostics, details, nli=nli, judge=judge,
                                        encoder=encoder, ner=ner, with_details=with_details))
    if config.aggregate == "released":
        undefined = [k for k in result_keys(config) if k in RELEASED_ZERO_KEYS and k in result and result[k] is None]
        for key in undefined:
            result[key] = 0.0
        if undefined:
            diagnostics.append({"code": "undefined_scored_zero", "line": None,
                                "message": f"{', '.join(undefined)} undefined for this survey: scored 0 "
                                           "(--aggregate released, as the released evaluator does)"})
    result["counts"] = {**survey_counts(prepared), **extra_counts}
    result["diagnostics"] = diagnostics
    for record in details:
        record["survey_id"] = prepared.survey_id
    return {"result": result, "details": details}


def _surveygen_and_judged(
    prepared: PreparedSurvey,
    config: EvaluationConfig,
    result: dict[str, Any],
    diagnostics: list[dict[str, Any]],
    *,
    encoder: Any,
    judge: Any,
) -> dict[str, int]:
    """SurveyGen's metrics and the LLM-judged ones; returns the judge counts for ``counts``."""
    from .scoring import judges as judged
    from .scoring import surveygen_metrics as sg

    gt, parsed = prepared.gt, prepared.parsed
    counts: dict[str, int] = {}
    if "citation_prf" in config.metrics:
        prf = sg.citation_prf([r.title for r in parsed.references.values()], prepared.gt_titles)
        result.update(cite_precision=prf["precision"], cite_recall=prf["recall"], cite_f1=prf["f1"])
        counts["cite_matched"] = int(prf["matched"] or 0)
        if prf["recall"] is None:
            diagnostics.append({"code": "gt_without_titles", "message": "no GT cited paper has a title in the corpus: citation P/R/F1 undefined", "line": None})
    if "structure_overlap" in config.metrics:
        result["structure_overlap"] = sg.structure_overlap(sg.gt_top_level(gt), sg.generated_top_level(parsed), encoder)
    if "sim" in config.metrics:
        result["sim"] = sg.survey_similarity(sg.gt_chunks(gt), sg.generated_chunks(parsed), encoder)
    if not any(m in JUDGE_METRICS for m in config.metrics):
        return counts
    gt_outline, generated_outline = judged.render_gt_outline(gt), parsed.heading_markdown()
    scores = {}
    if "sqs" in config.metrics:
        scores["sqs"] = judged.structure_quality(gt_outline, generated_outline, judge)
    if "cqs" in config.metrics:
        scores["cqs"] = judged.content_quality([n.content for n in parsed.content_sections(judged.CQS_MIN_CHARS)], judge)
    if "rel_llm" in config.metrics:
        scores["rel_llm"] = judged.rel_llm(gt.survey_title, gt_outline, generated_outline, judge)
    if "kpr" in config.metrics:
        scores["kpr"] = judged.key_point_recall(gt.survey_title, judged.gt_text(gt), judged.generated_text(parsed), judge)
    for name, score in scores.items():
        result[name] = score.value
        if config.judge_weighted and name in WEIGHTED_KEYS:
            result[WEIGHTED_KEYS[name]] = score.weighted
        counts[f"{name}_judged"] = score.items
        counts[f"{name}_missing"] = score.missing
        if score.failed:
            counts[f"{name}_failed"] = score.failed
        diagnostics.extend(score.diagnostics)
    return counts


def judge_requests(prepared: PreparedSurvey, config: EvaluationConfig) -> list[Any]:
    """Every first-stage judge request of one survey (KPR's checks depend on the extraction's answer)."""
    from .scoring import judges as judged

    gt, parsed = prepared.gt, prepared.parsed
    gt_outline, generated_outline = judged.render_gt_outline(gt), parsed.heading_markdown()
    requests: list[Any] = []
    if "sqs" in config.metrics:
        requests.append(judged.sqs_request(gt_outline, generated_outline))
    if "cqs" in config.metrics:
        requests += judged.cqs_requests([n.content for n in parsed.content_sections(judged.CQS_MIN_CHARS)])
    if "rel_llm" in config.metrics:
        requests.append(judged.rel_llm_request(gt.survey_title, gt_outline, generated_outline))
    if "kpr" in config.metrics:
        requests.append(judged.kpr_extract_request(gt.survey_title, judged.gt_text(gt)))
    return [r for r in requests if r is not None]


def prefetch_judge(prepared: Sequence[PreparedSurvey], config: EvaluationConfig, judge: Any) -> None:
    """Ask the judge every question of the run in (at most) two concurrent/batched rounds."""
    from .scoring import judges as judged

    judge.run([r for p in prepared for r in judge_requests(p, config)])
    if "kpr" in config.metrics:
        checks = []
        for p in prepared:
            extraction = judge.run([judged.kpr_extract_request(p.gt.survey_title, judged.gt_text(p.gt))])[0]
            if extraction.points:
                checks += judged.kpr_check_requests(extraction.points, judged.generated_text(p.parsed))
        judge.run(checks)


def encoder_texts(prepared: PreparedSurvey, config: EvaluationConfig) -> list[str]:
    """Every text a survey's embedding-based metrics will encode (prefetched for the whole run)."""
    from .scoring import surveygen_metrics as sg

    texts: list[str] = []
    if "shr" in config.metrics:
        texts += [*(s for s, _ in gt_content_sections(prepared.gt)), *prepared.parsed.heading_titles()]
    if "structure_overlap" in config.metrics:
        texts += [*sg.gt_top_level(prepared.gt), *sg.generated_top_level(prepared.parsed)]
    if "sim" in config.metrics:
        texts += [*sg.gt_chunks(prepared.gt), *sg.generated_chunks(prepared.parsed)]
    texts += peer.peer_encoder_texts(prepared, config)
    return texts


class _Prefetched:
    """Computes every input of a run in one de-duplicated call, then serves rows from memory.

    The backends already batch, length-sort and cache on disk; asking them once per run (instead of
    once per survey) lets one sort cover all surveys and skips repeated cache look-ups.
    """

    def __init__(self, compute: Any, width: int = 0):
        self._compute = compute
        self._width = width
        self._memo: dict[Any, np.ndarray] = {}

    def prefetch(self, items: Sequence[Any]) -> None:
        todo = list(dict.fromkeys(item for item in items if item not in self._memo))
        if todo:
            for item, row in zip(todo, np.asarray(self._compute(todo)), strict=True):
                self._memo[item] = row

    def _rows(self, items: Sequence[Any]) -> np.ndarray:
        self.prefetch(items)
        return np.stack([self._memo[i] for i in items]) if items else np.zeros((0, self._width))


class PrefetchedNLI(_Prefetched):
    """NLI logits for all (first, second) pairs of a run."""

    def __init__(self, backend: Any):
        super().__init__(backend.logits, width=3)
        self.backend = backend

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return self._rows(pairs)


class PrefetchedEncoder(_Prefetched):
    """Embeddings for all headings/sections of a run (SHR, structure overlap, sim)."""

    def __init__(self, backend: Any):
        super().__init__(backend.encode)
        self.backend = backend

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._rows(texts)


# ------------------------------------------------------------------------------------------ the run


def _average(
    surveys: dict[str, dict[str, Any]], keys: Sequence[str], aggregate: str = "defined", failed_folders: int = 0
) -> tuple[dict[str, float | None], dict[str, int]]:
    """Mean over surveys of each metric (protocol.md §4) and the number of surveys each mean is over.

    ``defined``: undefined (None) values are left out. ``released``: for the objective metrics
    (:data:`RELEASED_ZERO_KEYS`) the mean is over every survey folder, undefined values and
    ``failed_folders`` (survey folders that could not be evaluated) counted 0.
    """
    average, counted = {}, {}
    for key in keys:
        values = [r[key] for r in surveys.values() if r.get(key) is not None]
        if aggregate == "released" and key in RELEASED_ZERO_KEYS:
            values += [0.0] * (len(surveys) - len(values) + failed_folders)
        average[key] = float(np.mean(values)) if values else None
        counted[key] = len(values)
    return average, counted


def _judge_failed(record: dict[str, Any]) -> bool:
    counts = record.get("result", {}).get("counts", {})
    return any(k.endswith("_failed") and v for k, v in counts.items())


def judge_report(judge: Any) -> dict[str, Any]:
    """What the judge did in this invocation (requests, cache hits, retries, missing), never secrets."""
    report: dict[str, Any] = {"spec": getattr(judge, "spec", None)}
    llm = getattr(judge, "llm", None)
    if llm is not None:
        from .llm.openai_backend import redact_url

        report["base_url"] = redact_url(getattr(llm.backend, "base_url", None))
        report["llm"] = llm.stats.as_dict()
    stats = getattr(judge, "stats", None)
    if stats is not None and hasattr(stats, "as_dict"):
        report["judge"] = stats.as_dict()
    return report


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
    judge: Any = None,
    judge_factory: Callable[[], Any] | None = None,
    ner: Any = None,
    ner_factory: Callable[[], Any] | None = None,
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
    # A survey whose judge requests failed in transport is scored again (its answered requests are cached).
    finished = {rec["survey_id"]: rec for rec in journal.read()
                if rec.get("config_key") == key and not _judge_failed(rec)}
    entries, failures = discover_passages(passage_dir, config.protocol)
    entries, excluded = split_entries(data, entries, SurveyFilter(config.min_cites, config.exclude_empty))
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
    if prepared and peer.needs_nli(config) and not isinstance(nli, PrefetchedNLI):
        nli = PrefetchedNLI(nli if nli is not None else nli_factory())
    if prepared and peer.needs_ner(config):
        ner = ner if ner is not None else ner_factory()
    if prepared and any(m in config.metrics for m in EMBEDDING_METRICS):
        encoder = PrefetchedEncoder(encoder if encoder is not None else encoder_factory())
        encoder.prefetch([t for p in prepared for t in encoder_texts(p, config)])
    if any(m in JUDGE_METRICS for m in config.metrics) or peer.needs_judge(config):
        if not config.judge and judge is None:
            raise ValueError(f"metrics {[m for m in config.metrics if m in JUDGE_METRICS or m == 'alce']} need a judge (config.judge)")
        if prepared:
            if judge is None and judge_factory is None:
                raise ValueError("judged metrics need judge= or judge_factory=")
            judge = judge if judge is not None else judge_factory()
            prefetch_judge(prepared, config, judge)

    peer.prefetch_peer(prepared, config, nli=nli, judge=judge, ner=ner)
    total = len(finished) + len(prepared)
    for p in prepared:
        scored = score_survey(p, config, nli=nli, encoder=encoder, judge=judge, ner=ner,
                              with_details=details_path is not None)
        record = {"survey_id": p.survey_id, "config_key": key, "path": str(p.path), **scored}
        journal.append(record)
        finished[p.survey_id] = record
        if on_survey_done:
            on_survey_done(p.survey_id, len(finished), total)

    surveys = {str(i): finished[i]["result"] for i in sorted(finished)}
    failed_folders = len({f["survey_id"] for f in failures if f["survey_id"] is not None} - set(finished))
    average, counted = _average(surveys, result_keys(config), config.aggregate, failed_folders)
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
        "excluded": excluded,  # surveys the filters (--min-cites, --exclude-empty) left out, with the reason
    }
    if judge is not None:
        results["judge"] = judge_report(judge)
    if details_path is not None:
        lines = [json.dumps(d, ensure_ascii=False) for i in sorted(finished) for d in finished[i].get("details", [])]
        atomic_write_text(details_path, "\n".join(lines) + ("\n" if lines else ""))
    atomic_write_json(out, results)
    return results
