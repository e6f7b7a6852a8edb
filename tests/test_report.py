"""``surge report``: statistics with known answers, table structure, figures, refusal of mismatched inputs."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

import surge_dataset
from surge_dataset.cli import app as surge_app
from surge_dataset.cli.report import report as report_command
from surge_dataset.report import (
    PAPER_TABLE4,
    ReportError,
    SurveySetMismatchError,
    bootstrap_ci,
    build_report,
    latex_escape,
    load_results,
    paired_test,
    significance,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RESAMPLES = 2000  # enough for the assertions below, keeps the file fast


def write_results(
    path: Path, values: dict[str, list[float | None]], *, ids: list[int] | None = None,
    system: str | None = None, extra: dict[int, dict[str, Any]] | None = None, config: dict[str, Any] | None = None,
    averaging: dict[str, Any] | None = None,
) -> Path:
    """A minimal `surge evaluate` results file: per-survey metric values (+ counts/diagnostics); ``config``
    entries replace the default ones; ``averaging``: what the means are over (as `surge evaluate` records it)."""
    n = len(next(iter(values.values())))
    ids = ids if ids is not None else list(range(n))
    surveys = {}
    for i, sid in enumerate(ids):
        record: dict[str, Any] = {m: v[i] for m, v in values.items()}
        record["counts"] = {"references": 10, "resolved": 8, "not_in_corpus": 2, "citations": 20,
                            "citations_of_missing_numbers": 1, "future_citations": 0}
        record["diagnostics"] = []
        record.update((extra or {}).get(sid, {}))
        surveys[str(sid)] = record
    recorded: dict[str, Any] = {"metrics": ["recall", "rouge_bleu"], "protocol": "official", "data_fingerprint": "x",
                                **(config or {})}
    if system:
        recorded["system"] = system
    averages = {m: float(np.mean([x for x in v if x is not None])) for m, v in values.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"config": recorded, "surveys": surveys, "average": averages, "average_counts": {},
                                "failures": [], **({"averaging": averaging} if averaging else {})}), encoding="utf-8")
    return path


@pytest.fixture
def three_systems(tmp_path: Path) -> list[Path]:
    """'strong' beats 'weak' by 0.1 on recall on every survey; 'weak' is better on BLEU; 'twin' == 'weak'."""
    rng = np.random.default_rng(1)
    base = rng.uniform(0.2, 0.6, size=12)
    bleu = rng.uniform(5, 20, size=12)
    weak = {"recall": list(base), "bleu": list(bleu + 2), "rougeL": list(base / 2)}
    strong = {"recall": list(base + 0.1 + rng.uniform(0, 0.02, 12)), "bleu": list(bleu), "rougeL": list(base / 2 + 0.01)}
    return [write_results(tmp_path / "in" / "strong.json", strong),
            write_results(tmp_path / "in" / "weak.json", weak),
            write_results(tmp_path / "in" / "twin.json", weak)]


# ------------------------------------------------------------------------------------------ statistics


def test_bootstrap_ci_known_answers() -> None:
    constant = bootstrap_ci([0.3] * 8, resamples=RESAMPLES)
    assert (constant.mean, constant.ci_low, constant.ci_high, constant.n) == (0.3, 0.3, 0.3, 8)
    assert bootstrap_ci([], resamples=RESAMPLES).mean is None

    values = np.random.default_rng(0).normal(10.0, 2.0, size=400)
    ci = bootstrap_ci(values, resamples=10_000, seed=3)
    half_width = 1.96 * values.std() / np.sqrt(values.size)  # the normal-theory interval it must approach
    assert ci.ci_low < ci.mean < ci.ci_high
    assert (ci.ci_high - ci.ci_low) / 2 == pytest.approx(half_width, rel=0.08)
    assert (ci.ci_low + ci.ci_high) / 2 == pytest.approx(values.mean(), abs=0.1 * half_width)
    assert bootstrap_ci(values, resamples=10_000, seed=3) == ci  # seeded: reproducible


def test_identical_and_symmetric_differences_are_not_significant() -> None:
    a = np.linspace(0.1, 0.9, 10)
    same = paired_test(a, a, resamples=RESAMPLES)
    assert same["delta"] == 0 and same["p_value"] >= 0.05 and same["ci_low"] <= 0 <= same["ci_high"]
    # differences +-0.05 alternating: mean 0, goes through the permutation test itself
    wobble = paired_test(a, a + np.where(np.arange(10) % 2 == 0, 0.05, -0.05), resamples=RESAMPLES)
    assert wobble["delta"] == pytest.approx(0, abs=1e-12)
    assert wobble["p_value"] > 0.5
    assert wobble["ci_low"] < 0 < wobble["ci_high"]


def test_better_on_every_survey_is_significant() -> None:
    a = np.linspace(0.1, 0.9, 12)
    b = a - 0.05 - np.linspace(0, 0.01, 12)
    result = paired_test(a, b, resamples=10_000)  # 2**12 <= 10,000: the exact test
    assert result["delta"] == pytest.approx(0.055)
    # exact sign-flip test: only the observed signs and their mirror are as extreme -> p = 2 / 2**12
    assert result["p_value"] == pytest.approx(2 / 2**12)
    assert 0 < result["ci_low"] <= result["delta"] <= result["ci_high"]
    reverse = paired_test(b, a, resamples=RESAMPLES)
    assert reverse["delta"] == pytest.approx(-0.055) and reverse["ci_high"] < 0 and reverse["p_value"] < 0.05


def test_significance_json_every_metric_and_pair(three_systems: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "report"
    build_report(three_systems, out, metrics="recall,bleu", resamples=RESAMPLES, formats=())
    rows = json.loads((out / "significance.json").read_text())
    assert len(rows) == 2 * 3  # 2 metrics x 3 pairs
    for row in rows:
        assert {"metric", "a", "b", "delta", "p_value", "ci_low", "ci_high"} <= set(row)
    by = {(r["metric"], r["a"], r["b"]): r for r in rows}
    strong_weak = by["recall", "strong", "weak"]
    assert strong_weak["p_value"] < 0.05 and strong_weak["ci_low"] > 0 and strong_weak["delta"] > 0.1
    assert by["bleu", "strong", "weak"]["delta"] == pytest.approx(-2) and by["bleu", "strong", "weak"]["ci_high"] < 0
    twins = by["recall", "weak", "twin"]
    assert twins["delta"] == 0 and twins["p_value"] >= 0.05


def test_undefined_values_are_left_out_and_paired(tmp_path: Path) -> None:
    a = write_results(tmp_path / "a.json", {"recall": [0.5, None, 0.7, 0.9]})
    b = write_results(tmp_path / "b.json", {"recall": [0.4, 0.1, None, 0.8]})
    systems = load_results([a, b])
    (row,) = significance(systems, ["recall"], resamples=RESAMPLES)
    assert row["n"] == 2 and row["delta"] == pytest.approx(0.1)


# ------------------------------------------------------------------------------------------ refusals


def test_mismatched_survey_sets_are_refused(tmp_path: Path) -> None:
    a = write_results(tmp_path / "alpha.json", {"recall": [0.1, 0.2, 0.3]}, ids=[0, 1, 2])
    b = write_results(tmp_path / "beta.json", {"recall": [0.1, 0.2, 0.3]}, ids=[0, 1, 7])
    out = tmp_path / "report"
    with pytest.raises(SurveySetMismatchError) as info:
        build_report([a, b], out, resamples=RESAMPLES)
    message = str(info.value)
    assert "'alpha'" in message and "'beta'" in message
    assert "only in 'alpha': 2" in message and "only in 'beta': 7" in message
    assert not out.exists()  # refused before writing anything

    result = CliRunner().invoke(surge_app, ["report", str(a), str(b), "--out", str(out)])
    assert result.exit_code == 2
    assert "different survey sets" in result.output and "beta" in result.output


def test_other_bad_inputs(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    with pytest.raises(ReportError, match="not a `surge evaluate` results file"):
        load_results([bad])
    retrieval = tmp_path / "bm25.json"
    retrieval.write_text(json.dumps({"recall@20": 0.1}))
    with pytest.raises(ReportError, match="--retrieval"):
        load_results([retrieval])
    a = write_results(tmp_path / "a.json", {"recall": [0.1]})
    with pytest.raises(ReportError, match="in no results file"):
        build_report([a], tmp_path / "r", metrics="shr", resamples=RESAMPLES)


def test_system_names(tmp_path: Path) -> None:
    named = write_results(tmp_path / "one" / "results.json", {"recall": [0.1]}, system="My System")
    plain = write_results(tmp_path / "two" / "results.json", {"recall": [0.1]})
    other = write_results(tmp_path / "three" / "results.json", {"recall": [0.1]})
    assert [s.name for s in load_results([named, plain, other])] == ["My System", "two/results", "three/results"]


# ------------------------------------------------------------------------------------------ tables


def _balanced(tex: str) -> bool:
    depth = 0
    for token in re.findall(r"\\[{}]|[{}]", tex):
        if token in ("{", "}"):
            depth += 1 if token == "{" else -1
            if depth < 0:
                return False
    return depth == 0


def _tabular_rows(tex: str) -> list[str]:
    body = tex[tex.index(r"\midrule"): tex.index(r"\bottomrule")]
    return [line for line in body.splitlines() if line.rstrip().endswith("\\\\")]


def test_latex_structure(three_systems: list[Path], tmp_path: Path) -> None:
    odd = write_results(tmp_path / "in" / "my_sys&co.json", {"recall": [0.0] * 12, "bleu": [0.0] * 12, "rougeL": [0.0] * 12})
    out = tmp_path / "report"
    build_report([*three_systems, odd], out, resamples=RESAMPLES, formats=())
    tex = (out / "table.tex").read_text()
    assert _balanced(tex)
    assert tex.count(r"\begin{tabular}") == tex.count(r"\end{tabular}") == 1
    assert tex.count(r"\begin{table}") == tex.count(r"\end{table}") == 1
    assert tex.index(r"\toprule") < tex.index(r"\midrule") < tex.index(r"\bottomrule") < tex.index(r"\end{tabular}")
    assert r"\begin{tabular}{lrrr}" in tex  # System + Recall, ROUGE-L, BLEU
    rows = _tabular_rows(tex)
    assert len(rows) == 4 and all(len(re.findall(r"(?<!\\)&", row)) == 3 for row in rows)
    assert [re.split(r"(?<!\\)& ", row)[0].strip() for row in rows] == ["strong", "weak", "twin", r"my\_sys\&co"]
    header = tex[tex.index(r"\toprule"): tex.index(r"\midrule")]
    assert "System & Recall & ROUGE-L & BLEU" in header
    assert latex_escape("50% of $x_1$ {a}") == r"50\% of \$x\_1\$ \{a\}"


def test_bold_marks_the_best_per_column(three_systems: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "report"
    build_report(three_systems, out, metrics="recall,bleu", resamples=RESAMPLES, formats=())
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ")[1:]
            for line in (out / "table.md").read_text().splitlines() if line.startswith("| ") and "---" not in line}
    recall, bleu = 0, 1
    assert rows["strong"][recall].startswith("**") and not rows["weak"][recall].startswith("**")
    # BLEU: weak and twin tie for best -> both bold, strong not
    assert rows["weak"][bleu].startswith("**") and rows["twin"][bleu].startswith("**")
    assert not rows["strong"][bleu].startswith("**")
    assert re.search(r"\[\d+\.\d+, \d+\.\d+\]", rows["strong"][recall])  # the CI is shown
    tex = (out / "table.tex").read_text()
    strong_row = next(r for r in _tabular_rows(tex) if r.startswith("strong"))
    assert strong_row.split(" & ")[1].startswith(r"\textbf{") and not strong_row.split(" & ")[2].startswith(r"\textbf{")
    assert "<b>" in (out / "table.html").read_text()


def test_with_paper_rows_are_marked(three_systems: list[Path], tmp_path: Path) -> None:
    plain, paper = tmp_path / "plain", tmp_path / "paper"
    build_report(three_systems, plain, resamples=RESAMPLES, formats=())
    build_report(three_systems, paper, resamples=RESAMPLES, with_paper=True, formats=())
    assert "RAG-Qwen" not in (plain / "table.md").read_text()
    md = (paper / "table.md").read_text()
    for name in PAPER_TABLE4:
        assert f"| {name} † |" in md
    assert "Published" in md and "not recomputed" in md
    assert "| SurveyForge † | **0.0868** |" in md  # best published recall, bolded within its own block
    tex = (paper / "table.tex").read_text()
    assert _balanced(tex) and r"\multicolumn{4}{l}{\textit{Published" in tex
    assert len(_tabular_rows(tex)) == 3 + 1 + len(PAPER_TABLE4)
    assert "RAG-Qwen$^\\dagger$ & 0.0214 & 0.1519 & 10.38" in tex
    html_text = (paper / "table.html").read_text()
    assert html_text.count('class="published"') == len(PAPER_TABLE4)


# ------------------------------------------------------------------------------------------ figures, drill-down, reproducibility


def test_figures_are_valid_pngs_and_svgs(three_systems: list[Path], tmp_path: Path) -> None:
    from matplotlib.image import imread

    retrieval = tmp_path / "in" / "dense.json"
    retrieval.write_text(json.dumps({"recall@20": 0.2, "recall@100": 0.4, "recall@1000": 0.7, "mrr": 0.3, "per_query": {}}))
    out = tmp_path / "report"
    app = typer.Typer()
    app.command()(report_command)
    # a retrieval-eval output among the positional files is recognised by its keys
    result = CliRunner().invoke(app, [*map(str, three_systems), str(retrieval), "--out", str(out),
                                      "--metrics", "recall,bleu", "--resamples", str(RESAMPLES), "--with-paper"])
    assert result.exit_code == 0, result.output
    for stem in ("bars", "heatmap_recall", "heatmap_bleu", "recall_at_k"):
        png = out / f"{stem}.png"
        assert png.read_bytes()[:8] == PNG_SIGNATURE
        image = imread(png)
        assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
        svg = (out / f"{stem}.svg").read_text()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "dense" in (out / "retrieval.md").read_text() and "BM25 (paper) †" in (out / "retrieval.md").read_text()


def test_drilldown_lists_worst_surveys_with_diagnostics(tmp_path: Path) -> None:
    diag = {"code": "missing_reference_number", "message": "2 citation instance(s) cite 9", "line": None}
    a = write_results(tmp_path / "sys.json", {"recall": [0.9, 0.1, 0.5, 0.7], "sqs": [1.0, None, 2.0, 3.0]},
                      extra={1: {"diagnostics": [diag], "counts": {"references": 5, "resolved": 1, "not_in_corpus": 4,
                                                                   "citations_of_missing_numbers": 2, "future_citations": 0}}})
    out = tmp_path / "report"
    build_report([a], out, resamples=RESAMPLES, worst=2, formats=())
    text = (out / "drilldown.md").read_text()
    recall = text[text.index("## Recall"): text.index("## SQS")]
    assert recall.index("| sys | 1 | 0.1000 | 5 (1) | 4 | 2 |") < recall.index("| sys | 2 | 0.5000 |")
    assert "| sys | 0 |" not in recall  # only the 2 worst
    assert "missing_reference_number" in recall
    assert "## Missing judge scores" in text and "- SQS, sys: 1" in text
    assert "`missing_reference_number` 2 citation instance(s) cite 9" in text


def test_report_is_reproducible(three_systems: list[Path], tmp_path: Path) -> None:
    first, second = tmp_path / "r1", tmp_path / "r2"
    data = build_report(three_systems, first, resamples=RESAMPLES, metrics="recall")
    build_report(three_systems, second, resamples=RESAMPLES, metrics="recall")
    recorded = json.loads((first / "report.json").read_text())
    assert recorded == json.loads(json.dumps(data))
    assert recorded["versions"]["surge-bench"] == surge_dataset.__version__
    for entry, path in zip(recorded["inputs"], three_systems, strict=True):
        assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert {"table.md", "table.tex", "table.html", "significance.json", "drilldown.md", "report.json",
            "bars.png", "bars.svg"} <= set(recorded["files"])
    for name in ("table.md", "table.tex", "significance.json", "report.json", "bars.svg", "heatmap_recall.svg"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


# ------------------------------------------------------------------------------------------ what a user meets


def test_the_report_says_what_each_mean_is_over(tmp_path: Path) -> None:
    """The results file's ``averaging`` (surveys counted 0, topics without a survey, the mean over
    scored surveys) is in the report: printed, in table.md's notes and in report.json."""
    averaging = {"counted_zero": [{"survey_id": 99, "keys": ["recall"], "reason": "could not be evaluated: no file"}],
                 "topics": "test", "topics_without_survey": [7], "average_scored": {"recall": 0.5},
                 "average_scored_counts": {"recall": 3}}
    a = write_results(tmp_path / "sys.json", {"recall": [0.4, 0.5, 0.6]}, averaging=averaging)
    out = tmp_path / "report"
    result = CliRunner().invoke(surge_app, ["report", str(a), "--out", str(out), "--resamples", "200"])
    assert result.exit_code == 0, result.output
    counted = "sys: the mean counts 0 for 1 survey (--aggregate released): 99 (recall: could not be evaluated: no file)"
    missing = "sys: 1 test topic has no generated survey: 7 (not in the mean)"
    scored = "sys: the mean over the scored surveys only (no zero standing in): recall 0.5000"
    for line in (counted, missing, scored):
        assert f"note: {line}" in result.output and f"{line}." in (out / "table.md").read_text()
    assert json.loads((out / "report.json").read_text())["averaging"] == {"sys": averaging}


