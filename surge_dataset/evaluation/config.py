"""The settings of an evaluation run and the choice of metrics (``--metrics``), read off the registry."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from ..defaults import DEFAULT_EMBEDDING_MODEL, DEFAULT_NER_MODEL, DEFAULT_NLI_MODEL
from .metric import Metric, get_metric, needed_models, registry

PROTOCOLS = ("official", "paper")
AGGREGATIONS = ("released", "defined")
DTYPES = ("auto", "fp32", "fp16", "bf16")
ALCE_BACKENDS = ("nli", "judge")
#: Metric aliases for ``--metrics``: ``all`` = the SurGE metrics (judged ones only with a judge).
ALIASES = ("all", "surveygen")

__all__ = [
    "AGGREGATIONS",
    "ALIASES",
    "DTYPES",
    "EvaluationConfig",
    "default_metrics",
    "judge_settings",
    "parse_metrics",
    "result_keys",
    "selected_metrics",
    "skipped_without_judge",
]


def default_metrics() -> list[str]:
    """``all`` without a judge: the objective SurGE metrics (the config default)."""
    return [m.name for m in registry().values() if "all" in m.groups and not m.judged]


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

    metrics: list[str] = field(default_factory=default_metrics)
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
    #: The judge settings of the SurGE metrics SQS and CQS: ``released`` (default under ``official``) is
    #: the released evaluator's, see ``surge_dataset.llm.judge``; ``surge`` otherwise. The other judged
    #: metrics (SurveyGen's, ALCE's) always use ours. Prompt wording is ours in both.
    judge_style: str | None = None
    #: Version of ``surge_dataset.prompts`` the judge saw (filled in when a judge is set).
    prompts_version: str | None = None
    #: Every judged question asked this many times as distinct samples; each judged metric reports
    #: the mean over repeats and ``<key>_std`` (sample standard deviation, ddof=1) per survey.
    judge_repeats: int = 1
    #: Temperature of the repeats of greedy (temperature 0) judge settings; with judge_repeats > 1 it
    #: defaults to ``llm.judge.REPEAT_TEMPERATURE`` (0.7). Settings that already sample keep theirs.
    judge_temperature: float | None = None
    #: ALCE's entailment decisions: ``nli`` (the cross-encoder) or ``judge`` (the LLM judge as NLI).
    alce_backend: str = "nli"
    #: NER model of the heading entity recall (STORM's metric).
    ner_model: str = DEFAULT_NER_MODEL
    #: Survey filters (surge_dataset/filters.py); the defaults keep every survey.
    min_cites: int = 0
    exclude_empty: bool = False

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, not {self.protocol!r}")
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
        if self.alce_backend not in ALCE_BACKENDS:
            raise ValueError(f"alce_backend must be one of {', '.join(ALCE_BACKENDS)}, not {self.alce_backend!r}")
        if self.judge_style is None:
            self.judge_style = "released" if self.protocol == "official" else "surge"
        if self.judge_repeats < 1:
            raise ValueError(f"judge_repeats must be at least 1, not {self.judge_repeats}")
        if self.judge_repeats > 1 and self.judge_temperature is None:
            from ..llm.judge import REPEAT_TEMPERATURE

            self.judge_temperature = REPEAT_TEMPERATURE
        if self.judge_repeats == 1 and self.judge_temperature is not None:
            raise ValueError("judge_temperature is the temperature of repeated questions: it needs judge_repeats > 1")
        if self.judge_temperature is not None and self.judge_temperature <= 0:
            raise ValueError(f"judge_temperature must be above 0 (repeats of a greedy answer are one answer), "
                             f"not {self.judge_temperature}")
        if self.judge and self.prompts_version is None:
            from ..prompts import PROMPTS_VERSION

            self.prompts_version = PROMPTS_VERSION

    def key(self, data_fingerprint: str) -> str:
        """The journal key: a resumed run reuses only surveys scored under the same key.

        Fields that cannot change the numbers of the requested metrics are left out, and fields added
        later are left out at their defaults, so journals written before they existed keep their key.
        """
        payload = asdict(self)
        for name in _SELECTION_FIELDS:  # which surveys are scored, not how: a changed filter keeps the journal
            payload.pop(name)
        if not self.judge:
            for name in _JUDGE_FIELDS:
                payload.pop(name)
        if not needed_models(selected_metrics(self), self) & {"nli", "encoder", "ner"}:  # precision: no effect
            for name in ("dtype", "embedding_dtype", "device"):
                payload.pop(name)
        for name, default in _LATER_DEFAULTS.items():
            if payload.get(name) == default:
                payload.pop(name, None)
        payload = json.dumps({**payload, "data": data_fingerprint}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


_JUDGE_FIELDS = ("judge", "judge_weighted", "judge_max_tries", "judge_style", "prompts_version", "judge_repeats",
                 "judge_temperature")
_SELECTION_FIELDS = ("min_cites", "exclude_empty")
_LATER_DEFAULTS: dict[str, object] = {"alce_backend": "nli", "ner_model": DEFAULT_NER_MODEL, "judge_repeats": 1,
                                      "judge_temperature": None}


def _metric_names(text: str | Sequence[str]) -> list[str]:
    return [t.strip() for t in (text.split(",") if isinstance(text, str) else text) if t.strip()]


def parse_metrics(text: str | Sequence[str], *, judge: bool = False) -> list[str]:
    """'recall,shr', 'all' or 'surveygen' -> validated metric names, in registry order.

    Aliases drop the judged metrics when there is no judge (see :func:`skipped_without_judge`);
    naming a judged metric explicitly without a judge is an error.
    """
    known = registry()
    chosen: set[str] = set()
    for name in _metric_names(text):
        if name in ALIASES:
            chosen.update(m.name for m in known.values() if name in m.groups and (judge or not m.judged))
        elif name in known:
            if known[name].judged and not judge:
                raise ValueError(f"metric {name!r} needs an LLM judge: pass --judge (e.g. openai:gpt-4o)")
            chosen.add(name)
        else:
            raise ValueError(f"unknown metric(s) {[name]}; choose from {', '.join(known)}, 'all' or 'surveygen'")
    return [m for m in known if m in chosen]


def skipped_without_judge(text: str | Sequence[str]) -> list[str]:
    """Judged metrics an alias would have included had a judge been given (for a note to the user)."""
    names = [n for n in _metric_names(text) if n in ALIASES]
    return [m.name for m in registry().values() if m.judged and any(n in m.groups for n in names)]


def selected_metrics(config: EvaluationConfig) -> list[Metric]:
    return [get_metric(name) for name in config.metrics]


def result_keys(config: EvaluationConfig) -> list[str]:
    """The per-survey result keys a configuration produces (weighted keys only with judge_weighted,
    ``<key>_std`` of the judged metrics only with judge_repeats > 1)."""
    metrics = selected_metrics(config)
    return [k for m in metrics for k in m.keys] + [k for m in metrics for k in m.extra_keys(config)]


def judge_settings(config: EvaluationConfig, judge: object = None) -> dict[str, object] | None:
    """What the judge was and how it was asked, for ``config["judge_settings"]`` of every results file.

    Built here only. ``style`` is the setting of SQS and CQS; the other judged metrics use ``surge``.
    ``decoding`` gives, per (kind, style) the run may use, the answer budget and the temperature of the
    questions as sent (repeats included). Read off ``judge`` when it is a :class:`~surge_dataset.llm.Judge`
    (its token budgets), else the defaults ``surge evaluate`` builds its judge with.
    """
    if not config.judge:
        return None
    from ..llm.judge import REPEAT_TEMPERATURE, repeated_settings, style_settings

    table = getattr(judge, "settings", None)
    table = table if isinstance(table, dict) else style_settings()
    repeat = 0 if config.judge_repeats > 1 else None
    temperature = config.judge_temperature or REPEAT_TEMPERATURE
    decoding = {}
    for style in dict.fromkeys((config.judge_style or "surge", "surge")):
        for kind in ("score", "points"):
            settings = repeated_settings(table[kind, style], repeat, temperature)
            decoding[f"{kind}/{style}"] = {"max_new_tokens": settings.max_new_tokens, "temperature": settings.temperature}
    return {
        "model": config.judge,
        "prompts_version": config.prompts_version,
        "style": config.judge_style,
        "max_tries": config.judge_max_tries,
        "repeats": config.judge_repeats,
        "repeat_temperature": config.judge_temperature if config.judge_repeats > 1 else None,
        "weighted": config.judge_weighted,
        "decoding": decoding,
    }
