"""Scripted quiz writer and reader: responders for :class:`~surge_dataset.testing.llm.ScriptedChat` (or any server
that takes a responder).

Neither is a language model; both are deterministic and read only what their prompt quotes, so tests, the
sample's quiz set and the docs' comparison run offline and give the same numbers on every machine:

* :class:`ClozeWriter` answers ``quiz_write`` prompts: for each question asked it takes a sentence of the
  quoted section, blanks out one of its longest words and offers three words of the section's other sentences
  as the wrong options, quoting the sentence as evidence;
* :class:`TextReader` answers ``quiz_answer`` prompts from the quoted survey's words only: a cloze question is
  answered with the option that, put in the blank, gives words the survey has; any other question with the
  option best carried by the survey sentence that shares most of the question's words; E when the survey has
  neither. It knows nothing else, so it is a reader that "answers from the text": the GT survey rendered as a
  generated one gets (nearly) every question right, an empty or off-topic one gets E.

``python -m surge_dataset.testing.quiz`` prints both answers for a made-up section, as an example.
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

from surge_dataset.core.vocabulary import QUIZ_ANSWERS, QUIZ_CHOICES, QUIZ_UNANSWERED
from surge_dataset.quiz.evidence import content_words, support

__all__ = ["BLANK", "ClozeWriter", "TextReader", "quoted"]

BLANK = "____"
#: Wrong options for a section too short to give three of its own words.
FILLERS = ("regularisation", "throughput", "calibration", "annotation", "convergence", "distillation")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")
_WORD = re.compile(r"[A-Za-z][A-Za-z-]*[A-Za-z]")


def quoted(text: str, label: str) -> str:
    """The text a prompt quotes after ``label:`` between the lines ``<<<`` and ``>>>`` ('' when absent)."""
    match = re.search(rf"{re.escape(label)}:\n<<<\n(.*?)\n>>>", text, re.S)
    return match.group(1) if match else ""


def _prompt(messages: list[dict[str, str]]) -> str:
    """The first user turn (a follow-up turn repeats nothing of it)."""
    return next((m["content"] for m in messages if m.get("role") == "user"), "")


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if s.strip()]


def _long_words(sentence: str) -> list[str]:
    """Words of six letters or more, longest first (then in order), each once; lower-case ones first (a capital
    would give a sentence-initial word or a name away among lower-case options)."""
    words = [w for w in _WORD.findall(sentence) if len(w) >= 6]
    return sorted(dict.fromkeys(words), key=lambda w: (w[0].isupper(), -len(w), words.index(w)))


class ClozeWriter:
    """``quiz_write`` prompts -> a JSON array of cloze questions on the quoted section (module docstring)."""

    def __call__(self, messages: list[dict[str, str]]) -> str:
        prompt = _prompt(messages)
        count = int(m.group(1)) if (m := re.search(r"Write exactly (\d+) multiple-choice", prompt)) else 1
        sentences = [s for s in _sentences(quoted(prompt, "Section")) if len(s.split()) >= 8 and _long_words(s)]
        return json.dumps([q for k in range(count) if (q := self._question(sentences, k, count))], ensure_ascii=False)

    @staticmethod
    def _question(sentences: list[str], k: int, count: int) -> dict[str, Any] | None:
        if not sentences:
            return None
        sentence = sentences[(k * len(sentences) // count) % len(sentences)]
        candidates = _long_words(sentence)
        answer = candidates[(k // len(sentences)) % len(candidates)]
        own = {w.lower() for w in _WORD.findall(sentence)}
        pool = list(dict.fromkeys(w for s in sentences if s != sentence for w in _long_words(s)
                                  if w.lower() not in own and w[0].isupper() == answer[0].isupper()))
        start = zlib.crc32(sentence.encode()) % max(1, len(pool))
        wrong = [*pool[start:], *pool[:start], *(f for f in FILLERS if f not in own)][:3]
        position = zlib.crc32(f"{sentence}|{answer}".encode()) % 4
        options = [*wrong[:position], answer, *wrong[position:]]
        statement = re.sub(rf"\b{re.escape(answer)}\b", BLANK, sentence, count=1)
        return {"question": f'Which word completes the statement "{statement}"?', "options": options,
                "answer": QUIZ_ANSWERS[position], "evidence": sentence}


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:['-][a-z0-9]+)*", re.sub(r"\[\d+(?:\s*,\s*\d+)*\]", " ", text.lower()))


def _contains(haystack: list[str], needle: list[str]) -> bool:
    return bool(needle) and f" {' '.join(needle)} " in f" {' '.join(haystack)} "


class TextReader:
    """``quiz_answer`` prompts -> one letter, read off the quoted survey's words (module docstring)."""

    #: A non-cloze question is answered only from a sentence holding at least this share of its content words.
    QUESTION_SHARE = 0.5
    #: ... and with an option at least this much carried by that sentence (:func:`~.evidence.support`).
    OPTION_SHARE = 0.6

    def __call__(self, messages: list[dict[str, str]]) -> str:
        prompt = _prompt(messages)
        survey = quoted(prompt, "Survey")
        question = m.group(1).strip() if (m := re.search(r"^Question: (.*)$", prompt, re.M)) else ""
        options = dict(re.findall(rf"^([{''.join(QUIZ_ANSWERS)}]): (.*)$", prompt, re.M))
        if not survey.strip() or not question or len(options) != len(QUIZ_ANSWERS):
            return QUIZ_UNANSWERED
        letter = self._cloze(survey, question, options) if BLANK in question else self._general(survey, question, options)
        return letter or QUIZ_UNANSWERED

    @staticmethod
    def _cloze(survey: str, question: str, options: dict[str, str]) -> str | None:
        statement = question.split('"', 1)[-1].rsplit('"', 1)[0]
        before, _, after = statement.partition(BLANK)
        text = _words(survey)
        found = [letter for letter, option in options.items()
                 if _contains(text, _words(before)[-4:] + _words(option) + _words(after)[:4])]
        return found[0] if len(found) == 1 else None

    def _general(self, survey: str, question: str, options: dict[str, str]) -> str | None:
        asked = content_words(question)
        if not asked:
            return None
        sentences = _sentences(survey)
        best = max(sentences, key=lambda s: len(asked & content_words(s)), default="")
        if len(asked & content_words(best)) < self.QUESTION_SHARE * len(asked):
            return None
        carried = {letter: support(option, best) for letter, option in options.items()}
        top = max(carried.values())
        winners = [letter for letter, share in carried.items() if share == top]
        return winners[0] if top >= self.OPTION_SHARE and len(winners) == 1 else None


def _example() -> None:  # pragma: no cover - a demonstration
    from surge_dataset.llm.prompts import get_prompt

    section = ("Spectral approaches define convolution through the eigendecomposition of the graph Laplacian. "
               "Fast localised filters approximate the spectral response with Chebyshev polynomials of the "
               "Laplacian, so that each filter only touches a node's neighbourhood.")
    written = json.loads(ClozeWriter()(get_prompt("quiz_write").render(title="Graphs", heading="Spectral Methods",
                                                                       section=section, count=2)))
    print(json.dumps(written, indent=1))
    first = written[0]
    shown = "\n".join(f"{c}: {o}" for c, o in zip(QUIZ_CHOICES, [*first["options"], "the survey does not say"],
                                                     strict=True))
    print(TextReader()(get_prompt("quiz_answer").render(title="Graphs", survey=section, question=first["question"],
                                                        options=shown)))


if __name__ == "__main__":  # pragma: no cover
    _example()