def _run(path: Path, values: dict[str, list[float | None]], **config: Any) -> Path:
    return write_results(path, values, config={"passages": "outputs/a", **config})


def test_runs_of_one_system_and_settings_are_one_row(tmp_path: Path) -> None:
    """As docs/judges.md says: the objective columns from one run, the judged ones from another (same passage
    folder, same settings) -> one row, each column from the run that has it."""
    objective = _run(tmp_path / "a.json", {"recall": [0.4, 0.5, 0.6], "shr": [0.9, 0.8, 0.7]},
                     metrics=["recall", "shr"], embedding_model="minilm")
    judged = _run(tmp_path / "a-judged.json", {"sqs": [1.0, 2.0, 3.0]}, metrics=["sqs"], judge="openai:gpt-4o",
                  judge_settings={"model": "openai:gpt-4o"})
    out = tmp_path / "report"
    result = CliRunner().invoke(surge_app, ["report", str(objective), str(judged), "--out", str(out),
                                            "--metrics", "recall,shr,sqs", "--resamples", "200"])
    assert result.exit_code == 0, result.output
    rows = [line for line in (out / "table.md").read_text().splitlines() if line.startswith("| a ")]
    assert len(rows) == 1 and "0.5000" in rows[0] and "0.8000" in rows[0] and "2.0000" in rows[0]
    recorded = json.loads((out / "report.json").read_text())
    assert [(i["system"], Path(i["path"]).name) for i in recorded["inputs"]] == [("a", "a.json"), ("a", "a-judged.json")]
    assert "note: a: a.json and a-judged.json are one system" in result.output


