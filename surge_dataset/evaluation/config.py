"""The settings of an evaluation run and the choice of metrics (``--metrics``), read off the registry.

Each setting is declared once, as a field made with :func:`~surge_dataset.core.settings.setting`: its help,
choices and journal-key rule live there, and the CLI options of ``surge evaluate``, the keywords of
:func:`~surge_dataset.evaluation.compute`, the ``evaluate`` cards' inputs text and the journal key are
read off it. :class:`EvaluationConfig` holds what changes the numbers; :class:`~.run_options.RunOptions` (its own module) how a run goes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from surge_dataset.core.defaults import DEFAULT_EMBEDDING_MODEL, DEFAULT_NER_MODEL, DEFAULT_NLI_MODEL
from surge_dataset.core.errors import SettingError
from surge_dataset.core.settings import key_payload, setting
from surge_dataset.core.vocabulary import (
    AGGREGATIONS,
    ALCE_BACKENDS,
    DEFINED,
    DTYPES,
    JUDGE,
    JUDGE_STYLES,
    METRIC_GROUPS,
    OFFICIAL,
    PROTOCOLS,
    RELEASED,
    RELEASED_STYLE,
    SURGE_STYLE,
    AggregateName,
    AlceBackend,
    DType,
    JudgeStyle,
    ProtocolName,
    UnknownNameError,
    check_choice,
    parse_list,
)
from surge_dataset.evaluation.catalogue import get_metric, registry
from surge_dataset.evaluation.metric import Metric, needed_models
from surge_dataset.references.registry import source_names

#: Fields of a results file's ``config`` that change the numbers of every metric: results differing in one are
#: never compared or combined (the leaderboard's setting groups, ``surge report``'s merge of runs).
SHARED_SETTINGS: tuple[str, ...] = ("protocol", "aggregate", "data_fingerprint", "min_cites", "exclude_empty")
#: Model kind -> the ``config`` fields that change the numbers of a metric needing that kind (and of no other).
MODEL_SETTINGS: dict[str, tuple[str, ...]] = {
    "nli": ("nli_model", "dtype"), "encoder": ("embedding_model", "embedding_dtype"), "ner": ("ner_model",),
    "judge": ("judge", "judge_style", "judge_settings"),
}

__all__ = [
    "AGGREGATIONS",
    "DTYPES",
    "MODEL_SETTINGS",
    "PROTOCOLS",
    "SHARED_SETTINGS",
    "EvaluationConfig",
    "default_metrics",
    "judge_settings",
    "parse_metrics",
    "recorded_settings",
    "pin_settings",
    "record_models",
    "result_keys",
    "selected_metrics",
    "skipped_without_judge",
]


def default_metrics() -> list[str]:
    """``all`` without a judge: the objective SurGE metrics (the config default)."""
    return [m.name for m in registry().values() if "all" in m.groups and not m.judged]


@dataclass
class EvaluationConfig:
    """Everything that changes the numbers, recorded in the results; the journal key is read off it.

    ``None`` defaults are resolved from the protocol in ``__post_init__`` (the one place settings are
    checked): ``official`` gives the released evaluator's aggregate, precisions and judge settings.
    """

    metrics: list[str] = setting(
        default_factory=default_metrics, metavar="NAMES",
        help="Comma list of metric names (`surge metrics list` shows every registered one); 'all' = the four "
             "objective SurGE metrics (+ sqs,cqs with a judge); 'surveygen' = SurveyGen's (judged ones with a judge).")
    protocol: ProtocolName = setting(
        OFFICIAL, choices=PROTOCOLS,
        help="How surveys are read and scored: official = the released evaluator, paper = the paper's text.")
    aggregate: AggregateName | None = setting(
        None, choices=AGGREGATIONS,
        help="released: undefined values score 0 and the mean is over every survey folder (the released "
             "evaluator; default under official); defined: undefined values are left out of the mean and "
             "counted (default under paper).")
    nli_model: str = setting(DEFAULT_NLI_MODEL, help="NLI cross-encoder (name or local folder).")
    embedding_model: str = setting(
        DEFAULT_EMBEDDING_MODEL, help="Embedding model for SHR, structure_overlap, sim (name or local folder).")
    dtype: DType | None = setting(
        None, key="models", choices=DTYPES,
        help="Model precision (auto = fp16 on CUDA). Default under official: the NLI model fp32 and the "
             "embedder auto, as the released evaluator ran them; auto under paper.")
    embedding_dtype: DType | None = setting(
        None, key="models", choices=DTYPES, exposed=False,
        help="The embedder's precision, set with dtype (default auto under official: the released "
             "evaluator's FlagModel runs fp16 on CUDA).")
    device: str | None = setting(
        None, key="models", help="Where the models run: cpu, cuda, cuda:1, mps (default: the best available).")
    judge: str | None = setting(
        None, key="judge",
        help="LLM judge for sqs/cqs/rel_llm/rel_llm_sections/kpr: openai:<model> (key from $SURGE_LLM_API_KEY or $OPENAI_API_KEY), "
             "hf:<model id or folder> or gguf:<file>.")
    judge_weighted: bool = setting(
        False, key="judge",
        help="Also report the probability-weighted score (sqs_weighted, ...; hf:/gguf: judges).")
    judge_max_tries: int = setting(
        3, key="judge", help="Answers asked for before a judge score is recorded as missing.")
    judge_style: JudgeStyle | None = setting(
        None, key="judge", choices=JUDGE_STYLES, exposed=False,
        help="The judge settings of SQS and CQS: released (default under official) = the released evaluator's, "
             "surge otherwise; the other judged metrics always use surge. Prompt wording is ours in both.")
    prompts_version: str | None = setting(
        None, key="judge", exposed=False,
        help="Version of surge_dataset.llm.prompts the judge saw (filled in when a judge is set).")
    judge_repeats: int = setting(
        1, key="judge", added_later=True,
        help="Ask every judged question K times as distinct samples: mean and <key>_std (ddof=1) per survey.")
    judge_temperature: float | None = setting(
        None, key="judge", added_later=True,
        help="Temperature of the repeats of greedy judge settings (default 0.7 with judge repeats > 1; "
             "the released style samples at 1.0 already).")
    alce_backend: AlceBackend = setting(
        "nli", choices=ALCE_BACKENDS, added_later=True,
        help="Entailment for alce: nli (the NLI cross-encoder) or judge (the LLM judge).")
    ner_model: str = setting(
        DEFAULT_NER_MODEL, added_later=True, help="NER model (name or local folder) for heading_entity_recall.")
    bib_services: str = setting(
        "", added_later=True, metavar="NAMES",
        help="Comma list of the sources reference_existence asks, in order, for a reference title the corpus "
             f"lacks ({', '.join(source_names())}); empty = none (the corpus only, as with SURGE_OFFLINE=1). "
             "Keys from the environment only (docs: Evaluation, more metrics, 'Reference existence').")
    bib_surveygen: str | None = setting(
        None, added_later=True, metavar="PATH",
        help="SurveyGen JSON file, or folder of them, whose reference lists the 'surveygen' source searches.")
    bib_match_threshold: float = setting(
        95.0, added_later=True,
        help="A title found by a source is the reference's when their similarity (rapidfuzz ratio, 0-100) is at "
             "least this (SurveyGen's 0.95).")
    quiz: str | None = setting(
        None, key="never", added_later=True, metavar="PATH",
        help="Quiz set of the quiz metric: a quizzes.jsonl written by `surge data quiz` (default: the dataset's "
             "quizzes config). Its fingerprint, not its path, enters the journal key; results record both.")
    quiz_fingerprint: str | None = setting(
        None, added_later=True, exposed=False,
        help="Fingerprint of the quiz set the quiz metric asked (filled in when the quiz metric is selected).")
    min_cites: int = setting(
        0, key="never", help="Evaluate only surveys whose GT cites at least N papers.")
    exclude_empty: bool = setting(
        False, key="never", help="Skip surveys whose GT cites nothing or has no section with 100 characters.")

    def __post_init__(self) -> None:
        if isinstance(self.metrics, str):  # 'recall,shr' or an alias, as --metrics gives it
            self.metrics = parse_metrics(self.metrics, judge=bool(self.judge))
        known = registry()
        for name in self.metrics:
            if name not in known:
                raise UnknownNameError("metric", name, known, extra="; `surge metrics list` shows them all")
        check_choice("protocol", self.protocol, PROTOCOLS)
        official = self.protocol == OFFICIAL
        if self.aggregate is None:
            self.aggregate = RELEASED if official else DEFINED
        check_choice("aggregate", self.aggregate, AGGREGATIONS)
        if self.dtype is None:
            self.dtype = "fp32" if official else "auto"
        if self.embedding_dtype is None:
            self.embedding_dtype = "auto" if official else self.dtype
        check_choice("dtype", self.dtype, DTYPES)
        check_choice("embedding_dtype", self.embedding_dtype, DTYPES)
        check_choice("alce_backend", self.alce_backend, ALCE_BACKENDS)
        if self.alce_backend == JUDGE and "alce" in self.metrics and not self.judge:
            raise SettingError("alce_backend judge needs an LLM judge: pass --judge (e.g. openai:gpt-4o)")
        if self.judge_style is None:
            self.judge_style = RELEASED_STYLE if official else SURGE_STYLE
        check_choice("judge_style", self.judge_style, JUDGE_STYLES)
        if self.judge_weighted and self.judge:
            from surge_dataset.llm.base import OPENAI, backend_kind

            if backend_kind(self.judge) == OPENAI:
                raise SettingError("judge_weighted needs a local judge (hf: or gguf:): servers do not expose the "
                                 "next-token distribution")
        if self.judge_repeats < 1:
            raise SettingError(f"judge_repeats must be at least 1, not {self.judge_repeats}")
        if self.judge_repeats > 1 and self.judge_temperature is None:
            from surge_dataset.llm.judge import REPEAT_TEMPERATURE

            self.judge_temperature = REPEAT_TEMPERATURE
        if self.judge_repeats == 1 and self.judge_temperature is not None:
            raise SettingError("judge_temperature is the temperature of repeated questions: it needs judge_repeats > 1")
        if self.judge_temperature is not None and self.judge_temperature <= 0:
            raise SettingError(f"judge_temperature must be above 0 (repeats of a greedy answer are one answer), "
                             f"not {self.judge_temperature}")
        if self.judge and self.prompts_version is None:
            from surge_dataset.llm.prompts import PROMPTS_VERSION

            self.prompts_version = PROMPTS_VERSION

    @classmethod
    def from_options(cls, *, resolve_device: bool = True, **settings: object) -> EvaluationConfig:
        """The config of ``surge evaluate`` and ``compute()``: ``dtype`` sets the embedder's precision too
        (``--dtype``), and the device is resolved before any model loads (``resolve_device=False``: left as
        given, for callers that hand in every model themselves)."""
        if resolve_device:
            from surge_dataset.models.base import resolve_device as best_device

            settings["device"] = best_device(settings.get("device"))  # type: ignore[arg-type]
        settings.setdefault("embedding_dtype", settings.get("dtype"))
        return cls(**settings)  # type: ignore[arg-type]

    def key(self, data_fingerprint: str) -> str:
        """The journal key: a resumed run reuses only surveys scored under the same key.

        Read off each field's key rule (:mod:`surge_dataset.core.settings`): fields that cannot change the
        numbers of the requested metrics are left out, and fields added later are left out at their
        defaults, so journals written before they existed keep their key.
        """
        text = json.dumps({**self.key_settings(), "data": data_fingerprint}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def key_settings(self) -> dict[str, Any]:
        """The settings that can change the numbers of the requested metrics (what :meth:`key` hashes besides the
        dataset), read off each field's key rule; a results file's run fingerprint hashes them too."""
        models = bool(needed_models(selected_metrics(self), self) & {"nli", "encoder", "ner"})
        payload = key_payload(self, judge=bool(self.judge), models=models)
        versions = {m.name: m.version for m in selected_metrics(self) if m.version > 1}
        if versions:  # only fixed metrics: the keys of runs without them stay as they were
            payload["metric_versions"] = versions
        return payload


def parse_metrics(text: str | Sequence[str], *, judge: bool = False) -> list[str]:
    """'recall,shr', 'all' or 'surveygen' -> validated metric names, in registry order.

    Aliases drop the judged metrics when there is no judge (see :func:`skipped_without_judge`);
    naming a judged metric explicitly without a judge is an error.
    """
    known = registry()
    chosen: set[str] = set()
    for name in parse_list(text):
        if name in METRIC_GROUPS:
            chosen.update(m.name for m in known.values() if name in m.groups and (judge or not m.judged))
        elif name in known:
            if known[name].judged and not judge:
                raise SettingError(f"metric {name!r} needs an LLM judge: pass --judge (e.g. openai:gpt-4o)")
            chosen.add(name)
        else:
            raise UnknownNameError("metric", name, [*known, *METRIC_GROUPS], extra="; `surge metrics list` shows them all")
    return [m for m in known if m in chosen]


def skipped_without_judge(text: str | Sequence[str]) -> list[str]:
    """Judged metrics an alias would have included had a judge been given (for a note to the user)."""
    names = [n for n in parse_list(text) if n in METRIC_GROUPS]
    return [m.name for m in registry().values() if m.judged and any(n in m.groups for n in names)]


def recorded_settings(config: EvaluationConfig) -> dict[str, object]:
    """The config as a results file records it: every field, except the model settings of kinds no selected
    metric used (``nli_model`` without an NLI metric would claim a model that computed nothing). The judge's
    fields stay (``judge: null`` says there was none)."""
    used = needed_models(selected_metrics(config), config)
    unused = {name for kind, names in MODEL_SETTINGS.items() if kind != "judge" and kind not in used for name in names}
    return {name: value for name, value in asdict(config).items() if name not in unused}


def selected_metrics(config: EvaluationConfig) -> list[Metric]:
    return [get_metric(name) for name in config.metrics]


def pin_settings(config: EvaluationConfig, data: object = None) -> EvaluationConfig:
    """``config`` with what its metrics read off ``data`` (a ``SurgeData`` or None) or a file fixed in it
    (:meth:`~.metric.Metric.pin`): called by every run (``surge evaluate``, its ``--dry-run``, ``compute``) before
    the journal key is read or anything is scored. The same object when nothing changes."""
    updates: dict[str, object] = {}
    for metric in selected_metrics(config):
        updates.update(metric.pin(config, data))
    changed = {name: value for name, value in updates.items() if getattr(config, name) != value}
    return replace(config, **changed) if changed else config


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
    from surge_dataset.llm.judge import REPEAT_TEMPERATURE, repeated_settings, style_settings

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


#: The settings that name a model (the judge is a spec: ``hf:<folder>``, ``gguf:<file>``, ``openai:<model>``).
MODEL_NAME_SETTINGS = ("nli_model", "embedding_model", "ner_model", "judge")


def record_models(results: dict[str, Any], *, local_only: bool = False) -> list[str]:
    """Name every model of a results dict by :func:`~surge_dataset.models.identity.model_identity` (in place):
    ``config.<setting>`` becomes the model's name (a Hub id, or a local copy's folder name, never its path),
    ``config.models`` records each one's name and weights fingerprint, and the judge's spec in
    ``config.judge_settings`` and ``judge`` follows. ``local_only``: only settings that name a local path that
    exists here (results written before models were recorded by name; ``surge submit``). Returns the settings
    renamed."""
    from surge_dataset.models.identity import judge_identity, local_path, model_identity

    config = results["config"]
    models = dict(config.get("models") or {}) if local_only else {}
    renamed = []
    for key in MODEL_NAME_SETTINGS:
        value = config.get(key)
        if not isinstance(value, str) or not value:
            continue
        if local_only and local_path(value, judge=key == JUDGE) is None:
            continue
        identity = judge_identity(value) if key == JUDGE else model_identity(value)
        if identity is not None:
            renamed += [key] if identity.name != value else []
            config[key] = identity.name
            models[key] = identity.record()
    config["models"] = models
    if JUDGE in models:
        for holder in (config.get("judge_settings"), results.get("judge")):
            for field_name in ("model", "spec"):
                if isinstance(holder, dict) and isinstance(holder.get(field_name), str):
                    holder[field_name] = models[JUDGE]["name"]
    return renamed
