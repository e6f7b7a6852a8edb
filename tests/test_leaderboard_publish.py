"""The leaderboard publishes what it computed: a re-scored row shows the re-computed values, counts and citation
verdicts (the submitted ones are only compared), a value nobody re-computed is labelled self-reported cell by cell,
and a results file holds only what the registry declares.

Each attack here worked before: per-survey keys named like the table's columns became columns, forged counts and
forged verdicts were published as they came, forged judged ALCE values sat under a "verified" label, a count of
10**30 stopped the build with an OverflowError, and a model's local folder reached ``leaderboard.json``.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surge_dataset.core.errors import InputFileError
from surge_dataset.evaluation.results import check_results
from surge_dataset.evaluation.schema import COUNT_MAX, ResultsFile, WrittenResults
from surge_dataset.leaderboard import build_space
from surge_dataset.leaderboard.submission import pack_submission
from surge_dataset.leaderboard.verify import PRECISION_SLACK, precision_slack

from .test_leaderboard_trust import RESAMPLES, _edited, _meta, _published, _systems, honest  # noqa: F401

COLUMNS_OF_THE_TABLE = ("Recall", "SHR", "Verification", "System", "badge")


def _read(space_dir: Path, name: str):
    return pq.read_table(space_dir / "data" / f"{name}.parquet").to_pandas()


def _honest_record(honest) -> dict:  # noqa: F811 - the fixture
    return json.loads(honest.results.read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------ one closed results model


@pytest.mark.parametrize("key", COLUMNS_OF_THE_TABLE)
def test_a_survey_key_no_metric_declares_is_refused_in_one_line(honest, tmp_path, key):  # noqa: F811
    record = _honest_record(honest)
    record["surveys"]["0"][key] = 0.99
    with pytest.raises(InputFileError) as raised:
        check_results("attack.json", record)
    message = str(raised.value)
    assert message.startswith(f"attack.json: survey '0': {key!r} is not a result key of any registered metric")
    assert "\n" not in message


def test_what_surge_evaluate_writes_is_the_closed_model_and_nothing_else_is(honest):  # noqa: F811
    record = _honest_record(honest)
    WrittenResults.model_validate(record)  # the runner checked it before writing; a reader gets the same answer
    for where, edit in (("top", lambda r: r.update(leaderboard_note="best system")),
                        ("config", lambda r: r["config"].update(verified=True))):
        changed = json.loads(json.dumps(record))
        edit(changed)
        ResultsFile.model_validate(changed)  # a reader ignores a field it does not read ...
        with pytest.raises(InputFileError, match="unknown field") as raised:  # ... a submission may not carry it
            check_results("sub.json", changed, WrittenResults)
        assert ("config.verified" in str(raised.value)) == (where == "config")


@pytest.mark.parametrize("value", [10**30, COUNT_MAX + 1, -1, 2.5, True])
def test_a_count_outside_its_range_is_refused_not_an_overflow(honest, tmp_path, value):  # noqa: F811
    record = _honest_record(honest)
    record["surveys"]["1"]["counts"]["references"] = value
    with pytest.raises(InputFileError, match=r"survey '1', field 'counts.references'") as raised:
        check_results("big.json", record)
    assert "\n" not in str(raised.value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(count=st.one_of(st.integers(min_value=-(10**40), max_value=10**40), st.integers(0, COUNT_MAX + 2)),
       key=st.one_of(st.sampled_from(["recall", "shr", "Recall", "recall ", "RECALL", "shr_std", "recall_std",
                                      "sqs", "sqs_weighted", "sqs_weighted_std"]), st.text(max_size=12)))
def test_counts_and_keys_fuzzed(honest, count, key):  # noqa: F811
    """Any count is accepted exactly when it is an integer in [0, COUNT_MAX]; any per-survey key exactly when a
    registered metric declares it (case and spaces are not forgiven: "Recall" is a column's label, not a key)."""
    from surge_dataset.evaluation.catalogue import metric_of_key

    record = {"config": {}, "surveys": {"0": {"counts": {"references": count}}}}
    assert _accepted(record) == (0 <= count <= COUNT_MAX)
    record = {"config": {}, "surveys": {"0": {key: 0.5}}}
    declared = key in {"recall", "shr", "recall_std", "sqs", "sqs_weighted"} or metric_of_key(key) is not None
    assert _accepted(record) == declared
    if key in {"Recall", "recall ", "RECALL", "sqs_weighted_std"}:
        assert not declared


def _accepted(record: dict) -> bool:
    try:
        check_results("f.json", record)
    except InputFileError:
        return False
    return True


# ------------------------------------------------------------------------------ publish what was re-computed


def _forged_counts_and_verdicts(results: dict) -> None:
    for record in results["surveys"].values():
        record["counts"].update(references=999, not_in_corpus=0, citations_of_missing_numbers=0)


def _forged_details(source: Path, target: Path) -> Path:
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for level in ("sent", "sec", "doc"):
            if f"{level}_score" in record:
                record[f"{level}_score"] = 1.0
        lines.append(json.dumps(record))
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def test_a_rescored_row_publishes_the_recomputed_counts_and_verdicts(honest, tmp_path):  # noqa: F811
    forged = _edited(honest.results, tmp_path / "in" / "results.json", _forged_counts_and_verdicts)
    details = _forged_details(honest.details, tmp_path / "in" / "details.jsonl")
    pack_submission(forged, honest.passages, tmp_path / "sub", data=honest.data, details=details, verify=False,
                    name="Forger")
    build_space([tmp_path / "sub"], tmp_path / "space", data=honest.data.path, models=honest.models,
                resamples=RESAMPLES)
    truth = _honest_record(honest)["surveys"]
    scores = _read(tmp_path / "space", "scores").set_index("survey_id")
    for sid, record in truth.items():
        for key in ("references", "not_in_corpus", "citations_of_missing_numbers"):
            assert scores.loc[sid, key] == record["counts"][key], (sid, key)
        assert scores.loc[sid, "recall"] == pytest.approx(record["recall"])
    assert set(scores["counts_source"]) == {"recomputed"} and set(scores["details_source"]) == {"recomputed"}
    # the verdicts are the re-run's: the same as the honest details, never the forged all-1.0
    honest_scores = sorted(json.loads(line).get("sent_score") for line in
                           honest.details.read_text(encoding="utf-8").splitlines() if '"sent_score"' in line)
    citations = _read(tmp_path / "space", "citations")
    published = sorted(citations.loc[citations["kind"] == "citation", "score"].dropna())
    assert honest_scores and any(v != 1.0 for v in honest_scores)
    assert published == pytest.approx(sorted(v for v in honest_scores if v is not None))
    means = _read(tmp_path / "space", "means")
    assert set(means["source"]) == {"recomputed"}


def test_judged_alce_values_are_self_reported_cell_by_cell(honest, tmp_path):  # noqa: F811
    def judged_alce(results):
        results["config"]["metrics"] = [*results["config"]["metrics"], "alce"]
        results["config"]["alce_backend"] = "judge"
        for record in results["surveys"].values():
            record.update(alce_citation_recall=0.99, alce_citation_precision=0.98)

    forged = _edited(honest.results, tmp_path / "in" / "results.json", judged_alce)
    pack_submission(forged, honest.passages, tmp_path / "sub", data=honest.data, verify=False, name="Alce")
    summary = build_space([tmp_path / "sub"], tmp_path / "space", data=honest.data.path, models=honest.models,
                          resamples=RESAMPLES)
    verification = summary.verification["Alce"]
    assert verification["status"] == "verified"  # every objective value re-computed and equal
    assert verification["verified_groups"] == "objective: verified · judged: self-reported"
    means = _read(tmp_path / "space", "means").set_index("metric")
    assert means.loc["alce_citation_recall", "source"] == "self-reported"
    assert means.loc["alce_citation_recall", "mean"] == pytest.approx(0.99)  # shown, as what it is
    assert means.loc["recall", "source"] == "recomputed" and means.loc["shr", "source"] == "recomputed"
    systems = _systems(tmp_path / "space")
    assert systems.loc["Alce", "verified_groups"] == "objective: verified · judged: self-reported"
    assert systems.loc["Alce", "badge"] == "✓ verified" and bool(systems.loc["Alce", "ranked"])


def test_a_plain_results_file_is_self_reported_in_every_cell(honest, tmp_path):  # noqa: F811
    build_space([honest.results], tmp_path / "space", data=honest.data.path, resamples=RESAMPLES)
    means = _read(tmp_path / "space", "means")
    assert set(means["source"]) == {"self-reported"}
    systems = _systems(tmp_path / "space")
    assert systems.loc["honest", "verified_groups"] == "objective: not re-computed"
    assert set(_read(tmp_path / "space", "scores")["counts_source"]) == {"self-reported"}


def _nudged(key: str, by: float, device: str):
    def edit(results):
        results["config"]["device"] = device
        value = results["surveys"]["0"][key]
        results["surveys"]["0"][key] = value + by if value + by <= 1.0 else value - by
    return edit


def test_a_difference_within_the_precision_slack_is_ranked_apart_and_shows_the_recomputed_value(honest, tmp_path):  # noqa: F811
    nudge = PRECISION_SLACK / 2
    forged = _edited(honest.results, tmp_path / "in" / "results.json", _nudged("shr", nudge, "cuda:0"))
    pack_submission(forged, honest.passages, tmp_path / "sub", data=honest.data, verify=False, name="Gpu")
    summary = build_space([tmp_path / "sub"], tmp_path / "space", data=honest.data.path, models=honest.models,
                          resamples=RESAMPLES)
    verification = summary.verification["Gpu"]
    assert verification["status"] == "precision" and list(verification["precision"]) == ["shr"]
    systems = _systems(tmp_path / "space")
    assert systems.loc["Gpu", "status"] == "precision" and systems.loc["Gpu", "badge"] == "≈ precision"
    scores = _read(tmp_path / "space", "scores").set_index("survey_id")
    assert scores.loc["0", "shr"] == pytest.approx(_honest_record(honest)["surveys"]["0"]["shr"])  # ours, not theirs
    # the same nudge from this kind of device is no precision: a mismatch, never ranked
    forged = _edited(honest.results, tmp_path / "in2" / "results.json", _nudged("shr", nudge, "cpu"))
    pack_submission(forged, honest.passages, tmp_path / "sub2", data=honest.data, verify=False, name="Cpu")
    build_space([tmp_path / "sub2"], tmp_path / "space2", data=honest.data.path, models=honest.models,
                resamples=RESAMPLES)
    systems = _systems(tmp_path / "space2")
    assert systems.loc["Cpu", "status"] == "mismatch" and not bool(systems.loc["Cpu", "ranked"])
    assert systems.loc["Cpu", "first_difference"].startswith("SHR, survey 0: ")
    assert "submitted" in systems.loc["Cpu", "first_difference"]


def test_the_slack_is_the_measured_one():
    """A forger adding 0.009 to every survey's SHR sat beside verified rows with the old 1e-2 guess: an encoder's slack
    is twice the measured fp32/bf16 difference (benchmarks/precision_slack.py); an NLI metric moves in whole items, so
    its slack is two of the survey's items (one measured), whatever the survey's size."""
    assert PRECISION_SLACK < 0.009 and math.isfinite(PRECISION_SLACK)
    assert precision_slack("shr", "encoder", {"counts": {"citations": 10}}) == PRECISION_SLACK
    assert precision_slack("doc_acc", "nli", {"counts": {"references": 20, "citations": 40}}) == pytest.approx(0.1)
    assert precision_slack("sent_acc", "nli", {"counts": {"references": 20, "citations": 40}}) == pytest.approx(0.05)
    assert precision_slack("sent_acc", "nli", {"counts": {"citations": 0}}) == PRECISION_SLACK  # no items: no step


# ------------------------------------------------------------------------------ nothing local published


def test_model_folders_given_to_verify_and_home_paths_are_never_published(honest, minilm_path, tmp_path):  # noqa: F811
    def local(results):
        results["config"]["embedding_model"] = str(minilm_path)
        results["config"]["nli_model"] = "/home/alice/models/nli-deberta"
        results["config"].pop("models", None)

    results = _edited(honest.results, tmp_path / "in" / "local.json", local)
    summary = build_space([results], tmp_path / "space", passages_root=honest.passages.parent,
                          data=honest.data.path, resamples=RESAMPLES, verify=True)
    assert (tmp_path / "space" / "verifications").is_dir()  # the store is published with the Space: scanned too
    record = summary.verification["local"]
    assert record["models"]["embedding_model"]["name"] == "sentence-transformers/all-MiniLM-L6-v2"
    for place in (str(minilm_path), "/home/alice", str(tmp_path), str(Path.home()) + "/"):
        assert not _published(tmp_path / "space", place), place
    assert "nli-deberta" in json.dumps(_meta(tmp_path / "space")["inputs"][0]["verification"])


# ------------------------------------------------------------------------------ one file never stops the others


@pytest.mark.parametrize(("attack", "reason"), [
    (lambda r: r["surveys"]["0"].update(Recall=0.99, SHR=1.0, Verification=1.0), "is not a result key"),
    (lambda r: r["surveys"]["0"]["counts"].update(references=10**30), "counts.references"),
    (lambda r: r["config"].update(protocol="paper"), "protocol"),
])
def test_an_attacking_file_is_refused_alone_and_takes_no_column(honest, tmp_path, attack, reason):  # noqa: F811
    own = _edited(honest.results, tmp_path / "in" / "honest.json", lambda r: None)
    attacker = _edited(honest.results, tmp_path / "in" / "attacker.json",
                       lambda r: (attack(r), r["config"].update(system="attacker"), r.pop("fingerprints", None)))
    shutil.copy(honest.details, own.with_name(own.stem + ".details.jsonl"))
    summary = build_space([own, attacker], tmp_path / "space", data=honest.data.path, resamples=RESAMPLES)
    meta = _meta(tmp_path / "space")
    if reason == "protocol":  # a plain results file of another protocol is a row of its own group, never ranked with us
        assert len(meta["groups"]) == 2
        return
    assert [r["file"] for r in summary.refused] == ["attacker.json"] and reason in summary.refused[0]["reason"]
    assert meta["refused"] == summary.refused
    systems = _systems(tmp_path / "space")
    assert list(systems.index) == ["honest"]
    for table in ("systems", "scores"):
        columns = set(_read(tmp_path / "space", table).columns)
        assert not {"Recall", "SHR", "Verification"} & columns, table
    assert set(_read(tmp_path / "space", "means")["metric"]) <= {m["key"] for m in meta["metrics"]}


def test_a_rescoring_that_breaks_refuses_that_submission_only(honest, tmp_path, monkeypatch):  # noqa: F811
    from surge_dataset.leaderboard import verify

    other = tmp_path / "other-passages"  # other survey files than Good's: another system, not a duplicate of it
    shutil.copytree(honest.passages, other)
    with (other / "0" / "survey.md").open("a", encoding="utf-8") as handle:
        handle.write("\nOne more sentence.\n")
    pack_submission(honest.results, honest.passages, tmp_path / "good", data=honest.data, verify=False, name="Good")
    pack_submission(honest.results, other, tmp_path / "bad", data=honest.data, verify=False, name="Bad")
    real = verify.verify_results

    def breaking(results, passages, *args, **kwargs):
        if passages.parent.name == "bad":
            raise RuntimeError(f"a parser fault on {passages}/0/survey.md")
        return real(results, passages, *args, **kwargs)

    monkeypatch.setattr(verify, "verify_results", breaking)
    summary = build_space([tmp_path / "bad", tmp_path / "good"], tmp_path / "space", data=honest.data.path,
                          models=honest.models, resamples=RESAMPLES)
    assert [r["system"] for r in summary.refused] == ["Bad"]
    assert summary.refused[0]["reason"].startswith("re-scoring failed: a parser fault on")
    assert str(tmp_path) not in summary.refused[0]["reason"]
    assert list(_systems(tmp_path / "space").index) == ["Good"]


def test_a_build_loads_each_model_once_for_all_submissions(honest, tmp_path, monkeypatch):  # noqa: F811
    """Re-scoring two submissions with one NLI model and one embedder builds each once, not once per submission."""
    from surge_dataset.models import embed, nli

    built = {"nli": 0, "encoder": 0}
    for module, cls_name, kind in ((nli, "NLIScorer", "nli"), (embed, "Embedder", "encoder")):
        real = getattr(module, cls_name)

        def counted(*args, _real=real, _kind=kind, **kwargs):
            built[_kind] += 1
            return _real(*args, **kwargs)
        monkeypatch.setattr(module, cls_name, counted)
    other = tmp_path / "other-passages"
    shutil.copytree(honest.passages, other)
    with (other / "0" / "survey.md").open("a", encoding="utf-8") as handle:
        handle.write("\nOne more sentence.\n")
    pack_submission(honest.results, honest.passages, tmp_path / "a", data=honest.data, verify=False, name="A")
    pack_submission(honest.results, other, tmp_path / "b", data=honest.data, verify=False, name="B")
    summary = build_space([tmp_path / "a", tmp_path / "b"], tmp_path / "space", data=honest.data.path,
                          models=honest.models, resamples=RESAMPLES)
    assert summary.rescored == 2 and built == {"nli": 1, "encoder": 1}