def test_merge_runs_keeps_alternatives_apart_and_refuses_conflicts(tmp_path: Path) -> None:
    """The merge function the report (and the leaderboard) use: runs whose shared columns were computed under
    different settings stay apart (an ablation); other settings or no recorded passage folder: apart; the same
    column with different values under the same settings is refused, naming both files."""
    from surge_dataset.report import merge_runs

    minilm = _run(tmp_path / "minilm.json", {"shr": [0.9, 0.8]}, metrics=["shr"], embedding_model="minilm")
    bge = _run(tmp_path / "bge.json", {"shr": [0.7, 0.6]}, metrics=["shr"], embedding_model="bge")
    paper = _run(tmp_path / "paper.json", {"recall": [0.1, 0.2]}, metrics=["recall"], protocol="paper")
    unnamed = write_results(tmp_path / "unnamed.json", {"bleu": [1.0, 2.0]})
    merged = merge_runs(load_results([minilm, bge, paper, unnamed]))
    assert [s.name for s in merged] == ["minilm", "bge", "paper", "unnamed"]
    same = _run(tmp_path / "again.json", {"shr": [0.9, 0.8], "recall": [0.3, 0.4]}, metrics=["shr", "recall"],
                embedding_model="minilm")
    (one,) = merge_runs(load_results([minilm, same]))
    assert one.name == "minilm" and [p.path.name for p in one.parts] == ["minilm.json", "again.json"]
    assert one.surveys["1"]["shr"] == 0.8 and one.surveys["1"]["recall"] == 0.4
    assert one.config["metrics"] == ["recall", "shr"]
    changed = _run(tmp_path / "changed.json", {"shr": [0.9, 0.5]}, metrics=["shr"], embedding_model="minilm")
    with pytest.raises(ReportError, match=r"minilm\.json and \S*changed\.json both hold shr .*survey 1: 0\.8 vs 0\.5"):
        merge_runs(load_results([minilm, changed]))
    # the same folder on two fresh splits (or on a split and on data of unknown window) is two systems
    june = _run(tmp_path / "june.json", {"recall": [0.5, 0.6]}, metrics=["recall"],
                data_window={"since": "2025-06-01", "until": "2025-06-30"})
    july = _run(tmp_path / "july.json", {"bleu": [1.0, 2.0]}, metrics=["bleu"],
                data_window={"since": "2025-07-01", "until": "2025-07-31"})
    unknown = _run(tmp_path / "unknown.json", {"shr": [0.1, 0.2]}, metrics=["shr"])
    assert [s.name for s in merge_runs(load_results([june, july, unknown]))] == ["june", "july", "unknown"]


