"""Metric functions over plain Python batches: what the ``evaluate`` modules in ``metrics/`` call.

Each takes one list entry per survey (predictions, references) and returns the mean over surveys plus
the per-survey values, with the same keys as ``surge evaluate``. Models are passed by name or path
(or injected, for tests), so an ``evaluate`` module stays a thin declaration over this code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .citations import accuracy_pairs, citation_accuracy, citation_recall
from .shr import soft_heading_recall


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(np.mean(present)) if present else None


def _check_lengths(predictions: Sequence[Any], references: Sequence[Any]) -> None:
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references: one of each per survey")


def batch_citation_recall(
    predictions: Sequence[Sequence[int | None]], references: Sequence[Sequence[int]], *, protocol: str = "official"
) -> dict[str, Any]:
    """predictions: resolved doc ids of each generated survey's references; references: GT ``all_cites``."""
    _check_lengths(predictions, references)
    values = [citation_recall(p, r, protocol=protocol) for p, r in zip(predictions, references, strict=True)]
    return {"recall": _mean(values), "per_survey": values}


def batch_shr(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    embedding_model: str = "BAAI/bge-large-en-v1.5",
    encoder: Any = None,
    device: str | None = None,
    batch_size: int = 64,
    cache_dir: Any = None,
) -> dict[str, Any]:
    """predictions: generated headings per survey; references: GT headings (sections with content)."""
    _check_lengths(predictions, references)
    encoder = _encoder(encoder, embedding_model, device, batch_size, cache_dir, "shr")
    values = [soft_heading_recall(list(r), list(p), encoder) for p, r in zip(predictions, references, strict=True)]
    return {"shr": _mean(values), "per_survey": values}


