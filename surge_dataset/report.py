"""``surge report``: turn ``surge evaluate`` results of several systems into numbers users can trust.

Inputs are results files (one system each) and, optionally, ``surge retrieval-eval`` outputs. Outputs,
all in one folder: the paper's Table 4 layout as Markdown / LaTeX (booktabs) / HTML with 95 % bootstrap
confidence intervals over surveys; paired significance between every two systems (``significance.json``);
figures (bars with CIs, per-survey heat maps, a Recall@k curve); a per-survey drill-down of the worst
surveys with their diagnostics; and ``report.json`` with the input files' hashes and the package version,
so anyone can tell which results a table came from.

Statistics (why these): surveys are the unit of sampling, so confidence intervals are percentile
bootstraps of the mean over surveys. Significance is a two-sided *paired permutation test* (sign flips of
the per-survey differences, ``scipy.stats.permutation_test``; exact when 2**n <= resamples, so it stays
valid with the handful of surveys of a sample, where a bootstrap p-value is too optimistic); the interval
of the difference (``ci_low``/``ci_high``) is a paired bootstrap. Pairing needs the same survey ids, so
systems evaluated on different surveys are refused. Every random draw is seeded from (seed, metric,
system names), so adding a system does not change the other numbers.
"""

from __future__ import annotations

import hashlib
import html
import inspect
import json
import math
import platform
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from .io import atomic_path, atomic_write_json, atomic_write_text

# ------------------------------------------------------------------------------------------ constants

#: Table 4 of the SurGE paper (arXiv 2508.15658), copied from protocol.md §5 -- the only copy in the
#: package. Means over the paper's 41 test surveys; BLEU on sacreBLEU's 0-100 scale; SQS and CQS are
#: LLM-judge scores. Published numbers, never recomputed: shown only for reference (``--with-paper``).
PAPER_TABLE4: dict[str, dict[str, float]] = {
    "RAG-Qwen": {"recall": 0.0214, "doc_acc": 0.2857, "sec_acc": 0.2502, "sent_acc": 0.2500, "sqs": 0.6829,
                 "shr": 0.7900, "rougeL": 0.1519, "bleu": 10.38, "cqs": 4.6723},
    "RAG-GPT": {"recall": 0.0419, "doc_acc": 0.4525, "sec_acc": 0.3166, "sent_acc": 0.3226, "sqs": 0.7561,
                "shr": 0.6659, "rougeL": 0.1409, "bleu": 8.36, "cqs": 4.9250},
    "RAG-Gemini": {"recall": 0.0784, "doc_acc": 0.4680, "sec_acc": 0.4056, "sent_acc": 0.4124, "sqs": 1.2927,
                   "shr": 0.7591, "rougeL": 0.1442, "bleu": 8.37, "cqs": 4.5619},
    "AutoSurvey": {"recall": 0.0351, "doc_acc": 0.3617, "sec_acc": 0.4935, "sent_acc": 0.4870, "sqs": 1.3902,
                   "shr": 0.9697, "rougeL": 0.1578, "bleu": 10.44, "cqs": 4.7390},
    "StepSurvey": {"recall": 0.0630, "doc_acc": 0.4576, "sec_acc": 0.4571, "sent_acc": 0.4636, "sqs": 1.1951,
                   "shr": 0.9763, "rougeL": 0.1590, "bleu": 12.02, "cqs": 4.8451},
    "SurveyForge": {"recall": 0.0868, "doc_acc": 0.4719, "sec_acc": 0.4651, "sent_acc": 0.4772, "sqs": 1.0537,
                    "shr": 0.9493, "rougeL": 0.1443, "bleu": 8.99, "cqs": 4.8070},
}
PAPER_SOURCE = "SurGE paper, arXiv 2508.15658, Table 4; protocol.md §5"

#: Result key -> column header, in the order of the paper's Table 4.
TABLE4_COLUMNS: dict[str, str] = {
    "recall": "Recall", "doc_acc": "Doc-Acc", "sec_acc": "Sec-Acc", "sent_acc": "Sent-Acc", "sqs": "SQS",
    "shr": "SHR", "rougeL": "ROUGE-L", "bleu": "BLEU", "cqs": "CQS",
}
#: Other keys ``surge evaluate`` writes; in the table only when asked for (``--metrics``).
EXTRA_COLUMNS: dict[str, str] = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2"}
#: Metrics produced by an LLM judge: the drill-down lists surveys where they are missing.
JUDGE_METRICS = ("sqs", "cqs", "rel_llm", "kpr")
#: Per-survey keys that are not metrics.
NON_METRIC_KEYS = frozenset({"counts", "diagnostics"})
#: Decimals shown per metric (BLEU is on a 0-100 scale, like the paper's).
DECIMALS: dict[str, int] = {"bleu": 2}
DEFAULT_DECIMALS = 4
CI_LEVEL = 0.95
PUBLISHED_MARK = "†"
SIGNIFICANCE_METHOD = (
    "p_value: two-sided paired permutation test (sign flips of per-survey differences, "
    "scipy.stats.permutation_test; exact when 2**n <= resamples); ci_low/ci_high: 95% paired "
    "percentile bootstrap of the mean difference; pairs = surveys where both systems' metric is defined"
)