def test_report_of_a_folder_reads_its_results_files(three_systems: list[Path], tmp_path: Path) -> None:
    """`surge report FOLDER` reads the folder's results files (as judge-agreement does), says which
    JSON files it skipped, and an empty folder is one line, not an IsADirectoryError traceback."""
    folder = three_systems[0].parent
    (folder / "report.json").write_text(json.dumps({"versions": {}}))  # an earlier report's file: not results
    out = tmp_path / "report"
    result = CliRunner().invoke(surge_app, ["report", str(folder), "--out", str(out), "--resamples", "200"])
    assert result.exit_code == 0, result.output
    assert [i["system"] for i in json.loads((out / "report.json").read_text())["inputs"]] == ["strong", "twin", "weak"]
    assert f"note: skipped {folder / 'report.json'}: not a results file" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    failed = CliRunner().invoke(surge_app, ["report", str(empty), "--out", str(out)])
    assert failed.exit_code == 2 and "Traceback" not in failed.output
    assert f"{empty}: a folder without results files" in failed.output
    with pytest.raises(ReportError, match="is a folder"):
        load_results([empty])


def test_html_holds_the_figures_and_the_footer_promises_only_what_is_there(three_systems: list[Path],
                                                                          tmp_path: Path) -> None:
    """table.html shows the figures (inline SVG); "Bold: best per column" only when a value is bold;
    significance.md with one system says why there is no table."""
    out = tmp_path / "report"
    build_report(three_systems, out, metrics="recall,bleu", resamples=RESAMPLES)
    page = (out / "table.html").read_text()
    assert page.count("<svg") == 3 and "<figure" in page  # bars, heatmap_recall, heatmap_bleu
    assert "Bold: best per column" in page and "<b>" in page
    one = tmp_path / "one"
    build_report(three_systems[:1], one, metrics="recall", resamples=RESAMPLES)
    for name in ("table.md", "table.html", "table.tex"):
        assert "Bold" not in (one / name).read_text(), name
    significance_page = (one / "significance.md").read_text()
    assert "| Metric |" not in significance_page
    assert "One system (strong): paired significance compares two systems" in significance_page
