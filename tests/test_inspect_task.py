"""SurGE as an Inspect task (``surge/survey``): solver, scorers equal to ``surge evaluate``, logs -> import and report.

The evaluated model is Inspect's ``mockllm/model`` answering a fixed Markdown survey per topic. Its answers
carry token usage: without it, mockllm counts tokens with tiktoken's ``o200k_base`` file, which tiktoken
downloads on first use (offline there is none; the CLI test below stands a word count in for it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed (pip install -e '.[inspect]')")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import EvalLog, read_eval_log  # noqa: E402
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model  # noqa: E402

from surge_dataset import SurgeData  # noqa: E402
from surge_dataset.cli import app  # noqa: E402
from surge_dataset.evaluation import compute  # noqa: E402
from surge_dataset.generation.inspect_prompts import INSPECT_PROMPTS_VERSION, paper_lines  # noqa: E402
from surge_dataset.generation.inspect_survey import INFO_KEY, MARKDOWN_KEY  # noqa: E402
from surge_dataset.importers.inspect_logs import read_inspect_logs  # noqa: E402
from surge_dataset.importers.inspect_results import write_inspect_results  # noqa: E402
from surge_dataset.inspect._registry import survey  # noqa: E402
from surge_dataset.retrieval.runs import write_trec_run  # noqa: E402

DEFAULT_METRICS = ("recall", "citation_accuracy", "shr", "rouge_bleu")
KEYS = ("recall", "doc_acc", "sec_acc", "sent_acc", "shr", "rouge1", "rouge2", "rougeL", "bleu")
#: Cites P1-P4 of the run (P4 in parentheses) and P9, which the run did not give: dropped and counted.
LABELLED_ANSWER = """```markdown
# A survey

## Foundations

Early work introduced message passing on graphs [P1]. Later methods refined the aggregation [P2, P3].

### Expressive power

The power of these models was analysed formally (P4).

## Outlook

Scaling remains open [P9].

## References

[P1] whatever the model writes here is ignored
```"""
#: A model answer with no heading, no citation and no reference list.
PLAIN_ANSWER = "I am sorry, but I cannot write this survey."


def _model(answers: dict[str, str], default: str = "") -> Model:
    """mockllm answering ``answers[title]`` to the prompt that names ``title``, with token usage set."""

    def respond(messages, tools, tool_choice, config) -> ModelOutput:
        prompt = "\n".join(m.text for m in messages)
        text = next((answer for title, answer in answers.items() if title in prompt), default)
        output = ModelOutput.from_content("mockllm/model", text)
        output.usage = ModelUsage(input_tokens=len(prompt.split()), output_tokens=len(text.split()),
                                  total_tokens=len(prompt.split()) + len(text.split()))
        return output

    return get_model("mockllm/model", custom_outputs=respond, memoize=False)


def _eval(task, model: Model, log_dir: Path, **kwargs) -> EvalLog:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(log_dir / "xdg"))  # Inspect's traces, never the user's folder
        [log] = inspect_eval(task, model=model, log_dir=str(log_dir), display="none", **kwargs)
    assert log.status == "success", log.error
    return read_eval_log(log.location)


@pytest.fixture(scope="module")
def data(sample_dataset) -> SurgeData:
    return SurgeData.open(sample_dataset)


@pytest.fixture(scope="module")
def run_file(data, tmp_path_factory) -> Path:
    """A survey-title run whose top 5 are the first 5 papers each test survey cites."""
    ranked = {str(s.survey_id): {str(doc): 10.0 - rank for rank, doc in enumerate(s.all_cites[:5])}
              for s in data.surveys("test")}
    return write_trec_run(tmp_path_factory.mktemp("run") / "run.trec", ranked, metadata={"query_type": "titles"})


@pytest.fixture(scope="module")
def labelled_log(data, run_file, minilm_path, tiny_nli_path, tmp_path_factory) -> EvalLog:
    """The task with the run, the default metrics, survey 2 answered with plain text."""
    answers = {s.survey_title: LABELLED_ANSWER for s in data.surveys("test") if s.survey_id != 2}
    task = survey(data=str(data.path), run=str(run_file), top_k=5, nli_model=str(tiny_nli_path),
                  embedding_model=str(minilm_path))
    return _eval(task, _model(answers, default=PLAIN_ANSWER), tmp_path_factory.mktemp("logs"))


@pytest.fixture(scope="module")
def evaluated(labelled_log, data, minilm_path, tiny_nli_path, tmp_path_factory) -> dict:
    """``surge evaluate`` on the Markdown the solver wrote for each sample."""
    out = tmp_path_factory.mktemp("evaluate")
    for sample in labelled_log.samples:
        folder = out / "passages" / str(sample.id)
        folder.mkdir(parents=True)
        (folder / "survey.md").write_text(sample.store[MARKDOWN_KEY], encoding="utf-8")
    result = CliRunner().invoke(app, [
        "evaluate", "--data", str(data.path), "--passages", str(out / "passages"), "--metrics",
        ",".join(DEFAULT_METRICS), "--nli-model", str(tiny_nli_path), "--embedding-model", str(minilm_path),
        "--out", str(out / "evaluate.json")])
    assert result.exit_code == 0, result.output
    return json.loads((out / "evaluate.json").read_text())


def _sample(log: EvalLog, survey_id: int):
    return next(s for s in log.samples if s.id == survey_id)


def test_labels_become_numbered_references_with_exact_corpus_titles(labelled_log, data):
    sample = _sample(labelled_log, 0)
    cited = data.corpus.get(list(data.survey(0).all_cites[:4]))
    # the prompt shows the run's top 5 as the baselines show papers, system prompt first
    assert labelled_log.eval.metadata["surge"]["prompts_version"] == INSPECT_PROMPTS_VERSION
    assert sample.input[0].role == "system" and "'## ' headings" in sample.input[0].text
    papers = data.corpus.get(list(data.survey(0).all_cites[:5]))
    assert paper_lines([(f"P{i + 1}", p) for i, p in enumerate(papers)]) in sample.input[1].text
    markdown = sample.store[MARKDOWN_KEY]
    # the fenced answer is read, its title replaced by the topic's, its own reference list dropped
    assert markdown.startswith(f"# {data.survey(0).survey_title}\n\n## Foundations\n")
    assert "### Expressive power" in markdown and "whatever the model writes" not in markdown
    assert "message passing on graphs [1]." in markdown and "aggregation [2][3]." in markdown
    references = markdown.split("## References\n\n", 1)[1].splitlines()
    assert references == [f"[{n}] {' '.join(p.title.split())}" for n, p in enumerate(cited, 1)]
    assert sample.store[INFO_KEY] == {"references": 4, "citations": 4, "dropped_citations": 1,
                                      "dropped_labels": ["P9"]}


def test_scores_equal_surge_evaluate_on_the_same_markdown(labelled_log, evaluated):
    assert set(evaluated["surveys"]) == {"0", "1", "2"}
    for sample in labelled_log.samples:
        assert set(sample.scores) == set(DEFAULT_METRICS)
        values = {k: v for score in sample.scores.values() for k, v in score.value.items()}
        expected = evaluated["surveys"][str(sample.id)]
        assert values == pytest.approx({k: expected[k] for k in KEYS}, abs=1e-6)
        assert sample.scores["recall"].metadata["counts"]["references"] == expected["counts"]["references"]
    # the task's means are surge evaluate's averages (released aggregate)
    means = {k: m.value for score in labelled_log.results.scores for k, m in score.metrics.items()}
    assert means == pytest.approx({k: evaluated["average"][k] for k in KEYS}, abs=1e-6)
    assert evaluated["surveys"]["0"]["recall"] > 0


def test_an_answer_without_headings_or_references_scores_zero_recall(labelled_log, data):
    sample = _sample(labelled_log, 2)
    assert sample.error is None and sample.output.completion == PLAIN_ANSWER
    assert sample.scores["recall"].value == {"recall": 0.0}
    assert sample.store[MARKDOWN_KEY].endswith("## Introduction\n\n" + PLAIN_ANSWER + "\n\n## References\n")
    # and compute() agrees on the same Markdown (no model needed for recall and rouge_bleu)
    direct = compute(["recall", "rouge_bleu"], [sample.store[MARKDOWN_KEY]], [2], data=data)
    assert direct["per_survey"][0]["recall"] == 0.0
    assert direct["per_survey"][0]["rouge1"] == pytest.approx(sample.scores["rouge_bleu"].value["rouge1"])


def test_the_log_becomes_a_results_file_that_surge_report_reads(labelled_log, evaluated, tmp_path):
    from surge_dataset.report import build_report

    results = write_inspect_results(labelled_log.location, tmp_path / "inspect.json")
    config = results["config"]
    assert config["system"] == "mockllm/model" and config["metrics"] == list(DEFAULT_METRICS)
    assert config["inspect"]["prompts_version"] == INSPECT_PROMPTS_VERSION
    assert config["inspect"]["inspect_ai"] == config["versions"]["inspect_ai"] and config["inspect"]["task"] == "surge/survey"
    for survey_id, record in evaluated["surveys"].items():
        assert {k: results["surveys"][survey_id][k] for k in KEYS} == pytest.approx({k: record[k] for k in KEYS}, abs=1e-6)
        assert results["surveys"][survey_id]["counts"] == record["counts"]
    assert results["average"] == pytest.approx(evaluated["average"], abs=1e-6)
    (tmp_path / "evaluate.json").write_text(json.dumps(evaluated))
    report = build_report([tmp_path / "inspect.json", tmp_path / "evaluate.json"], tmp_path / "report",
                          resamples=100, formats=())
    assert [i["system"] for i in report["inputs"]] == ["mockllm/model", "evaluate"]
    assert (tmp_path / "report" / "report.json").is_file()


def test_the_log_reader_yields_peer_surveys_with_their_provenance(labelled_log, data, tmp_path):
    items = list(read_inspect_logs(Path(labelled_log.location)))
    docs = {d.key: d for d in items}
    assert sorted(docs) == ["0", "1", "2"]
    first = docs["0"]
    cited = data.corpus.get(list(data.survey(0).all_cites[:4]))
    assert [first.references[str(n)].title for n in range(1, 5)] == [" ".join(p.title.split()) for p in cited]
    assert first.title == data.survey(0).survey_title and not docs["2"].references
    note = first.notes[-1]
    assert "model mockllm/model" in note and f"prompts {INSPECT_PROMPTS_VERSION}" in note
    assert f"inspect_ai {labelled_log.eval.packages['inspect_ai']}" in note
    (tmp_path / "notes.json").write_text("{}")  # a file that is no Inspect log is skipped with the reason
    [(source, reason)] = list(read_inspect_logs(tmp_path))
    assert source == str(tmp_path / "notes.json") and reason.startswith("not an Inspect log")

    from surge_dataset.importers import FORMATS, import_outputs

    if "inspect" in FORMATS:  # `surge import --format inspect` once READERS lists the reader
        report = import_outputs("inspect", labelled_log.location, data, tmp_path / "imported")
        assert [s["survey_id"] for s in report.surveys] == [0, 1, 2] and not report.skipped
        assert report.surveys[0]["resolved_exact"] == 4 and "mockllm/model" in report.surveys[0]["notes"][-1]


def test_topic_only_cites_the_models_own_reference_list(data, tmp_path):
    gt = data.survey(1)
    real = " ".join(data.corpus.get([gt.all_cites[0]])[0].title.split())
    answer = f"## Background\n\nRetrieval helps generation [1]. So do memories [2].\n\n## References\n\n[1] {real}\n[2] A Paper That Does Not Exist"
    log = _eval(survey(data=str(data.path), survey_ids="1", metrics="recall"), _model({gt.survey_title: answer}),
                tmp_path)
    [sample] = log.samples
    assert "no\npapers are given" in sample.input[1].text.replace("(no ", "no\n") and "P1" not in sample.input[1].text
    markdown = sample.store[MARKDOWN_KEY]
    assert markdown.endswith(f"## References\n\n[1] {real}\n[2] A Paper That Does Not Exist\n")
    expected = compute("recall", [markdown], [1], data=data)["per_survey"][0]["recall"]
    assert sample.scores["recall"].value == {"recall": expected} and expected == pytest.approx(1 / len(gt.all_cites))


def test_sqs_asks_the_grader_role(data, tmp_path):
    from surge_dataset.llm import LLM, Judge
    from surge_dataset.llm.base import BackendSpec, Completion

    gt = data.survey(0)
    answer = "## Message Passing\n\nText.\n\n## Expressive Power\n\nMore text.\n"
    asked = []

    def grade(messages, tools, tool_choice, config) -> ModelOutput:
        asked.append(config.max_tokens)
        output = ModelOutput.from_content("mockllm/model", "4")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    grader = get_model("mockllm/grader", custom_outputs=grade, memoize=False)
    log = _eval(survey(data=str(data.path), survey_ids=[0], metrics="sqs"), _model({gt.survey_title: answer}),
                tmp_path, model_roles={"grader": grader})
    [sample] = log.samples
    assert sample.scores["sqs"].value == {"sqs": 4.0} and asked == [100]  # the released judge's 100 tokens
    assert sample.scores["sqs"].metadata["grader"] == {"model": "mockllm/grader", "role": "grader"}

    class AlwaysFour:
        spec = BackendSpec("openai", "always-four")

        def identity(self):
            return "always-four"

        def generate(self, conversations, settings, on_done, stats):
            for index, _ in enumerate(conversations):
                on_done(index, Completion("4"))

    direct = compute("sqs", [sample.store[MARKDOWN_KEY]], [0], data=data, judge=Judge(LLM(AlwaysFour(), cache_dir=False)))
    assert direct["per_survey"][0]["sqs"] == 4.0


_COUNT_WORDS = """
# Inspect's mockllm counts the tokens of answers without usage with tiktoken's o200k_base, which tiktoken
# downloads on first use; offline there is none, so this test counts words instead.
from inspect_ai.model._providers.mockllm import MockLLM


