"""STORM's heading soft recall and heading entity recall: hand-computed values, the NER backend, `surge evaluate`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
from surge_dataset.models.ner import NERExtractor
from surge_dataset.scoring.heading_recall import heading_entity_recall, heading_soft_recall, storm_headings
from surge_dataset.testing.models import build_tiny_ner_model


class TableEncoder:
    """Fixed 2-d vectors: 'a' and 'b' have cosine 1/sqrt(2); 'c' is orthogonal to 'a'."""

    VECTORS = {"a": [1.0, 0.0], "b": [1.0, 1.0], "c": [0.0, 1.0]}

    def encode(self, texts):
        return np.array([self.VECTORS[t] for t in texts])


class TableNER:
    def __init__(self, table):
        self.table = table

    def entities(self, texts):
        return [self.table.get(t, []) for t in texts]


def test_storm_headings_cut_strip_and_deduplicate():
    headings = ["# Intro", "User Preferences", "Intro", "Methods", "See Also", "Appendix"]
    assert storm_headings(headings) == ["Intro", "User Preferences", "Methods"]
    assert storm_headings(["Background", "References", "Late"]) == ["Background"]


def test_heading_soft_recall_by_hand():
    s_ab = 2 / (1 + 1 / np.sqrt(2))  # soft cardinality of {a, b}
    # G = {a, b}, P = {a}: (S(G) + S(P) - S(G u P)) / S(G) = 1 / S(G)
    assert heading_soft_recall(["a", "b"], ["a"], TableEncoder()) == pytest.approx(1 / s_ab)
    assert heading_soft_recall(["a", "b"], ["a", "a", "b"], TableEncoder()) == pytest.approx(1.0)
    # G = {a}, P = {c} orthogonal: nothing shared
    assert heading_soft_recall(["a"], ["c"], TableEncoder()) == pytest.approx(0.0)
    assert heading_soft_recall(["a"], [], TableEncoder()) == 0.0
    assert heading_soft_recall([], ["a"], TableEncoder()) is None


def test_heading_entity_recall_by_hand():
    ner = TableNER({"BERT and GPT": ["BERT", "GPT"], "Bert models": ["Bert"], "Introduction": []})
    assert heading_entity_recall(["BERT and GPT", "Introduction"], ["Bert models"], ner) == (0.5, 2)
    assert heading_entity_recall(["Introduction"], ["Bert models"], ner) == (None, 0)  # STORM would say 1


def test_ner_extractor_merges_pieces_and_memoises(tmp_path):
    ner = NERExtractor(str(build_tiny_ner_model(tmp_path / "ner")), device="cpu")
    texts = ["Graph Neural Networks at Google", "Introduction"]
    found = ner.entities(texts)
    assert len(found) == 2 and found[0] and all(isinstance(e, str) and not e.startswith("##") for e in found[0])
    ner.pipe = None  # a second call must be answered from the memo
    assert ner.entities(texts[::-1]) == found[::-1]


@pytest.fixture(scope="module")
def rendered(sample_dataset, tmp_path_factory) -> Path:
    data = SurgeData.open(sample_dataset)
    out = tmp_path_factory.mktemp("heading-rendered")
    render_surveys(data.surveys("test"), data.corpus, out)
    return out


@pytest.fixture(scope="module")
def tiny_ner(tmp_path_factory) -> Path:
    return build_tiny_ner_model(tmp_path_factory.mktemp("models") / "tiny-ner")


def test_cli_heading_metrics_on_gt_as_generated(sample_dataset, rendered, minilm_path, tiny_ner, tmp_path):
    out = tmp_path / "r.json"
    done = CliRunner().invoke(app, [
        "evaluate", "--data", str(sample_dataset), "--passages", str(rendered), "--out", str(out),
        "--metrics", "shr,heading_soft_recall,heading_entity_recall", "--embedding-model", str(minilm_path),
        "--ner-model", str(tiny_ner), "--device", "cpu"])
    assert done.exit_code == 0, done.output
    results = json.loads(out.read_text())
    assert results["config"]["ner_model"] == "tiny-ner"  # by name and fingerprint (config.models), never by path
    for record in results["surveys"].values():
        # the rendered survey has every GT heading (and a References heading, which the cut drops)
        assert record["heading_soft_recall"] == pytest.approx(1.0, abs=1e-6)
        assert record["heading_entity_recall"] == 1.0 and record["counts"]["gt_heading_entities"] > 0


def test_heading_soft_recall_differs_from_shr(sample_dataset, rendered, tmp_path):
    """SHR's GT is the sections with >= 100 characters; STORM's is every heading, empty groupings too."""
    class Onehot:
        def __init__(self):
            self.index: dict[str, int] = {}

        def encode(self, texts):
            rows = [self.index.setdefault(t, len(self.index)) for t in texts]
            out = np.zeros((len(texts), 500))
            out[np.arange(len(texts)), rows] = 1.0
            return out

    survey = tmp_path / "p" / "0"
    survey.mkdir(parents=True)
    data = SurgeData.open(sample_dataset)
    content = [s.title for s in data.survey(0).tree().walk() if len(s.content) >= 100 and s.depth > 0]
    (survey / "s.md").write_text("".join(f"# {t}\n\ntext\n\n" for t in content))
    results = evaluate_run(data, tmp_path / "p", tmp_path / "r.json",
                           EvaluationSession(EvaluationConfig(metrics=["shr", "heading_soft_recall"], protocol="paper"), encoder=Onehot()))
    record = results["surveys"]["0"]
    every = [s.title for s in data.survey(0).tree().walk() if s.depth > 0]
    assert record["shr"] == pytest.approx(1.0)
    assert record["heading_soft_recall"] == pytest.approx(len(set(content)) / len(set(every)))
    assert len(set(every)) > len(set(content))
