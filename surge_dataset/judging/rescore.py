"""Score a finished run again with another judge: same surveys, same settings, only the judge changes.

Each system's results file records what it was scored with (``config``: the metrics, protocol, data folder and
passage folder). :func:`rescore_configs` rebuilds that configuration with the new judge and only the judged
metrics; :func:`estimate` prints what re-scoring would send (the ``surge evaluate --dry-run`` estimate: calls,
answers already in the cache, tokens, price) before anything is sent; :func:`rescore` runs ``surge evaluate``'s
engine into ``OUT/<system>.json``. The generated surveys are read from the recorded passage folders again, so
the judged inputs are the same questions the first judge saw, and the answer cache makes an interrupted
re-scoring resume.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from surge_dataset.judging import JudgingError
from surge_dataset.judging.agreement import JudgeRun

__all__ = ["Rescoring", "rescore", "rescore_configs"]


@dataclasses.dataclass(frozen=True)
class Rescoring:
    """One system to score again: its name, data and passage folders, and the configuration with the new judge."""

    system: str
    data: str
    passages: Path
    config: Any  # EvaluationConfig


def rescore_configs(run: JudgeRun, judge: str, metrics: Sequence[str] | None = None) -> list[Rescoring]:
    """The configuration of each system of ``run`` with ``judge`` in place of its judge (judged metrics only)."""
    from surge_dataset.core.settings import declared
    from surge_dataset.evaluation import EvaluationConfig, get_metric
    from surge_dataset.evaluation.passages import find_passages

    plans = []
    for system, recorded in run.configs.items():
        if not recorded.get("passages") or not recorded.get("data"):
            raise JudgingError(f"{run.paths[system]}: the results record no passage or data folder; re-score with "
                               "surge evaluate --judge ... instead")
        names = [m for m in (metrics or recorded.get("metrics") or []) if get_metric(m).judged]
        if not names:
            raise JudgingError(f"{run.paths[system]}: no judged metric to score again (give --metrics)")
        settings = {f.name: recorded[f.name] for f in declared(EvaluationConfig) if f.name in recorded}
        settings.update(metrics=names, judge=judge, prompts_version=None, judge_weighted=False)
        config = EvaluationConfig.from_options(**settings, resolve_device=False)
        passages, _ = find_passages(system, run.paths[system], recorded, confine=False)
        if passages is None:
            raise JudgingError(f"{run.paths[system]}: its recorded passage folder {recorded['passages']!r} is not there "
                               "(relative to the results file, or to the folder the run started in)")
        plans.append(Rescoring(system, str(recorded["data"]), passages, config))
    return plans


def rescore(plans: Sequence[Rescoring], out: str | Path, *, run: Any) -> list[Path]:
    """Score every system again into ``OUT/<system>.json`` (resumable: the journal and the answer cache)."""
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.evaluation import evaluate_run
    from surge_dataset.evaluation.session import EvaluationSession

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for plan in plans:
        path = folder / f"{Path(plan.system).name}.json"
        with SurgeData.open(plan.data) as data, EvaluationSession(plan.config, run, data=data) as session:
            evaluate_run(data, plan.passages, path, session)
        written.append(path)
    return written
