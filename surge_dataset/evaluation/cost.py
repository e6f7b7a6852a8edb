"""``surge evaluate --dry-run``: the judge calls a run would make and their tokens, with nothing sent.

The surveys are prepared as for a run and every selected metric says what it would ask
(:meth:`~.metric.Metric.estimate_requests`: exact for metrics that ask in one round; KPR's checks and
ALCE's later stages depend on earlier answers and are counted at their maximum, with a note). The
questions are de-duplicated across the run as the judge does, each is looked up in the answer cache (a
cached one is not sent), and its prompt is counted with the judge's tokenizer (``hf:``/``gguf:``, the
tokenizer alone, no weights) or as characters / 4 (``openai:``). Output tokens are each call's answer
budget, an upper bound. Only first tries are counted: re-asks of unreadable answers (at most
``judge_max_tries`` answers per question) come on top. No journal or results file is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from surge_dataset.evaluation.config import EvaluationConfig, selected_metrics
from surge_dataset.evaluation.prepare import PreparedSurvey

__all__ = ["estimate_evaluation", "estimate_judge_requests"]


def _line() -> dict[str, int | None]:
    return {"calls": 0, "cached": 0, "prompt_tokens": 0, "completion_tokens": 0,
            "prompt_tokens_to_send": 0, "completion_tokens_to_send": 0}


def estimate_judge_requests(
    surveys: Sequence[PreparedSurvey], config: EvaluationConfig, *, base_url: str | None = None,
    cache_dir: Any = None,
) -> dict[str, Any]:
    """Calls, cache hits and tokens per metric for ``surveys`` under ``config``; sends nothing."""
    from surge_dataset.llm import Judge, make_llm
    from surge_dataset.llm.usage import TokenCounter

    metrics = [m for m in selected_metrics(config) if "judge" in m.active_needs(config)]
    report: dict[str, Any] = {"judge": config.judge, "metrics": {}, "notes": [], "token_method": None}
    if not metrics or not config.judge:
        report["notes"].append("no selected metric asks an LLM: nothing would be sent")
        report["total"] = _line()
        return report
    # no client, no weights: nothing loads (device: a local model's dtype, hence its cache key, depends on it)
    llm = make_llm(config.judge, base_url=base_url, cache_dir=cache_dir, device=config.device)
    extra = {"sample_temperature": config.judge_temperature} if config.judge_temperature else {}
    judge = Judge(llm, max_tries=config.judge_max_tries, **extra)
    counter = TokenCounter(llm)
    report["token_method"] = f"tokenizer of {config.judge}" if counter.method == "tokenizer" else counter.method
    try:
        namespace_ok = bool(llm.namespace)  # a local model's identity reads its files; may be unavailable
    except Exception:  # noqa: BLE001 - the cache is then not consulted, and the output says so
        namespace_ok = False
    seen: set[Any] = set()
    for metric in metrics:
        requests, note = metric.estimate_requests(surveys, config)
        if note:
            report["notes"].append(note)
        todo = [r for r in dict.fromkeys(requests) if r not in seen]
        seen.update(todo)
        settings = [judge.settings_for(r) for r in todo]
        keys = [llm._key("chat", r.conversation, s.as_key()) for r, s in zip(todo, settings, strict=True)]
        cached = llm.cache.get_many(keys) if namespace_ok and keys else {}
        line = _line()
        for request, setting, key in zip(todo, settings, keys, strict=True):
            prompt = counter.count_prompt(request.conversation)
            line["calls"] += 1
            line["prompt_tokens"] += prompt
            line["completion_tokens"] += setting.max_new_tokens
            if key in cached:
                line["cached"] += 1
            else:
                line["prompt_tokens_to_send"] += prompt
                line["completion_tokens_to_send"] += setting.max_new_tokens
        if not namespace_ok:
            line["cached"] = None
        report["metrics"][metric.name] = line
    total = _line()
    for line in report["metrics"].values():
        for key, value in line.items():
            total[key] = None if value is None or total[key] is None else total[key] + value
    report["total"] = total
    if not namespace_ok:
        report["notes"].append(f"the answer cache was not consulted ({config.judge} could not be identified "
                               "without loading it): every call is counted as to send")
    if config.judge_weighted:
        report["notes"].append("--judge-weighted adds one next-token read per score question (a local forward "
                               "pass, no decoding), not counted above")
    report["notes"].append(f"first tries only: an unreadable answer is asked again, up to {config.judge_max_tries} "
                           "answers per question")
    report["notes"].append("output tokens: the answer budget of each call, an upper bound")
    return report


def estimate_evaluation(
    data: Any, passage_dir: str | Path, config: EvaluationConfig, *, base_url: str | None = None,
    cache_dir: Any = None,
) -> dict[str, Any]:
    """Prepare the folder's surveys as a run would, then :func:`estimate_judge_requests`. Writes nothing."""
    from surge_dataset.evaluation.config import pin_settings
    from surge_dataset.evaluation.runner import prepare_folder

    config = pin_settings(config, data)
    prepared, failures, excluded = prepare_folder(data, passage_dir, config)
    report = estimate_judge_requests(prepared, config, base_url=base_url, cache_dir=cache_dir)
    report.update(surveys=len(prepared), failures=failures, excluded=excluded)
    return report