def test_quiz_and_richness_appear_in_the_report_and_quiz_sets_are_compared(tmp_path: Path) -> None:
    """The columns come from the registry (`--metrics quiz,richness` names the metrics, not their keys); systems
    asked different quiz sets are warned about, as systems on different data are."""
    from surge_dataset.report import comparability_warnings, select_metrics

    values = {"quiz": [1.0, 0.8, 0.9], "quiz_unanswered": [0.0, 0.1, 0.1], "richness": [2.0, 0.0, 1.0],
              **{f"richness_{k}": [1.0, 0.0, 1.0] for k in ("tables", "figures", "equations", "code_blocks")},
              **{f"richness_{k}_per_1k": [1.0, 0.0, 0.5] for k in ("tables", "figures", "equations", "code_blocks")}}
    paths = [write_results(tmp_path / "in" / f"{name}.json", {k: [x * scale for x in v] for k, v in values.items()})
             for name, scale in (("a", 1.0), ("b", 0.5))]
    for path, fingerprint in zip(paths, ("1111222233334444", "5555666677778888"), strict=True):
        data = json.loads(path.read_text())
        data["config"].update(metrics=["quiz", "richness"], quiz_fingerprint=fingerprint)
        path.write_text(json.dumps(data))
    systems = load_results(paths)
    assert select_metrics(systems, "quiz,richness")[:3] == ["quiz", "quiz_unanswered", "richness"]
    warnings = comparability_warnings(systems)
    assert any("different quiz_fingerprint" in w and "1111222233334444" in w for w in warnings)
    result = CliRunner().invoke(surge_app, ["report", *map(str, paths), "--out", str(tmp_path / "report"),
                                            "--metrics", "quiz,richness", "--resamples", "200"])
    assert result.exit_code == 0, result.output
    header = (tmp_path / "report" / "table.md").read_text().splitlines()[0]
    for column in ("quiz", "quiz_unanswered", "richness", "richness_tables_per_1k"):
        assert f"| {column} " in header or f"| {column} |" in header, header
    assert "different quiz_fingerprint" in result.output


