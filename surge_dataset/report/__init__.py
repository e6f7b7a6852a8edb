"""``surge report``: turn ``surge evaluate`` results of several systems into numbers users can trust.

Inputs are results files (one system each) and, optionally, ``surge retrieval-eval`` outputs. Outputs,
all in one folder: the paper's Table 4 layout as Markdown / LaTeX (booktabs) / HTML with 95 % bootstrap
confidence intervals over surveys; paired significance between every two systems (``significance.json``);
figures (bars with CIs, per-survey heat maps, a Recall@k curve); a per-survey drill-down of the worst
surveys with their diagnostics; and ``report.json`` with the input files' hashes and the package version,
so anyone can tell which results a table came from.

Statistics (why these): surveys are the unit of sampling, so confidence intervals are percentile
bootstraps of the mean over surveys. Significance is a two-sided *paired permutation test* (sign flips of
the per-survey differences, with ``scipy.stats.permutation_test``'s statistic and p-value, computed for every pair
at once in :mod:`surge_dataset.core.stats`; exact when 2**n <= resamples, so it stays
valid with the handful of surveys of a sample, where a bootstrap p-value is too optimistic); the interval
of the difference (``ci_low``/``ci_high``) is a paired bootstrap. Pairing needs the same survey ids, so
systems evaluated on different surveys are refused. The statistics are :mod:`surge_dataset.core.stats`'s, the
leaderboard's too: every draw is seeded by ``--seed`` alone, so adding a system does not change the other
numbers and two systems with the same values get the same interval.

One module per job:

* :mod:`.constants` -- the published Table 4, column names, decimals, the errors;
* :mod:`.results`   -- loading results / retrieval-eval files, merging runs of one system, checking they are
  comparable, choosing metrics;
* :mod:`surge_dataset.core.stats` -- bootstrap intervals, paired tests, ``summarise`` (shared with the leaderboard,
  the judge agreement, meta-eval and the arena);
* :mod:`.tables`    -- Markdown / LaTeX / HTML tables (evaluated and published rows), significance, retrieval;
* :mod:`.figures`   -- bars, heat maps, Recall@k curves (matplotlib, no pyplot);
* :mod:`.drilldown` -- the worst surveys with their diagnostics;
* :mod:`.judge_variance` -- the judge std of results evaluated with ``--judge-repeats``;
* :mod:`.judging`   -- ``surge arena`` ratings (``arena.md``) and surveys that address their judge;
* :mod:`.build`     -- ``build_report``: all of it into one folder, with ``report.json``.

The public names are re-exported here (``from surge_dataset.report import build_report``); the helpers each
module keeps to itself stay there.
"""

from __future__ import annotations

from surge_dataset.core.stats import MetricSummary, bootstrap_ci, paired_test, summarise
from surge_dataset.report.build import build_report
from surge_dataset.report.constants import (
    CI_LEVEL,
    DECIMALS,
    DEFAULT_DECIMALS,
    EXTRA_COLUMNS,
    PAPER_SOURCE,
    PAPER_TABLE4,
    PUBLISHED_MARK,
    SIGNIFICANCE_METHOD,
    TABLE4_COLUMNS,
    ReportError,
    SurveySetMismatchError,
    metric_label,
)
from surge_dataset.report.drilldown import drilldown_markdown
from surge_dataset.report.figures import plot_bars, plot_heatmap, plot_recall_at_k
from surge_dataset.report.results import (
    RetrievalResults,
    SystemResults,
    available_metrics,
    check_same_surveys,
    classify_inputs,
    comparability_warnings,
    expand_folders,
    is_retrieval_output,
    load_results,
    load_retrieval,
    merge_runs,
    merged_notes,
    select_metrics,
    significance,
)
from surge_dataset.report.tables import (
    Cell,
    Row,
    dataset_notes,
    latex_escape,
    retrieval_markdown,
    significance_markdown,
    table_html,
    table_latex,
    table_markdown,
    table_rows,
)

__all__ = [
    "CI_LEVEL",
    "DECIMALS",
    "DEFAULT_DECIMALS",
    "EXTRA_COLUMNS",
    "PAPER_SOURCE",
    "PAPER_TABLE4",
    "PUBLISHED_MARK",
    "SIGNIFICANCE_METHOD",
    "TABLE4_COLUMNS",
    "Cell",
    "MetricSummary",
    "ReportError",
    "RetrievalResults",
    "Row",
    "SurveySetMismatchError",
    "SystemResults",
    "available_metrics",
    "bootstrap_ci",
    "build_report",
    "check_same_surveys",
    "classify_inputs",
    "comparability_warnings",
    "dataset_notes",
    "drilldown_markdown",
    "expand_folders",
    "is_retrieval_output",
    "latex_escape",
    "load_results",
    "load_retrieval",
    "merge_runs",
    "merged_notes",
    "metric_label",
    "paired_test",
    "plot_bars",
    "plot_heatmap",
    "plot_recall_at_k",
    "retrieval_markdown",
    "select_metrics",
    "significance",
    "significance_markdown",
    "summarise",
    "table_html",
    "table_latex",
    "table_markdown",
    "table_rows",
]
