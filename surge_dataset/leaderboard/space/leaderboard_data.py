"""The leaderboard's data as the app's pages show it: pandas frames read from ``data/*.parquet``.

The small tables (systems, means, significance, per-survey scores) are read at start-up; a survey's
text, citations, papers and outlines are read when it is opened (row groups of 8192 rows, filtered by
system and survey id, so opening one survey reads a few row groups, not the whole file).

Part of the Space: it imports neither gradio nor surge-bench.
"""

from __future__ import annotations

import html
import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

ALL = "(all)"
#: The Table page's first columns: who, its verification as a badge, its setting group; then the scores, and only
#: after them (right of the first screen) which data, how many surveys and which metric groups were re-computed.
FIRST = ("System", "Status", "Group")
LAST = ("Surveys", "Data", "Checked")
#: Ranked rows come in status blocks, in this order (a mismatch is never ranked: it has its own table).
STATUS_ORDER = ("verified", "precision", "unverified")
#: status -> its badge, for a Space whose builder wrote no ``badge`` column.
BADGES = {"verified": "✓ verified", "precision": "≈ precision", "unverified": "unverified", "mismatch": "✗ mismatch"}
#: The mark after a score that was not re-computed (an LLM judge's, or one the builder could not re-run);
#: "†" already marks the paper's published rows.
SELF_MARK = "‡"
SELF_REPORTED, RECOMPUTED = "self-reported", "recomputed"
#: Citations coloured and listed per page of the survey viewer: the page's size (and first paint) stays bounded
#: whatever the details file holds.
VIEW_ROWS = 250
#: Characters of a survey's text rendered with a page of citations: the builder keeps up to 1,000,000, whose
#: HTML alone took chromium most of the 3 s budget to lay out.
TEXT_WINDOW = 200_000
CELL = "padding:0;border:none;min-width:7px;width:7px;height:16px"
SIGNIFICANCE_ALPHA = 0.05


