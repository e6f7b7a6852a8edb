"""Each submission is re-scored once: a rebuild compares with the stored re-computation of the same inputs, re-scores
only what it has not seen, and exactly what a change of metric version concerns; a tampered store is not trusted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.evaluation import registry
from surge_dataset.leaderboard import build_space
from surge_dataset.leaderboard.rescore_store import STORE_FOLDER
from surge_dataset.leaderboard.submission import pack_submission

from .test_leaderboard_trust import RESAMPLES, honest  # noqa: F401

runner = CliRunner()


@pytest.fixture(scope="module")
def submissions(honest, tmp_path_factory):  # noqa: F811
    """Two systems of other survey files: the honest one (recall, citation accuracy, SHR, ROUGE/BLEU) and a
    recall-only one of edited surveys."""
    root = tmp_path_factory.mktemp("rescore")
    pack_submission(honest.results, honest.passages, root / "full", data=honest.data, verify=False, name="Full")
    edited = root / "edited-passages"
    shutil.copytree(honest.passages, edited)
    for path in edited.glob("*/survey.md"):
        path.write_text(path.read_text(encoding="utf-8").replace("[2]", "[1]"), encoding="utf-8")
    result = runner.invoke(app, ["evaluate", "--data", str(honest.data.path), "--passages", str(edited), "--metrics",
                                 "recall", "--out", str(root / "recall.json")])
    assert result.exit_code == 0, result.output
    pack_submission(root / "recall.json", edited, root / "recall-only", data=honest.data, verify=False,
                    name="RecallOnly")
    return {"full": root / "full", "recall": root / "recall-only"}


def _build(inputs, out: Path, honest, **options):  # noqa: F811
    return build_space(inputs, out, data=honest.data.path, models=honest.models, resamples=RESAMPLES,
                       overwrite=True, **options)


def _verifications(space: Path) -> dict:
    meta = json.loads((space / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    return {i["system"]: i["verification"] for i in meta["inputs"]}


def test_an_unchanged_rebuild_rescores_nothing_and_a_new_submission_alone_is_rescored(honest, submissions, tmp_path):  # noqa: F811
    space = tmp_path / "space"
    first = _build([submissions["full"]], space, honest)
    assert (first.rescored, first.reused) == (1, 0)
    again = _build([submissions["full"]], space, honest)
    assert (again.rescored, again.reused) == (0, 1)
    assert _verifications(space)["Full"]["status"] == "verified"
    assert again.verification == first.verification  # the same verdict from the stored re-computation
    grown = _build([submissions["full"], submissions["recall"]], space, honest)
    assert (grown.rescored, grown.reused) == (1, 1)
    assert {s: v["status"] for s, v in _verifications(space).items()} == {"Full": "verified", "RecallOnly": "verified"}
    assert len(list((space / STORE_FOLDER).glob("*.json"))) == 2
    forced = _build([submissions["full"], submissions["recall"]], space, honest, reverify=True)
    assert (forced.rescored, forced.reused) == (2, 0)


def test_a_new_metric_version_rescores_exactly_the_submissions_that_use_it(honest, submissions, tmp_path,  # noqa: F811
                                                                           monkeypatch):
    space = tmp_path / "space"
    _build([submissions["full"], submissions["recall"]], space, honest)
    monkeypatch.setattr(registry()["shr"], "version", registry()["shr"].version + 1)
    summary = _build([submissions["full"], submissions["recall"]], space, honest)
    assert (summary.rescored, summary.reused) == (1, 1)  # Full asked SHR; RecallOnly did not
    assert summary.verification["Full"]["status"] == "verified"


def test_a_changed_survey_file_is_another_key(honest, submissions, tmp_path):  # noqa: F811
    store = tmp_path / "store"
    _build([submissions["recall"]], tmp_path / "a", honest, verifications=store)
    changed = tmp_path / "changed"
    shutil.copytree(submissions["recall"], changed)
    survey = changed / "passages" / "0" / "survey.md"
    survey.write_text(survey.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    _refresh_manifest(changed)
    summary = _build([changed], tmp_path / "b", honest, verifications=store)
    assert (summary.rescored, summary.reused) == (1, 0)
    assert len(list(store.glob("*.json"))) == 2  # a chosen folder keeps every entry


def _refresh_manifest(folder: Path) -> None:
    import hashlib

    manifest = json.loads((folder / "submission.json").read_text(encoding="utf-8"))
    for entry in manifest["files"]:
        content = (folder / entry["path"]).read_bytes()
        entry.update(size=len(content), sha256=hashlib.sha256(content).hexdigest())
    (folder / "submission.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")


@pytest.mark.parametrize("tamper", ["value", "truncate", "rename"])
def test_a_tampered_store_is_refused_and_rescored(honest, submissions, tmp_path, tamper):  # noqa: F811
    store = tmp_path / "store"
    _build([submissions["recall"]], tmp_path / "a", honest, verifications=store)
    (entry,) = store.glob("*.json")
    if tamper == "value":  # a forged re-computation: recall 1.0 everywhere
        record = json.loads(entry.read_text(encoding="utf-8"))
        for survey in record["rescored"]["surveys"].values():
            survey["recall"] = 1.0
        entry.write_text(json.dumps(record), encoding="utf-8")
    elif tamper == "truncate":
        entry.write_bytes(entry.read_bytes()[:100])
    else:  # an entry of other inputs stored under this key
        record = json.loads(entry.read_text(encoding="utf-8"))
        record["covers"]["data"] = "another-dataset"
        entry.write_text(json.dumps(record), encoding="utf-8")
    summary = _build([submissions["recall"]], tmp_path / "b", honest, verifications=store)
    assert (summary.rescored, summary.reused) == (1, 0)
    assert any("stored verification" in w and "not trusted, re-scored" in w for w in summary.warnings)
    assert summary.verification["RecallOnly"]["status"] == "verified"


def test_the_cli_says_what_it_reused(honest, submissions, tmp_path):  # noqa: F811
    args = ["leaderboard", "build", str(submissions["recall"]), "--data", str(honest.data.path), "--out",
            str(tmp_path / "space"), "--resamples", "200", "--overwrite"]
    assert "re-scored 1 submission(s); reused 0" in runner.invoke(app, args).output
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "re-scored 0 submission(s); reused 1 stored re-scoring(s)" in result.output
    assert "compared with the stored re-scoring of RecallOnly" in result.output


@pytest.mark.parametrize("change", ["data", "models", "metrics", "surveys", "settings"])
def test_each_input_of_a_rescoring_is_in_its_key(tmp_path, change):
    """A stored re-computation is found again only for the very inputs it covered: another dataset, model weights,
    metric version, survey file or setting is another key, and an entry stored under one key is never read for
    another."""
    from surge_dataset.leaderboard.rescore_store import RescoreStore, rescore_key

    covers = {"surveys": {"0": "a" * 64}, "data": "df50221144c5b9b1", "models": {"nli_model": "sha256:1"},
              "metrics": {"citation_accuracy": 1}, "settings": {"protocol": "official"}, "device": "cpu"}
    store = RescoreStore(tmp_path / "store")
    store.put(rescore_key(covers), covers, {"surveys": {"0": {"recall": 0.5}}, "details": [], "failures": []})
    assert store.get(rescore_key(covers), covers) == {"surveys": {"0": {"recall": 0.5}}, "details": [], "failures": []}
    other = json.loads(json.dumps(covers))
    other[change] = {"data": "another", "models": {"nli_model": "sha256:2"}, "metrics": {"citation_accuracy": 2},
                     "surveys": {"0": "b" * 64}, "settings": {"protocol": "paper"}}[change]
    assert rescore_key(other) != rescore_key(covers)
    assert store.get(rescore_key(other), other) is None
    # an entry copied under the other key is refused: it covers other inputs than its name says
    (tmp_path / "store" / f"{rescore_key(other)}.json").write_bytes(
        (tmp_path / "store" / f"{rescore_key(covers)}.json").read_bytes())
    assert store.get(rescore_key(other), other) is None and "covers other inputs" in store.refused[-1]
