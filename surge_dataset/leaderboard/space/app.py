"""The SurGE leaderboard: a Gradio app over the Parquet tables in ``data/`` (written by ``surge leaderboard build``).

Pages: **Table** (the paper's Table 4 layout with 95 % CIs, ranked rows in status blocks with a badge each,
mismatch rows apart and never ranked, filters, significance against a chosen system),
**System** (per-survey scores, a heat map, the worst surveys with their diagnostics), **Survey viewer**
(a generated survey with each citation coloured by its verdict and its evidence on hover or click, beside
the GT outline; a page of citations at a time), **Plots** (means with CIs, Recall@k) and **Refused**
(submissions the builder left out, and duplicates). Runs as a HuggingFace Space (``app_file:
app.py``) or locally: ``python app.py`` (``GRADIO_SERVER_PORT`` picks the port). Needs gradio, pandas,
pyarrow, nh3 and markdown-it-py; never surge-bench.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # no calls home from a leaderboard

try:  # inside surge-bench (tests): surge_dataset.leaderboard.space; in the Space: modules beside this file
    from surge_dataset.leaderboard.space import leaderboard_data as lbdata
    from surge_dataset.leaderboard.space import leaderboard_viewer as viewer
except ImportError:
    import leaderboard_data as lbdata  # type: ignore[no-redef]
    import leaderboard_viewer as viewer  # type: ignore[no-redef]

DATA = Path(__file__).resolve().parent / "data"


def _table_page(gr: Any, board: lbdata.Board) -> None:
    choices = board.filter_choices()
    with gr.Row():
        filters = {column: gr.Dropdown(values, value=lbdata.ALL, label=board.meta["filters"][column],
                                       elem_id=f"filter-{column}") for column, values in choices.items()}
    with gr.Row():
        ci = gr.Checkbox(True, label="Show 95% CIs")
        published = gr.Checkbox(False, label=f"Show the paper's published rows ({board.meta['published']['mark']})",
                                elem_id="show-published")
    frame, note = board.table({}, ci=True, published=False)
    table = gr.Dataframe(board.styled(frame), elem_id="leaderboard-table", interactive=False, wrap=False,
                         max_height=700, show_search="search", pinned_columns=1,
                         label="Leaderboard: ranked rows, verified first (sort: a column header's menu ⋮)")
    note_md = gr.Markdown(note, elem_id="table-note")
    gr.Markdown("### Not ranked: mismatch\n\nA submitted score differs from the one re-computed from its surveys "
                "when this Space was built (the first difference is named). These rows are never ranked.")
    mismatch = gr.Dataframe(board.styled(board.mismatches({}), grey=True), elem_id="mismatch-table",
                            interactive=False, wrap=True, label="Mismatch (not ranked)")
    gr.Markdown("### Paired significance against a system")
    compare = gr.Dropdown(board.names, value=board.names[0] if board.names else None, label="Compare every system with",
                          elem_id="compare-system")
    first = board.compare(board.names[0] if board.names else None)
    significance = gr.Dataframe(first[0], interactive=False, elem_id="significance-table", wrap=True)
    significance_note = gr.Markdown(first[1], elem_id="significance-note")

    def update(*values: Any) -> tuple[Any, str, Any]:
        *chosen, show_ci, show_published = values
        picked = dict(zip(filters, chosen, strict=True))
        frame, note = board.table(picked, ci=show_ci, published=show_published)
        return board.styled(frame), note, board.styled(board.mismatches(picked), grey=True)

    inputs = [*filters.values(), ci, published]
    for component in inputs:
        component.change(update, inputs, [table, note_md, mismatch])
    compare.change(board.compare, compare, [significance, significance_note])


def _system_page(gr: Any, board: lbdata.Board) -> tuple[Any, list[Any], list[Any]]:
    """The page's components; filled when the tab is first opened (the first page stays light)."""
    first = board.names[0] if board.names else None
    with gr.Row():
        system = gr.Dropdown(board.names, value=first, label="System", elem_id="system-system")
        metric = gr.Dropdown([(board.labels[m], m) for m in board.metrics],
                             value=board.metrics[0] if board.metrics else None, label="Metric", elem_id="system-metric")
        worst_n = gr.Slider(1, 20, value=5, step=1, label="Worst surveys shown")
    verification = gr.Markdown("", elem_id="system-verification")
    scores = gr.Dataframe(None, interactive=False, max_height=500, label="Per-survey scores (sortable)",
                          elem_id="system-scores")
    heat = gr.HTML("", elem_id="system-heatmap", js_on_load=None)
    gr.Markdown("### Worst surveys, with the diagnostics that usually explain them")
    worst = gr.Dataframe(None, interactive=False, wrap=True, elem_id="system-worst")

    def update(name: str | None, key: str | None, n: float) -> tuple[Any, str, Any, str]:
        if not name or not key:
            return None, "<p>No system to show.</p>", None, ""
        return (board.system_scores(name), board.heatmap_html(name, key), board.worst(name, key, int(n)),
                board.verification_note(name))

    inputs, outputs = [system, metric, worst_n], [scores, heat, worst, verification]
    for component in inputs:
        component.change(update, inputs, outputs)
    return update, inputs, outputs


