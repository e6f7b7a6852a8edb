"""Runs identified by what they scored, not by a name or a folder's name: ``surge evaluate`` records each survey
file's sha256; ``surge report`` joins two results files only when those agree; the leaderboard fingerprints the
surveys it has, keeps one row per set of survey files (a later copy is a duplicate), refuses names that look alike
and refuses a bad input alone while the others build.

Every attack here worked before: a copy walking to another system's surveys took its row, a judged file of other
surveys was joined in the report, a replay under a second name or with a nudged score was a second row, ``gt`` /
``GT`` / ``gt.`` / NFD ``café`` were separate rows, one bad submission stopped the build, ``--passages-root .`` was
a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import unicodedata
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.core.errors import InputFileError, SurgeError
from surge_dataset.evaluation.fingerprints import survey_fingerprints
from surge_dataset.evaluation.results import load_results, name_key, unique_names
from surge_dataset.leaderboard import build_space
from surge_dataset.report import merge_runs, merged_notes

from .test_leaderboard import leaderboard_inputs  # noqa: F401 - the fixture, shared
from .test_report import write_results

RESAMPLES = 200
runner = CliRunner()


def _json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _copy(source: Path, target: Path, edit=None) -> Path:
    value = _json(source)
    if edit is not None:
        edit(value)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(value), encoding="utf-8")
    return target


def _walk_to(folder: Path, results: Path):
    """An edit recording ``folder`` (another system's surveys) as the results file's passages, relative to it."""
    def edit(value):
        value["config"]["passages"] = os.path.relpath(folder, results.parent)
        value["config"].pop("system", None)
    return edit


def _rows(space_dir: Path) -> list[str]:
    return list(pq.read_table(space_dir / "data" / "systems.parquet").column("system").to_pylist())


def _meta(space_dir: Path) -> dict[str, Any]:
    return _json(space_dir / "data" / "leaderboard.json")


def _means(space_dir: Path) -> dict[tuple[str, str], float]:
    table = pq.read_table(space_dir / "data" / "means.parquet").to_pylist()
    return {(r["system"], r["metric"]): r["mean"] for r in table}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------------------------ what surge evaluate records


def test_evaluate_records_each_survey_files_sha256_and_the_runs(leaderboard_inputs):  # noqa: F811
    i = leaderboard_inputs
    gt, paper = _json(i["gt"]), _json(i["paper"])
    files = {p.parent.name: _sha(p) for p in (i["passages"] / "gt").glob("*/survey.md")}
    assert set(files) == set(gt["surveys"]) and len(files) >= 3
    assert gt["fingerprints"]["surveys"] == files == paper["fingerprints"]["surveys"]
    assert survey_fingerprints(i["passages"] / "gt", "official") == files
    assert survey_fingerprints(i["passages"] / "gt", "official", survey_ids=[0]) == {"0": files["0"]}
    # the run's: the same files under another protocol are another run; the degraded surveys are other files
    assert len(gt["fingerprints"]["run"]) == 64 and gt["fingerprints"]["run"] != paper["fingerprints"]["run"]
    degraded = _json(i["degraded"])["fingerprints"]["surveys"]
    assert all(degraded[sid] != files[sid] for sid in files)


def test_the_schema_types_the_fingerprints(leaderboard_inputs, tmp_path):  # noqa: F811
    bad = _copy(leaderboard_inputs["gt"], tmp_path / "bad.json",
                lambda v: v["fingerprints"]["surveys"].update({"0": "not-a-sha"}))
    with pytest.raises(InputFileError, match=r"bad.json: field 'fingerprints.surveys.0': string should match"):
        load_results([bad])


# ------------------------------------------------------------------------------ surge report joins by content


def _fingerprinted(path: Path, surveys: dict[str, str] | None) -> Path:
    value = _json(path)
    if surveys is not None:
        value["fingerprints"] = {"surveys": surveys}
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


TODAY = {"0": "a" * 64, "1": "b" * 64, "2": "c" * 64}


def _pair(tmp_path: Path, objective: dict[str, str] | None, judged: dict[str, str] | None) -> list[Path]:
    """An objective run and a judged run recording one passage folder and the same settings."""
    config = {"passages": "outputs/a"}
    return [
        _fingerprinted(write_results(tmp_path / "results.json", {"recall": [0.4, 0.5, 0.6]},
                                     config={**config, "metrics": ["recall"]}), objective),
        _fingerprinted(write_results(tmp_path / "judged.json", {"sqs": [1.0, 2.0, 3.0]},
                                     config={**config, "metrics": ["sqs"], "judge": "openai:gpt-4o"}), judged),
    ]


def test_a_judged_file_of_other_surveys_is_not_joined_in_the_report(tmp_path):
    yesterday = {**TODAY, "1": "d" * 64}  # the surveys were generated again since the judged run
    paths = _pair(tmp_path, TODAY, yesterday)
    systems = merge_runs(load_results(paths))
    assert [s.name for s in systems] == ["results", "judged"]
    assert "sqs" not in systems[0].surveys["0"]
    assert merged_notes(systems) == [
        "judged: results.json and judged.json score different survey files (survey 1 differs): two rows"]
    out = tmp_path / "report"
    result = runner.invoke(app, ["report", *map(str, paths), "--out", str(out), "--metrics", "recall,sqs",
                                 "--resamples", "200"], env={"COLUMNS": "2000"})
    assert result.exit_code == 0, result.output
    assert "score different survey files (survey 1 differs): two rows" in " ".join(result.output.split())
    assert [line.split("|")[1].strip() for line in (out / "table.md").read_text().splitlines()
            if line.startswith("| results ") or line.startswith("| judged ")] == ["results", "judged"]


def test_a_judged_file_of_the_same_surveys_is_joined_in_the_report(tmp_path):
    systems = merge_runs(load_results(_pair(tmp_path, TODAY, dict(TODAY))))
    assert [s.name for s in systems] == ["results"]
    assert (systems[0].surveys["1"]["recall"], systems[0].surveys["1"]["sqs"]) == (0.5, 2.0)
    assert merged_notes(systems) == ["results: results.json and judged.json are one system (same passage folder, "
                                     "settings and survey files): one row, each column from the file that has it"]


def test_a_file_without_fingerprints_is_never_joined_with_one_that_has_them(tmp_path):
    systems = merge_runs(load_results(_pair(tmp_path, TODAY, None)))
    assert [s.name for s in systems] == ["results", "judged"]
    assert merged_notes(systems) == ["judged: results.json and judged.json: judged.json records no survey "
                                     "fingerprints (written before they were recorded), so what it scored cannot "
                                     "be checked: two rows"]
    # two files written before fingerprints: today's rule, and the note says it is unchecked
    systems = merge_runs(load_results(_pair(tmp_path, None, None)))
    assert [s.name for s in systems] == ["results"] and systems[0].surveys["2"]["sqs"] == 3.0
    assert "joined by folder name alone, unchecked: no survey fingerprints recorded" in merged_notes(systems)[0]


# ------------------------------------------------------------------------------ the leaderboard: one row per surveys


def test_a_copy_walking_to_another_systems_surveys_does_not_take_its_row(leaderboard_inputs, tmp_path):  # noqa: F811
    """The attacker's copy of gt's results records gt's passage folder and comes first: gt stays (its surveys are
    ROOT/gt, its own), the copy is a duplicate of it, not a row and not merged into gt's."""
    i = leaderboard_inputs
    attacker = tmp_path / "in" / "attacker.json"
    _copy(i["gt"], attacker, _walk_to(i["passages"] / "gt", attacker))
    summary = build_space([attacker, i["gt"], i["degraded"]], tmp_path / "space", passages_root=i["passages"],
                          resamples=RESAMPLES)
    assert _rows(tmp_path / "space") == ["gt", "degraded"]
    assert summary.duplicates == [{"file": "attacker.json", "system": "attacker", "duplicate_of": "gt",
                                   "differs": None}]
    meta = _meta(tmp_path / "space")
    assert meta["duplicates"] == summary.duplicates and meta["refused"] == []
    assert [(e["system"], e["file"]) for e in meta["inputs"]] == [("gt", "gt.json"), ("degraded", "degraded.json")]


