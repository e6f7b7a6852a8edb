"""Any registered metric on raw inputs: generated Markdown plus the GT survey (id or record).

The plain-Python face of every metric, and what every ``evaluate`` module in ``metrics/`` calls. It
runs the same preparation, model prefetching and scoring as ``surge evaluate`` (one engine), without
the journal and files:

>>> from surge_dataset.evaluation import compute
>>> compute("rouge_bleu", predictions=[markdown], references=[gt_record])          # doctest: +SKIP
>>> compute(["recall", "citation_accuracy"], [markdown], [0], data="surge")          # doctest: +SKIP
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..records import Survey
from .config import EvaluationConfig, result_keys, selected_metrics
from .metric import needed_models
from .models import build_models, model_factories
from .prepare import prepare_text
from .runner import average, prefetch_all, score_survey

__all__ = ["compute", "gt_survey"]


def gt_survey(reference: Any, data: Any = None) -> Survey:
    """A GT survey from a survey id (needs ``data``), an official ``surveys.json`` record, or its JSON text."""
    if isinstance(reference, Survey):
        return reference
    if isinstance(reference, str):
        text = reference.strip()
        reference = int(text) if text.isdigit() else json.loads(text)
    if isinstance(reference, bool) or not isinstance(reference, int | Mapping):
        raise TypeError(f"a reference is a GT survey id, record or record JSON, not {type(reference).__name__}")
    if isinstance(reference, int):
        if data is None:
            raise ValueError(f"reference {reference} is a survey id: pass data= (a built dataset folder or Hub id)")
        if not data.has_survey(reference):
            raise KeyError(f"survey id {reference} has no ground truth in {data.path}")
        return data.survey(reference)
    return Survey.from_official(reference)


def compute(
    metrics: str | Sequence[str],
    predictions: Sequence[str],
    references: Sequence[Any],
    *,
    data: Any = None,
    protocol: str = "official",
    aggregate: str | None = None,
    nli_model: str | None = None,
    embedding_model: str | None = None,
    ner_model: str | None = None,
    judge: Any = None,
    judge_weighted: bool = False,
    judge_max_tries: int = 3,
    judge_repeats: int = 1,
    judge_temperature: float | None = None,
    alce_backend: str = "nli",
    base_url: str | None = None,
    judge_concurrency: int = 8,
    judge_timeout: float = 120.0,
    judge_batch_size: int = 8,
    device: str | None = None,
    dtype: str | None = None,
    batch_size: int = 32,
    cache_dir: Any = None,
    nli: Any = None,
    encoder: Any = None,
    ner: Any = None,
) -> dict[str, Any]:
    """Score ``predictions`` (generated surveys as Markdown) against ``references`` (one GT each).

    ``metrics``: a registered name, a comma list or a list. ``data``: a built dataset (folder, Hub id
    or ``SurgeData``) whose corpus resolves reference titles and whose surveys answer survey ids; the
    metrics that need a corpus (``recall``, ``citation_accuracy``, ...) require it. Models are given
    by name (``nli_model``, ``embedding_model``, ``ner_model``, ``judge="openai:gpt-4o"``) or as
    objects (``nli=``, ``encoder=``, ``ner=``, ``judge=`` a ``Judge``). ``judge_repeats=K`` asks every judged
    question K times (mean and ``<key>_std`` per survey; see ``surge evaluate --judge-repeats``). Unknown
    keywords are an error.

    Returns the mean of every key over the surveys (``--aggregate`` rules), ``per_survey`` (one dict of
    values per prediction), ``counts`` and ``diagnostics`` (one list per prediction), ``average_counts``.
    """
    from ..data.dataset import SurgeData
    from ..models.base import resolve_device

    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references: one of each per survey")
    names = [m.strip() for m in metrics.split(",")] if isinstance(metrics, str) else list(metrics)
    judge_spec = judge if isinstance(judge, str) else (getattr(judge, "spec", None) or ("injected" if judge else None))
    config = EvaluationConfig(
        metrics=names, protocol=protocol, aggregate=aggregate, dtype=dtype, embedding_dtype=dtype,
        device=resolve_device(device) if nli is None or encoder is None or ner is None else device,
        judge=judge_spec, judge_weighted=judge_weighted, judge_max_tries=judge_max_tries, judge_repeats=judge_repeats,
        judge_temperature=judge_temperature, alce_backend=alce_backend,
        **{k: v for k, v in (("nli_model", nli_model), ("embedding_model", embedding_model), ("ner_model", ner_model))
           if v is not None},
    )
    chosen = selected_metrics(config)
    if isinstance(data, str) or hasattr(data, "__fspath__"):
        data = SurgeData.open(data)
    corpus_needed = [m.name for m in chosen if "corpus" in m.active_needs(config)]
    if corpus_needed and data is None:
        raise ValueError(f"{', '.join(corpus_needed)} resolve reference titles against the corpus: pass data= "
                         "(a built SurGE dataset folder or Hub id)")
    corpus = data.corpus if data is not None else None
    prepared = [prepare_text(text, gt_survey(ref, data), corpus, config.protocol, survey_id=i)
                for i, (text, ref) in enumerate(zip(predictions, references, strict=True))]
    factories = model_factories(config, batch_size=batch_size, cache_dir=cache_dir, base_url=base_url,
                                judge_concurrency=judge_concurrency, judge_timeout=judge_timeout,
                                judge_batch_size=judge_batch_size)
    given = {"nli": nli, "encoder": encoder, "judge": None if isinstance(judge, str) else judge, "ner": ner}
    models = build_models(needed_models(chosen, config) if prepared else set(), given, factories)
    prefetch_all(prepared, models, config)
    records = [score_survey(p, config, models)["result"] for p in prepared]
    means, counted = average({str(i): r for i, r in enumerate(records)}, config)
    keys = result_keys(config)
    return {
        **means,
        "per_survey": [{k: r.get(k) for k in keys} for r in records],
        "counts": [r["counts"] for r in records],
        "diagnostics": [r["diagnostics"] for r in records],
        "average_counts": counted,
    }
