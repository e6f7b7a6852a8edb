"""The tables: Table 4 rows (evaluated and published) as Markdown, LaTeX (booktabs) and HTML, the paired
significance table, and the retrieval table next to the paper's Table 3."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from surge_dataset.core.stats import MetricSummary
from surge_dataset.evaluation.catalogue import higher_is_better
from surge_dataset.report.constants import (
    PAPER_SOURCE,
    PAPER_TABLE4,
    PUBLISHED_MARK,
    SIGNIFICANCE_METHOD,
    format_value,
    metric_label,
)
from surge_dataset.report.results import RetrievalResults


@dataclass
class Cell:
    text: str
    bold: bool = False
    ci: str = ""
    #: "(n=1/3)" when the value is over fewer surveys than the run's: a mean of one survey looks like any other
    n: str = ""

    def suffix(self) -> str:
        """What follows the value in every format: the interval, then how many surveys it is over."""
        return " ".join(part for part in (self.ci, self.n) if part)


def n_text(n: int, surveys: int | None) -> str:
    """``(n=k/N)`` when a metric's value is over ``k`` of the run's ``N`` surveys, else nothing."""
    return f"(n={n}/{surveys})" if surveys is not None and n != surveys else ""


@dataclass
class Row:
    name: str
    cells: list[Cell]
    published: bool = False


def bold_best(rows: list[Row], metrics: Sequence[str]) -> None:
    """Bold the best shown value of each column (ties all bold): the highest, or the lowest for a metric declared
    lower-is-better (``quiz_unanswered``, :func:`surge_dataset.evaluation.catalogue.higher_is_better`); one row alone
    is compared with nothing."""
    if len(rows) < 2:
        return
    for j, metric in enumerate(metrics):
        shown = [float(r.cells[j].text) for r in rows if r.cells[j].text != "–"]
        if len(shown) < 2:
            continue
        best = max(shown) if higher_is_better(metric) else min(shown)
        for r in rows:
            if r.cells[j].text != "–" and float(r.cells[j].text) == best:
                r.cells[j].bold = True


def table_rows(
    summaries: Mapping[str, Mapping[str, MetricSummary]], metrics: Sequence[str], *,
    with_paper: bool = False, ci: bool = True, surveys: int | None = None,
) -> tuple[list[Row], list[Row]]:
    """(evaluated rows, published rows); best per column bold within each block (they are not comparable).
    ``surveys``: the run's survey count; a cell over fewer surveys says how many (:func:`n_text`)."""
    evaluated = []
    for name, summary in summaries.items():
        cells = []
        for m in metrics:
            s = summary[m]
            interval = f"[{format_value(m, s.ci_low)}, {format_value(m, s.ci_high)}]" if ci and s.mean is not None else ""
            cells.append(Cell(format_value(m, s.mean), ci=interval, n=n_text(s.n, surveys)))
        evaluated.append(Row(name, cells))
    published = [Row(name, [Cell(format_value(m, values.get(m))) for m in metrics], published=True)
                 for name, values in PAPER_TABLE4.items()] if with_paper else []
    if with_paper and not any(m in PAPER_TABLE4["RAG-Qwen"] for m in metrics):
        published = []
    bold_best(evaluated, metrics)
    bold_best(published, metrics)
    return evaluated, published


def bold_rows(rows: Sequence[Row]) -> bool:
    return any(c.bold for r in rows for c in r.cells)


def table_notes(survey_ids: Sequence[str], resamples: int, seed: int, ci: bool, published: bool,
           evaluated_bold: bool = True, published_bold: bool | None = None) -> list[str]:
    """The table's footnotes; the bold one only for the blocks that have a bold value (one system: none)."""
    notes = [f"Means over {len(survey_ids)} surveys (ids {', '.join(survey_ids)}), of the values in the results "
             "files: undefined values are 0 there under --aggregate released and left out under defined; a value "
             f"over fewer than the {len(survey_ids)} surveys says over how many (n=k/{len(survey_ids)})."]
    if ci:
        notes.append(f"Brackets: 95% percentile bootstrap confidence interval over surveys "
                     f"({resamples:,} resamples, seed {seed}).")
    published_bold = published if published_bold is None else published_bold and published
    blocks = [b for b, shown in (("among the evaluated systems", evaluated_bold),
                                 ("among the published rows", published_bold)) if shown]
    if blocks:
        notes.append("Bold: best per column " + " and, separately, ".join(blocks) + ".")
    if published:
        notes.append(f"{PUBLISHED_MARK} Published numbers ({PAPER_SOURCE}), copied, not recomputed: the paper's "
                     "systems on its 41 test surveys; not comparable with rows evaluated on other surveys.")
    return notes


def no_value_notes(empty: Sequence[tuple[str, str, int, int]]) -> list[str]:
    """One note per metric a system has no value for (:func:`~.results.metrics_without_value`), with the share of
    its judge answers that are missing when it is a judged metric (no final full stop: the table adds it)."""
    notes = []
    for system, key, missing, asked in empty:
        share = f" ({missing} of {asked} judge answers missing, {missing / asked:.0%})" if asked else ""
        notes.append(f"{system}: {metric_label(key)} has no value on any survey{share}, so the table shows none")
    return notes