async def _count_words(self, text):
    return max(1, len(text.split()))


MockLLM.count_text_tokens = _count_words
"""


def test_inspect_eval_cli_runs_offline_from_any_folder(sample_dataset, minilm_path, tiny_nli_path, tmp_path):
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(textwrap.dedent(_COUNT_WORDS))
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(shim), "XDG_DATA_HOME": str(tmp_path / "xdg"), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "INSPECT_LOG_DIR": str(work / "logs")}
    command = [str(Path(sys.executable).parent / "inspect"), "eval", "surge/survey", "--model", "mockllm/model",
               "-T", f"data={sample_dataset}", "-T", "survey_ids=0", "-T", f"nli_model={tiny_nli_path}",
               "-T", f"embedding_model={minilm_path}", "--display", "none"]
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    [path] = list((work / "logs").glob("*.eval"))
    log = read_eval_log(str(path))
    assert log.status == "success" and log.eval.task == "surge/survey"
    [sample] = log.samples
    assert {"recall", "shr"} <= set(sample.scores) and sample.scores["recall"].value == {"recall": 0.0}


def test_inspect_ai_is_imported_lazily():
    """`import surge_dataset.cli` never loads inspect_ai, and every module of the package imports without it."""
    code = textwrap.dedent("""
        import sys
        import surge_dataset.cli
        assert "inspect_ai" not in sys.modules
        sys.modules["inspect_ai"] = None  # as if the inspect extra were not installed (find_spec says None)
        from surge_dataset.inspect import _registry, scoring, task
        from surge_dataset.generation import inspect_prompts, inspect_survey
        from surge_dataset.importers import inspect_logs, inspect_results
        assert not hasattr(_registry, "survey")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_paper_lines_match_the_baselines(data):
    from surge_baselines.stepsurvey import paper_lines as baseline_paper_lines

    papers = data.corpus.get(list(data.survey(0).all_cites[:6]))
    labelled = [(f"P{i + 1}", p) for i, p in enumerate(papers)]
    for chars in (0, 40, 500):
        assert paper_lines(labelled, chars) == baseline_paper_lines(labelled, chars)
    assert paper_lines([]) == baseline_paper_lines([], 500)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("SURGE_INSPECT_SMOLLM2") != "1", reason=(
    "opt-in (SURGE_INSPECT_SMOLLM2=1): Inspect's hf provider loads SmolLM2's GGUF only by de-quantizing it "
    "through transformers, and its tokenizer must first be converted from the GGUF; measured on 2 CPU cores: "
    "200 s for this test (40 s tokenizer, 90 s load, 64 tokens), past this file's 90 s budget"))