def _survey_header(board: lbdata.Board, system: str, survey_id: str, info: dict[str, Any], page: int = 0) -> str:
    """The viewer's header: the survey's scores, its verdict counts (all records), which citations and which part
    of the text are shown, and what this Space does not have (text, details, papers, titles, abstracts, GT)."""
    scores = info["scores"]
    shown = ", ".join(f"{board.labels[m]} {scores[m]:.{board.decimals[m]}f}" for m in board.metrics
                      if scores.get(m) is not None and scores.get(m) == scores.get(m))
    lines = [f"**{lbdata.markdown_text(system)}**, survey **{lbdata.markdown_text(survey_id)}**: {shown or 'no scores'}"]
    if not info["has_details"]:
        lines.append("ℹ️ **Scores only**: this system's results were evaluated without `--details`, so the "
                     "citations are not coloured and there is no evidence to show.")
    if info["text"] is None:
        lines.append("ℹ️ The generated survey's text is not in this Space.")
    counts = info["verdict_counts"]
    if counts:
        lines.append("Verdicts (all citations and reference entries): "
                     + ", ".join(f"{lbdata.markdown_text(k)} {v:,}" for k, v in counts.items()))
    stored = len(info["citations"])
    if stored > lbdata.VIEW_ROWS or stored < info["total"]:
        rows = board.page_rows(info, page)
        first = int(page or 0) * lbdata.VIEW_ROWS + 1 if len(rows) else 0
        kept = (f"; this Space keeps the first {stored:,} of the survey's {info['total']:,} rows"
                if stored < info["total"] else "")
        lines.append(f"ℹ️ **Showing citations {first:,}–{first + len(rows) - 1:,} of {stored:,}** (coloured in the "
                     f"text and listed below; pick another page above){kept}.")
    start, end = board.text_window(info, page)
    if info["text"] is not None and (start, end) != (0, len(info["text"])):
        lines.append(f"ℹ️ **A long survey: showing characters {start + 1:,}–{end:,} of {len(info['text']):,}** "
                     "(from this page's first citation; the citations outside this part are listed below, not "
                     "coloured).")
    missing = []
    if info["unknown_docs"]:
        missing.append(f"{len(info['unknown_docs'])} cited doc id(s) have no paper in this Space (e.g. "
                       f"{info['unknown_docs'][0]}; built without `--data`, or not in its corpus)")
    if info["untitled_docs"]:
        missing.append(f"{len(info['untitled_docs'])} cited paper(s) have no title")
    if info["no_abstract_docs"]:
        missing.append(f"{len(info['no_abstract_docs'])} cited paper(s) have no abstract")
    if missing:
        lines.append("ℹ️ Missing here: " + "; ".join(missing) + ".")
    if info["gt_outline"] is None:
        lines.append("ℹ️ No ground-truth outline in this Space (built without `--data`, or another dataset).")
    return "\n\n".join(lines)