def _dataset_text(config: Mapping[str, Any]) -> str:
    """One dataset as the notes name it: short fingerprint, then its date window or why there is none."""
    from surge_dataset.data.fresh_manifest import window_text

    fingerprint = config.get("data_fingerprint")
    text = f"dataset {fingerprint[:8]}" if fingerprint else "a dataset whose fingerprint the results file lacks"
    window = config.get("data_window")
    if isinstance(window, Mapping):
        text += f", a fresh split with the date window {window_text(window)}"
    elif "data_window" in config:
        text += ", no date window recorded (only fresh splits record one)"
    else:
        text += ", date window unknown (the results file predates data_window)"
    dates = config.get("data_survey_dates")
    if isinstance(dates, Sequence) and len(dates) == 2:
        text += f"; survey dates in the data: {dates[0]} to {dates[1]}"
    return text


def dataset_notes(systems: Sequence[Any]) -> list[str]:
    """Which dataset each row used: one note naming the dataset when all rows share it, else one per dataset with
    its rows (systems with ``name`` and ``config``, as :class:`~.results.SystemResults`)."""
    rows: dict[str, list[str]] = {}
    for system in systems:
        rows.setdefault(_dataset_text(system.config), []).append(system.name)
    if len(rows) == 1:
        return [f"Data: every row used {next(iter(rows))}."]
    return [f"Data: {', '.join(names)} used {text}." for text, names in rows.items()]


def table_markdown(
    evaluated: Sequence[Row], published: Sequence[Row], metrics: Sequence[str], notes: Sequence[str] = (),
) -> str:
    def cell(c: Cell) -> str:
        text = f"**{c.text}**" if c.bold else c.text
        return f"{text} {c.suffix()}" if c.suffix() else text

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


LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "†": r"$^\dagger$", "–": "--", "§": r"\S{}",
}


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIAL.get(ch, ch) for ch in text)


def table_latex(
    evaluated: Sequence[Row], published: Sequence[Row], metrics: Sequence[str], notes: Sequence[str] = (),
) -> str:
    """A booktabs ``table`` float (needs ``\\usepackage{booktabs}``); notes go into the caption."""

    def cell(c: Cell) -> str:
        text = latex_escape(c.text)
        text = rf"\textbf{{{text}}}" if c.bold else text
        return rf"{text} {{\scriptsize {latex_escape(c.suffix())}}}" if c.suffix() else text

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
    figures: Sequence[Path] = (),
) -> str:
    """A standalone HTML page with the table (published rows in their own, shaded block), its notes and the
    ``figures`` under it: SVGs inline (the page stays one file), other images linked by name."""

    def cell(c: Cell) -> str:
        text = html.escape(c.text)
        text = f"<b>{text}</b>" if c.bold else text
        return f"<td>{text}" + (f' <span class="ci">{html.escape(c.suffix())}</span>' if c.suffix() else "") + "</td>"

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
        + "".join(_figure_html(path) for path in figures) + "</body>\n</html>\n"
    )


def _figure_html(path: Path) -> str:
    """One figure of the report for its HTML page: an SVG inline without its XML prolog, else an image by name."""
    if path.suffix == ".svg":
        svg = path.read_text(encoding="utf-8")
        image = svg[svg.index("<svg"):]
    else:
        image = f'<img src="{html.escape(path.name)}" alt="{html.escape(path.stem)}">'
    return f'<figure id="{html.escape(path.stem)}">{image}<figcaption>{html.escape(path.name)}</figcaption></figure>\n'


def significance_markdown(rows: Sequence[Mapping[str, Any]], alpha: float = 0.05, systems: Sequence[str] = ()) -> str:
    """The paired tests as a table; with fewer than two ``systems`` (no pair to test), why there is none."""
    if not rows and len(systems) < 2:
        which = f"One system ({systems[0]})" if systems else "No system"
        return (f"# Paired significance\n\n{which}: paired significance compares two systems survey by survey, so "
                "there is nothing to test. Give `surge report` the results files of at least two systems evaluated "
                "on the same surveys.\n")
    lines = ["# Paired significance", "", SIGNIFICANCE_METHOD + ".", "",
             "| Metric | A | B | Δ (A − B) | 95% CI of Δ | p | n |", "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        m = r["metric"]
        if r["delta"] is None:
            lines.append(f"| {metric_label(m)} | {r['a']} | {r['b']} | – | – | – | 0 |")
            continue
        p = f"{r['p_value']:.4f}" + (" *" if r["p_value"] < alpha else "")
        lines.append(f"| {metric_label(m)} | {r['a']} | {r['b']} | {format_value(m, r['delta'])} | "
                     f"[{format_value(m, r['ci_low'])}, {format_value(m, r['ci_high'])}] | {p} | {r['n']} |")
    return "\n".join(lines) + f"\n\n\\* p < {alpha}\n"


def retrieval_markdown(runs: Sequence[RetrievalResults], *, with_paper: bool = False) -> str:
    from surge_dataset.retrieval.evaluation import TABLE3

    ks = sorted({k for r in runs for k, _ in r.recall_at_k()})
    keys = [f"recall@{k}" for k in ks]
    keys += [k for k in ("ndcg@10", "mrr") if any(k in r.means for r in runs)]
    lines = ["| Retriever | " + " | ".join(keys) + " |", "| --- | " + " | ".join("---:" for _ in keys) + " |"]
    for r in runs:
        lines.append(f"| {r.name} | " + " | ".join(format_value(k, r.means.get(k)) for k in keys) + " |")
    if with_paper:
        for name, values in TABLE3.items():
            lines.append(f"| {name} {PUBLISHED_MARK} | " + " | ".join(format_value(k, values.get(k)) for k in keys) + " |")
        lines += ["", f"{PUBLISHED_MARK} Published numbers (SurGE paper, Table 3; protocol.md §5), not recomputed."]
    return "\n".join(lines) + "\n"