def test_a_judged_file_walking_to_a_third_systems_surveys_is_not_merged_into_its_row(leaderboard_inputs, tmp_path):  # noqa: F811
    i = leaderboard_inputs
    judged = tmp_path / "in" / "mallory.json"

    def fake_cqs(value):
        _walk_to(i["passages"] / "degraded", judged)(value)
        value["config"].update(metrics=["cqs"], judge="openai:gpt-4o")
        value["surveys"] = {sid: {"cqs": 5.0, "counts": {}, "diagnostics": []} for sid in value["surveys"]}

    _copy(i["degraded"], judged, fake_cqs)
    summary = build_space([i["gt"], judged, i["degraded"]], tmp_path / "space", passages_root=i["passages"],
                          resamples=RESAMPLES)
    assert _rows(tmp_path / "space") == ["gt", "degraded"]
    assert not any(metric == "cqs" for _, metric in _means(tmp_path / "space"))
    (duplicate,) = summary.duplicates
    assert duplicate["file"] == "mallory.json" and duplicate["duplicate_of"] == "degraded"
    assert duplicate["differs"].startswith("also holds cqs, not ranked")


def test_a_replay_under_a_second_name_is_one_row_and_a_duplicate(leaderboard_inputs, tmp_path):  # noqa: F811
    i = leaderboard_inputs
    replay = tmp_path / "in" / "replay.json"

    def renamed(value):
        _walk_to(i["passages"] / "degraded", replay)(value)
        value["config"]["system"] = "Degraded Again"

    _copy(i["degraded"], replay, renamed)
    result = runner.invoke(app, ["leaderboard", "build", str(i["degraded"]), str(replay), "--passages-root",
                                 str(i["passages"]), "--out", str(tmp_path / "space"), "--resamples", "200"],
                           env={"COLUMNS": "2000"})
    assert result.exit_code == 0, result.output
    assert _rows(tmp_path / "space") == ["degraded"]
    assert _meta(tmp_path / "space")["duplicates"] == [
        {"file": "replay.json", "system": "Degraded Again", "duplicate_of": "degraded", "differs": None}]
    assert ("duplicate: replay.json (Degraded Again) scored the same survey files as degraded: not a row"
            in " ".join(result.output.split()))