def _survey_view(board: lbdata.Board, system: str | None, survey_id: str | None,
                 page: int | None = 0) -> tuple[str, str, Any, str]:
    """Header, body, evidence table and outlines of one page of a survey: only that page's citations
    (:data:`~leaderboard_data.VIEW_ROWS`) are coloured and listed, so the page stays small whatever the details
    file held."""
    if not system or not survey_id:
        return "Pick a system and a survey.", "", None, ""
    info = board.survey(system, str(survey_id))
    page = page if isinstance(page, int) and 0 <= page < len(board.pages(info)) else 0
    rows = board.page_rows(info, page).to_dict("records") if info["has_details"] else []
    start, end = board.text_window(info, page)
    if start or end != len(info["text"] or ""):  # a long survey: its part around this page, offsets shifted
        rows = [{**r, "start": r["start"] - start, "end": r["end"] - start} for r in rows
                if r["start"] is not None and start <= r["start"] and r["end"] <= end]
    body = (viewer.render_survey(info["text"][start:end], rows, info["papers"]) if info["text"] is not None
            else "<p><i>No survey text in this Space.</i></p>")
    outline = viewer.outline_html(info["outline"], info["gt_outline"])
    return _survey_header(board, system, str(survey_id), info, page), body, board.evidence_table(info, page), outline


def _survey_page(gr: Any, board: lbdata.Board) -> tuple[Any, list[Any], list[Any]]:
    """The page's components; the first survey is rendered when the tab is first opened."""
    first = board.names[0] if board.names else None
    ids = board.survey_ids(first) if first else []
    with gr.Row():
        system = gr.Dropdown(board.names, value=first, label="System", elem_id="viewer-system")
        survey = gr.Dropdown(ids, value=ids[0] if ids else None, label="Survey", elem_id="viewer-survey")
        page = gr.Dropdown([("citations 1–…", 0)], value=0, label=f"Citations shown ({lbdata.VIEW_ROWS} a page)",
                           elem_id="viewer-page")
    header_md = gr.Markdown("", elem_id="viewer-header")
    gr.HTML(viewer.legend(), elem_id="viewer-legend", js_on_load=None)
    with gr.Row():
        with gr.Column(scale=3):
            body_html = gr.HTML("", elem_id="viewer-survey-body", js_on_load=None)
        with gr.Column(scale=2):
            outline_html = gr.HTML("", elem_id="viewer-outline", js_on_load=None)
    evidence_df = gr.Dataframe(None, interactive=False, wrap=True, max_height=500, elem_id="viewer-evidence",
                               label="The page's citations and reference entries, with their evidence")

    def pages(name: str | None, sid: str | None) -> Any:
        choices = board.pages(board.survey(name, str(sid))) if name and sid else [("citations 1–…", 0)]
        return gr.Dropdown(choices=choices, value=0)

    def open_survey(name: str | None, sid: str | None) -> tuple[Any, ...]:
        return (pages(name, sid), *_survey_view(board, name, sid, 0))

    def pick_system(name: str) -> tuple[Any, ...]:
        choices = board.survey_ids(name)
        value = choices[0] if choices else None
        return (gr.Dropdown(choices=choices, value=value), *open_survey(name, value))

    outputs = [header_md, body_html, evidence_df, outline_html]
    system.input(pick_system, system, [survey, page, *outputs])
    survey.input(open_survey, [system, survey], [page, *outputs])
    page.input(lambda name, sid, p: _survey_view(board, name, sid, p), [system, survey, page], outputs)
    return open_survey, [system, survey], [page, *outputs]


def _plain(value: Any) -> str:
    """A value of leaderboard.json's refused/duplicates lists as words: a list joined, yes/no for a flag."""
    if value is None or value == "":
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(_plain(v) for v in value) or "–"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_plain(v)}" for k, v in value.items()) or "–"
    return str(value)


def _refused_markdown(board: lbdata.Board) -> str:
    """The Refused page: submissions the builder left out, and duplicates of another submission. Every file name,
    claimed name and reason comes from a submitter: plain text (:func:`markdown_text`), cut short."""
    def table(header: tuple[str, ...], keys: tuple[str, ...], items: list[Any]) -> str:
        rows = [item for item in items if isinstance(item, dict)]
        lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
        lines += ["| " + " | ".join(lbdata.markdown_text(_plain(item.get(k)), limit=400) for k in keys) + " |"
                  for item in rows]
        return "\n".join(lines)

    refused, duplicates = board.meta.get("refused") or [], board.meta.get("duplicates") or []
    parts = ["### Refused submissions",
             "Left out of every table: the file, the name it claims and why." if refused
             else "No submission was refused."]
    if refused:
        parts.append(table(("File", "Claimed system", "Reason"), ("file", "system", "reason"), refused))
    parts += ["### Duplicates", "Submissions the builder found to duplicate another one: the file, the name it "
              "claims, the one it duplicates and what differs." if duplicates else "No duplicate submission."]
    if duplicates:
        parts.append(table(("File", "Claimed name", "Duplicate of", "Differs"),
                           ("file", "system", "duplicate_of", "differs"), duplicates))
    return "\n\n".join(parts)