class ReportError(ValueError):
    """Inputs that cannot make a trustworthy report (message says what to do)."""


class SurveySetMismatchError(ReportError):
    """Systems evaluated on different survey ids: paired statistics would compare different things."""


# ------------------------------------------------------------------------------------------ loading


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _survey_sort_key(survey_id: str) -> tuple[int, int, str]:
    return (0, int(survey_id), "") if survey_id.isdigit() else (1, 0, survey_id)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass
class SystemResults:
    """One system's ``surge evaluate`` output, as the report needs it."""

    name: str
    path: Path
    sha256: str
    config: dict[str, Any]
    surveys: dict[str, dict[str, Any]]
    failures: list[dict[str, Any]] = field(default_factory=list)

    @property
    def survey_ids(self) -> list[str]:
        return sorted(self.surveys, key=_survey_sort_key)

    def values(self, metric: str) -> dict[str, float]:
        """survey id -> value, only where the metric is defined (the evaluator's mean leaves the rest out)."""
        return {
            sid: float(self.surveys[sid][metric])
            for sid in self.survey_ids if _is_number(self.surveys[sid].get(metric))
        }


@dataclass
class RetrievalResults:
    """One ``surge retrieval-eval`` output: mean Recall@k etc. (and per-query values)."""

    name: str
    path: Path
    sha256: str
    means: dict[str, float]
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)

    def recall_at_k(self) -> list[tuple[int, float]]:
        return sorted((int(k.split("@", 1)[1]), v) for k, v in self.means.items()
                      if re.fullmatch(r"recall@\d+", k) and _is_number(v))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: not a JSON file ({exc})") from None


def is_retrieval_output(data: Any) -> bool:
    """``retrieval-eval`` outputs hold ``recall@k`` means and no ``surveys``."""
    return isinstance(data, dict) and "surveys" not in data and any(re.fullmatch(r"recall@\d+", k) for k in data)


def classify_inputs(paths: Iterable[str | Path]) -> tuple[list[Path], list[Path]]:
    """Split files into (evaluate results, retrieval-eval outputs) by their content, so a shell glob works."""
    results, retrieval = [], []
    for path in map(Path, paths):
        (retrieval if is_retrieval_output(_read_json(path)) else results).append(path)
    return results, retrieval


def _unique_names(entries: list[tuple[str | None, Path]]) -> list[str]:
    """Explicit names win; stems that collide (``a/results.json``, ``b/results.json``) get their folder."""
    first = [explicit or path.stem for explicit, path in entries]
    names = [name if explicit or first.count(name) == 1 else f"{path.parent.name}/{path.stem}"
             for name, (explicit, path) in zip(first, entries, strict=True)]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        clashing = [str(p) for (_, p), n in zip(entries, names, strict=True) if n in duplicates]
        raise ReportError(
            f"several inputs are named {', '.join(repr(d) for d in duplicates)} ({', '.join(clashing)}); "
            "rename the files or set config.system in them"
        )
    return names


def load_results(paths: Sequence[str | Path]) -> list[SystemResults]:
    """Read ``surge evaluate`` results files; a system is named by ``config.system``, else the file stem."""
    raw = []
    for path in map(Path, paths):
        data = _read_json(path)
        if is_retrieval_output(data):
            raise ReportError(f"{path} is a retrieval-eval output: pass it with --retrieval")
        if not isinstance(data, dict) or not isinstance(data.get("surveys"), dict):
            raise ReportError(f"{path}: not a `surge evaluate` results file (no 'surveys' object)")
        config = data.get("config") or {}
        raw.append((config.get("system") or None, path, data, config))
    names = _unique_names([(explicit, path) for explicit, path, _, _ in raw])
    return [
        SystemResults(name=name, path=path, sha256=file_sha256(path), config=config,
                      surveys={str(k): v for k, v in data["surveys"].items()}, failures=list(data.get("failures") or []))
        for name, (_, path, data, config) in zip(names, raw, strict=True)
    ]


def load_retrieval(paths: Sequence[str | Path]) -> list[RetrievalResults]:
    """Read ``retrieval-eval`` outputs; named by ``system`` / ``config.system``, else the file stem."""
    raw = []
    for path in map(Path, paths):
        data = _read_json(path)
        if not is_retrieval_output(data):
            raise ReportError(f"{path}: not a retrieval-eval output (no 'recall@k' keys)")
        explicit = data.get("system") or (data.get("config") or {}).get("system") or None
        raw.append((explicit, path, data))
    names = _unique_names([(explicit, path) for explicit, path, _ in raw])
    return [
        RetrievalResults(name=name, path=path, sha256=file_sha256(path),
                         means={k: float(v) for k, v in data.items() if _is_number(v)},
                         per_query=data.get("per_query") or {})
        for name, (_, path, data) in zip(names, raw, strict=True)
    ]


