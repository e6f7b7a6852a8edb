"""What the CLI prints: full tables when piped, `surge report --with-paper` rows, `retrieval-eval` fast and quiet."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from rich.table import Table
from typer.testing import CliRunner

from surge_dataset.cli import SurgeGroup
from surge_dataset.cli.console import PIPE_WIDTH, make_console
from surge_dataset.cli.report import report as report_command
from surge_dataset.retrieval.evaluation import METRICS, evaluate_run
from surge_dataset.retrieval.runs import write_trec_qrels

from .test_report import write_results

WIDE_COLUMNS = [f"a fairly long column header number {i}" for i in range(8)]


def _wide_table() -> Table:
    table = Table(title="wide")
    for column in WIDE_COLUMNS:
        table.add_column(column)
    table.add_row(*(f"value {i} that is long too" for i in range(8)))
    return table


def test_tables_are_not_cut_to_80_columns_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    buffer = io.StringIO()
    console = make_console()
    console.file = buffer  # not a terminal, like `surge ... | tee log`
    assert not console.is_terminal and console.width == PIPE_WIDTH
    console.print(_wide_table())
    lines = buffer.getvalue().splitlines()
    assert any(len(line) > 300 for line in lines)
    header = next(line for line in lines if "number 0" in line)
    assert all(column in header for column in WIDE_COLUMNS) and "…" not in buffer.getvalue()


def test_columns_still_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    console = make_console()
    console.file = io.StringIO()
    assert console.width == 100


def _report_app() -> typer.Typer:
    """`surge report` alone, under the root command that turns a SurgeError into one line and exit 2."""
    app = typer.Typer(cls=SurgeGroup)
    app.command("report")(report_command)
    app.command("noop")(lambda: None)  # two commands: a group, so the root's error handling applies
    return app


def test_report_with_paper_prints_the_published_rows(tmp_path: Path) -> None:
    results = write_results(tmp_path / "mine.json", {"recall": [0.5, 0.7, 0.6], "bleu": [10.0, 12.0, 11.0]})
    args = [str(results), "--metrics", "recall,bleu", "--resamples", "200"]
    runner = CliRunner()
    plain = runner.invoke(_report_app(), ["report", *args, "--out", str(tmp_path / "a")])
    assert plain.exit_code == 0, plain.output
    assert "RAG-Qwen" not in plain.output
    paper = runner.invoke(_report_app(), ["report", *args, "--out", str(tmp_path / "b"), "--with-paper"])
    assert paper.exit_code == 0, paper.output
    row = next(line for line in paper.output.splitlines() if "StepSurvey †" in line)
    assert "0.0630" in row and "12.02" in row  # Table 4's recall and BLEU, as in table.md
    assert "Published (paper, Table 4)" in paper.output and "not comparable" in paper.output
    for name in ("RAG-Qwen", "RAG-GPT", "RAG-Gemini", "AutoSurvey", "SurveyForge"):
        assert f"{name} †" in paper.output
    assert "StepSurvey †" in (tmp_path / "b" / "table.md").read_text()


def random_run(seed: int = 3) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    rng = random.Random(seed)
    run, qrels = {}, {}
    for q in range(25):
        run[str(q)] = {str(d): round(rng.random(), 6) for d in rng.sample(range(2000), rng.randint(0, 900))}
        qrels[str(q)] = {str(d): rng.choice([0, 1, 1, 2]) for d in rng.sample(range(2000), rng.randint(1, 60))}
    qrels["missing-from-run"] = {"1": 1}
    return run, qrels


def test_retrieval_eval_needs_no_numba_and_prints_no_stray_warning(tmp_path: Path) -> None:
    run, qrels = random_run()
    run_path = tmp_path / "a-rather-long-run-file-name-for-the-table.trec"
    run_path.write_text("".join(f"{q} Q0 {d} {i + 1} {s} t\n" for q, docs in run.items()
                                for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]))))
    qrels_path = write_trec_qrels(tmp_path / "qrels.txt", qrels)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    code = ("import sys\nfrom surge_dataset.cli import main\nsys.argv[0] = 'surge'\ntry:\n    main()\n"
            "finally:\n    print('compiled:', sorted(m for m in ('numba', 'ranx') if m in sys.modules), file=sys.stderr)")
    command = [sys.executable, "-c", code,
               "retrieval-eval", "--run", str(run_path), "--qrels", str(qrels_path), "--out", str(tmp_path / "m.json")]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "compiled: []" in done.stderr  # neither ranx nor numba was imported: no 35 s compile
    assert "\x1b[" not in done.stderr + done.stdout and "Warning" not in done.stderr
    header = next(line for line in done.stdout.splitlines() if "R@20" in line)
    assert all(m.replace("recall", "R") in header for m in METRICS)  # one line: the table is not cut
    assert json.loads((tmp_path / "m.json").read_text())["recall@1000"] == pytest.approx(evaluate_run(run, qrels)["recall@1000"])
