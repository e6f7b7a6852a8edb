"""surge_dataset.testing: the public test doubles. ScriptedChat answers as scripted through the real LLM layer (cache,
follow-up tries, counters), and reports word-count usage a test can work out by hand."""

from __future__ import annotations

import json

from surge_dataset.llm import LLM, Judge, JudgeRequest
from surge_dataset.llm.base import ChatBackend, GenerationSettings
from surge_dataset.testing import ClozeWriter, ScriptedChat, TextReader, word_usage

QUESTION = [{"role": "system", "content": "You rate surveys."}, {"role": "user", "content": "Rate this outline: A B"}]


def test_scripted_chat_is_a_chat_backend_answering_the_script_then_the_responder() -> None:
    model = ScriptedChat(["first", None], responder=lambda messages: f"{len(messages)} messages")
    assert isinstance(model, ChatBackend) and str(model.spec) == "openai:scripted"
    llm = LLM(model, cache_dir=False)
    answers = llm.generate([QUESTION, [{"role": "user", "content": "two"}], [{"role": "user", "content": "three"}]])
    assert [a.text for a in answers] == ["first", None, "1 messages"]
    assert answers[1].error == "scripted: no answer"
    assert model.requests == [QUESTION, [{"role": "user", "content": "two"}], [{"role": "user", "content": "three"}]]
    # usage: whitespace-separated words; prompt = every message's content, completion = the answer
    assert word_usage(QUESTION, "first") == {"prompt_tokens": 3 + 5, "completion_tokens": 1, "total_tokens": 9}
    assert llm.stats.sent == 3 and llm.stats.failed == 1
    assert (llm.stats.prompt_tokens, llm.stats.completion_tokens, llm.stats.usage_reported) == (8 + 1, 1 + 2, 2)


def test_without_usage_the_llm_layer_estimates_the_tokens() -> None:
    llm = LLM(ScriptedChat(["4"], usage=False), cache_dir=False)
    llm.generate([QUESTION])
    assert llm.stats.usage_reported == 0 and llm.stats.usage_estimated == 1


def test_the_answer_cache_sends_a_conversation_once(tmp_path) -> None:
    model = ScriptedChat(responder=lambda messages: "4", model="rater")
    assert model.identity() == "scripted-chat/rater"
    for _ in range(2):
        assert [a.text for a in LLM(model, cache_dir=tmp_path).generate([QUESTION], GenerationSettings())] == ["4"]
    assert len(model.requests) == 1  # the second LLM read the first one's cached answer


def test_a_judge_asks_again_after_an_unreadable_answer() -> None:
    model = ScriptedChat(["I would say it is good", "4"])
    outcome = Judge(LLM(model, cache_dir=False), max_tries=2).run([JudgeRequest.score(QUESTION, 0, 5)])[0]
    assert outcome.value == 4 and outcome.tries == 2 and len(model.requests) == 2
    assert model.requests[1][:2] == QUESTION  # the follow-up continues the same conversation


def test_the_quiz_stand_ins_answer_through_scripted_chat() -> None:
    from surge_dataset.llm.prompts import get_prompt

    section = ("Message passing networks aggregate neighbouring node features at every layer of the network. "
               "Spectral convolutions instead filter signals with the eigenvectors of the graph Laplacian.")
    writer = ScriptedChat(responder=ClozeWriter())
    prompt = get_prompt("quiz_write").render(title="Graphs", heading="Methods", section=section, count=1)
    (question,) = json.loads(LLM(writer, cache_dir=False).generate([prompt])[0].text)
    assert question["evidence"] in section and "____" in question["question"]
    shown = "\n".join(f"{letter}: {option}" for letter, option in zip("ABCDE", [*question["options"], "not said"],
                                                                      strict=True))
    reader = ScriptedChat(responder=TextReader())
    ask = get_prompt("quiz_answer").render(title="Graphs", survey=section, question=question["question"],
                                           options=shown)
    assert LLM(reader, cache_dir=False).generate([ask])[0].text == question["answer"]