def test_a_nudged_bleu_is_a_duplicate_that_says_what_differs(tmp_path):
    """No surveys here: the recorded fingerprints count. BLEU + 5e-7 under another name: one row."""
    first = _fingerprinted(write_results(tmp_path / "first.json", {"bleu": [12.5, 20.0, 30.0]}, system="first"), TODAY)
    nudged = _fingerprinted(write_results(tmp_path / "nudged.json", {"bleu": [12.5000005, 20.0, 30.0]},
                                          system="nudged"), TODAY)
    other = _fingerprinted(write_results(tmp_path / "other.json", {"bleu": [12.5, 20.0, 30.0]}, system="other"),
                           {**TODAY, "0": "e" * 64})
    summary = build_space([first, nudged, other], tmp_path / "space", resamples=RESAMPLES)
    assert _rows(tmp_path / "space") == ["first", "other"]
    assert summary.duplicates == [{"file": "nudged.json", "system": "nudged", "duplicate_of": "first",
                                   "differs": "bleu of survey 0: 12.5 vs 12.5000005"}]
    assert _means(tmp_path / "space")[("first", "bleu")] == pytest.approx((12.5 + 20 + 30) / 3)


NFC, NFD = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")


def test_names_that_look_alike_are_refused_naming_the_other(tmp_path):
    paths = [write_results(tmp_path / f"{n}.json", {"recall": [0.1 * n, 0.2, 0.3]}, system=name)
             for n, name in enumerate(["gt", "GT", "gt.", NFC, NFD, "gt-2"])]
    summary = build_space(paths, tmp_path / "space", resamples=RESAMPLES)
    assert _rows(tmp_path / "space") == ["gt", NFC, "gt-2"]
    assert [(r["file"], r["system"], r["reason"]) for r in summary.refused] == [
        ("1.json", "GT", '"GT" looks like "gt" (already on the board): rename it'),
        ("2.json", "gt.", '"gt." looks like "gt" (already on the board): rename it'),
        ("4.json", NFD, f'"{NFD}" looks like "{NFC}" (already on the board): rename it'),
    ]
    assert _meta(tmp_path / "space")["refused"] == summary.refused
    # surge report, through the one loader: refused naming both
    with pytest.raises(InputFileError, match=r"several inputs are named 'gt', 'GT' \(names that look alike\)"):
        load_results(paths[:2])


