"""Every metric scores from the answers to what it requested: nothing is computed for it after the run's prefetch.

The runner prefetches every metric's requests in one batch per model, then hands each metric read-only answers
(``evaluation/answers.py``). Here every built-in metric runs through the real runner (``evaluate_run`` with an
``EvaluationSession``) on the sample data, with real small models (a tiny NLI cross-encoder, MiniLM, a tiny NER
model) and a scripted chat model behind the real ``Judge``: an input a metric's ``score`` asks for without having
requested it would stop the run with :class:`UnrequestedInputError`. A toy metric that requests one pair and scores
another shows the error; and a run leaves no state behind, neither a context variable nor on the survey.
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path

import pytest

from surge_dataset import SurgeData
from surge_dataset.data.render import render_survey, render_surveys
from surge_dataset.evaluation import (
    EvaluationConfig,
    EvaluationSession,
    Metric,
    MetricOutput,
    Requests,
    UnrequestedInputError,
    evaluate_run,
    prepare_text,
    registry,
)
from surge_dataset.evaluation.runner import prefetch_all, score_survey
from surge_dataset.llm import LLM, Judge
from surge_dataset.testing.llm import ScriptedChat
from surge_dataset.testing.models import build_tiny_ner_model

from .conftest import REPO_ROOT
from .support.doubles import EntailingNLI, registered

PACKAGE = REPO_ROOT / "surge_dataset"
QUIZ = REPO_ROOT / "examples" / "sample" / "quizzes.jsonl"
BUILT_IN = sorted(name for name, metric in registry().items()
                  if type(metric).__module__.startswith("surge_dataset.evaluation.metrics."))
POINTS = "- Graph networks pass messages between nodes.\n- Pooling summarises a graph into one vector."


def answer(messages: list[dict[str, str]]) -> str:
    """A judge that answers every kind of question the metrics ask: points, verdicts, letters, scores."""
    text = " ".join(str(m.get("content", "")) for m in messages)
    if "list its key points" in text:
        return POINTS
    if "[[A]]" in text:
        return "[[A]]"
    if "Reply with one letter" in text:
        return "A"
    return "1"


def scripted_judge() -> Judge:
    return Judge(LLM(ScriptedChat(responder=answer, model="answers-contract"), cache_dir=False))


@pytest.fixture(scope="module")
def tiny_ner(tmp_path_factory) -> Path:
    return build_tiny_ner_model(tmp_path_factory.mktemp("models") / "tiny-ner")


@pytest.fixture(scope="module")
def rendered(sample_dataset: Path, tmp_path_factory) -> Path:
    data = SurgeData.open(sample_dataset)
    folder = tmp_path_factory.mktemp("rendered")
    render_surveys(data.surveys("test"), data.corpus, folder)
    return folder


def models_of(tiny_nli_path: Path, minilm_path: Path, tiny_ner: Path) -> dict[str, str]:
    return {"nli_model": str(tiny_nli_path), "embedding_model": str(minilm_path), "ner_model": str(tiny_ner),
            "device": "cpu"}


@pytest.mark.parametrize("settings", [{"judge_repeats": 2}, {"alce_backend": "judge", "metrics": ["alce"]}],
                         ids=["every-metric-with-repeats", "alce-judged"])
def test_every_built_in_metric_scores_only_what_it_requested(settings, sample_dataset, rendered, tiny_nli_path,
                                                              minilm_path, tiny_ner, tmp_path):
    config = EvaluationConfig(**{"metrics": BUILT_IN, "judge": "openai:answers-contract", "quiz": str(QUIZ),
                                 **models_of(tiny_nli_path, minilm_path, tiny_ner), **settings})
    data = SurgeData.open(sample_dataset)
    # the NLI model, the encoder and the NER model are built by the session from the settings; the judge is given
    with EvaluationSession(config, data=data, judge=scripted_judge()) as session:
        results = evaluate_run(data, rendered, tmp_path / "r.json", session)
    assert results is not None and not results["failures"]
    survey = next(iter(results["surveys"].values()))
    for metric in config.metrics:
        assert all(key in survey for key in registry()[metric].keys), metric
    if "quiz" in config.metrics:  # the judge answered every kind of question (the scripted answers were read)
        assert survey["kpr"] is not None and survey["quiz"] is not None
        assert survey["pairwise_gt"] == 0.5 and survey["counts"]["pairwise_gt_missing"] == 0  # "A" both ways: a tie


class DriftingProbe(Metric):
    """Requests the NLI pair (title, first heading) but scores (title, title) unless told to stay in step."""

    name = "drifting_probe"
    keys = ("drifting_probe",)
    needs = frozenset({"nli"})
    in_step = False

    def requests(self, survey, config):
        return Requests(nli=[(survey.gt.survey_title, survey.parsed.heading_titles()[0])])

    def score(self, survey, models, config):  # today's signature: the answers come in positionally as ``models``
        pair = self.requests(survey, config).nli[0] if self.in_step else (survey.gt.survey_title,) * 2
        return MetricOutput({"drifting_probe": float(models.nli.logits([pair])[0][1])})



@pytest.fixture
def drifting():
    with registered(DriftingProbe()) as probe:
        yield probe


def test_a_metric_scoring_an_input_it_never_requested_fails_with_the_metric_kind_and_count(
        drifting, sample_dataset, rendered, tmp_path):
    data = SurgeData.open(sample_dataset)
    nli = EntailingNLI()
    with pytest.raises(UnrequestedInputError, match=r"'drifting_probe' asked the nli model for 1 input"):
        evaluate_run(data, rendered, tmp_path / "r.json",
                     EvaluationSession(EvaluationConfig(metrics=["drifting_probe"]), nli=nli))
    assert len(nli.asked) == len(set(nli.asked)) == len(data.surveys("test"))  # the requested pairs, nothing more
    drifting.in_step = True
    results = evaluate_run(data, rendered, tmp_path / "ok.json",
                           EvaluationSession(EvaluationConfig(metrics=["drifting_probe"]), nli=EntailingNLI()))
    assert results is not None and all(r["drifting_probe"] > 0.5 for r in results["surveys"].values())


def test_a_run_leaves_the_survey_unchanged(sample_dataset, tiny_nli_path, minilm_path, tiny_ner):
    data = SurgeData.open(sample_dataset)
    gt = data.surveys("test")[0]
    surveys = [prepare_text(render_survey(gt, data.corpus), gt, data.corpus, "official", survey_id=0)]
    before = [{k: copy.deepcopy(v) for k, v in vars(s).items() if k != "corpus"} for s in surveys]
    config = EvaluationConfig(metrics=BUILT_IN, judge="openai:answers-contract", quiz=str(QUIZ),
                              **models_of(tiny_nli_path, minilm_path, tiny_ner))
    with EvaluationSession(config, data=data, judge=scripted_judge()) as session:
        prefetch_all(surveys, session)
        record = score_survey(surveys[0], session)["result"]
    assert record["reference_existence"] is not None
    assert [{k: v for k, v in vars(s).items() if k != "corpus"} for s in surveys] == before


def test_no_context_variable_and_no_metric_writes_on_the_survey():
    for path in PACKAGE.rglob("*.py"):
        assert "ContextVar" not in path.read_text(encoding="utf-8"), f"{path}: run state goes through the session"
    for path in (PACKAGE / "evaluation" / "metrics").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr":
                pytest.fail(f"{path.name}:{node.lineno}: setattr in a metric")
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AugAssign | ast.AnnAssign) else []
            for target in targets:
                if isinstance(target, ast.Attribute) and getattr(target.value, "id", "") in ("survey", "prepared"):
                    pytest.fail(f"{path.name}:{node.lineno}: a metric stores {target.attr!r} on the survey")