def test_a_mean_over_fewer_surveys_shows_its_n_and_a_metric_without_value_is_noted(tmp_path: Path) -> None:
    """A judged run whose answers are mostly missing: CQS from one survey of three shows (n=1/3) in every table
    format, and SQS, with every answer missing, is no column but a note with the share of missing answers."""
    base = {"references": 10, "resolved": 8, "not_in_corpus": 2, "citations": 20, "citations_of_missing_numbers": 1,
            "future_citations": 0, "sqs_judged": 6, "sqs_missing": 6, "cqs_judged": 5}
    extra = {i: {"sqs": None, "counts": {**base, "cqs_missing": 0 if i == 0 else 5}} for i in range(3)}
    path = write_results(tmp_path / "judged.json", {"recall": [0.4, 0.5, 0.6], "cqs": [1.0, None, None]},
                         extra=extra, config={"metrics": ["recall", "sqs", "cqs"]})
    out = tmp_path / "report"
    result = CliRunner().invoke(surge_app, ["report", str(path), "--out", str(out), "--resamples", "200"])
    assert result.exit_code == 0, result.output
    table = (out / "table.md").read_text()
    row = next(line for line in table.splitlines() if line.startswith("| judged "))
    assert "1.0000 [1.0000, 1.0000] (n=1/3) |" in row and "(n=3/3)" not in row and "SQS" not in table.splitlines()[0]
    note = "judged: SQS has no value on any survey (18 of 18 judge answers missing, 100%), so the table shows none"
    assert f"{note}." in table and f"note: {note}" in " ".join(result.output.split())
    assert "(n=1/3)" in (out / "table.tex").read_text() and "(n=1/3)" in (out / "table.html").read_text()
    assert "(n=1/3)" in result.output  # the table printed on the terminal too