def test_a_real_generation_with_smollm2_through_inspects_hf_provider(data, tmp_path):
    from transformers import AutoTokenizer

    from surge_dataset.models.download import bundled_model_path

    gguf = bundled_model_path("smollm2")
    AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name).save_pretrained(tmp_path / "tokenizer")
    model = get_model("hf/smollm2", model_path=str(gguf.parent), gguf_file=gguf.name,
                      tokenizer_path=str(tmp_path / "tokenizer"), device="cpu", do_sample=False, memoize=False)
    log = _eval(survey(data=str(data.path), survey_ids="0", metrics="recall,rouge_bleu"), model, tmp_path,
                max_tokens=64)
    [sample] = log.samples
    assert sample.error is None and sample.output.completion.strip()
    direct = compute(["recall", "rouge_bleu"], [sample.store[MARKDOWN_KEY]], [0], data=data)["per_survey"][0]
    assert sample.scores["rouge_bleu"].value["rouge1"] == pytest.approx(direct["rouge1"])
    assert sample.scores["recall"].value == {"recall": direct["recall"]}


def test_quiz_and_richness_are_scorers_the_grader_answers(data, tmp_path):
    """-T metrics=quiz,richness: the quiz questions (the dataset's quizzes config) go to the grader role, here the
    scripted reader answering from the quoted survey; richness counts the table the answer holds."""
    from surge_dataset.data.quiz_sets import load_quiz_set
    from surge_dataset.data.render import render_survey
    from surge_dataset.testing.quiz import TextReader

    gt, reader = data.survey(0), TextReader()
    answer = render_survey(gt, data.corpus).replace("# References", "| Model | Layers |\n| --- | --- |\n| GCN | 2 |\n\n"
                                                    "# References", 1)

    def grade(messages, tools, tool_choice, config) -> ModelOutput:
        output = ModelOutput.from_content("mockllm/model", reader([{"role": m.role, "content": m.text}
                                                                   for m in messages]))
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    grader = get_model("mockllm/grader", custom_outputs=grade, memoize=False)
    log = _eval(survey(data=str(data.path), survey_ids=[0], metrics="quiz,richness"), _model({gt.survey_title: answer}),
                tmp_path, model_roles={"grader": grader})
    [sample] = log.samples
    assert sample.scores["quiz"].value == {"quiz": 1.0, "quiz_unanswered": 0.0}
    assert sample.scores["quiz"].metadata["counts"]["quiz_judged"] == 10
    assert sample.scores["richness"].value["richness_tables"] == 1.0
    assert log.eval.metadata["surge"]["config"]["quiz_fingerprint"] == load_quiz_set(data.path).fingerprint