def check_same_surveys(systems: Sequence[SystemResults]) -> list[str]:
    """The common survey ids; raises :class:`SurveySetMismatchError` naming systems and differing ids."""
    if not systems:
        return []
    reference = systems[0]
    ref_ids = set(reference.survey_ids)
    problems = []
    for system in systems[1:]:
        ids = set(system.survey_ids)
        if ids == ref_ids:
            continue
        only_ref = sorted(ref_ids - ids, key=_survey_sort_key)
        only_sys = sorted(ids - ref_ids, key=_survey_sort_key)
        parts = []
        if only_ref:
            parts.append(f"only in {reference.name!r}: {', '.join(only_ref)}")
        if only_sys:
            parts.append(f"only in {system.name!r}: {', '.join(only_sys)}")
        problems.append(f"  {system.name!r} vs {reference.name!r}: {'; '.join(parts)}")
        for s in (reference, system):
            for failure in s.failures:
                if str(failure.get("survey_id")) in set(only_ref) | set(only_sys):
                    problems.append(f"    ({s.name!r} failed on survey {failure['survey_id']}: {failure.get('error')})")
    if problems:
        raise SurveySetMismatchError(
            "systems were evaluated on different survey sets; confidence intervals and paired significance "
            "need the same survey ids in every results file:\n" + "\n".join(problems) +
            "\nEvaluate every system on the same surveys (fix or drop the differing ones) and rerun `surge report`."
        )
    return reference.survey_ids


def comparability_warnings(systems: Sequence[SystemResults]) -> list[str]:
    """Settings that change the numbers and differ between systems (protocol, data, models)."""
    checks = {"protocol": None, "data_fingerprint": None, "nli_model": "citation_accuracy", "embedding_model": "shr"}
    warnings = []
    for key, needs in checks.items():
        seen = {s.name: s.config.get(key) for s in systems
                if key in s.config and (needs is None or needs in (s.config.get("metrics") or []))}
        if len(set(map(str, seen.values()))) > 1:
            detail = ", ".join(f"{n}={v}" for n, v in seen.items())
            warnings.append(f"systems were evaluated with different {key}: {detail}")
    return warnings


# ------------------------------------------------------------------------------------------ metrics


def metric_label(metric: str) -> str:
    return TABLE4_COLUMNS.get(metric) or EXTRA_COLUMNS.get(metric) or metric


def available_metrics(systems: Sequence[SystemResults]) -> list[str]:
    """Per-survey keys with a number somewhere (all-None = not computed): Table 4 order, ROUGE-1/2, the rest."""
    present = {k for s in systems for r in s.surveys.values() for k, v in r.items()
               if k not in NON_METRIC_KEYS and _is_number(v)}
    ordered = [m for m in (*TABLE4_COLUMNS, *EXTRA_COLUMNS) if m in present]
    return ordered + sorted(present - set(ordered))


def select_metrics(systems: Sequence[SystemResults], requested: str | Sequence[str] | None = None) -> list[str]:
    """Default: the Table 4 columns some result has. ``requested``: result keys or metric groups, or 'all'."""
    present = available_metrics(systems)
    if requested is None or (isinstance(requested, str) and not requested.strip()):
        table4 = [m for m in present if m in TABLE4_COLUMNS]
        return table4 or present
    names = [t.strip() for t in (requested.split(",") if isinstance(requested, str) else requested) if t.strip()]
    if "all" in names:
        return present
    from .evaluation import METRIC_KEYS

    chosen: list[str] = []
    for name in names:
        for key in METRIC_KEYS.get(name, (name,)):
            if key not in present:
                raise ReportError(f"metric {key!r} is in no results file (present: {', '.join(present) or 'none'})")
            if key not in chosen:
                chosen.append(key)
    return chosen


@dataclass
class MetricSummary:
    """Mean over surveys with its bootstrap interval; ``n`` surveys where the metric is defined."""

    mean: float | None
    ci_low: float | None
    ci_high: float | None
    n: int


def _rng(seed: int, *parts: str) -> np.random.Generator:
    """A generator seeded by (seed, names): stable whatever other systems or metrics are in the report."""
    return np.random.default_rng([seed, *(zlib.crc32(p.encode()) for p in parts)])