def batch_rouge_bleu(predictions: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> dict[str, Any]:
    """predictions: generated section texts (>= 100 chars) per survey; references: GT section texts."""
    from .rouge_bleu import rouge_bleu

    _check_lengths(predictions, references)
    per = [rouge_bleu(list(p), list(r)) for p, r in zip(predictions, references, strict=True)]
    out: dict[str, Any] = {k: _mean([v[k] for v in per]) for k in ("rouge1", "rouge2", "rougeL", "bleu")}
    out["per_survey"] = per
    return out


def batch_citation_accuracy(
    predictions: Sequence[str],
    references: Sequence[Mapping[str, Any]],
    *,
    data: str,
    protocol: str = "official",
    nli_model: str = "cross-encoder/nli-deberta-v3-base",
    nli: Any = None,
    device: str | None = None,
    batch_size: int = 32,
    cache_dir: Any = None,
) -> dict[str, Any]:
    """predictions: generated surveys as Markdown; references: ``{"survey_title", "all_cites"}`` of the GT.

    ``data`` is a built SurGE dataset (folder or Hub id) whose corpus resolves the reference titles.
    """
    from ..data.dataset import SurgeData
    from ..evaluation import PrefetchedNLI, resolve_citations
    from ..survey import parse_survey

    _check_lengths(predictions, references)
    corpus = SurgeData.open(data).corpus
    prepared = []
    for markdown, gt in zip(predictions, references, strict=True):
        refs, papers, citations = resolve_citations(parse_survey(markdown, protocol=protocol), corpus)
        prepared.append((refs, citations, papers, gt["survey_title"], gt["all_cites"]))
    pairs = [pair for args in prepared for pair in accuracy_pairs(*args, protocol)]
    if nli is None and pairs:  # the model is loaded only when some citation needs it
        from ..models.nli import NLIScorer

        nli = NLIScorer(nli_model, device=device, batch_size=batch_size, cache_dir=cache_dir,
                        needed_for=("citation_accuracy",), flag="nli_model=")
    if nli is not None:
        nli = PrefetchedNLI(nli)
        nli.prefetch(pairs)
    per = []
    for args in prepared:
        result = citation_accuracy(*args, nli, protocol=protocol)
        per.append({"doc_acc": result.doc_acc, "sec_acc": result.sec_acc, "sent_acc": result.sent_acc})
    out: dict[str, Any] = {k: _mean([v[k] for v in per]) for k in ("doc_acc", "sec_acc", "sent_acc")}
    out["per_survey"] = per
    return out


# ------------------------------------------------------------------------ LLM-judged and SurveyGen metrics


def _judge(
    judge: Any,
    *,
    base_url: str | None = None,
    judge_concurrency: int = 8,
    weighted: bool = False,
    max_tries: int = 3,
    timeout: float = 120.0,
    device: str | None = None,
    batch_size: int = 8,
    cache_dir: Any = None,
    style: str = "surge",
    **_unrelated: Any,
) -> Any:
    """A :class:`~surge_dataset.llm.Judge` from a spec string (or an injected judge, returned as is).

    Other keyword arguments are ignored here, in one place: ``evaluate.combine`` hands every module the
    compute kwargs of all combined modules.
    """
    if judge is None:
        raise ValueError("judge= is required: openai:<model>, hf:<model id or folder> or gguf:<file>")
    if not isinstance(judge, str):
        return judge
    from ..llm import Judge, make_llm

    llm = make_llm(judge, base_url=base_url, concurrency=judge_concurrency, timeout=timeout, device=device,
                   batch_size=batch_size, cache_dir=cache_dir)
    return Judge(llm, max_tries=max_tries, weighted=weighted, style=style)


def _surge_judge_style(protocol: str) -> str:
    """SQS/CQS under ``official`` use the released evaluator's judge settings (see ``llm.judge``)."""
    return "released" if protocol == "official" else "surge"


def _judged_summary(name: str, scores: Sequence[Any]) -> dict[str, Any]:
    return {
        name: _mean([s.value for s in scores]),
        f"{name}_weighted": _mean([s.weighted for s in scores]),
        "missing": sum(s.missing for s in scores),
        "per_survey": [s.value for s in scores],
        "per_survey_weighted": [s.weighted for s in scores],
        "diagnostics": [s.diagnostics for s in scores],
    }


def batch_sqs(predictions: Sequence[str], references: Sequence[str], *, judge: Any, protocol: str = "official",
              **judge_options: Any) -> dict[str, Any]:
    """predictions: generated surveys (Markdown); references: GT outlines (``judges.render_gt_outline``)."""
    from ..survey import parse_survey
    from .judges import sqs_request, structure_quality

    _check_lengths(predictions, references)
    judge = _judge(judge, style=_surge_judge_style(protocol), **judge_options)
    outlines = [parse_survey(p, protocol=protocol).heading_markdown() for p in predictions]
    judge.run([r for gt, gen in zip(references, outlines, strict=True) if (r := sqs_request(gt, gen)) is not None])
    return _judged_summary("sqs", [structure_quality(gt, gen, judge) for gt, gen in zip(references, outlines, strict=True)])


def batch_cqs(predictions: Sequence[str], *, judge: Any, protocol: str = "official", **judge_options: Any) -> dict[str, Any]:
    """predictions: generated surveys (Markdown); sections with >= 100 characters are sampled and judged."""
    from ..survey import parse_survey
    from .judges import CQS_MIN_CHARS, content_quality, cqs_requests

    judge = _judge(judge, style=_surge_judge_style(protocol), **judge_options)
    sections = [[n.content for n in parse_survey(p, protocol=protocol).content_sections(CQS_MIN_CHARS)] for p in predictions]
    judge.run([r for s in sections for r in cqs_requests(s)])
    return _judged_summary("cqs", [content_quality(s, judge) for s in sections])


def batch_rel_llm(predictions: Sequence[str], references: Sequence[Mapping[str, str]], *, judge: Any,
                  protocol: str = "official", **judge_options: Any) -> dict[str, Any]:
    """predictions: generated surveys (Markdown); references: ``{"title", "outline"}`` of each GT survey."""
    from ..survey import parse_survey
    from .judges import rel_llm, rel_llm_request

    _check_lengths(predictions, references)
    judge = _judge(judge, **judge_options)
    outlines = [parse_survey(p, protocol=protocol).heading_markdown() for p in predictions]
    pairs = list(zip(references, outlines, strict=True))
    judge.run([r for gt, gen in pairs if (r := rel_llm_request(gt["title"], gt["outline"], gen)) is not None])
    return _judged_summary("rel_llm", [rel_llm(gt["title"], gt["outline"], gen, judge) for gt, gen in pairs])


def batch_kpr(predictions: Sequence[str], references: Sequence[Mapping[str, str]], *, judge: Any,
              protocol: str = "official", **judge_options: Any) -> dict[str, Any]:
    """predictions: generated surveys (Markdown); references: ``{"title", "text"}`` of each GT survey."""
    from ..survey import parse_survey
    from .judges import generated_text, key_point_recall, kpr_check_requests, kpr_extract_request

    _check_lengths(predictions, references)
    judge = _judge(judge, **judge_options)
    texts = [generated_text(parse_survey(p, protocol=protocol)) for p in predictions]
    extractions = judge.run([kpr_extract_request(gt["title"], gt["text"]) for gt in references])
    judge.run([r for e, text in zip(extractions, texts, strict=True) if e.points for r in kpr_check_requests(e.points, text)])
    scores = [key_point_recall(gt["title"], gt["text"], text, judge) for gt, text in zip(references, texts, strict=True)]
    out = _judged_summary("kpr", scores)
    del out["kpr_weighted"], out["per_survey_weighted"]
    return out


def batch_citation_prf(predictions: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> dict[str, Any]:
    """predictions: generated reference titles per survey; references: the GT's cited titles."""
    from .surveygen_metrics import citation_prf

    _check_lengths(predictions, references)
    per = [citation_prf(list(p), list(r)) for p, r in zip(predictions, references, strict=True)]
    return {"precision": _mean([v["precision"] for v in per]), "recall": _mean([v["recall"] for v in per]),
            "f1": _mean([v["f1"] for v in per]), "per_survey": per}


def _encoder(encoder: Any, embedding_model: str, device: str | None, batch_size: int, cache_dir: Any, metric: str) -> Any:
    if encoder is not None:
        return encoder
    from ..models.embed import Embedder

    return Embedder(embedding_model, device=device, batch_size=batch_size, cache_dir=cache_dir,
                    needed_for=(metric,), flag="embedding_model=")


def batch_structure_overlap(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    embedding_model: str = "BAAI/bge-large-en-v1.5",
    encoder: Any = None,
    device: str | None = None,
    batch_size: int = 64,
    cache_dir: Any = None,
) -> dict[str, Any]:
    """predictions / references: top-level section titles of the generated / GT survey (non-content ones
    are removed here)."""
    from .surveygen_metrics import is_non_content_section, structure_overlap

    _check_lengths(predictions, references)
    encoder = _encoder(encoder, embedding_model, device, batch_size, cache_dir, "structure_overlap")
    keep = lambda titles: [t for t in titles if not is_non_content_section(t)]  # noqa: E731
    values = [structure_overlap(keep(r), keep(p), encoder) for p, r in zip(predictions, references, strict=True)]
    return {"structure_overlap": _mean(values), "per_survey": values}


def batch_sim(
    predictions: Sequence[str],
    references: Sequence[str],
    *,
    embedding_model: str = "BAAI/bge-large-en-v1.5",
    encoder: Any = None,
    device: str | None = None,
    batch_size: int = 64,
    cache_dir: Any = None,
) -> dict[str, Any]:
    """predictions / references: generated / GT surveys as Markdown; cosine of mean chunk embeddings."""
    from ..survey import parse_survey
    from .surveygen_metrics import generated_chunks, survey_similarity

    _check_lengths(predictions, references)
    encoder = _encoder(encoder, embedding_model, device, batch_size, cache_dir, "sim")
    values = [
        survey_similarity(generated_chunks(parse_survey(r, protocol="paper")), generated_chunks(parse_survey(p, protocol="paper")), encoder)
        for p, r in zip(predictions, references, strict=True)
    ]
    return {"sim": _mean(values), "per_survey": values}