def markdown_text(text: Any, limit: int = 300) -> str:
    """Text shown inside Markdown as plain text (names come from submissions): every Markdown/HTML character
    escaped, ``:`` and ``@`` too so that no URL or e-mail address becomes a link (GFM autolinks), line breaks
    as spaces, cut to ``limit`` characters."""
    text = " ".join(str(text).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return "".join("\\" + c if c in "\\`*_{}[]()#+-.!|<>~&:@" else c for c in text)


def _code(text: Any) -> str:
    """Text shown as a Markdown code span (its backticks replaced: a code span cannot hold them safely)."""
    return "`" + str(text).replace("`", "'").replace("\n", " ") + "`"


def _str(value: Any) -> str | None:
    """A text value read back from Parquet, or None: pandas 3 gives a missing string as NaN (a float)."""
    return value if isinstance(value, str) else None


def _survey_key(survey_id: str) -> tuple[int, int, str]:
    return (0, int(survey_id), "") if str(survey_id).isdigit() else (1, 0, str(survey_id))


#: Column of the means table -> the name of its point in the CI plot (the mean is drawn apart from the ends).
CI_POINTS = {"ci_low": "95% CI low", "mean": "mean", "ci_high": "95% CI high"}

class Board:
    """Every page's content, from the folder ``data`` of a Space."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.meta: dict[str, Any] = json.loads((self.folder / "leaderboard.json").read_text(encoding="utf-8"))
        self.systems = self._read("systems")
        self.means = self._read("means")
        self.significance = self._read("significance")
        self.scores = self._read("scores")
        self.retrieval = self._read("retrieval")
        self.metrics = [m["key"] for m in self.meta["metrics"]]
        self.judged = {m["key"] for m in self.meta["metrics"] if m.get("judged")}
        self.labels = {m["key"]: m["label"] + (" ↓" if m.get("higher_is_better") is False else "")  # lower is better
                       for m in self.meta["metrics"]}
        self.decimals = {m["key"]: int(m["decimals"]) for m in self.meta["metrics"]}
        self.groups = {g["label"]: g for g in self.meta["groups"]}
        self.names = list(self.systems["system"]) if len(self.systems) else []
        self.group_of = dict(zip(self.names, self.systems["group"], strict=True)) if self.names else {}
        self._status_defaults()
        self.source = self._sources()
        self.meta.setdefault("refused", [])
        self.meta.setdefault("duplicates", [])

    def _status_defaults(self) -> None:
        """``status``, ``ranked``, ``badge``, ``verified_groups`` and ``first_difference`` as the builder writes them;
        a Space built before they existed gets them from its ``verification`` column."""
        rows = self.systems
        old = rows["verification"] if "verification" in rows else [None] * len(rows)
        given = rows["status"] if "status" in rows else old
        status = [s if isinstance(s, str) and s in BADGES else (o if isinstance(o, str) and o in BADGES else "unverified")
                  for s, o in zip(given, old, strict=True)]
        rows["status"] = pd.Series(status, index=rows.index, dtype=object)
        ranked = rows["ranked"] if "ranked" in rows else [None] * len(rows)
        rows["ranked"] = [s != "mismatch" and (r is None or isinstance(r, str) or pd.isna(r) or bool(r))
                          for r, s in zip(ranked, status, strict=True)]  # a mismatch never, whatever a row says
        badge = rows["badge"] if "badge" in rows else [None] * len(rows)
        rows["badge"] = [b if isinstance(b, str) and b.strip() else BADGES[s] for b, s in zip(badge, status, strict=True)]
        for column in ("verified_groups", "first_difference"):
            rows[column] = [v if isinstance(v, str) else None for v in rows[column]] if column in rows else None

    def _sources(self) -> dict[tuple[str, str], str]:
        """(system, metric) -> "recomputed" or "self-reported". Without a ``source`` column (an older builder): a judged
        metric, or any score of a system that is not verified, counts as self-reported."""
        status = dict(zip(self.systems["system"], self.systems["status"], strict=True)) if self.names else {}
        given = self.means["source"] if "source" in self.means else [None] * len(self.means)
        out = {}
        for name, metric, source in zip(self.means["system"], self.means["metric"], given, strict=True):
            if source not in (SELF_REPORTED, RECOMPUTED):
                source = SELF_REPORTED if metric in self.judged or status.get(name) not in ("verified", "precision") \
                    else RECOMPUTED
            out[(name, metric)] = source
        return out

    def _read(self, name: str, filters: list[tuple[str, str, Any]] | None = None) -> pd.DataFrame:
        return pq.read_table(self.folder / f"{name}.parquet", filters=filters).to_pandas()

    # ----------------------------------------------------------------------------------------- table

    def filter_choices(self) -> dict[str, list[str]]:
        return {column: [ALL, *sorted(set(self.systems[column].astype(str)))] for column in self.meta["filters"]
                if column in self.systems}

    def selected(self, filters: dict[str, str]) -> pd.DataFrame:
        rows = self.systems
        for column, value in filters.items():
            if value and value != ALL and column in rows:
                rows = rows[rows[column].astype(str) == value]
        return rows

    def _round(self, metric: str, value: Any) -> float | None:
        return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(
            float(value), self.decimals.get(metric, 4))

    def _fmt(self, metric: str, value: Any) -> str:
        return "–" if value is None or value != value else f"{float(value):.{self.decimals.get(metric, 4)}f}"

    @staticmethod
    def data_label(system: Any) -> str:
        """Which dataset a row used, in a cell: the short fingerprint (8 characters, as ``surge report`` prints it)
        and the fresh split's date window when the results recorded one; "unknown" where they say nothing."""
        fingerprint = str(system.get("data_fingerprint") or "unknown")
        window = system.get("data_window")
        window = "" if window is None or window != window else str(window)  # NaN: a Space built before the column
        short = fingerprint if fingerprint == "unknown" else fingerprint[:8]
        if window == "unknown":
            return short if short == "unknown" else f"{short} (window unknown)"
        return f"{short} ({window})" if window else short

    def _metric_cells(self, record: dict[str, Any], name: str, means: pd.DataFrame, ci: bool) -> None:
        for m in self.metrics:
            s = means.loc[(name, m)] if (name, m) in means.index else None
            record[self.column(m)] = None if s is None or pd.isna(s["mean"]) else float(s["mean"])
            if ci:
                record[self.ci_column(m)] = "" if s is None or pd.isna(s["mean"]) else (
                    f"[{self._fmt(m, s['ci_low'])}, {self._fmt(m, s['ci_high'])}]")

    def table(self, filters: dict[str, str], *, ci: bool = True, published: bool = False) -> tuple[pd.DataFrame, str]:
        """The ranked rows the filters keep, in status blocks (verified, precision, unverified; the builder's order
        within a block): who, its badge and group, the scores, then their CIs, then which data and surveys. Mismatch
        rows are never here (:meth:`mismatches`). And a note saying what the marks mean and which settings are mixed."""
        rows = self.selected(filters).pipe(lambda r: r[r["ranked"].astype(bool)])
        block = [STATUS_ORDER.index(s) if s in STATUS_ORDER else len(STATUS_ORDER) for s in rows["status"]]
        rows = rows.assign(_block=block).sort_values("_block", kind="stable")
        means = self.means.set_index(["system", "metric"])
        records = []
        for _, system in rows.iterrows():
            record: dict[str, Any] = {"System": system["system"], "Status": system["badge"], "Group": system["group"],
                                      "Surveys": int(system["surveys"]), "Data": self.data_label(system),
                                      "Checked": system["verified_groups"] or self.verification_label(system)}
            self._metric_cells(record, system["system"], means, ci)
            records.append(record)
        if published:
            pub = self.meta["published"]
            for name, values in pub["rows"].items():
                record = {"System": f"{name} {pub['mark']}", "Status": f"published {pub['mark']}",
                          "Group": f"published {pub['mark']}", "Data": "", "Surveys": 41,
                          "Checked": "published, not re-scored"}
                record.update({self.column(m): values.get(m) for m in self.metrics})
                records.append({**record, **{self.ci_column(m): "" for m in self.metrics if ci}})
        return pd.DataFrame(records, columns=self.columns(ci)), self.table_note(rows, published)

    def columns(self, ci: bool) -> list[str]:
        """The Table's columns: the main metrics right after System, badge and group, so that they are on the first
        screen of a 1366 px window; the CIs and the provenance details after them."""
        return [*FIRST, *(self.column(m) for m in self.metrics), *(self.ci_column(m) for m in self.metrics if ci),
                *LAST]

    def mismatches(self, filters: dict[str, str]) -> pd.DataFrame:
        """The rows that are never ranked (a submitted score differs from the re-computed one), with where first."""
        rows = self.selected(filters).pipe(lambda r: r[~r["ranked"].astype(bool)])
        means = self.means.set_index(["system", "metric"])
        records = []
        for _, system in rows.iterrows():
            record: dict[str, Any] = {"System": system["system"], "Status": system["badge"],
                                      "First difference": system["first_difference"] or self.verification_label(system),
                                      "Group": system["group"]}
            self._metric_cells(record, system["system"], means, False)
            records.append(record)
        return pd.DataFrame(records, columns=["System", "Status", "First difference", "Group",
                                              *(self.column(m) for m in self.metrics)])

    def column(self, metric: str) -> str:
        """A metric's column header: its label, marked when an LLM judge gave it (never re-scored)."""
        return f"{self.labels[metric]} (self-reported)" if metric in self.judged else self.labels[metric]

    def ci_column(self, metric: str) -> str:
        return f"{self.labels[metric]} 95% CI"

    def styled(self, frame: pd.DataFrame, *, grey: bool = False) -> Any:
        """``frame`` with every score shown at its metric's decimals (1.0 as 1.0000, not 1), sortable as numbers; a
        score that was not re-computed carries :data:`SELF_MARK` and is set in italics, cell by cell (a row may have
        re-computed and self-reported scores side by side); ``grey``: the whole table greyed (rows never ranked)."""
        formats = {self.column(m): f"{{:.{self.decimals[m]}f}}" for m in self.metrics if self.column(m) in frame}
        style = frame.style.format(formats, na_rep="–")
        marked = pd.DataFrame("", index=frame.index, columns=frame.columns)
        names = list(frame["System"]) if "System" in frame else []
        for m in self.metrics:
            column = self.column(m)
            if column not in frame:
                continue
            rows = [i for i, name in zip(frame.index, names, strict=True)
                    if self.source.get((name, m)) == SELF_REPORTED and frame.at[i, column] == frame.at[i, column]
                    and frame.at[i, column] is not None]
            if rows:
                style = style.format(f"{{:.{self.decimals[m]}f}} {SELF_MARK}", subset=pd.IndexSlice[rows, [column]])
                marked.loc[rows, column] = "font-style: italic"
        if grey:
            marked = marked.map(lambda css: "; ".join(filter(None, [css, "color: #8a8a8a"])))
        return style.apply(lambda _: marked, axis=None)

    @staticmethod
    def verification_label(system: Any) -> str:
        """The Verification cell: the status and briefly what is off ("unknown" for a Space built before it)."""
        for key in ("verification_label", "verification"):
            value = system.get(key)
            if isinstance(value, str) and value:
                return value
        return "unknown"

    def verification_note(self, system: str) -> str:
        """What re-scoring found for ``system``, in full (the System page): its badge, which metric groups were
        re-computed, the first difference of a mismatch, the builder's summary."""
        rows = self.systems[self.systems["system"] == system]
        if not len(rows):
            return ""
        row = rows.iloc[0]
        summary = row.get("verification_summary")
        lines = [f"**Verification**: {markdown_text(summary, limit=2000)}" if isinstance(summary, str) and summary
                 else f"**Verification**: {markdown_text(row['badge'])}"]
        for key, label in (("verified_groups", "Re-computed"), ("first_difference", "First difference")):
            if isinstance(row.get(key), str) and row.get(key):
                lines.append(f"**{label}**: {markdown_text(row[key], limit=500)}")
        lines.append(f"**Data**: {markdown_text(self.data_label(row))}; **surveys**: {int(row['surveys'])}")
        return "\n\n".join(lines)

    def table_note(self, rows: pd.DataFrame, published: bool) -> str:
        groups = list(dict.fromkeys(rows["group"])) if len(rows) else []
        lines = []
        if len(groups) > 1:
            lines.append(f"⚠️ **These rows come from {len(groups)} different settings ({', '.join(groups)}): "
                         "their numbers are not comparable.** Filter to one group to rank systems.")
        for label in groups:
            g = self.groups[label]
            shown = "; ".join(f"{k} = {_code(v)}" for k, v in g["settings"].items() if v != "—")
            lines.append(f"- **{label}** ({len(g['systems'])} systems): {shown}")
        stats = self.meta["statistics"]
        lines.append("Status: **✓ verified** = every deterministic score was re-computed from the submitted surveys "
                     "and the dataset when this Space was built and equals the submitted one; **≈ precision** = "
                     "re-computed on another kind of device, equal within the precision slack (ranked apart from "
                     "verified rows); **unverified** = could not be re-run (the System page says why). Rows come in "
                     "that order; a **✗ mismatch** (a submitted score differs from the re-computed one) is never "
                     "ranked: it is listed below the table with its first difference.")
        lines.append(f"{SELF_MARK} *(italic)*: a self-reported score, cell by cell: an LLM judge's (never re-run) or "
                     "one the builder could not re-compute. Unmarked scores were re-computed.")
        lines.append("Data: the dataset's fingerprint (first 8 characters) and, for a fresh split, the date window "
                     "of its surveys; \"window unknown\": results written before surge-bench recorded windows. "
                     "Checked: which metric groups were re-computed.")
        lines.append(f"Means over surveys; brackets: 95% percentile bootstrap CI ({stats['resamples']:,} resamples, "
                     f"seed {stats['seed']}). Sort by any column from its header menu (⋮).")
        if published:
            pub = self.meta["published"]
            lines.append(f"{pub['mark']} Published numbers ({markdown_text(pub['source'])}): the paper's systems on its 41 test "
                         "surveys, copied, not recomputed; not comparable with evaluated rows.")
        return "\n\n".join(lines)

    def compare(self, system: str | None) -> tuple[pd.DataFrame, str]:
        """Paired significance of every system of ``system``'s group against it: Δ = other − selected."""
        if not system or system not in self.group_of:
            return pd.DataFrame(columns=["System"]), "Pick a system to compare with."
        group = self.group_of[system]
        sig = self.significance[self.significance["group"] == group]
        records = []
        for other in self.names:
            if other == system:
                continue
            record: dict[str, Any] = {"System": other}
            for m in self.metrics:
                if self.group_of[other] != group:
                    record[self.labels[m]] = f"other settings ({self.group_of[other]}): not compared"
                    continue
                hit = sig[(sig["metric"] == m) & (((sig["a"] == other) & (sig["b"] == system)) |
                                                  ((sig["a"] == system) & (sig["b"] == other)))]
                if hit.empty or pd.isna(hit.iloc[0]["delta"]):
                    record[self.labels[m]] = "–"
                    continue
                r = hit.iloc[0]
                sign = 1 if r["a"] == other else -1
                star = " *" if r["p_value"] < SIGNIFICANCE_ALPHA else ""
                record[self.labels[m]] = f"{sign * r['delta'] + 0.0:+.{self.decimals[m]}f} (p={r['p_value']:.4f}){star}"
            records.append(record)
        note = (f"Δ = other system − **{markdown_text(system)}**, paired over the surveys both have; p: two-sided paired "
                f"permutation test; * p < {SIGNIFICANCE_ALPHA}. Systems of other settings are never compared.")
        return pd.DataFrame(records, columns=["System", *(self.labels[m] for m in self.metrics)]), note

    # ----------------------------------------------------------------------------------------- system

    def system_scores(self, system: str) -> pd.DataFrame:
        rows = self.scores[self.scores["system"] == system].copy()
        rows = rows.iloc[sorted(range(len(rows)), key=lambda i: _survey_key(rows.iloc[i]["survey_id"]))]
        out = pd.DataFrame({"Survey": rows["survey_id"].astype(str)})
        for m in self.metrics:
            out[self.labels[m]] = rows[m].round(self.decimals[m]).to_numpy()
        for key, label in (("references", "Refs"), ("resolved", "Resolved"), ("not_in_corpus", "Not in corpus"),
                           ("citations", "Citations"), ("citations_of_missing_numbers", "Missing nos.")):
            out[label] = rows[key].to_numpy()
        out["Diagnostics"] = rows["diagnostic_codes"].fillna("").to_numpy()
        return out.reset_index(drop=True)

    def worst(self, system: str, metric: str, n: int = 5) -> pd.DataFrame:
        rows = self.scores[(self.scores["system"] == system) & self.scores[metric].notna()].nsmallest(int(n), metric)
        messages = []
        for raw in rows["diagnostics"]:
            try:
                items = json.loads(raw or "[]")
            except ValueError:
                items = []
            items = [d for d in items if isinstance(d, dict)] if isinstance(items, list) else []
            messages.append("; ".join(f"{'line ' + str(d['line']) + ': ' if d.get('line') is not None else ''}"
                                      f"{d.get('code')} {d.get('message', '')}".strip() for d in items) or "–")
        return pd.DataFrame({"Survey": rows["survey_id"].astype(str), self.labels[metric]: rows[metric].round(4),
                             "Refs (resolved)": [f"{a} ({b})" for a, b in zip(rows["references"], rows["resolved"], strict=True)],
                             "Not in corpus": rows["not_in_corpus"], "Missing nos.": rows["citations_of_missing_numbers"],
                             "Diagnostics": messages})

    def heatmap_html(self, system: str, metric: str) -> str:
        """Systems of ``system``'s group x surveys, one cell per value; grey where undefined."""
        group = self.group_of.get(system)
        members = [n for n in self.names if self.group_of[n] == group]
        rows = self.scores[self.scores["system"].isin(members)]
        ids = sorted(set(rows["survey_id"]), key=_survey_key)
        grid = rows.pivot_table(index="system", columns="survey_id", values=metric, aggfunc="first", dropna=False)
        values = [v for v in rows[metric] if v == v and v is not None]
        low, high = (min(values), max(values)) if values else (0.0, 1.0)
        cells = []
        for name in members:
            tds = []
            for sid in ids:
                v = grid.at[name, sid] if name in grid.index and sid in grid.columns else None
                if v is None or v != v:
                    tds.append(f'<td title="{html.escape(name)} · survey {html.escape(sid)}: undefined" '
                               'style="background:#ccc"></td>')
                    continue
                x = 0.5 if high == low else (v - low) / (high - low)
                colour = f"#{int(255 - 180 * x):02x}{int(120 + 100 * x):02x}{int(120 + 40 * x):02x}"
                tds.append(f'<td title="{html.escape(sid)}: {v:.4f}" style="background:{colour}"></td>')
            cells.append(f"<tr><th style='text-align:right;padding:0 6px;border:none;white-space:nowrap;font-size:12px'>"
                         f"{html.escape(name)}</th>{''.join(tds)}</tr>")
        return (f"<div><b>{html.escape(self.labels[metric])}</b> per survey ({len(ids)} surveys, group "
                f"{html.escape(str(group))}; hover a cell for its survey and value; red = low, green = high, grey = "
                f"undefined)<style>.sg-heat td{{{CELL}}}</style><div style='overflow-x:auto'><table class='sg-heat' "
                "style='border-collapse:separate;border-spacing:1px;width:auto;margin:4px 0'>" + "".join(cells)
                + "</table></div></div>")

    # ----------------------------------------------------------------------------------------- survey

    def survey_ids(self, system: str) -> list[str]:
        return sorted(self.scores.loc[self.scores["system"] == system, "survey_id"].astype(str), key=_survey_key)

    @lru_cache(maxsize=64)  # noqa: B019 - one Board per app, kept for its lifetime
    def survey(self, system: str, survey_id: str) -> dict[str, Any]:
        """Text, scores, citations (with papers) and outlines of one survey of one system. Whatever is missing
        (no text, no details, no dataset, a paper without title or abstract, a doc id with no paper) is None or
        empty, never an error."""
        where = [("system", "==", system), ("survey_id", "==", survey_id)]
        texts = self._read("surveys", where)
        text = _str(texts.iloc[0]["text"]) if len(texts) else None
        citations = self._read("citations", where).sort_values("seq").reset_index(drop=True)
        citations["end"] = citations["start"] + citations["length"]
        if text is not None:  # a sentence found verbatim in the text is stored as offsets (build.py)
            stored = citations["sentence_len"].notna() & (citations["start"] >= 0)
            citations["sentence"] = citations["sentence"].astype(object)
            citations.loc[stored, "sentence"] = [
                text[int(s) - int(b): int(s) - int(b) + int(n)] for s, b, n in
                zip(citations.loc[stored, "start"], citations.loc[stored, "sentence_from"],
                    citations.loc[stored, "sentence_len"], strict=True)]
        doc_ids = sorted({int(d) for d in citations["doc_id"].dropna()})
        papers = self._read("papers", [("doc_id", "in", doc_ids)]) if doc_ids else pd.DataFrame()
        info = self.systems[self.systems["system"] == system]
        fingerprint = _str(info.iloc[0].get("data_fingerprint")) if len(info) else None
        by_doc: dict[int, dict[str, Any]] = {}
        for p in papers.to_dict("records"):  # the corpus's paper (same fingerprint) wins over a reference-list title
            if _str(p.get("fingerprint")) in (None, fingerprint) or int(p["doc_id"]) not in by_doc:
                by_doc[int(p["doc_id"])] = {"title": _str(p.get("title")), "abstract": _str(p.get("abstract"))}
        outlines = self._read("outlines", [("survey_id", "==", survey_id), ("system", "in", [system, ""])])
        mine = outlines[outlines["system"] == system].sort_values("seq")
        gt = outlines[(outlines["system"] == "") & (outlines["fingerprint"] == fingerprint)].sort_values("seq")
        score = self.scores[(self.scores["system"] == system) & (self.scores["survey_id"] == survey_id)]
        first = citations["verdict_counts"].iloc[0] if "verdict_counts" in citations and len(citations) else None
        try:  # every record's verdict (the builder stores at most so many rows per survey)
            counts = {str(k): int(v) for k, v in json.loads(first).items()} if isinstance(first, str) else None
        except (ValueError, TypeError, AttributeError):
            counts = None
        if counts is None:  # a Space built before the column: the stored rows are all the rows
            counts = {str(k): int(v) for k, v in citations["verdict"].value_counts().items()}
        return {
            "text": text, "citations": citations, "papers": by_doc, "has_details": bool(score.iloc[0]["has_details"]) if len(score) else False,
            "scores": score.iloc[0].to_dict() if len(score) else {},
            "outline": list(zip(mine["level"], mine["title"], strict=True)),
            "gt_outline": list(zip(gt["level"], gt["title"], strict=True)) or None,
            "verdict_counts": counts, "total": sum(counts.values()),
            "unknown_docs": [d for d in doc_ids if d not in by_doc],
            "untitled_docs": [d for d, p in by_doc.items() if not p["title"]],
            "no_abstract_docs": [d for d, p in by_doc.items() if not p["abstract"]],
        }

    @staticmethod
    def pages(info: dict[str, Any]) -> list[tuple[str, int]]:
        """The viewer's pages of a survey's stored rows: (label, index), :data:`VIEW_ROWS` citations each."""
        n = len(info["citations"])
        return [(f"citations {i * VIEW_ROWS + 1}–{min(n, (i + 1) * VIEW_ROWS)} of {n}", i)
                for i in range(max(1, -(-n // VIEW_ROWS)))]

    @staticmethod
    def page_rows(info: dict[str, Any], page: int = 0) -> pd.DataFrame:
        """The stored rows of one page (the rows the viewer colours and lists)."""
        page = max(0, int(page or 0))
        return info["citations"].iloc[page * VIEW_ROWS:(page + 1) * VIEW_ROWS]

    def evidence_table(self, info: dict[str, Any], page: int = 0) -> pd.DataFrame:
        rows = self.page_rows(info, page)
        titles = [(info["papers"].get(int(d)) or {}).get("title") or f"doc id {int(d)}: no title in this Space"
                  if d == d and d is not None else None for d in rows["doc_id"]]
        return pd.DataFrame({"#": rows["seq"], "Kind": rows["kind"], "[n]": rows["number"], "Verdict": rows["verdict"],
                             "Entailment": rows["entailment"].round(3), "Score": rows["score"],
                             "Cited paper": titles, "Section": rows["heading"], "Sentence": rows["sentence"],
                             "Rule": rows["rule"], "Placed": rows["start"] >= 0})

    @staticmethod
    def text_window(info: dict[str, Any], page: int = 0) -> tuple[int, int]:
        """The part of a long survey's text the viewer renders with a page of citations: at most
        :data:`TEXT_WINDOW` characters, from the paragraph of the page's first placed citation (the start of the
        text for the first page), cut at a paragraph's end. The whole text when it is shorter."""
        text = info["text"] or ""
        if len(text) <= TEXT_WINDOW:
            return 0, len(text)
        rows = Board.page_rows(info, page)
        placed = rows.loc[rows["start"] >= 0, "start"]
        first = int(placed.min()) if int(page or 0) > 0 and len(placed) else 0
        start = text.rfind("\n\n", 0, first) + 1 if first else 0
        end = min(len(text), start + TEXT_WINDOW)
        cut = text.rfind("\n\n", start, end) if end < len(text) else -1
        return start, cut if cut > start else end

    # ----------------------------------------------------------------------------------------- plots

    def bars(self, metric: str, group: str) -> pd.DataFrame:
        members = [n for n in self.names if self.group_of[n] == group]
        rows = self.means[(self.means["metric"] == metric) & self.means["system"].isin(members)]
        return pd.DataFrame({"system": rows["system"], "mean": rows["mean"], "ci_low": rows["ci_low"],
                             "ci_high": rows["ci_high"], "n": rows["n"]}).reset_index(drop=True)

    def ci_ranges(self, metric: str, group: str) -> pd.DataFrame:
        """Each system's interval as three points (its low end, the mean, its high end), named in ``point`` so
        that the plot marks the mean apart from the ends (``CI_POINTS``)."""
        bars = self.bars(metric, group)
        parts = [pd.DataFrame({"system": bars["system"], "value": bars[col], "point": name})
                 for col, name in CI_POINTS.items()]
        return pd.concat(parts).dropna().reset_index(drop=True)

    def recall_at_k(self, published: bool = True) -> pd.DataFrame:
        rows = [self.retrieval[["system", "k", "recall"]]]
        if published:
            mark = self.meta["published"]["mark"]
            rows.append(pd.DataFrame([{"system": f"{name} {mark}", "k": int(k.split("@")[1]), "recall": v}
                                      for name, values in self.meta["published"]["table3"].items()
                                      for k, v in values.items() if k.startswith("recall@")]))
        out = pd.concat(rows).reset_index(drop=True)
        out["k"] = out["k"].astype(int)
        return out.sort_values(["system", "k"])
