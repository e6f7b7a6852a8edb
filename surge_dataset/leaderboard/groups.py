"""Setting groups of the leaderboard: systems are ranked together only when their numbers are comparable.

Comparable means: every setting that changes the numbers is the same -- the protocol, the aggregation, the data
fingerprint, the survey filters and, where a selected metric uses them, the NLI model, the embedding model, the NER
model and the judge -- and so is the set of surveys (``surge report`` refuses to compare different survey sets; the
leaderboard puts each set in its own group). Each distinct combination is a *group*; a system outside the largest
group lands in its own with a warning, and the app never shows two groups in one table without saying so.

Means, intervals and paired tests are :mod:`surge_dataset.core.stats`'s, exactly what ``surge report`` computes for the
same results with the same seed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from surge_dataset.core.stats import compare_pairs
from surge_dataset.core.vocabulary import JUDGE
from surge_dataset.evaluation.config import MODEL_SETTINGS, SHARED_SETTINGS
from surge_dataset.evaluation.results import SystemResults, survey_sort_key

#: Settings every group shares, then the ones that count only when a selected metric needs the model kind.
ALWAYS, BY_NEED = SHARED_SETTINGS, MODEL_SETTINGS
#: Settings that count only when a given metric is selected: the quiz set the quiz metric asked.
BY_METRIC = {"quiz": ("quiz_fingerprint",)}
#: The filters of the app's Table page: column of systems.parquet -> label.
FILTERS = {"verification": "Verification", "protocol": "Protocol", "judge": "Judge", "nli_model": "NLI model",
           "embedding_model": "Embedding model", "data_fingerprint": "Data fingerprint"}
NOT_USED = "—"
#: The settings that name a model: shown by name, never by path.
MODELS = ("nli_model", "embedding_model", "ner_model", "judge")


def _needs(config: dict[str, Any]) -> set[str]:
    from surge_dataset.evaluation import registry

    metrics = config.get("metrics")
    known = registry()
    if not isinstance(metrics, list) or not all(isinstance(m, str) and m in known for m in metrics):
        return set(BY_NEED)  # an unknown or foreign metric list: every setting counts
    return {kind for m in metrics for kind in known[m].needs}


def _text(value: Any) -> str:
    if value is None:
        return "unknown"
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else str(value)


def judge_settings_text(value: Any) -> str:
    """``config.judge_settings`` as a reader wants it: "model openai:gpt-4o; prompts surge-judges-2; style
    released; 3 tries; 1 repeat; decoding score/released 100 tokens at T=1.0, ..." (not a JSON blob)."""
    if not isinstance(value, dict):
        return _text(value)
    parts = [f"{label} {_model_text(value[key], judge=True) if key == 'model' else value[key]}" for key, label in
             (("model", "model"), ("prompts_version", "prompts"), ("style", "style")) if value.get(key) is not None]
    if isinstance(value.get("max_tries"), int):
        parts.append(f"{value['max_tries']} tries")
    if isinstance(value.get("repeats"), int):
        repeats = value["repeats"]
        temperature = f" at T={value['repeat_temperature']}" if value.get("repeat_temperature") is not None else ""
        parts.append(f"{repeats} repeat{'s' if repeats != 1 else ''}{temperature}")
    if value.get("weighted"):
        parts.append("probability-weighted")
    decoding = value.get("decoding")
    if isinstance(decoding, dict) and decoding:
        shown = [f"{kind} {d.get('max_new_tokens')} tokens at T={d.get('temperature')}" for kind, d in decoding.items()
                 if isinstance(d, dict)]
        parts.append("decoding " + ", ".join(shown))
    known = {"model", "prompts_version", "style", "max_tries", "repeats", "repeat_temperature", "weighted", "decoding"}
    parts += [f"{k} {_text(v)}" for k, v in sorted(value.items()) if k not in known]
    return "; ".join(parts) or "unknown"


def _model_text(value: Any, *, judge: bool = False) -> str:
    """A model setting as shown: its name, never a path (results written before models were recorded by name
    may hold one: its identity here when the folder exists, else its last part)."""
    if not isinstance(value, str):
        return _text(value)
    from surge_dataset.leaderboard.submission_rules import strip_local_paths
    from surge_dataset.models.identity import judge_identity, local_path, model_identity

    if local_path(value, judge=judge) is not None:
        identity = judge_identity(value) if judge else model_identity(value)
        return identity.name if identity is not None else _text(value)
    return strip_local_paths(value)


