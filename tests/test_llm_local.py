"""The ``hf:`` backend on a tiny random Llama saved to a folder (fast; no download).

Checks what batching could silently break: answers and next-token probabilities of a prompt do not
depend on the other prompts in its batch (left padding with explicit positions), and repeated runs agree.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from surge_dataset.llm import LLM, GenerationSettings, Judge, JudgeRequest, make_llm
from surge_dataset.llm.base import LLMConfigurationError

TEMPLATE = (
    "{% for m in messages %}<s>{{ m['role'] }}\n{{ m['content'] }}</s>\n{% endfor %}"
    "{% if add_generation_prompt %}<s>assistant\n{% endif %}"
)


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from surge_dataset.testing.models import build_tiny_roberta

    tokenizer_dir = build_tiny_roberta(tmp_path_factory.mktemp("tok") / "t")
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    tokenizer.chat_template = TEMPLATE
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=512,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("models") / "tiny-llama"
    LlamaForCausalLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def _conversation(text: str):
    return (("user", text),)


def test_batching_does_not_change_answers_or_probabilities(tiny_llama):
    llm = make_llm(f"hf:{tiny_llama}", cache_dir=False, batch_size=4, device="cpu")
    prompts = [_conversation("graph " * n + "score it") for n in (1, 7, 20, 3)]
    settings = GenerationSettings(max_new_tokens=5)
    together = [c.text for c in llm.generate(prompts, settings)]
    alone = [llm.generate([p], settings)[0].text for p in prompts]
    assert together == alone
    batch = llm.probabilities(prompts, list("012345"))
    single = np.vstack([llm.probabilities([p], list("012345")) for p in prompts])
    assert np.allclose(batch, single, atol=1e-5)
    assert np.allclose(batch[:, :-1].sum(axis=1), 1.0) and np.all((batch[:, -1] > 0) & (batch[:, -1] <= 1))
    again = LLM(llm.backend, cache_dir=False).probabilities(prompts, list("012345"))
    assert np.array_equal(again, batch)


def test_local_judge_weighted_scores_and_cache(tiny_llama, tmp_path):
    llm = make_llm(f"hf:{tiny_llama}", cache_dir=tmp_path, batch_size=2, device="cpu")
    judge = Judge(llm, weighted=True, max_tries=2, score_tokens=3)
    requests = [JudgeRequest.score([{"role": "user", "content": f"rate {i}"}], 0, 5) for i in range(3)]
    outcomes = judge.run(requests)
    for outcome in outcomes:
        assert 0 <= outcome.weighted <= 5 and outcome.tries in (1, 2)
        assert outcome.value is not None or outcome.error == "no valid answer in 2 tries"
    fresh = make_llm(f"hf:{tiny_llama}", cache_dir=tmp_path, batch_size=2, device="cpu")
    again = Judge(fresh, weighted=True, max_tries=2, score_tokens=3).run(requests)
    assert again == outcomes and fresh.stats.sent == 0
    assert fresh.backend._model is None  # everything came from the cache: the weights were never loaded


def test_weighted_needs_a_local_judge():
    with pytest.raises(LLMConfigurationError, match="hf: or gguf:"):
        Judge(make_llm("openai:gpt-4o", cache_dir=False), weighted=True)
    with pytest.raises(LLMConfigurationError, match="no such file"):
        make_llm("gguf:/nowhere/model.gguf")


def test_local_answers_report_their_token_counts(tiny_llama):
    """The model's own counts: the templated prompt's tokens (no padding) and at most the answer budget."""
    llm = make_llm(f"hf:{tiny_llama}", cache_dir=False, batch_size=4, device="cpu")
    prompts = [_conversation("graph " * n + "score it") for n in (1, 7, 20)]
    completions = llm.generate(prompts, GenerationSettings(max_new_tokens=5))
    tokenizer = llm.backend.tokenizer
    for prompt, completion in zip(prompts, completions, strict=True):
        text = tokenizer.apply_chat_template([{"role": "user", "content": prompt[0][1]}], tokenize=False,
                                             add_generation_prompt=True)
        assert completion.prompt_tokens == len(tokenizer(text, add_special_tokens=False)["input_ids"])
        assert 0 <= completion.completion_tokens <= 5
    stats = llm.stats.as_dict()
    assert stats["usage_reported"] == 3 and stats["usage_estimated"] == 0
    assert stats["prompt_tokens"] == sum(c.prompt_tokens for c in completions)


# ------------------------------------------------------------------------------------------ CPU threads


def test_thread_count_comes_from_the_option_then_the_environment_then_half_the_cores():
    from surge_dataset.models.threads import resolve_threads

    env = {"SURGE_NUM_THREADS": "3", "OMP_NUM_THREADS": "5"}
    assert resolve_threads(2, env, cpus=8) == (2, "--threads")
    assert resolve_threads(None, env, cpus=8) == (3, "SURGE_NUM_THREADS")
    assert resolve_threads(None, {"OMP_NUM_THREADS": "4,2"}, cpus=8) == (4, "OMP_NUM_THREADS")
    assert resolve_threads(None, {"OMP_NUM_THREADS": "x"}, cpus=8).threads == 4  # unreadable: ignored
    # The default: one on a 2-core machine (torch's own default, 2, busy-waits: 4-5x slower per token there).
    assert [resolve_threads(None, {}, cpus=n).threads for n in (1, 2, 3, 16)] == [1, 1, 1, 8]
    assert resolve_threads(None, {"LOCAL_WORLD_SIZE": "4"}, cpus=16).threads == 2  # shared by the launch's processes
    with pytest.raises(ValueError, match="SURGE_NUM_THREADS"):
        resolve_threads(None, {"SURGE_NUM_THREADS": "0"})
    with pytest.raises(ValueError, match="--threads"):
        resolve_threads(0, {})


def test_loading_a_local_model_sets_the_threads_unless_told_not_to(tiny_llama, monkeypatch):
    import torch

    before = torch.get_num_threads()
    monkeypatch.delenv("TOKENIZERS_PARALLELISM", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setenv("SURGE_NUM_THREADS", "1")
    try:
        torch.set_num_threads(2)
        left = make_llm(f"hf:{tiny_llama}", cache_dir=False, device="cpu", threads=0)
        left.generate([_conversation("hi")], GenerationSettings(max_new_tokens=1))
        assert torch.get_num_threads() == 2 and left.backend.thread_choice is None
        llm = make_llm(f"hf:{tiny_llama}", cache_dir=False, device="cpu")
        assert llm.backend._model is None and torch.get_num_threads() == 2  # nothing happens before the load
        llm.generate([_conversation("hi")], GenerationSettings(max_new_tokens=1))
        assert torch.get_num_threads() == 1 and llm.backend.thread_choice == (1, "SURGE_NUM_THREADS")
        assert os.environ["TOKENIZERS_PARALLELISM"] == "false" and llm.backend.load_seconds > 0
    finally:
        torch.set_num_threads(before)
