"""Figures (matplotlib, no pyplot): bars with confidence intervals, per-survey heat maps, Recall@k curves.

Written as PNG and SVG; SVGs carry no date and fixed ids, so a rerun gives byte-identical files.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from surge_dataset.core.io import atomic_path
from surge_dataset.core.stats import MetricSummary
from surge_dataset.report.constants import PUBLISHED_MARK, metric_label
from surge_dataset.report.results import RetrievalResults, SystemResults


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
            from surge_dataset.retrieval.evaluation import TABLE3

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