def test_a_folder_of_one_systems_runs_is_one_row_named_after_the_system(tmp_path: Path) -> None:
    """`surge report results/`: the folder lists mysystem-judged.json before mysystem.json; the joined row is named
    after the objective run (the system), not after the alphabetically first file."""
    folder = tmp_path / "results"
    _run(folder / "mysystem.json", {"recall": [0.4, 0.5, 0.6]}, metrics=["recall"])
    _run(folder / "mysystem-judged.json", {"sqs": [1.0, 2.0, 3.0]}, metrics=["sqs"], judge="openai:gpt-4o",
         judge_settings={"model": "openai:gpt-4o"})
    out = tmp_path / "report"
    result = CliRunner().invoke(surge_app, ["report", str(folder), "--out", str(out), "--resamples", "200"])
    assert result.exit_code == 0, result.output
    rows = [line.split(" | ")[0] for line in (out / "table.md").read_text().splitlines()[2:] if line.startswith("| ")]
    assert rows == ["| mysystem"]
    assert list(json.loads((out / "report.json").read_text())["summary"]) == ["mysystem"]
    # two judged runs only: the stem their names share
    from surge_dataset.report import merge_runs

    a = _run(tmp_path / "x" / "sys-judge-a.json", {"sqs": [1.0, 2.0, 3.0]}, metrics=["sqs"], judge="openai:m")
    b = _run(tmp_path / "x" / "sys-judge-b.json", {"cqs": [0.5, 0.6, 0.7]}, metrics=["cqs"], judge="openai:m")
    assert [s.name for s in merge_runs(load_results([a, b]))] == ["sys-judge"]


