"""`surge evaluate` end to end: GT rendered as a generated survey, crash-resume, failures, details, models."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.data.build import build_dataset
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run, journal_path

runner = CliRunner()


class ConstantNLI:
    """Every pair is entailment (so Sec/Sent-Acc count the resolvable citations)."""

    label_order = ("contradiction", "entailment", "neutral")

    def __init__(self):
        self.calls = 0

    def logits(self, pairs):
        self.calls += 1
        return np.tile([0.0, 2.0, 1.0], (len(pairs), 1))


@pytest.fixture(scope="module")
def rendered(sample_dataset, tmp_path_factory) -> Path:
    data = SurgeData.open(sample_dataset)
    out = tmp_path_factory.mktemp("rendered")
    render_surveys(data.surveys("test"), data.corpus, out)
    return out


def test_render_writes_evaluator_markdown(sample_dataset, rendered):
    text = (rendered / "1" / "survey.md").read_text()
    assert text.startswith("# Introduction\n")
    assert "\n# References\n" in text
    assert "[1] " in text and "How Powerful" not in text  # survey 1 does not cite the GNN paper


def test_gt_as_generated_paper_protocol(sample_dataset, rendered, minilm_path, tmp_path):
    config = EvaluationConfig(metrics=["recall", "citation_accuracy", "shr"], protocol="paper",
                              embedding_model=str(minilm_path))
    session = EvaluationSession(config, nli=ConstantNLI(), factories={"encoder": lambda: _embedder(minilm_path)})
    results = evaluate_run(SurgeData.open(sample_dataset), rendered, tmp_path / "r.json", session)
    surveys = results["surveys"]
    # survey 0 cites doc 36 "Graph Neural Networks: A Review"; doc 305 normalises alike and comes later
    # in corpus.json, so the title resolves to 305 (released rule): 20 of 21 cited papers are found.
    assert surveys["0"]["recall"] == pytest.approx(20 / 21)
    assert surveys["1"]["recall"] == 1.0 and surveys["2"]["recall"] == 1.0
    assert surveys["1"]["doc_acc"] == 1.0 and surveys["2"]["doc_acc"] == 1.0
    for record in surveys.values():
        assert record["shr"] == pytest.approx(1.0, abs=1e-6)
        assert record["counts"]["not_in_corpus"] == 0
    # docs 35 and 197 postdate survey 0 (2021-03-04), and so does 305 (2022-11-09), which the duplicate
    # title resolves to
    assert surveys["0"]["counts"]["future_citations"] == 3
    assert results["failures"] == []


def test_gt_as_generated_official_protocol(sample_dataset, rendered, tmp_path):
    results = evaluate_run(SurgeData.open(sample_dataset), rendered, tmp_path / "r.json",
                           EvaluationSession(EvaluationConfig(metrics=["recall", "citation_accuracy"], protocol="official"), nli=ConstantNLI()))
    surveys = results["surveys"]
    # The released reference pattern drops a title ending in '?' (336) and cuts titles at ', ), / or
    # an inner '?' (283, 119, 276, 80): survey 0 loses 336 and the duplicate 36 -> 19/21; survey 1
    # loses 283, 119, 276 -> 17/20; survey 2 loses 80 -> 18/19.
    assert surveys["0"]["recall"] == pytest.approx(19 / 21)
    assert surveys["1"]["recall"] == pytest.approx(17 / 20)
    assert surveys["2"]["recall"] == pytest.approx(18 / 19)
    # Document level over reference entries: 336's line yields no entry; cut titles are entries that
    # do not resolve (0). Survey 1: 20 entries, 17 in all_cites -> 17/20.
    assert surveys["1"]["doc_acc"] == pytest.approx(17 / 20)
    assert surveys["1"]["counts"]["not_in_corpus"] == 3
    assert results["average"]["recall"] == pytest.approx(np.mean([19 / 21, 17 / 20, 18 / 19]))


def _embedder(path):
    from surge_dataset.models.embed import Embedder

    return Embedder(str(path), device="cpu")


def test_surveygen_gold_example_scores_itself(surveygen_example, tmp_path):
    from surge_dataset.data.surveygen import convert_surveygen, write_official_json

    surveys, corpus, queries = convert_surveygen([surveygen_example])
    write_official_json(tmp_path / "json", surveys, corpus, queries)
    build_dataset(tmp_path / "json", tmp_path / "surge")
    data = SurgeData.open(tmp_path / "surge")
    render_surveys(data.surveys(), data.corpus, tmp_path / "rendered")
    results = evaluate_run(data, tmp_path / "rendered", tmp_path / "r.json",
                           EvaluationSession(EvaluationConfig(metrics=["recall", "citation_accuracy"], protocol="paper"), nli=ConstantNLI()))
    record = results["surveys"]["0"]
    assert record["recall"] == 1.0 and record["doc_acc"] == 1.0
    assert record["counts"]["resolved"] == record["counts"]["references"] == len(surveys[0]["all_cites"])


def test_crash_and_resume_gives_the_same_results(sample_dataset, rendered, tmp_path):
    data = SurgeData.open(sample_dataset)
    config = EvaluationConfig(metrics=["recall", "citation_accuracy", "rouge_bleu"], protocol="official")
    straight = evaluate_run(data, rendered, tmp_path / "straight.json",
                            EvaluationSession(config, nli=ConstantNLI()))

    out = tmp_path / "resumed.json"

    def crash_after_first(survey_id, done, total):
        if done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate_run(data, rendered, out,
                     EvaluationSession(config, nli=ConstantNLI()), on_survey_done=crash_after_first)
    assert not out.exists(), "no final file after a crash"
    assert len(journal_path(out).read_text().splitlines()) == 1
    with journal_path(out).open("a") as handle:  # a torn last line (killed mid-write) is ignored
        handle.write('{"survey_id": 2, "config_k')
    nli = ConstantNLI()
    seen = []
    resumed = evaluate_run(data, rendered, out,
                           EvaluationSession(config, nli=nli), on_survey_done=lambda i, d, t: seen.append(i))
    assert len(seen) == 2, "the finished survey is not scored again"
    strip = lambda r: {k: v for k, v in r.items() if k != "config"}  # noqa: E731
    assert strip(resumed) == strip(straight)
    assert json.loads(out.read_text())["surveys"] == straight["surveys"]


def test_failures_are_reported_and_the_run_goes_on(sample_dataset, rendered, tmp_path):
    passages = tmp_path / "passages"
    shutil.copytree(rendered, passages)
    (passages / "99").mkdir()
    (passages / "99" / "s.md").write_text("# Intro\n")  # no ground truth for 99
    (passages / "notes").mkdir()  # not a survey id
    (passages / "41").mkdir()  # empty folder
    (passages / "42").mkdir()
    os.symlink(passages / "nowhere.md", passages / "42" / "broken.md")  # unreadable file
    (passages / "2" / "survey.md").write_bytes(b"\xef\xbb\xbf# T\r\n\r\nText \xff\xfe [1].\r\n")  # BOM, CRLF, bad bytes
    result = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(passages),
                                 "--metrics", "recall,rouge_bleu", "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 1, result.output
    results = json.loads((tmp_path / "r.json").read_text())
    assert set(results["surveys"]) == {"0", "1", "2"}
    errors = {f["survey_id"]: f["error"] for f in results["failures"]}
    assert "no ground truth" in errors[99] and "no file" in errors[41] and 42 in errors
    assert any(f["survey_id"] is None and "not a numeric survey id" in f["error"] for f in results["failures"])
    codes = {d["code"] for d in results["surveys"]["2"]["diagnostics"]}
    assert "decode_fallback" in codes and "no_references" in codes


def test_cli_with_tiny_nli_and_details(sample_dataset, rendered, tiny_nli_path, minilm_path, tmp_path):
    args = ["evaluate", "--data", str(sample_dataset), "--passages", str(rendered), "--metrics", "all",
            "--nli-model", str(tiny_nli_path), "--embedding-model", str(minilm_path), "--device", "cpu",
            "--out", str(tmp_path / "r.json"), "--details", str(tmp_path / "d.jsonl"),
            "--cache-dir", str(tmp_path / "cache")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "r.json").read_text())
    # Models by name and weights fingerprint, never by path: the tiny NLI folder is unknown, so it is
    # named by its folder; the bundled MiniLM is a copy of a Hub model, so it is named by its Hub id
    config = results["config"]
    assert config["nli_model"] == "tiny-nli" and config["embedding_model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert config["models"]["nli_model"]["fingerprint"].startswith("sha256:")
    assert config["models"]["embedding_model"]["fingerprint"] == (
        "sha256:53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db")
    # no local path but the dataset's (re-scoring reads it; `surge submit` keeps its last part): passages relative
    assert str(tmp_path.parent) not in json.dumps({k: v for k, v in config.items() if k != "data"})
    assert (tmp_path / config["passages"]).resolve() == rendered.resolve()
    assert results["config"]["data_fingerprint"] and "torch" in results["config"]["versions"]
    for key in ("recall", "doc_acc", "sec_acc", "sent_acc", "shr", "rouge1", "rouge2", "rougeL", "bleu"):
        value = results["average"][key]
        assert value is not None and value >= 0
    details = [json.loads(line) for line in (tmp_path / "d.jsonl").read_text().splitlines()]
    assert {d["survey_id"] for d in details} == {0, 1, 2}
    assert any("sec_probs" in d for d in details)
    # a rerun is served from the journal: same file, no model needed
    again = runner.invoke(app, [*args[:-2], "--cache-dir", str(tmp_path / "other-cache")])
    assert again.exit_code == 0
    assert json.loads((tmp_path / "r.json").read_text())["surveys"] == results["surveys"]


def test_model_that_cannot_load_is_a_clear_error(sample_dataset, rendered, tmp_path):
    result = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(rendered),
                                 "--metrics", "citation_accuracy", "--nli-model", str(tmp_path / "no-such-model"),
                                 "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 2
    assert "no-such-model" in result.output and "--nli-model" in result.output
    assert "Traceback" not in result.output


def test_real_baseline_outputs_evaluate_without_crashing(baseline_outputs_dir, sample_dataset, tmp_path):
    """The shared official outputs (ids 0-9) against the sample GT (ids 0-2): parsed, scored or reported."""
    for system in ("ID", "Naive", "Autosurvey"):
        results = evaluate_run(SurgeData.open(sample_dataset), baseline_outputs_dir / system, tmp_path / f"{system}.json",
                               EvaluationSession(EvaluationConfig(metrics=["recall"])))
        assert set(results["surveys"]) == {"0", "1", "2"}
        assert {f["survey_id"] for f in results["failures"]} == set(range(3, 10))
        assert all(r["counts"]["references"] > 0 or system == "Naive" for r in results["surveys"].values())


def test_model_settings_are_recorded_only_for_the_models_a_metric_used(sample_dataset, rendered, minilm_path,
                                                                      tmp_path):
    """A recall-only run records no nli_model, embedding_model, ner_model or their precisions (no model
    computed anything); an SHR run records its embedding model and no NLI model. The journal key is unchanged."""
    data = SurgeData.open(sample_dataset)
    recall = evaluate_run(data, rendered, tmp_path / "recall.json",
                          EvaluationSession(EvaluationConfig(metrics=["recall"])))["config"]
    assert not {"nli_model", "dtype", "embedding_model", "embedding_dtype", "ner_model"} & set(recall)
    assert recall["judge"] is None and recall["protocol"] == "official"
    config = EvaluationConfig(metrics=["shr"], embedding_model=str(minilm_path))
    shr = evaluate_run(data, rendered, tmp_path / "shr.json",
                       EvaluationSession(config, factories={"encoder": lambda: _embedder(minilm_path)}))["config"]
    # the bundled MiniLM given as a folder is recorded under its Hub name (models.identity), never its path
    assert shr["embedding_model"] == "sentence-transformers/all-MiniLM-L6-v2" and "embedding_dtype" in shr
    assert "nli_model" not in shr and "ner_model" not in shr
    assert EvaluationConfig(metrics=["recall"]).key("fp") == "74b7e70cf4aa4af7"  # tests/test_journal_keys.py