def settings(config: dict[str, Any]) -> dict[str, str]:
    """The settings that change this system's numbers, as shown (``—`` where no selected metric uses them)."""
    needs = _needs(config)
    out = {key: _text(config.get(key)) for key in ALWAYS}
    for kind, keys in BY_NEED.items():
        for key in keys:
            value = config.get(key)
            shown = judge_settings_text(value) if key == "judge_settings" else \
                _model_text(value, judge=key == JUDGE) if key in MODELS else _text(value)
            out[key] = shown if kind in needs else NOT_USED
    metrics = config.get("metrics") if isinstance(config.get("metrics"), list) else []
    for metric, keys in BY_METRIC.items():
        for key in keys:
            out[key] = _text(config.get(key)) if metric in metrics else NOT_USED
    return out


def _settings_key(config: dict[str, Any]) -> dict[str, str]:
    """What must be equal for two systems to be ranked together: the settings (models by name, the judge's full
    settings), and each used model's weights fingerprint where the results record one (two different folders
    named alike are two models)."""
    out = settings(config)
    needs = _needs(config)
    if JUDGE in needs:
        out["judge_settings"] = _text(config.get("judge_settings"))
    recorded = config.get("models") if isinstance(config.get("models"), dict) else {}
    for kind, keys in BY_NEED.items():
        for key in keys:
            entry = recorded.get(key)
            if kind in needs and isinstance(entry, dict) and entry.get("fingerprint"):
                out[f"{key} weights"] = str(entry["fingerprint"])
    return out


@dataclass
class Group:
    label: str
    settings: dict[str, str]
    systems: list[str]
    surveys: list[str] = field(default_factory=list)


def group_systems(systems: Sequence[SystemResults]) -> tuple[list[Group], list[str]]:
    """Groups (largest first, then input order) and a warning for every system outside the largest one."""
    by_key: dict[str, Group] = {}
    for s in systems:
        surveys = sorted(s.surveys, key=survey_sort_key)
        key = json.dumps([_settings_key(s.config), surveys], sort_keys=True)
        by_key.setdefault(key, Group("", settings(s.config), [], surveys)).systems.append(s.name)
    groups = sorted(by_key.values(), key=lambda g: -len(g.systems))
    for i, group in enumerate(groups, 1):
        group.label = f"G{i}"
    warnings = []
    main = groups[0] if groups else None
    for group in groups[1:]:
        assert main is not None
        differ = [k for k, v in group.settings.items() if v != main.settings[k]]
        reasons = []
        if differ:
            theirs = "; ".join(f"{k}={group.settings[k]}" for k in differ)
            ours = "; ".join(f"{k}={main.settings[k]}" for k in differ)
            reasons.append(f"evaluated with {theirs} (the others, {main.label}: {ours})")
        if group.surveys != main.surveys:
            only = sorted(set(group.surveys) ^ set(main.surveys), key=survey_sort_key)
            reasons.append(f"evaluated on other surveys ({len(group.surveys)} vs {main.label}'s {len(main.surveys)}; "
                           f"differing: {', '.join(only[:10])}{' ...' if len(only) > 10 else ''})")
        warnings.append(f"{', '.join(group.systems)}: {' and '.join(reasons) or 'other settings'}; shown in its own "
                        f"group {group.label}, never ranked with {main.label}")
    return groups, warnings


def pairwise(systems: Sequence[SystemResults], groups: Sequence[Group], metrics: Sequence[str], *, seed: int,
             resamples: int) -> list[dict[str, Any]]:
    """Every metric x every pair of systems within a group: ``surge report``'s paired tests
    (:func:`surge_dataset.core.stats.compare_pairs`), the same numbers for the same results and seed."""
    by_name = {s.name: s for s in systems}
    return [{"group": group.label, **row} for group in groups
            for row in compare_pairs([by_name[n] for n in group.systems], metrics, seed=seed, resamples=resamples)]