def _bootstrap_means(values: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``resamples`` resamples with replacement (chunked so memory stays small for many surveys)."""
    n = len(values)
    means = np.empty(resamples)
    step = max(1, 4_000_000 // n)
    for start in range(0, resamples, step):
        size = min(step, resamples - start)
        means[start:start + size] = values[rng.integers(0, n, size=(size, n))].mean(axis=1)
    return means


def _percentiles(samples: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return float(low), float(high)


def bootstrap_ci(
    values: Sequence[float], *, resamples: int = 10_000, seed: int = 0, level: float = CI_LEVEL,
    rng: np.random.Generator | None = None,
) -> MetricSummary:
    """Mean and percentile bootstrap interval over surveys (a single survey gives a zero-width interval)."""
    array = np.asarray(values, dtype=float)
    if array.size == 0:
        return MetricSummary(None, None, None, 0)
    mean = float(array.mean())
    if array.size == 1 or np.all(array == array[0]):
        return MetricSummary(mean, mean, mean, int(array.size))
    low, high = _percentiles(_bootstrap_means(array, resamples, rng or np.random.default_rng(seed)), level)
    return MetricSummary(mean, low, high, int(array.size))


def _permutation_kwargs(rng: np.random.Generator) -> dict[str, Any]:
    """scipy >= 1.15 takes ``rng``; older releases ``random_state``."""
    from scipy.stats import permutation_test

    key = "rng" if "rng" in inspect.signature(permutation_test).parameters else "random_state"
    return {key: rng}


def paired_test(
    a: Sequence[float], b: Sequence[float], *, resamples: int = 10_000, seed: int = 0, level: float = CI_LEVEL,
    rng: np.random.Generator | None = None,
) -> dict[str, Any]:
    """Paired comparison of a and b (same surveys, same order): delta = mean(a - b), p-value, delta's CI."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} vs {y.size}")
    if x.size == 0:
        return {"delta": None, "p_value": None, "ci_low": None, "ci_high": None, "n": 0}
    diff = x - y
    delta = float(diff.mean())
    if np.all(diff == 0):  # identical systems: no evidence at all; skip the resampling
        return {"delta": 0.0, "p_value": 1.0, "ci_low": 0.0, "ci_high": 0.0, "n": int(x.size)}
    rng = rng or np.random.default_rng(seed)
    from scipy.stats import permutation_test

    result = permutation_test(
        (x, y), lambda u, v, axis: np.mean(u - v, axis=axis), permutation_type="samples",
        vectorized=True, n_resamples=resamples, alternative="two-sided", **_permutation_kwargs(rng),
    )
    low, high = _percentiles(_bootstrap_means(diff, resamples, rng), level) if x.size > 1 else (delta, delta)
    return {"delta": delta, "p_value": float(min(1.0, result.pvalue)), "ci_low": low, "ci_high": high, "n": int(x.size)}


def summarise(
    systems: Sequence[SystemResults], metrics: Sequence[str], *, seed: int = 0, resamples: int = 10_000,
) -> dict[str, dict[str, MetricSummary]]:
    """system name -> metric -> mean and 95 % bootstrap CI over its surveys."""
    return {
        s.name: {m: bootstrap_ci(list(s.values(m).values()), resamples=resamples, rng=_rng(seed, "ci", m, s.name))
                 for m in metrics}
        for s in systems
    }


def significance(
    systems: Sequence[SystemResults], metrics: Sequence[str], *, seed: int = 0, resamples: int = 10_000,
) -> list[dict[str, Any]]:
    """Every metric x every pair (a before b in input order): paired over surveys where both are defined."""
    check_same_surveys(systems)
    rows = []
    for metric in metrics:
        for i, a in enumerate(systems):
            for b in systems[i + 1:]:
                va, vb = a.values(metric), b.values(metric)
                common = [sid for sid in a.survey_ids if sid in va and sid in vb]
                test = paired_test([va[s] for s in common], [vb[s] for s in common], resamples=resamples,
                                   rng=_rng(seed, "pair", metric, a.name, b.name))
                rows.append({"metric": metric, "a": a.name, "b": b.name, **test})
    return rows


# ------------------------------------------------------------------------------------------ tables


@dataclass
class Cell:
    text: str
    bold: bool = False
    ci: str = ""


@dataclass
class Row:
    name: str
    cells: list[Cell]
    published: bool = False


def _fmt(metric: str, value: float | None) -> str:
    return "–" if value is None else f"{value:.{DECIMALS.get(metric, DEFAULT_DECIMALS)}f}"


def _bold_best(rows: list[Row], metrics: Sequence[str]) -> None:
    """Bold the best shown value of each column (ties all bold); one row alone is compared with nothing."""
    if len(rows) < 2:
        return
    for j in range(len(metrics)):
        shown = [float(r.cells[j].text) for r in rows if r.cells[j].text != "–"]
        if len(shown) < 2:
            continue
        best = max(shown)  # every SurGE metric is higher-is-better
        for r in rows:
            if r.cells[j].text != "–" and float(r.cells[j].text) == best:
                r.cells[j].bold = True


def table_rows(
    summaries: Mapping[str, Mapping[str, MetricSummary]], metrics: Sequence[str], *,
    with_paper: bool = False, ci: bool = True,
) -> tuple[list[Row], list[Row]]:
    """(evaluated rows, published rows); best per column bold within each block (they are not comparable)."""
    evaluated = []
    for name, summary in summaries.items():
        cells = []
        for m in metrics:
            s = summary[m]
            interval = f"[{_fmt(m, s.ci_low)}, {_fmt(m, s.ci_high)}]" if ci and s.mean is not None else ""
            cells.append(Cell(_fmt(m, s.mean), ci=interval))
        evaluated.append(Row(name, cells))
    published = [Row(name, [Cell(_fmt(m, values.get(m))) for m in metrics], published=True)
                 for name, values in PAPER_TABLE4.items()] if with_paper else []
    if with_paper and not any(m in PAPER_TABLE4["RAG-Qwen"] for m in metrics):
        published = []
    _bold_best(evaluated, metrics)
    _bold_best(published, metrics)
    return evaluated, published


def _notes(survey_ids: Sequence[str], resamples: int, seed: int, ci: bool, published: bool) -> list[str]:
    notes = [f"Means over {len(survey_ids)} surveys (ids {', '.join(survey_ids)}); a metric's mean leaves out "
             "surveys where it is undefined (n per metric in report.json)."]
    if ci:
        notes.append(f"Brackets: 95% percentile bootstrap confidence interval over surveys "
                     f"({resamples:,} resamples, seed {seed}).")
    notes.append("Bold: best per column among the evaluated systems"
                 + (" and, separately, among the published rows." if published else "."))
    if published:
        notes.append(f"{PUBLISHED_MARK} Published numbers ({PAPER_SOURCE}), copied, not recomputed: the paper's "
                     "systems on its 41 test surveys; not comparable with rows evaluated on other surveys.")
    return notes


def table_markdown(
    evaluated: Sequence[Row], published: Sequence[Row], metrics: Sequence[str], notes: Sequence[str] = (),
) -> str:
    def cell(c: Cell) -> str:
        text = f"**{c.text}**" if c.bold else c.text
        return f"{text} {c.ci}" if c.ci else text

    def name(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| System | " + " | ".join(metric_label(m) for m in metrics) + " |",
             "| --- | " + " | ".join("---:" for _ in metrics) + " |"]
    lines += [f"| {name(r.name)} | " + " | ".join(cell(c) for c in r.cells) + " |" for r in evaluated]
    if published:
        lines.append("| *Published (paper, Table 4)* | " + " | ".join("" for _ in metrics) + " |")
        lines += [f"| {name(r.name)} {PUBLISHED_MARK} | " + " | ".join(cell(c) for c in r.cells) + " |"
                  for r in published]
    return "\n".join(lines) + "\n" + "".join(f"\n{n}\n" for n in notes)


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "†": r"$^\dagger$", "–": "--", "§": r"\S{}",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def table_latex(
    evaluated: Sequence[Row], published: Sequence[Row], metrics: Sequence[str], notes: Sequence[str] = (),
) -> str:
    """A booktabs ``table`` float (needs ``\\usepackage{booktabs}``); notes go into the caption."""

    def cell(c: Cell) -> str:
        text = latex_escape(c.text)
        text = rf"\textbf{{{text}}}" if c.bold else text
        return rf"{text} {{\scriptsize {latex_escape(c.ci)}}}" if c.ci else text

    width = len(metrics) + 1
    lines = [
        "% Generated by `surge report` (surge-bench); requires \\usepackage{booktabs}.",
        r"\begin{table}[t]", r"\centering", r"\small",
        rf"\caption{{SurGE results. {latex_escape(' '.join(notes))}}}", r"\label{tab:surge-results}",
        rf"\begin{{tabular}}{{l{'r' * len(metrics)}}}", r"\toprule",
        "System & " + " & ".join(latex_escape(metric_label(m)) for m in metrics) + r" \\", r"\midrule",
    ]
    lines += [latex_escape(r.name) + " & " + " & ".join(cell(c) for c in r.cells) + r" \\" for r in evaluated]
    if published:
        lines += [r"\midrule", rf"\multicolumn{{{width}}}{{l}}{{\textit{{Published (paper, Table 4)}}}} \\"]
        lines += [latex_escape(r.name) + r"$^\dagger$ & " + " & ".join(cell(c) for c in r.cells) + r" \\"
                  for r in published]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def table_html(
    evaluated: Sequence[Row], published: Sequence[Row], metrics: Sequence[str], notes: Sequence[str] = (),
) -> str:
    """A standalone HTML page with the table (published rows in their own, shaded block)."""

    def cell(c: Cell) -> str:
        text = html.escape(c.text)
        text = f"<b>{text}</b>" if c.bold else text
        return f"<td>{text}" + (f' <span class="ci">{html.escape(c.ci)}</span>' if c.ci else "") + "</td>"

    head = "".join(f"<th>{html.escape(metric_label(m))}</th>" for m in metrics)
    body = [f"<tr><th>{html.escape(r.name)}</th>{''.join(cell(c) for c in r.cells)}</tr>" for r in evaluated]
    if published:
        body.append(f'<tr class="block"><th colspan="{len(metrics) + 1}"><i>Published (paper, Table 4)</i></th></tr>')
        body += [f'<tr class="published"><th>{html.escape(r.name)} {PUBLISHED_MARK}</th>'
                 f"{''.join(cell(c) for c in r.cells)}</tr>" for r in published]
    style = ("body{font-family:sans-serif}table{border-collapse:collapse}"
             "th,td{padding:3px 8px;text-align:right}th:first-child{text-align:left}"
             "thead tr{border-top:2px solid;border-bottom:1px solid}tbody{border-bottom:2px solid}"
             "tr.block{border-top:1px solid}tr.published{background:#f3f3f3;font-style:italic}"
             ".ci{color:#666;font-size:80%}")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>SurGE results</title>'
        f"<style>{style}</style></head>\n<body>\n<table>\n<thead><tr><th>System</th>{head}</tr></thead>\n<tbody>\n"
        + "\n".join(body) + "\n</tbody>\n</table>\n" + "".join(f"<p>{html.escape(n)}</p>\n" for n in notes)
        + "</body>\n</html>\n"
    )