def test_a_submission_whose_results_say_protocol_paper_is_refused_while_the_others_build(
        leaderboard_inputs, tmp_path):  # noqa: F811
    from surge_dataset.leaderboard.submission import pack_submission

    i = leaderboard_inputs
    pack_submission(i["degraded"], i["passages"] / "degraded", tmp_path / "packed", data=i["data"], verify=False,
                    name="Packed")
    bad = tmp_path / "paper-sub"
    shutil.copytree(tmp_path / "packed", bad)
    results = _copy(bad / "results.json", bad / "results.json", lambda v: v["config"].update(protocol="paper"))
    manifest = _json(bad / "submission.json")
    for entry in manifest["files"]:
        if entry["path"] == "results.json":
            entry.update(size=results.stat().st_size, sha256=_sha(results))
    (bad / "submission.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = runner.invoke(app, ["leaderboard", "build", str(bad), str(i["gt"]), str(tmp_path / "packed"),
                                 "--passages-root", str(i["passages"]), "--out", str(tmp_path / "space"),
                                 "--resamples", "200", "--no-verify"], env={"COLUMNS": "2000"})
    assert result.exit_code == 0, result.output
    assert _rows(tmp_path / "space") == ["gt", "Packed"]
    (refused,) = _meta(tmp_path / "space")["refused"]
    assert refused == {"file": "paper-sub", "system": None,
                       "reason": "results.json: scored with the 'paper' protocol; the leaderboard ranks the official "
                                 "protocol only: rerun `surge evaluate --protocol official`"}
    assert "refused: paper-sub: results.json: scored with the 'paper' protocol" in " ".join(result.output.split())
    assert str(tmp_path) not in json.dumps(_meta(tmp_path / "space"))


def test_passages_root_dot_works_and_an_output_under_it_fails_in_one_line(
        leaderboard_inputs, tmp_path, monkeypatch):  # noqa: F811
    i = leaderboard_inputs
    monkeypatch.chdir(i["passages"])
    summary = build_space([i["gt"]], tmp_path / "space", passages_root=".", resamples=RESAMPLES)
    assert summary.systems == 1 and summary.refused == []
    assert pq.read_table(tmp_path / "space" / "data" / "systems.parquet").column("has_passages").to_pylist() == [True]
    with pytest.raises(SurgeError) as raised:
        build_space([i["gt"]], "space-here", passages_root=".", resamples=RESAMPLES)
    assert "\n" not in str(raised.value) and "is inside" in str(raised.value)
    assert f"e.g. --out {i['passages'].resolve().with_name(i['passages'].name + '-built')}" in str(raised.value)
    result = runner.invoke(app, ["leaderboard", "build", str(i["gt"]), "--passages-root", ".", "--out",
                                 "space-here", "--resamples", "200"], env={"COLUMNS": "2000"})
    assert result.exit_code == 2 and "Traceback" not in result.output and "is inside" in result.output
    assert not (i["passages"] / "space-here").exists()


# ------------------------------------------------------------------------------ the name rule, for any name

#: Changes that never change what a name looks like: case, punctuation and spaces at its ends, the Unicode form.
LOOK_ALIKE = [str.upper, str.lower, str.title, lambda s: s + ".", lambda s: f"  {s} !", lambda s: f"«{s}»",
              lambda s: unicodedata.normalize("NFD", s), lambda s: unicodedata.normalize("NFKC", s),
              lambda s: s.replace(" ", "  ")]
names = st.text(st.characters(categories=("L", "N", "P", "Zs"), exclude_characters="\u2028\u2029"),
                min_size=1, max_size=16).filter(lambda s: s.strip() and s.isprintable())


@settings(max_examples=200, deadline=None, derandomize=True)
@given(names, st.lists(st.sampled_from(range(len(LOOK_ALIKE))), min_size=1, max_size=3), names)
def test_names_that_normalise_alike_always_collide_and_others_never_do(name, changes, other):
    look_alike = name
    for change in changes:
        look_alike = LOOK_ALIKE[change](look_alike)
    for a, b in ((name, look_alike), (name, other)):
        alike = name_key(a) == name_key(b)
        assert name_key(name_key(a)) == name_key(a)  # a key is its own key
        try:
            named = unique_names([(a, Path("one.json")), (b, Path("two.json"))])
        except InputFileError as exc:
            assert alike, (a, b, str(exc))
            assert "several inputs are named" in str(exc)
        else:
            assert not alike, (a, b)
            assert named == [a, b]
    if name.isascii() and any(c.isalnum() for c in name):  # ASCII: every change above keeps the key
        assert name_key(name) == name_key(look_alike), (name, look_alike)