def _refused_page(gr: Any, board: lbdata.Board) -> None:
    gr.Markdown(_refused_markdown(board), elem_id="refused")


def _plots_page(gr: Any, board: lbdata.Board) -> None:
    groups = list(board.groups)
    with gr.Row():
        metric = gr.Dropdown([(board.labels[m], m) for m in board.metrics],
                             value=board.metrics[0] if board.metrics else None, label="Metric", elem_id="plot-metric")
        group = gr.Dropdown(groups, value=groups[0] if groups else None, label="Setting group (never mixed)",
                            elem_id="plot-group")
    m0, g0 = (board.metrics[0] if board.metrics else None), (groups[0] if groups else None)

    def bar_plot(key: str | None, label: str | None, **layout: Any) -> Any:
        frame = board.bars(key, label) if key and label else None
        top = float(frame["ci_high"].max()) if frame is not None and frame["ci_high"].notna().any() else 1.0
        return gr.BarPlot(frame, y_lim=[0, top * 1.05 if top > 0 else 1.0], **layout)

    with gr.Row():
        bars = bar_plot(m0, g0, x="system", y="mean", color="system", x_label_angle=-30, elem_id="plot-bars",
                        tooltip=["system", "mean", "ci_low", "ci_high", "n"], title="Mean over surveys (tooltip: 95% CI)")
        ranges = gr.ScatterPlot(board.ci_ranges(m0, g0) if m0 and g0 else None, x="system", y="value", color="point",
                                color_map={name: "#000000" if column == "mean" else "#9e9e9e"
                                           for column, name in lbdata.CI_POINTS.items()},
                                tooltip=["system", "point", "value"], x_label_angle=-30, elem_id="plot-ci",
                                title="95% bootstrap CI per system: the mean (black) between the interval's ends (grey)")
    recall = board.recall_at_k()
    gr.LinePlot(recall, x="k", y="recall", color="system", tooltip="all", elem_id="plot-recall",
                title=f"Recall@k (retrieval-eval inputs; {board.meta['published']['mark']} the paper's Table 3)")

    def update(key: str, label: str) -> tuple[Any, Any]:
        return bar_plot(key, label), board.ci_ranges(key, label)

    metric.change(update, [metric, group], [bars, ranges])
    group.change(update, [metric, group], [bars, ranges])


def build_app(data_dir: str | Path = DATA) -> Any:
    """The Gradio Blocks of the leaderboard over ``data_dir`` (not launched)."""
    import gradio as gr

    board = lbdata.Board(data_dir)
    with gr.Blocks(title=board.meta["title"]) as demo:
        gr.Markdown(f"# {lbdata.markdown_text(board.meta['title'])}\n\n{len(board.names)} systems, "
                    f"{len(board.groups)} setting group(s). Scores of the SurGE benchmark for scientific survey "
                    "generation.")
        if board.meta["warnings"]:
            with gr.Accordion(f"⚠️ {len(board.meta['warnings'])} warning(s) from the build", open=False):
                gr.Markdown("\n".join(f"- {lbdata.markdown_text(w)}" for w in board.meta["warnings"]), elem_id="warnings")
        with gr.Tabs():
            with gr.Tab("Table", id="table"):
                _table_page(gr, board)
            with gr.Tab("System", id="system") as system_tab:
                system_tab.select(*_system_page(gr, board))
            with gr.Tab("Survey viewer", id="viewer") as viewer_tab:
                viewer_tab.select(*_survey_page(gr, board))
            with gr.Tab("Plots", id="plots"):
                _plots_page(gr, board)
            refused = len(board.meta["refused"]) + len(board.meta["duplicates"])
            with gr.Tab(f"Refused ({refused})" if refused else "Refused", id="refused"):
                _refused_page(gr, board)
    return demo


def main() -> None:
    build_app().launch(server_name=os.environ.get("GRADIO_SERVER_NAME"), show_error=True)


if __name__ == "__main__":
    main()