def significance_markdown(rows: Sequence[Mapping[str, Any]], alpha: float = 0.05) -> str:
    lines = ["# Paired significance", "", SIGNIFICANCE_METHOD + ".", "",
             "| Metric | A | B | Δ (A − B) | 95% CI of Δ | p | n |", "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        m = r["metric"]
        if r["delta"] is None:
            lines.append(f"| {metric_label(m)} | {r['a']} | {r['b']} | – | – | – | 0 |")
            continue
        p = f"{r['p_value']:.4f}" + (" *" if r["p_value"] < alpha else "")
        lines.append(f"| {metric_label(m)} | {r['a']} | {r['b']} | {_fmt(m, r['delta'])} | "
                     f"[{_fmt(m, r['ci_low'])}, {_fmt(m, r['ci_high'])}] | {p} | {r['n']} |")
    return "\n".join(lines) + f"\n\n\\* p < {alpha}\n"


def retrieval_markdown(runs: Sequence[RetrievalResults], *, with_paper: bool = False) -> str:
    from .retrieval.evaluation import TABLE3

    ks = sorted({k for r in runs for k, _ in r.recall_at_k()})
    keys = [f"recall@{k}" for k in ks]
    keys += [k for k in ("ndcg@10", "mrr") if any(k in r.means for r in runs)]
    lines = ["| Retriever | " + " | ".join(keys) + " |", "| --- | " + " | ".join("---:" for _ in keys) + " |"]
    for r in runs:
        lines.append(f"| {r.name} | " + " | ".join(_fmt(k, r.means.get(k)) for k in keys) + " |")
    if with_paper:
        for name, values in TABLE3.items():
            lines.append(f"| {name} {PUBLISHED_MARK} | " + " | ".join(_fmt(k, values.get(k)) for k in keys) + " |")
        lines += ["", f"{PUBLISHED_MARK} Published numbers (SurGE paper, Table 3; protocol.md §5), not recomputed."]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------ figures


def _save(fig: Any, out: Path, stem: str, formats: Sequence[str]) -> list[Path]:
    """Write ``stem.<fmt>`` atomically; SVGs carry no date and fixed ids so reruns are byte-identical."""
    written = []
    for fmt in formats:
        target = out / f"{stem}.{fmt}"
        with atomic_path(target) as tmp:
            fig.savefig(tmp, format=fmt, dpi=150, bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else None)
        written.append(target)
    return written


def _figure(width: float, height: float) -> Any:
    """A figure without pyplot: no global backend switch, no GUI, safe in servers and notebooks."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _rc() -> Any:
    import matplotlib

    return matplotlib.rc_context({"svg.hashsalt": "surge-report", "font.size": 9})


def plot_bars(
    summaries: Mapping[str, Mapping[str, MetricSummary]], metrics: Sequence[str], out: Path,
    formats: Sequence[str] = ("png", "svg"),
) -> list[Path]:
    """One panel per metric: a bar per system with its 95 % CI as error bars."""
    names = list(summaries)
    cols = min(3, len(metrics))
    rows = math.ceil(len(metrics) / cols)
    with _rc():
        fig = _figure(3.2 * cols, 2.4 * rows + 0.3 * max(len(max(names, key=len)) // 8, 0))
        axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
        colors = [f"C{i % 10}" for i in range(len(names))]
        for ax, metric in zip(axes, metrics, strict=False):
            means = np.array([np.nan if summaries[n][metric].mean is None else summaries[n][metric].mean for n in names])
            low = np.array([np.nan if summaries[n][metric].ci_low is None else summaries[n][metric].ci_low for n in names])
            high = np.array([np.nan if summaries[n][metric].ci_high is None else summaries[n][metric].ci_high for n in names])
            err = np.nan_to_num(np.vstack([means - low, high - means]), nan=0.0).clip(min=0)
            x = np.arange(len(names))
            ax.bar(x, np.nan_to_num(means), yerr=err, color=colors, capsize=3, edgecolor="black", linewidth=0.5)
            ax.set_title(metric_label(metric))
            ax.set_xticks(x, names, rotation=30 if len(names) > 2 else 0, ha="right" if len(names) > 2 else "center")
            ax.grid(axis="y", alpha=0.3)
            ax.set_axisbelow(True)
        for ax in axes[len(metrics):]:
            ax.set_visible(False)
        fig.suptitle("Mean over surveys with 95% bootstrap CI")
        return _save(fig, out, "bars", formats)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def plot_heatmap(
    systems: Sequence[SystemResults], metric: str, out: Path, formats: Sequence[str] = ("png", "svg"),
) -> list[Path]:
    """Systems x surveys for one metric; undefined values are grey (so a gap is visible, not hidden)."""
    ids = systems[0].survey_ids
    grid = np.array([[s.values(metric).get(i, np.nan) for i in ids] for s in systems], dtype=float)
    with _rc():
        fig = _figure(max(4.0, 0.45 * len(ids) + 2.5), max(1.8, 0.45 * len(systems) + 1.2))
        ax = fig.add_subplot()
        import matplotlib

        cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#cccccc")
        image = ax.imshow(np.ma.masked_invalid(grid), aspect="auto", cmap=cmap)
        ax.set_xticks(range(len(ids)), ids, rotation=90 if len(ids) > 20 else 0)
        ax.set_yticks(range(len(systems)), [s.name for s in systems])
        ax.set_xlabel("survey id")
        ax.set_title(f"{metric_label(metric)} per survey")
        if grid.size <= 300:
            finite = grid[np.isfinite(grid)]
            mid = (finite.min() + finite.max()) / 2 if finite.size else 0
            for (r, c), v in np.ndenumerate(grid):
                label = "–" if not np.isfinite(v) else (f"{v:.1f}" if metric == "bleu" else f"{v:.2f}")
                ax.text(c, r, label, ha="center", va="center", fontsize=7,
                        color="black" if not np.isfinite(v) or v > mid else "white")
        fig.colorbar(image, ax=ax, shrink=0.9)
        return _save(fig, out, f"heatmap_{_slug(metric)}", formats)


def plot_recall_at_k(
    runs: Sequence[RetrievalResults], out: Path, *, with_paper: bool = False, formats: Sequence[str] = ("png", "svg"),
) -> list[Path]:
    """Recall@k against k (log scale) per retriever; the paper's Table 3 dashed with ``with_paper``."""
    with _rc():
        fig = _figure(5.0, 3.4)
        ax = fig.add_subplot()
        for i, run in enumerate(runs):
            points = run.recall_at_k()
            if points:
                ax.plot([k for k, _ in points], [v for _, v in points], marker="o", color=f"C{i % 10}", label=run.name)
        if with_paper:
            from .retrieval.evaluation import TABLE3

            for j, (name, values) in enumerate(TABLE3.items()):
                points = sorted((int(k.split("@")[1]), v) for k, v in values.items() if k.startswith("recall@"))
                ax.plot([k for k, _ in points], [v for _, v in points], linestyle="--", marker="x", color="0.4" if j == 0 else "0.1",
                        label=f"{name} {PUBLISHED_MARK}")
        ax.set_xscale("log")
        ks = sorted({k for run in runs for k, _ in run.recall_at_k()} or {20, 100, 1000})
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.minorticks_off()
        ax.set_xlabel("k")
        ax.set_ylabel("Recall@k")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
        ax.set_title("Retrieval: recall of the surveys' cited papers")
        return _save(fig, out, "recall_at_k", formats)


# ------------------------------------------------------------------------------------------ drill-down


def _diagnostic_codes(record: Mapping[str, Any]) -> str:
    counts: dict[str, int] = {}
    for d in record.get("diagnostics") or []:
        counts[str(d.get("code"))] = counts.get(str(d.get("code")), 0) + 1
    return ", ".join(f"{c} ×{n}" if n > 1 else c for c, n in counts.items()) or "–"


def drilldown_markdown(systems: Sequence[SystemResults], metrics: Sequence[str], *, worst: int = 3) -> str:
    """Worst surveys per metric and system, with the counts and diagnostics that usually explain them."""
    lines = ["# Per-survey drill-down", "",
             f"The {worst} lowest-scoring surveys per metric and system. *hallucinated*: reference entries that "
             "match no corpus paper; *missing nos.*: citations of numbers absent from the reference list; "
             "*future*: references published after the survey.", ""]
    shown: dict[str, set[str]] = {s.name: set() for s in systems}
    for metric in metrics:
        lines += [f"## {metric_label(metric)}", "",
                  "| System | Survey | Value | Refs (resolved) | Hallucinated | Missing nos. | Future | Diagnostics |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        undefined = []
        for s in systems:
            values = s.values(metric)
            for sid, value in sorted(values.items(), key=lambda kv: (kv[1], _survey_sort_key(kv[0])))[:worst]:
                record = s.surveys[sid]
                c = record.get("counts") or {}
                shown[s.name].add(sid)
                lines.append(
                    f"| {s.name} | {sid} | {_fmt(metric, value)} | {c.get('references', '–')} ({c.get('resolved', '–')}) | "
                    f"{c.get('hallucinated', '–')} | {c.get('citations_of_missing_numbers', '–')} | "
                    f"{c.get('future_citations', '–')} | {_diagnostic_codes(record)} |"
                )
            missing = [sid for sid in s.survey_ids if sid not in values]
            if missing:
                undefined.append(f"{s.name}: {', '.join(missing)}")
        lines.append("")
        if undefined:
            lines += [f"Undefined (left out of the mean) for surveys — {'; '.join(undefined)}.", ""]
    judged = [m for m in JUDGE_METRICS if any(s.values(m) for s in systems)]
    if judged:
        lines += ["## Missing judge scores", ""]
        for m in judged:
            for s in systems:
                missing = [sid for sid in s.survey_ids if sid not in s.values(m)]
                lines.append(f"- {metric_label(m)}, {s.name}: " + (", ".join(missing) if missing else "none missing"))
        lines.append("")
    if any(s.failures for s in systems):
        lines += ["## Surveys the evaluator could not score", ""]
        lines += [f"- {s.name}: survey {f.get('survey_id')} ({f.get('path')}): {f.get('error')}"
                  for s in systems for f in s.failures]
        lines.append("")
    lines += ["## Diagnostics of the surveys listed", ""]
    for s in systems:
        lines += [f"### {s.name}", ""]
        for sid in sorted(shown[s.name], key=_survey_sort_key):
            diagnostics = s.surveys[sid].get("diagnostics") or []
            lines.append(f"- survey {sid}:" + ("" if diagnostics else " no diagnostics"))
            for d in diagnostics:
                where = f"line {d['line']}: " if d.get("line") is not None else ""
                lines.append(f"  - {where}`{d.get('code')}` {d.get('message', '')}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# ------------------------------------------------------------------------------------------ the report


def _versions() -> dict[str, str]:
    from . import __version__

    versions = {"surge-bench": __version__, "python": platform.python_version()}
    for name in ("numpy", "scipy", "matplotlib"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def build_report(
    results: Sequence[str | Path],
    out: str | Path,
    *,
    retrieval: Sequence[str | Path] = (),
    with_paper: bool = False,
    metrics: str | Sequence[str] | None = None,
    seed: int = 0,
    resamples: int = 10_000,
    worst: int = 3,
    ci: bool = True,
    formats: Sequence[str] = ("png", "svg"),
) -> dict[str, Any]:
    """Write the whole report into ``out``; returns ``report.json``'s content (its ``files`` list included).

    Raises :class:`ReportError` (e.g. :class:`SurveySetMismatchError`) before writing anything.
    """
    if seed < 0:
        raise ReportError(f"--seed must be >= 0 (got {seed})")
    if resamples < 100:
        raise ReportError(f"--resamples must be at least 100 (got {resamples})")
    if not results and not retrieval:
        raise ReportError("nothing to report: give results files of `surge evaluate` and/or --retrieval files")
    systems = load_results(results)
    runs = load_retrieval(retrieval)
    survey_ids = check_same_surveys(systems)
    chosen = select_metrics(systems, metrics) if systems else []
    if systems and not chosen:
        raise ReportError("the results files hold no metric values")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    report: dict[str, Any] = {
        "versions": _versions(),
        "settings": {"metrics": chosen, "seed": seed, "resamples": resamples, "ci_level": CI_LEVEL,
                     "with_paper": with_paper, "worst": worst, "significance": SIGNIFICANCE_METHOD},
        "inputs": [{"system": s.name, "path": str(s.path), "sha256": s.sha256, "surveys": len(s.surveys),
                    "config": {k: s.config.get(k) for k in ("metrics", "protocol", "nli_model", "embedding_model",
                                                             "data_fingerprint") if k in s.config}}
                   for s in systems],
        "retrieval_inputs": [{"system": r.name, "path": str(r.path), "sha256": r.sha256} for r in runs],
        "warnings": comparability_warnings(systems),
    }
    if systems:
        summaries = summarise(systems, chosen, seed=seed, resamples=resamples)
        pairs = significance(systems, chosen, seed=seed, resamples=resamples)
        evaluated, published = table_rows(summaries, chosen, with_paper=with_paper, ci=ci)
        notes = _notes(survey_ids, resamples, seed, ci, bool(published)) + [f"Warning: {w}." for w in report["warnings"]]
        for name, text in (("table.md", table_markdown(evaluated, published, chosen, notes)),
                           ("table.tex", table_latex(evaluated, published, chosen, notes)),
                           ("table.html", table_html(evaluated, published, chosen, notes)),
                           ("significance.md", significance_markdown(pairs)),
                           ("drilldown.md", drilldown_markdown(systems, chosen, worst=worst))):
            atomic_write_text(out / name, text)
            written.append(out / name)
        atomic_write_json(out / "significance.json", pairs)
        written.append(out / "significance.json")
        if formats:
            written += plot_bars(summaries, chosen, out, formats)
            for metric in chosen:
                if any(s.values(metric) for s in systems):
                    written += plot_heatmap(systems, metric, out, formats)
        report["survey_ids"] = survey_ids
        report["summary"] = {name: {m: vars(s) for m, s in per.items()} for name, per in summaries.items()}
    if runs:
        atomic_write_text(out / "retrieval.md", retrieval_markdown(runs, with_paper=with_paper))
        written.append(out / "retrieval.md")
        if formats:
            written += plot_recall_at_k(runs, out, with_paper=with_paper, formats=formats)
        report["retrieval"] = {r.name: r.means for r in runs}
    report["files"] = [p.name for p in written] + ["report.json"]
    atomic_write_json(out / "report.json", report)
    return report
