"""Any registered metric on raw inputs: generated Markdown plus the GT survey (id or record).

The plain-Python face of every metric, and what every ``evaluate`` module in ``metrics/`` calls. It
runs the same preparation, model prefetching and scoring as ``surge evaluate`` (one engine), without
the journal and files:

>>> from surge_dataset.evaluation import compute
>>> compute("rouge_bleu", predictions=[markdown], references=[gt_record])          # doctest: +SKIP
>>> compute(["recall", "citation_accuracy"], [markdown], [0], data="surge")          # doctest: +SKIP
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from typing import Any

from surge_dataset.core.records import Survey
from surge_dataset.core.settings import keyword_parameters, split_keywords
from surge_dataset.core.vocabulary import ENCODER, NER, NLI, parse_list
from surge_dataset.evaluation.config import EvaluationConfig, result_keys, selected_metrics
from surge_dataset.evaluation.run_options import RunOptions

__all__ = ["NOT_KEYWORDS", "compute", "gt_survey", "inputs_description"]


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


#: Settings ``compute`` takes as arguments of their own (``metrics``, ``judge``) or not at all: the survey
#: filters choose the folders of a ``surge evaluate`` run, while ``compute`` scores what it is given.
NOT_KEYWORDS = ("metrics", "judge", "min_cites", "exclude_empty")


def compute(
    metrics: str | Sequence[str],
    predictions: Sequence[str],
    references: Sequence[Any],
    *,
    data: Any = None,
    judge: Any = None,
    nli: Any = None,
    encoder: Any = None,
    ner: Any = None,
    **settings: Any,
) -> dict[str, Any]:
    """Score ``predictions`` (generated surveys as Markdown) against ``references`` (one GT each).

    ``metrics``: a registered name, a comma list or a list. ``data``: a built dataset (folder, Hub id
    or ``SurgeData``) whose corpus resolves reference titles and whose surveys answer survey ids; the
    metrics that need a corpus (``recall``, ``citation_accuracy``, ...) require it. Models are given
    by name (``nli_model=``, ``embedding_model=``, ``ner_model=``, ``judge="openai:gpt-4o"``) or as
    objects (``nli=``, ``encoder=``, ``ner=``, ``judge=`` a ``Judge``). ``settings``: every exposed
    field of :class:`~surge_dataset.evaluation.EvaluationConfig` and
    :class:`~surge_dataset.evaluation.RunOptions` (the signature lists them; ``dtype`` sets the
    embedder's precision too, as ``--dtype`` does). Unknown keywords are an error naming the closest one.

    Returns the mean of every key over the surveys (``aggregate`` rules), ``per_survey`` (one dict of
    values per prediction), ``counts`` and ``diagnostics`` (one list per prediction), ``average_counts``.
    """
    return compute_reusing(None, metrics, predictions, references, data=data, judge=judge, nli=nli, encoder=encoder,
                           ner=ner, **settings)


def compute_reusing(
    loaded: dict[tuple[str, ...], Any] | None,
    metrics: str | Sequence[str],
    predictions: Sequence[str],
    references: Sequence[Any],
    **arguments: Any,
) -> dict[str, Any]:
    """:func:`compute` (its keywords in ``arguments``), the local models it builds kept in ``loaded`` (a dict its
    caller keeps) and taken from there by a later call with the same model, precision, device, batch size and
    cache: an ``evaluate`` module keeps one per instance, so that calling its ``compute`` again does not load the
    NLI model again."""
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.evaluation.session import EvaluationSession

    data, judge = arguments.pop("data", None), arguments.pop("judge", None)
    given = {kind: arguments.pop(kind, None) for kind in (NLI, ENCODER, NER)}
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references: one of each per survey")
    config_settings, run_settings = split_keywords(arguments, EvaluationConfig, RunOptions, where="compute()",
                                                   skip=NOT_KEYWORDS)
    judge_spec = judge if isinstance(judge, str) else (getattr(judge, "spec", None) or ("injected" if judge else None))
    config = EvaluationConfig.from_options(metrics=parse_list(metrics), judge=judge_spec, **config_settings,
                                           resolve_device=None in given.values())
    # a dataset named by folder or Hub id is opened here, so closed here: no file left to the garbage collector
    named = isinstance(data, str) or hasattr(data, "__fspath__")
    with (SurgeData.open(data) if named else nullcontext(data)) as opened, EvaluationSession(
            config, RunOptions(**run_settings), data=opened, judge=None if isinstance(judge, str) else judge,
            shared_models=loaded, **given) as session:
        return _scored(session, predictions, references)


def _scored(session: Any, predictions: Sequence[str], references: Sequence[Any]) -> dict[str, Any]:
    """``compute``'s result: the predictions prepared, prefetched and scored in ``session`` (one engine with
    ``surge evaluate``: :func:`~.runner.prefetch_all`, :func:`~.runner.score_survey`)."""
    from surge_dataset.evaluation.prepare import prepare_text
    from surge_dataset.evaluation.runner import average, prefetch_all, score_survey

    config, data = session.config, session.data
    chosen = selected_metrics(config)
    corpus_needed = [m.name for m in chosen if "corpus" in m.active_needs(config)]
    if corpus_needed and data is None:
        raise ValueError(f"{', '.join(corpus_needed)} resolve reference titles against the corpus: pass data= "
                         "(a built SurGE dataset folder or Hub id)")
    corpus = data.corpus if data is not None else None
    prepared = [prepare_text(text, gt_survey(ref, data), corpus, config.protocol, survey_id=i)
                for i, (text, ref) in enumerate(zip(predictions, references, strict=True))]
    prefetch_all(prepared, session)
    records = [score_survey(p, session)["result"] for p in prepared]
    means, counted = average({str(i): r for i, r in enumerate(records)}, config)
    keys = result_keys(config)
    return {
        **means,
        "per_survey": [{k: r.get(k) for k in keys} for r in records],
        "counts": [r["counts"] for r in records],
        "diagnostics": [r["diagnostics"] for r in records],
        "average_counts": counted,
    }


compute.__signature__ = inspect.signature(compute).replace(parameters=[  # type: ignore[attr-defined]
    *(p for p in inspect.signature(compute).parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD),
    *keyword_parameters(EvaluationConfig, RunOptions, skip=NOT_KEYWORDS),
])


def inputs_description() -> str:
    """The ``Args:`` / ``Returns:`` text of every ``evaluate`` module and card, read off the settings
    declarations (``describe``), so a new setting shows up in every card with no edit."""
    from surge_dataset.core.settings import describe

    return f"""
Args:
    predictions (list of str): generated surveys as Markdown (``#`` headings, ``[n]`` citations, a
        ``[n] <title>`` reference list): the files ``surge evaluate`` reads.
    references (list of int or str): the ground truth of each prediction: its ``survey_id`` (with
        ``data=``) or its ``surveys.json`` record (a dict or its JSON text); one batch may mix them.
    data (str): a built SurGE dataset folder or Hub id; needed for survey ids and for the metrics that
        resolve reference titles against the corpus (recall, citation_accuracy, citation_prf, alce).
    judge (str): an LLM judge for the judged metrics: "openai:<model>", "hf:<model>" or "gguf:<file>".
{describe((EvaluationConfig, RunOptions), skip=NOT_KEYWORDS)}
    Unknown keyword arguments are an error.
Returns:
    one mean per result key of the metric (over the surveys, under ``aggregate``), and per_survey
    (one dict of values per prediction), counts, diagnostics (one list per prediction), average_counts.
"""
