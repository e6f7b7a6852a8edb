"""``surge leaderboard build``: a Space folder from results, its data, verdicts, sanitising, bad input, the CLI.

The inputs are real ``surge evaluate`` runs on the shipped sample (a scripted NLI model, so the verdicts
vary): ``gt`` (the GT rendered as generated surveys, with ``--details``), ``degraded`` (the same with
citations of a missing number, with details), ``paper`` (another protocol, no details) and ``evil`` (a
submission-like system whose surveys and name carry script payloads, with details). The browser tests
(tests/test_leaderboard_browser.py) drive the app built here.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import typer
from typer.testing import CliRunner

from surge_dataset.core.errors import SurgeError
from surge_dataset.leaderboard import SPACE_KIND, build_space
from surge_dataset.leaderboard.citations import marker_spans, verdict
from surge_dataset.leaderboard.space import leaderboard_viewer as viewer

RESAMPLES = 500  # the statistics are surge report's (tested there); enough to check they are carried over
EVIL_NAME = 'evil <img src=x onerror="alert(\'name\')"> see http://2130706433/x'  # markup and an autolink
FORGED_RECALL = 0.0123  # evil's survey 0, changed after scoring: re-scoring shows a mismatch
PAYLOADS = """
<script>window.__pwned = "script"; alert("script")</script>
<img src="http://evil.example/img.png" onerror="window.__pwned='img'; alert('img')">
<iframe src="http://evil.example/frame"></iframe>
<a href="javascript:window.__pwned='link';alert('link')">click me</a> <a href="http://ok.example/" onclick="alert('a')">ok</a>
<svg onload="window.__pwned='svg';alert('svg')"><circle r="5"/></svg>
<details open ontoggle="window.__pwned='details';alert('details')">details</details>
<div style="background-image:url(http://evil.example/bg.png)">styled</div>
<object data="http://evil.example/obj"></object><embed src="http://evil.example/embed">
<form action="http://evil.example/f"><input autofocus onfocus="window.__pwned='focus';alert('focus')"></form>
<link rel="stylesheet" href="http://evil.example/x.css"><style>body{background:url(http://evil.example/s.png)}</style>
<video src="http://evil.example/v.mp4" autoplay></video><audio src="http://evil.example/a.mp3" autoplay></audio>

![remote](http://evil.example/md.png) and [md link](javascript:alert('md')) and <b onmouseover="alert('b')">bold</b>
"""


class ScriptedNLI:
    """Entailment, contradiction or neutral by a checksum of the pair: every verdict occurs, reproducibly."""

    label_order = ("contradiction", "entailment", "neutral")

    def logits(self, pairs):
        rows = [[2.0, 0.0, 1.0], [0.0, 2.0, 1.0], [0.0, 1.0, 2.0]]
        return np.array([rows[zlib.crc32((a + b).encode()) % 3] for a, b in pairs])


@pytest.fixture(scope="session")
def leaderboard_inputs(sample_dataset, tmp_path_factory) -> dict[str, Path]:
    """Four systems' results, details and surveys; ``passages/<stem>/`` is the --passages-root layout."""
    from surge_dataset import SurgeData
    from surge_dataset.data.render import render_surveys
    from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run

    root = tmp_path_factory.mktemp("leaderboard")
    data = SurgeData.open(sample_dataset)
    passages, results = root / "passages", root / "results"
    render_surveys(data.surveys("test"), data.corpus, passages / "gt")
    shutil.copytree(passages / "gt", passages / "degraded")
    shutil.copytree(passages / "gt", passages / "evil")
    for path in (passages / "degraded").glob("*/survey.md"):
        path.write_text(path.read_text(encoding="utf-8").replace("[3]", "[77]"), encoding="utf-8")
    for path in (passages / "evil").glob("*/survey.md"):
        text = path.read_text(encoding="utf-8")
        text = text.replace("\n\nSee [1]", "\n\nEvil <img src=x onerror=\"alert('sentence')\"> claim [1]", 1)
        path.write_text(text.replace("\n# References", "\n" + PAYLOADS + "\n# References", 1), encoding="utf-8")
    accuracy = EvaluationConfig(metrics=["recall", "citation_accuracy"])
    for name in ("gt", "degraded", "evil"):
        evaluate_run(data, passages / name, results / f"{name}.json",
                     EvaluationSession(accuracy, nli=ScriptedNLI()),
                     details_path=results / f"{name}.details.jsonl")
    evaluate_run(data, passages / "gt", results / "paper.json",
                 EvaluationSession(EvaluationConfig(metrics=["recall"], protocol="paper")))
    evil = json.loads((results / "evil.json").read_text(encoding="utf-8"))
    evil["config"]["system"] = EVIL_NAME
    evil["surveys"]["0"]["recall"] = FORGED_RECALL
    (results / "evil.json").write_text(json.dumps(evil), encoding="utf-8")
    return {"root": root, "data": sample_dataset, "passages": passages,
            **{name: results / f"{name}.json" for name in ("gt", "degraded", "paper", "evil")}}


@pytest.fixture(scope="session")
def space(leaderboard_inputs, tmp_path_factory) -> Path:
    """The Space built from the four systems, each re-scored (the browser tests serve this folder): ``paper``
    (recall only) is verified, ``evil`` (a forged recall) a mismatch, ``gt`` and ``degraded`` unverified (their
    NLI model was a scripted stand-in: no copy of the model their results name)."""
    out = tmp_path_factory.mktemp("space-parent") / "space"
    i = leaderboard_inputs
    build_space([i["gt"], i["degraded"], i["paper"], i["evil"]], out, passages_root=i["passages"], data=i["data"],
                resamples=RESAMPLES, verify=True)
    return out


def _read(space: Path, name: str):
    return pq.read_table(space / "data" / f"{name}.parquet").to_pandas()


def test_the_folder_is_a_gradio_space(space, leaderboard_inputs):
    card = (space / "README.md").read_text(encoding="utf-8")
    header = card.split("---\n")[1]
    assert "sdk: \"gradio\"" in header and "app_file: \"app.py\"" in header and "sdk_version: " in header
    requirements = (space / "requirements.txt").read_text(encoding="utf-8")
    assert "gradio" in requirements and "nh3" in requirements and "surge" not in requirements
    assert {p.name for p in space.iterdir()} >= {"app.py", "leaderboard_data.py", "leaderboard_viewer.py", "data"}
    app_source = "".join((space / n).read_text(encoding="utf-8") for n in ("app.py", "leaderboard_data.py",
                                                                          "leaderboard_viewer.py"))
    assert "surge_dataset" not in app_source.replace("surge_dataset.leaderboard.space", "")
    assert json.loads((space / ".surge-output.json").read_text())["kind"] == SPACE_KIND
    # no path of the build machine inside (file names only)
    for path in space.rglob("*"):
        if path.is_file():
            assert str(leaderboard_inputs["root"]).encode() not in path.read_bytes(), path


def test_groups_means_and_significance(space, leaderboard_inputs):
    from surge_dataset.report import load_results, summarise

    systems = _read(space, "systems").set_index("system")
    assert list(systems.index) == ["gt", "degraded", "paper", EVIL_NAME]
    assert list(systems["data_window"]) == ["", "", "", ""]  # the sample is official data: no window recorded
    assert systems.loc["paper", "group"] != systems.loc["gt", "group"] == systems.loc["evil" and EVIL_NAME, "group"]
    meta = json.loads((space / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    assert any("paper" in w and "protocol=paper" in w for w in meta["warnings"])
    # the means and CIs are surge report's, same seed, same numbers
    loaded = load_results([leaderboard_inputs["gt"]])
    expected = summarise(loaded, ["recall", "sent_acc"], resamples=RESAMPLES)["gt"]
    means = _read(space, "means").set_index(["system", "metric"])
    for metric in ("recall", "sent_acc"):
        assert means.loc[("gt", metric), "mean"] == pytest.approx(expected[metric].mean)
        assert means.loc[("gt", metric), "ci_low"] == pytest.approx(expected[metric].ci_low)
    pairs = _read(space, "significance")
    assert set(pairs["group"]) == {systems.loc["gt", "group"]}  # the lone paper system is compared with nothing
    # gt and degraded: 1 pair per metric; evil's forged recall is a mismatch, never ranked nor tested
    assert len(pairs) == len(meta["metrics"])
    assert EVIL_NAME not in set(pairs["a"]) | set(pairs["b"])


def test_another_data_fingerprint_is_its_own_group_with_a_warning(leaderboard_inputs, tmp_path):
    other = json.loads(leaderboard_inputs["gt"].read_text(encoding="utf-8"))
    other["config"]["data_fingerprint"] = "0123456789abcdef"
    (tmp_path / "other-data.json").write_text(json.dumps(other), encoding="utf-8")
    summary = build_space([leaderboard_inputs["gt"], tmp_path / "other-data.json"], tmp_path / "space", data=None,
                          resamples=200)
    assert summary.groups == 2
    assert any(w.startswith("other-data: evaluated with data_fingerprint=0123456789abcdef") for w in summary.warnings)
    assert len(_read(tmp_path / "space", "significance")) == 0  # nothing is compared across groups
    card = (tmp_path / "space" / "README.md").read_text(encoding="utf-8")
    assert "| other\\-data | other\\-data\\.json | unverified |" in card  # Markdown-escaped plain text


def test_the_table_names_each_rows_dataset_and_window(leaderboard_inputs, tmp_path):
    """A fresh split's window, an open one, results from before data_window, a malformed value, no fingerprint:
    each row says which data it used, and nothing fails."""
    import pandas as pd

    from surge_dataset.leaderboard.space import app

    base = json.loads(leaderboard_inputs["gt"].read_text(encoding="utf-8"))
    assert base["config"]["data_window"] is None and len(base["config"]["data_fingerprint"]) == 16
    variants = {
        "fresh": {"data_fingerprint": "fedcba9876543210", "data_window": {"since": "2025-06-01", "until": "2025-08-31"}},
        "open": {"data_fingerprint": "fedcba9876543210", "data_window": {"since": "2025-06-01", "until": None}},
        "old": {"data_window": None},  # removed below: a results file written before data_window
        "odd": {"data_window": "2025-06"},
        "nofp": {"data_fingerprint": None},
    }
    paths = []
    for name, changes in variants.items():
        record = json.loads(json.dumps(base))
        record["config"].update(changes)
        if name in ("old", "nofp"):
            del record["config"]["data_window"], record["config"]["data_survey_dates"]
        if name == "nofp":
            del record["config"]["data_fingerprint"]
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(record), encoding="utf-8")
    build_space([leaderboard_inputs["gt"], *paths], tmp_path / "space", data=None, resamples=200)
    systems = _read(tmp_path / "space", "systems").set_index("system")
    assert systems["data_window"].to_dict() == {"gt": "", "fresh": "2025-06-01 to 2025-08-31",
                                                "open": "2025-06-01 to open", "old": "unknown", "odd": "unknown",
                                                "nofp": "unknown"}
    short = base["config"]["data_fingerprint"][:8]
    board = app.lbdata.Board(tmp_path / "space" / "data")
    frame, note = board.table({}, ci=False, published=True)
    # who, its badge and group first, then the scores; which data and how many surveys after them
    assert list(frame.columns[:3]) == ["System", "Status", "Group"] and list(frame.columns[-3:-1]) == ["Surveys", "Data"]
    shown = dict(zip(frame["System"], frame["Data"], strict=True))
    assert {k: v for k, v in shown.items() if not k.endswith("†")} == {
        "gt": short, "fresh": "fedcba98 (2025-06-01 to 2025-08-31)", "open": "fedcba98 (2025-06-01 to open)",
        "old": f"{short} (window unknown)", "odd": f"{short} (window unknown)", "nofp": "unknown"}
    assert {v for k, v in shown.items() if k.endswith("†")} == {""}  # the paper's rows: its own data, no fingerprint
    assert "Data: the dataset's fingerprint (first 8 characters)" in note
    # a Space whose systems table predates the column (NaN from pandas) still shows the fingerprint
    assert board.data_label(pd.Series({"data_fingerprint": "0123456789abcdef", "data_window": float("nan")})) == "01234567"
    assert board.data_label(pd.Series({"data_fingerprint": "0123456789abcdef"})) == "01234567"


def test_every_citation_has_a_verdict_and_its_place_in_the_text(space, leaderboard_inputs):
    citations = _read(space, "citations")
    surveys = _read(space, "surveys").set_index(["system", "survey_id"])
    gt = citations[citations["system"] == "gt"]
    assert set(gt["verdict"]) >= {"supported", "partly supported", "not supported", "missing number"}
    assert "unresolved reference" in set(citations["verdict"])  # the sample's titles that resolve to nothing
    placed = citations[citations["start"] >= 0]
    assert len(placed) / len(citations) > 0.95
    for row in placed.itertuples():
        text = surveys.loc[(row.system, row.survey_id), "text"]
        assert text[row.start:row.start + row.length] == str(row.number), row
    assert citations["sentence"].isna().mean() > 0.5  # most sentences are kept as offsets into the text
    from surge_dataset.leaderboard.space import app

    lines = leaderboard_inputs["gt"].with_name("gt.details.jsonl").read_text(encoding="utf-8").splitlines()
    records = [r for r in map(json.loads, lines) if r["survey_id"] == 0]
    shown = app.lbdata.Board(space / "data").survey("gt", "0")["citations"]
    assert list(shown["sentence"].fillna("-")) == [r["sentence"] or "-" for r in records]  # offsets give them back
    scores = _read(space, "scores").set_index(["system", "survey_id"])
    for (system, survey_id), group in citations[citations["kind"] == "citation"].groupby(["system", "survey_id"]):
        assert len(group) == scores.loc[(system, survey_id), "citations"]
    # evidence: the cited paper's title and abstract from the corpus, the entailment probability, the rule
    papers = _read(space, "papers")
    assert papers["abstract"].notna().all() and set(papers["doc_id"]) >= set(gt["doc_id"].dropna().astype(int))
    nli = gt[gt["rule"].str.startswith("official protocol")]
    assert nli["entailment"].between(0, 1).all() and len(nli) > 10


def test_verdicts_and_marker_places():
    assert verdict({"kind": "citation", "doc_id": 3, "sent_score": 1.0, "sent_why": "nli"}) == "supported"
    assert verdict({"kind": "citation", "doc_id": 3, "sent_score": 0.5, "sent_why": "nli"}) == "partly supported"
    assert verdict({"kind": "citation", "doc_id": None, "sent_score": 0.0,
                    "sent_why": "title not found in the corpus (hallucinated)"}) == "unresolved reference"
    assert verdict({"kind": "citation", "doc_id": None, "why": "reference number missing from the reference list"}) \
        == "missing number"
    assert verdict({"kind": "reference", "doc_id": 4, "why": "resolved"}) == "not scored"
    text = "A [1] and [2, 3] and [4-6].\n\n# References\n[1] One\n[2] Two\n"
    citations, references = marker_spans(text)
    assert [(text[s:e], n) for s, e, n in citations] == [("1", [1]), ("2", [2]), ("3", [3]), ("4-6", [4, 5, 6]),
                                                         ("1", [1]), ("2", [2])]  # official: list lines cite too
    assert [text[s:e] for s, e, _ in references] == ["1", "2"] and [n for _, _, n in references] == [1, 2]


def test_markdown_is_sanitised_and_citations_keep_their_colour():
    text = "# Intro\n\nA claim [1].\n\n" + PAYLOADS
    start = text.index("[1]") + 1
    row = {"start": start, "end": start + 1, "number": 1, "verdict": "not supported", "doc_id": 7, "entailment": 0.12,
           "score": 0.0, "rule": "official protocol <script>x</script>"}
    rendered = viewer.render_survey(text, [row], {7: {"title": "A <b>title</b>", "abstract": "An abstract."}})
    body = rendered.split("</style>", 1)[1].lower()
    tags = " ".join(re.findall(r"<[^>]*>", body))  # what the browser acts on; the rest is escaped text
    for forbidden in ("<script", "onerror", "onload", "onclick", "onfocus", "ontoggle", "onmouseover", "javascript:",
                      "<img", "<iframe", "<object", "<embed", "<svg", "<form", "<input", "<link", "<style", "<video",
                      "<audio", "style=", "evil.example"):
        assert forbidden not in tags, forbidden
    assert "<script" not in body and "window.__pwned" not in tags
    assert 'class="sg-cite sg-not-supported"' in body and "a &lt;b&gt;title&lt;/b&gt;" in body
    assert "an abstract." in body and "0.120" in body and 'href="http://ok.example/"' in body
    # a placeholder character inside the submission cannot forge a marker
    forged = viewer.render_survey("x \ue0000\ue001 y", [], {})
    assert "sg-cite" not in forged.split("</style>", 1)[1]


def test_app_pages_never_fail_on_any_survey(space, leaderboard_inputs):
    """Every page's content for every system and survey, including those without details or text."""
    from surge_dataset import SurgeData
    from surge_dataset.leaderboard.space import app

    board = app.lbdata.Board(space / "data")
    frame, note = board.table({}, ci=True, published=True)
    assert list(frame["System"][:3]) == ["paper", "gt", "degraded"]  # verified first; the mismatch never ranked
    assert list(board.mismatches({})["System"]) == [EVIL_NAME]
    fingerprint = SurgeData.open(leaderboard_inputs["data"]).fingerprint
    assert list(frame["Data"]) == [fingerprint[:8]] * 3 + [""] * 6  # official data: the fingerprint, no window
    assert frame["System"].str.endswith("†").sum() == 6 and "different settings" in note
    only_g1, note = board.table({"protocol": "official"})
    assert "paper" not in set(only_g1["System"]) and "different settings" not in note
    for system in board.names:
        assert len(board.compare(system)[0]) == len(board.names) - 1
        board.system_scores(system), board.worst(system, "recall"), board.heatmap_html(system, "recall")
        for survey_id in board.survey_ids(system):
            header, body, evidence, outline = app._survey_view(board, system, survey_id)
            assert "Ground-truth outline" in outline
            if system == "paper":  # evaluated without --details, re-scored here: the re-run's records are shown
                assert "Scores only" not in header and len(evidence) > 0
            else:
                assert "sg-cite sg-" in body and len(evidence) > 0
    assert "bold" in app._survey_view(board, EVIL_NAME, "0")[1]
    assert len(board.recall_at_k()) == 12 and len(board.ci_ranges("recall", "G1")) == 9
    assert app._survey_view(board, None, None)[0].startswith("Pick")


def test_the_app_builds_as_gradio_blocks(space):
    from surge_dataset.leaderboard.space import app

    demo = app.build_app(space / "data")
    assert type(demo).__name__ == "Blocks"
    # The CI plot marks each system's mean, in its own colour, between the interval's two ends
    ci_plot = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "plot-ci")
    assert type(ci_plot).__name__ == "ScatterPlot" and ci_plot.color == "point"
    assert set(ci_plot.color_map) == {"mean", "95% CI low", "95% CI high"}
    assert ci_plot.color_map["mean"] != ci_plot.color_map["95% CI low"] == ci_plot.color_map["95% CI high"]
    board = app.lbdata.Board(space / "data")
    points = board.ci_ranges(board.metrics[0], next(iter(board.groups)))
    assert points.groupby("system")["point"].apply(set).map(lambda p: "mean" in p).all()


def _cli() -> typer.Typer:
    """``surge`` once cli.py wires the sub-app; until then a root with surge's error handling around it."""
    from surge_dataset.cli import SurgeGroup, app
    from surge_dataset.cli.leaderboard import leaderboard_app

    if any(group.name == "leaderboard" for group in app.registered_groups):
        return app
    root = typer.Typer(cls=SurgeGroup)
    root.callback()(lambda: None)
    root.add_typer(leaderboard_app, name="leaderboard")
    return root


def test_cli_build_and_refusals(leaderboard_inputs, tmp_path):
    i = leaderboard_inputs
    runner = CliRunner()
    out = tmp_path / "space"
    args = ["leaderboard", "build", str(i["gt"]), str(i["paper"]), "--passages-root", str(i["passages"]),
            "--data", str(i["data"]), "--resamples", "200", "--out", str(out)]
    result = runner.invoke(_cli(), args)
    assert result.exit_code == 0, result.output
    assert "2 systems in 2 setting group(s)" in result.output and "warning:" in result.output
    again = runner.invoke(_cli(), args)
    assert again.exit_code == 2 and "--overwrite" in again.output
    assert runner.invoke(_cli(), [*args, "--overwrite"]).exit_code == 0
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    refused = runner.invoke(_cli(), [*args[:-1], str(foreign), "--overwrite"])
    assert refused.exit_code == 2 and "did not write" in refused.output and (foreign / "notes.txt").exists()


@pytest.mark.parametrize(("content", "message"), [
    ('{"config": {}, "surveys": {"0": {"recall": 0.5', "not valid JSON"),
    ("[1, 2, 3]", "not a `surge evaluate` results file"),
    ('{"name": "something else"}', "not a `surge evaluate` results file"),
    ('{"config": {}, "surveys": {"0": "oops"}}', "survey '0': an object is required, got 'oops'"),
    (b"\xff\xfe\x00garbage", "not UTF-8"),
    ('{"config": {}, "surveys": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
])
def test_truncated_or_foreign_json_is_refused_naming_the_file(tmp_path, content, message):
    bad = tmp_path / "bad-results.json"
    bad.write_bytes(content.encode() if isinstance(content, str) else content)
    with pytest.raises(SurgeError, match=message) as raised:
        build_space([bad], tmp_path / "space")
    assert str(bad) in str(raised.value)
    result = CliRunner().invoke(_cli(), ["leaderboard", "build", str(bad), "--out", str(tmp_path / "space")])
    assert result.exit_code == 2 and "bad-results.json" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "space").exists()


def test_broken_details_and_unknown_names_are_refused(leaderboard_inputs, tmp_path):
    i = leaderboard_inputs
    details = tmp_path / "torn.jsonl"
    lines = (i["gt"].with_name("gt.details.jsonl")).read_text(encoding="utf-8").splitlines()
    details.write_text("\n".join(lines[:3]) + "\n" + lines[3][: len(lines[3]) // 2] + "\n", encoding="utf-8")
    with pytest.raises(SurgeError, match=r"torn.jsonl: line 4 is not JSON"):
        build_space([i["gt"]], tmp_path / "a", details=[f"gt={details}"], data=None, resamples=200)
    with pytest.raises(SurgeError, match="no input is named so"):
        build_space([i["gt"]], tmp_path / "b", details=[f"nobody={details}"], data=None, resamples=200)
    with pytest.raises(SurgeError, match="without submission.json"):
        build_space([tmp_path], tmp_path / "c")
    assert not any((tmp_path / n).exists() for n in "abc")


def test_results_without_details_or_surveys_still_build(leaderboard_inputs, tmp_path):
    """No --passages-root, no details, no dataset: scores only, each absence said once."""
    summary = build_space([leaderboard_inputs["paper"]], tmp_path / "space", data=tmp_path / "absent", resamples=200)
    assert summary.citations == 0 and any("no generated surveys" in w for w in summary.warnings)
    assert any("no dataset" in w for w in summary.warnings)
    from surge_dataset.leaderboard.space import app

    board = app.lbdata.Board(tmp_path / "space" / "data")
    header, body, evidence, outline = app._survey_view(board, "paper", board.survey_ids("paper")[0])
    assert "Scores only" in header and "not in this Space" in header and len(evidence) == 0
    assert "No GT outline" in outline


def test_a_submission_folder_is_read_through_load_submission(leaderboard_inputs, tmp_path):
    submission = pytest.importorskip("surge_dataset.leaderboard.submission",
                                     reason="surge submit (surge_dataset.leaderboard.submission) is not there yet")
    from surge_dataset import SurgeData

    i = leaderboard_inputs
    folder = tmp_path / "submission"
    packed = submission.pack_submission(i["gt"], i["passages"] / "gt", folder, data=SurgeData.open(i["data"]),
                                        name="Packed-System", details=i["gt"].with_name("gt.details.jsonl"))
    assert (folder / "submission.json").is_file() and packed.name == "Packed-System"
    summary = build_space([folder], tmp_path / "space", data=i["data"], resamples=200)
    systems = _read(tmp_path / "space", "systems")
    assert list(systems["system"]) == ["Packed-System"] and bool(systems["submission"][0])
    assert summary.citations > 0 and bool(systems["has_passages"][0])


def test_serve_refuses_a_folder_that_is_not_a_space(tmp_path):
    result = CliRunner().invoke(_cli(), ["leaderboard", "serve", str(tmp_path), "--port", "1"])
    assert result.exit_code == 2 and "not a leaderboard Space folder" in result.output


def test_the_cli_and_the_build_never_import_gradio(leaderboard_inputs, tmp_path):
    code = ("import sys, surge_dataset.cli, surge_dataset.cli.leaderboard, surge_dataset.leaderboard;"
            "from surge_dataset.leaderboard import build_space;"
            f"build_space([{str(leaderboard_inputs['paper'])!r}], {str(tmp_path / 's')!r}, resamples=200);"
            "print('gradio' in sys.modules, 'nh3' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_systems_asked_different_quiz_sets_are_never_ranked_together():
    """The quiz set's fingerprint is a group setting where the quiz metric is selected (a systems.parquet column,
    as the data fingerprint is), and not used otherwise."""
    from surge_dataset.leaderboard.groups import NOT_USED, group_systems, settings
    from surge_dataset.report.results import SystemResults

    def system(name: str, metrics: list[str], fingerprint: str | None) -> SystemResults:
        config = {"metrics": metrics, "protocol": "official", "aggregate": "released", "data_fingerprint": "d",
                  "judge": "openai:x", "quiz_fingerprint": fingerprint}
        return SystemResults(name, Path(f"{name}.json"), "0" * 64, config, {"0": {}})

    assert settings(system("a", ["recall"], None).config)["quiz_fingerprint"] == NOT_USED
    assert settings(system("a", ["quiz"], "abc").config)["quiz_fingerprint"] == "abc"
    groups, warnings = group_systems([system("a", ["quiz"], "abc"), system("b", ["quiz"], "abc"),
                                      system("c", ["quiz"], "xyz")])
    assert [g.systems for g in groups] == [["a", "b"], ["c"]]
    assert len(warnings) == 1 and "quiz_fingerprint=xyz" in warnings[0]


def test_an_objective_run_and_a_later_run_of_the_same_folder_are_one_row(leaderboard_inputs, tmp_path):
    """Two results files of one passage folder under the same settings (recall
    first, ROUGE/BLEU later) are one system, each column from the run that has it, as `surge report` merges them."""
    from surge_dataset import SurgeData
    from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run

    i = leaderboard_inputs
    data = SurgeData.open(i["data"])
    results = tmp_path / "results"
    evaluate_run(data, i["passages"] / "gt", results / "first.json",
                 EvaluationSession(EvaluationConfig(metrics=["recall"])))
    evaluate_run(data, i["passages"] / "gt", results / "later.json",
                 EvaluationSession(EvaluationConfig(metrics=["rouge_bleu"])))
    build_space([results / "first.json", results / "later.json"], tmp_path / "space", data=i["data"], resamples=200)
    systems = _read(tmp_path / "space", "systems")
    assert list(systems["system"]) == ["first"]
    means = _read(tmp_path / "space", "means").set_index(["system", "metric"])
    first = json.loads((results / "first.json").read_text(encoding="utf-8"))["average"]
    later = json.loads((results / "later.json").read_text(encoding="utf-8"))["average"]
    assert means.loc[("first", "recall"), "mean"] == pytest.approx(first["recall"])
    assert means.loc[("first", "bleu"), "mean"] == pytest.approx(later["bleu"])
    meta = json.loads((tmp_path / "space" / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    assert "first.json and later.json are one system" in json.dumps(meta)