def test_a_lower_is_better_column_bolds_its_lowest_and_its_worst_surveys_are_the_highest(tmp_path: Path) -> None:
    """quiz_unanswered is declared lower-is-better: 'a' (mean 0.2) is bold, 'b' (mean 0.6) not, while on quiz (higher
    is better) 'b' (0.9) beats 'a' (0.5); the drill-down's worst quiz_unanswered survey of 'b' is its highest."""
    paths = [write_results(tmp_path / "in" / "a.json", {"quiz": [0.4, 0.5, 0.6], "quiz_unanswered": [0.1, 0.2, 0.3]}),
             write_results(tmp_path / "in" / "b.json", {"quiz": [0.8, 0.9, 1.0], "quiz_unanswered": [0.5, 0.7, 0.6]})]
    for path in paths:
        data = json.loads(path.read_text())
        data["config"].update(metrics=["quiz"], quiz_fingerprint="1111222233334444")
        path.write_text(json.dumps(data))
    out = tmp_path / "report"
    build_report(paths, out, metrics="quiz", resamples=200, worst=1, formats=())
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ")[1:]
            for line in (out / "table.md").read_text().splitlines() if line.startswith("| ") and "---" not in line}
    quiz, unanswered = 0, 1
    assert rows["a"][unanswered].startswith("**0.2000") and not rows["b"][unanswered].startswith("**")
    assert rows["b"][quiz].startswith("**0.9000") and not rows["a"][quiz].startswith("**")
    drill = (out / "drilldown.md").read_text()
    section = drill[drill.index("## quiz_unanswered"):]
    assert "| b | 1 | 0.7000 |" in section and "| b | 0 |" not in section
