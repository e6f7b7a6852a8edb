"""The SQS/CQS judge rubrics: every score level described under both protocols, our own words (no run of six words
shared with the released prompts), and CQS under ``--protocol paper`` asking about every section whole.

The judge is ``ScriptedChat`` behind the real LLM layer, so the prompts counted and read here are the ones a
server would receive.
"""

from __future__ import annotations

import re

import pytest

from surge_dataset.evaluation import compute
from surge_dataset.llm import LLM, Judge
from surge_dataset.llm.prompts import PROMPTS_VERSION, get_prompt
from surge_dataset.llm.rubrics import CQS_EXAMPLES, CQS_LEVELS, SQS_LEVELS
from surge_dataset.scoring.judges import CQS_MAX_CHARS, CQS_PAPER_MAX_CHARS, CQS_SAMPLE_SIZE
from surge_dataset.testing import ScriptedChat
from tests.conftest import REPO_ROOT
from tests.support.parity import find_released_src

LEVELS = range(6)
#: The released files whose string literals are the SQS and CQS judge prompts.
RELEASED_PROMPT_FILES = ("structureFuncs.py", "informationFuncs.py")


def _sentence(i: int, length: int) -> str:
    """A section body of about ``length`` characters, sentences ending in '.', distinct per ``i``."""
    unit = f"Section {i} studies glacier melt forecasting from sensor readings and weather models. "
    return (unit * (length // len(unit) + 1))[:length].rsplit(".", 1)[0] + "."


def _survey(lengths: list[int]) -> str:
    return "\n\n".join(f"## Part {i}\n\n{_sentence(i, n)}" for i, n in enumerate(lengths)) + "\n"


def _judge(answer: str = "4") -> tuple[ScriptedChat, Judge]:
    model = ScriptedChat(responder=lambda messages: answer)
    return model, Judge(LLM(model, cache_dir=False))


def _prompts(model: ScriptedChat) -> list[str]:
    return [messages[-1]["content"] for messages in model.requests]


def _quoted(prompt: str) -> str:
    """The passage a CQS prompt quotes (between the last '<<<' and '>>>' lines; the section's blank lines around
    its text, which the parser keeps as content, left out)."""
    return prompt.rsplit("<<<\n", 1)[1].split("\n>>>", 1)[0].strip()


# ------------------------------------------------------------------------------------- every level described


@pytest.mark.parametrize("protocol", ["official", "paper"])
def test_the_prompts_sent_under_each_protocol_describe_every_level(sample_dataset, protocol):
    model, judge = _judge()
    compute("sqs,cqs", [_survey([300, 400])], [0], data=sample_dataset, judge=judge, protocol=protocol)
    sqs = [p for p in _prompts(model) if "Reference outline:" in p]
    cqs = [p for p in _prompts(model) if "Passage:" in p]
    assert len(sqs) == 1 and len(cqs) == 2
    for prompt, levels in ((sqs[0], SQS_LEVELS), (cqs[0], CQS_LEVELS)):
        described = {int(m.group(1)) for m in re.finditer(r"^([0-5]) \([a-z ]+\): \S", prompt, re.M)}
        assert described == set(LEVELS), (protocol, described)
        for level in LEVELS:
            name, text = levels[level]
            assert f"{level} ({name}): {text}" in prompt
    for level in LEVELS:  # CQS illustrates every level with an example passage
        assert f'Illustration of a {level}: "{CQS_EXAMPLES[level]}"' in cqs[0]


def test_every_level_names_each_of_its_criteria():
    """SQS: three criteria per level, CQS: five (one sentence or clause each, as the released rubric lists them)."""
    assert all(len(text.split("; ")) == 3 for _, text in SQS_LEVELS.values())
    assert all(len(re.findall(r"[.!?](?:\s|$)", text)) == 5 for level, (_, text) in CQS_LEVELS.items() if level)
    assert len(re.findall(r"[.!?](?:\s|$)", CQS_LEVELS[0][1])) == 4  # the released level 0 names four
    assert PROMPTS_VERSION == "surge-judges-3"  # the wording changed: old answers and journals are not reused


# --------------------------------------------------------------------------------------------- our own words


def _words(text: str) -> list[str]:
    """Lower-cased runs of letters and digits: case, punctuation and layout (Markdown, line breaks) left out."""
    return re.findall(r"[a-z0-9]+", text.lower())


def _runs(text: str, n: int = 6) -> set[tuple[str, ...]]:
    words = _words(text)
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


@pytest.fixture(scope="module")
def released_prompts() -> list[str]:
    src = find_released_src()
    if src is None:
        pytest.skip("the released evaluator is absent: set SURGE_RELEASED_SRC to its src/ folder "
                    "(the reference copy lives in ../shared/reference/surge-released/src beside a checkout)")
    texts = [t for name in RELEASED_PROMPT_FILES
             for t in re.findall(r'"""(.*?)"""', (src / name).read_text(encoding="utf-8"), re.S)]
    assert len(texts) == 2 and all("0 to 5" in t for t in texts), "the released prompt texts were not found"
    return texts


def test_no_run_of_six_words_of_the_released_prompts_is_ours(released_prompts):
    released = set().union(*(_runs(text) for text in released_prompts))
    assert len(released) > 500
    ours = {
        "sqs": get_prompt("sqs").render(reference_outline="# A", generated_outline="## B"),
        "cqs": get_prompt("cqs").render(section="Some passage."),
    }
    for name, messages in ours.items():
        for message in messages:
            shared = _runs(message["content"]) & released
            assert not shared, (name, message["role"], sorted(" ".join(run) for run in shared))
    # the page that sets the two rubrics side by side states the released criteria as facts, not as quotes
    shared = _runs((REPO_ROOT / "docs" / "evaluation" / "judging.md").read_text(encoding="utf-8")) & released
    assert not shared, sorted(" ".join(run) for run in shared)


# ---------------------------------------------------------------------------------------- CQS: which sections


def test_paper_cqs_scores_every_section_whole(sample_dataset):
    lengths = [250 + 120 * i for i in range(CQS_SAMPLE_SIZE + 5)]  # 25 sections, most over 1,000 characters
    survey = _survey(lengths)
    model, judge = _judge("4")
    result = compute("cqs", [survey], [0], data=sample_dataset, judge=judge, protocol="paper")
    quoted = [_quoted(p) for p in _prompts(model)]
    assert len(model.requests) == len(lengths) == result["counts"][0]["cqs_judged"]  # no sample of 20
    assert quoted == [_sentence(i, n) for i, n in enumerate(lengths)]  # every one, in order, never cut
    assert max(map(len, quoted)) > CQS_MAX_CHARS and result["cqs"] == 4.0
    assert not [d for d in result["diagnostics"][0] if d["code"] == "cqs_truncated"]


def test_paper_cqs_cuts_only_what_the_judge_cannot_take(sample_dataset):
    lengths = [500, CQS_PAPER_MAX_CHARS + 5_000, 2_000]
    model, judge = _judge("3")
    result = compute("cqs", [_survey(lengths)], [0], data=sample_dataset, judge=judge, protocol="paper")
    quoted = [_quoted(p) for p in _prompts(model)]
    assert len(quoted) == 3 and quoted[0] == _sentence(0, 500) and quoted[2] == _sentence(2, 2_000)
    assert CQS_PAPER_MAX_CHARS - 200 < len(quoted[1]) <= CQS_PAPER_MAX_CHARS  # cut as CQS cuts: at a "."
    assert _sentence(1, lengths[1]).startswith(quoted[1])
    (cut,) = [d for d in result["diagnostics"][0] if d["code"] == "cqs_truncated"]
    assert cut["message"].startswith(f"1 of 3 sections longer than {CQS_PAPER_MAX_CHARS:,} characters")


def test_official_cqs_keeps_the_released_sample(sample_dataset):
    lengths = [250 + 120 * i for i in range(CQS_SAMPLE_SIZE + 5)]
    model, judge = _judge("4")
    result = compute("cqs", [_survey(lengths)], [0], data=sample_dataset, judge=judge, protocol="official")
    quoted = [_quoted(p) for p in _prompts(model)]
    assert len(quoted) == CQS_SAMPLE_SIZE == result["counts"][0]["cqs_judged"]
    assert all(len(text) <= CQS_MAX_CHARS for text in quoted)
