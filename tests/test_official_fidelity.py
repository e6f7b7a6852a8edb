"""The released evaluator's rules that ``--protocol official`` reproduces, each pinned by hand.

(The side-by-side run against the authors' code is ``test_released_parity.py``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from surge_dataset import Corpus, SurgeData
from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.records import Paper
from surge_dataset.data.build import build_dataset
from surge_dataset.evaluation import EvaluationConfig, discover_passages, evaluate_run
from surge_dataset.evaluation.runner import average
from surge_dataset.llm import Judge, JudgeRequest, make_llm
from surge_dataset.llm.parse import parse_score_strict
from surge_dataset.scoring.citations import citation_recall, nli_pair
from surge_dataset.scoring.shr import soft_heading_recall
from tests.support.openai_server import ScriptedOpenAIServer

PAPER = Paper(doc_id=1, title="Deep Sets", abstract="We study permutation invariant functions.")


def test_premise_and_hypothesis_strings_per_level_and_protocol():
    doc = nli_pair("doc", PAPER, "A Survey of Sets", "official")
    assert doc == (
        "There is a paper. Title: 'Deep Sets'. Abstract: 'We study permutation invariant functions.'",
        "The paper titled 'Deep Sets' with the given abstract could be cited in the paper: 'A Survey of Sets'.",
    )
    sec = nli_pair("sec", PAPER, "Methods", "official")
    assert sec == (
        "The paper titled 'Deep Sets' with the given abstract is relevant to the section: 'Methods'.",
        "There is a paper. Title: 'Deep Sets'. Abstract: We study permutation invariant functions.",
    )
    sent = nli_pair("sent", PAPER, "Sets are studied", "official")
    assert sent[1] == "There is a paper. Title: 'Deep Sets'. Abstract: We study permutation invariant functions."
    assert sent[0].endswith("could be cited in the sentence: 'Sets are studied'.")
    paper_doc = nli_pair("doc", PAPER, "A Survey of Sets", "paper")
    assert paper_doc[0] == "There is a paper. Title: 'Deep Sets'. Abstract: We study permutation invariant functions."
    assert nli_pair("sec", PAPER, "Methods", "paper") == (sec[1], sec[0])


def test_title_normalisation_filters_letters_before_lower_casing():
    assert normalise_title("\u0130stanbul Traffic") == "stanbultraffic"  # İ is not in [a-zA-Z]
    assert normalise_title("\u212aelvin") == "elvin"  # the Kelvin sign neither
    assert normalise_title("Graph Neural Networks: A Review") == "graphneuralnetworksareview"
    assert normalise_title("2001: \u2014") == ""


def test_recall_counts_duplicate_all_cites_entries_under_official():
    gt = [3, 3, 7, 9]
    assert citation_recall([3, None], gt, protocol="official") == 0.5  # 2 of 4 entries
    assert citation_recall([3, None], gt, protocol="paper") == pytest.approx(1 / 3)  # 1 of 3 papers
    assert citation_recall([3], [], protocol="official") is None


class OneHotEncoder:
    """Each distinct text gets its own axis: cosine 1 with itself, 0 with anything else."""

    def __init__(self):
        self.axes: dict[str, int] = {}

    def encode(self, texts):
        for text in texts:
            self.axes.setdefault(text, len(self.axes))
        out = np.zeros((len(texts), 64))
        for i, text in enumerate(texts):
            out[i, self.axes[text]] = 1.0
        return out


def test_shr_cuts_only_generated_headings_under_official():
    long_gt = "G" * 600
    # official: the GT heading stays whole, the generated copy is cut to 512 characters -> no overlap
    assert soft_heading_recall([long_gt, "Intro"], [long_gt, "Intro"], OneHotEncoder(), protocol="official") == 0.5
    # paper: both are cut, so the generated heading equals the GT heading
    assert soft_heading_recall([long_gt, "Intro"], [long_gt, "Intro"], OneHotEncoder(), protocol="paper") == 1.0
    assert soft_heading_recall([], ["Intro"], OneHotEncoder()) is None
    assert soft_heading_recall(["Intro"], [], OneHotEncoder()) == 0.0


def _tiny_source(folder: Path, corpus_titles: list[str]) -> Path:
    folder.mkdir(parents=True)
    corpus = [{"Title": t, "Authors": [], "Year": "2020", "Date": "2020-01-01", "Abstract": f"Abstract {i}.",
               "Category": "cs.LG", "doc_id": i} for i, t in enumerate(corpus_titles)]
    structure = [{"id": "0", "parent_id": -1, "title": "root", "content": ""},
                 {"id": "1", "parent_id": "0", "title": "Intro", "content": "x" * 120}]
    surveys = [{"survey_id": 0, "survey_title": "T", "authors": [], "year": "2020", "date": "2020-06-01",
                "category": "cs.LG", "abstract": "", "structure": structure, "all_cites": [0, 0, 2],
                "Bertopic_CD": 0.1}]
    (folder / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    (folder / "surveys.json").write_text(json.dumps(surveys), encoding="utf-8")
    return folder


def test_letterless_title_resolves_to_the_last_letterless_corpus_title_only_under_official(tmp_path):
    src = _tiny_source(tmp_path / "src", ["Real Title", "1984", "2001", "\u0130stanbul"])
    build_dataset(src, tmp_path / "surge")
    corpus = Corpus.open(tmp_path / "surge")
    assert corpus.resolve([".", "Real Title"], empty_matches=True) == [2, 0]
    assert corpus.resolve([".", "Real Title"]) == [None, 0]
    assert corpus.resolve(["Istanbul", "stanbul"]) == [None, 3]


def test_aggregation_released_counts_undefined_and_failed_folders_as_zero():
    surveys = {"0": {"doc_acc": 0.6, "sqs": 4.0}, "1": {"doc_acc": None, "sqs": None}}
    config = EvaluationConfig(metrics=["citation_accuracy", "sqs"], judge="openai:x")
    released, counts = average(surveys, config, failed_folders=1)
    assert released["doc_acc"] == pytest.approx(0.2) and counts["doc_acc"] == 3
    assert released["sqs"] == 4.0 and counts["sqs"] == 1  # a missing judge answer is left out either way
    config = EvaluationConfig(metrics=["citation_accuracy"], aggregate="defined")
    defined, counts = average(surveys, config, failed_folders=1)
    assert defined["doc_acc"] == 0.6 and counts["doc_acc"] == 1


def test_config_defaults_dtype_device_and_resume_key():
    official = EvaluationConfig(protocol="official")
    assert (official.aggregate, official.dtype, official.embedding_dtype, official.judge_style) == (
        "released", "fp32", "auto", "released")
    paper = EvaluationConfig(protocol="paper")
    assert (paper.aggregate, paper.dtype, paper.judge_style) == ("defined", "auto", "surge")
    base = EvaluationConfig(device="cpu")
    assert base.key("f") != EvaluationConfig(device="cuda").key("f")
    assert base.key("f") != EvaluationConfig(device="cpu", dtype="fp16").key("f")
    assert base.key("f") != EvaluationConfig(device="cpu", aggregate="defined").key("f")
    # precision cannot change recall: a recall-only journal stays valid on another device
    assert EvaluationConfig(metrics=["recall"], device="cpu").key("f") == EvaluationConfig(
        metrics=["recall"], device="cuda", dtype="fp16").key("f")
    with pytest.raises(ValueError, match="dtype"):
        EvaluationConfig(dtype="int8")
    with pytest.raises(ValueError, match="aggregate"):
        EvaluationConfig(aggregate="mean")


def test_run_records_aggregate_and_scores_a_survey_without_references_zero(tmp_path):
    src = _tiny_source(tmp_path / "src", ["Real Title", "Other"])
    build_dataset(src, tmp_path / "surge")
    data = SurgeData.open(tmp_path / "surge")
    passages = tmp_path / "out"
    (passages / "0").mkdir(parents=True)
    (passages / "0" / "s.md").write_text("# Intro\nNo citation at all.\n", encoding="utf-8")
    (passages / "7").mkdir()  # a survey folder without a file: failed, counted 0 under released
    released = evaluate_run(data, passages, tmp_path / "r.json", EvaluationConfig(metrics=["recall"]))
    assert released["config"]["aggregate"] == "released" and released["surveys"]["0"]["recall"] == 0.0
    assert released["average_counts"]["recall"] == 2
    defined = evaluate_run(data, passages, tmp_path / "d.json", EvaluationConfig(metrics=["recall"], aggregate="defined"))
    assert defined["average_counts"]["recall"] == 1


def test_several_md_files_official_takes_the_first_listed_paper_refuses(tmp_path):
    folder = tmp_path / "runs" / "3"
    folder.mkdir(parents=True)
    for name in ("b.md", "a.md", "notes.txt"):
        (folder / name).write_text("# H\n", encoding="utf-8")
    found, failures = discover_passages(tmp_path / "runs", "official")
    import os

    assert found == [(3, folder / next(n for n in os.listdir(folder) if n.endswith(".md")))] and not failures
    found, failures = discover_passages(tmp_path / "runs", "paper")
    assert not found and "cannot tell" in failures[0]["error"]


@pytest.mark.parametrize(("answer", "expected"), [("4", 4), ("4\n", 4), (" 4", None), ("4.", None),
                                                  ("Score: 4", None), ("6", None), ("", None), (None, None)])
def test_strict_score_reading(answer, expected):
    assert parse_score_strict(answer, 0, 5) == expected


def test_released_judge_style_reasks_the_same_question_with_100_tokens(tmp_path):
    with ScriptedOpenAIServer(["Score: 4", "3"]) as server:
        llm = make_llm("openai:judge-model", base_url=server.base_url, cache_dir=tmp_path / "c", concurrency=1,
                       timeout=30.0, max_retries=0)
        judge = Judge(llm, max_tries=3, style="released")
        request = JudgeRequest.score([{"role": "user", "content": "rate this"}], 0, 5)
        [outcome] = judge.run([request])
        assert outcome.value == 3 and outcome.answers == ("Score: 4", "3")
        first, second = server.requests
        assert first.messages == second.messages == [{"role": "user", "content": "rate this"}]
        assert first.body["max_tokens"] == 100 and first.body["temperature"] == 1.0
    with ScriptedOpenAIServer(["Score: 4"]) as server:  # ours reads the same answer at once
        llm = make_llm("openai:judge-model", base_url=server.base_url, cache_dir=tmp_path / "d", concurrency=1,
                       timeout=30.0, max_retries=0)
        [outcome] = Judge(llm, max_tries=3).run([request])
        assert outcome.value == 4 and server.requests[0].body["max_tokens"] == 16


def test_space_requirements_name_an_installable_surge_bench():
    from surge_dataset.publish.modules import metric_folders, space_requirements

    folder = metric_folders()["shr"]
    text = space_requirements(folder, "surge-bench @ git+https://github.com/org/surge-bench")
    assert text.splitlines()[0] == "surge-bench @ git+https://github.com/org/surge-bench"
    assert "surge-bench" not in text.splitlines()[1:]
    with pytest.raises(ValueError, match="not on PyPI"):
        space_requirements(folder, "surge-bench")


def test_a_null_abstract_reads_none_under_official_like_the_released_f_string():
    paper = Paper(doc_id=2, title="T", abstract=None)
    assert nli_pair("doc", paper, "S", "official")[0] == "There is a paper. Title: 'T'. Abstract: 'None'"
    assert nli_pair("sec", paper, "H", "official")[1] == "There is a paper. Title: 'T'. Abstract: None"
    assert nli_pair("sec", paper, "H", "paper")[0] == "There is a paper. Title: 'T'. Abstract: "


def test_several_upper_case_md_files_are_a_failure_not_a_crash(tmp_path):
    folder = tmp_path / "runs" / "4"
    folder.mkdir(parents=True)
    for name in ("a.MD", "b.MD"):
        (folder / name).write_text("# H\n", encoding="utf-8")
    found, failures = discover_passages(tmp_path / "runs", "official")
    assert not found and failures[0]["survey_id"] == 4


def test_space_app_loads_the_pushed_namespace_and_unknown_names_fail_first(tmp_path):
    from surge_dataset.publish.modules import install_metrics, metric_folders, space_app

    assert 'evaluate.load("org/shr")' in space_app(metric_folders()["shr"], "org/shr")
    with pytest.raises(FileNotFoundError, match="nope"):
        install_metrics(names=["shr", "nope"], modules_cache=tmp_path)
    assert not (tmp_path / "evaluate_modules").exists()  # nothing written before the error
