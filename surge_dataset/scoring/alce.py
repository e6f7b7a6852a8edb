"""ALCE citation recall and precision (Gao et al., 2023, ``compute_autoais``) for generated surveys.

SurGE's citation accuracy asks whether each cited paper is *relevant*; ALCE asks whether the cited papers
*support the sentence* and whether every citation was needed, so it catches over-citation. The rules of
ALCE's ``compute_autoais`` (``eval.py`` of princeton-nlp/ALCE), as implemented here:

* the survey's text is split into sentences; every sentence counts, cited or not;
* a sentence's citations are its ``[n]`` marks, in order (duplicates kept). *All* of them are checked
  first: a sentence citing any number without text (see below), even past the third, is unsupported.
  Only then are they cut to the first :data:`MAX_CITATIONS` (ALCE's ``--at_most_citations 3``);
* the premise is the cited papers one after another, each ``Title: <title>\\n<abstract>``, joined by
  ``\\n``; the hypothesis is the sentence with its citation marks removed;
* **recall** = supported sentences / sentences, a sentence being supported when the NLI backend says the
  joint premise entails it;
* **precision** = correct citations / citations. In a supported sentence with one citation it is correct;
  with several, each is correct if it alone entails the sentence, or else if the others without it no
  longer do (otherwise it is an over-citation). Every citation of an unsupported sentence is incorrect.
  A survey with sentences but no citation has precision 0, as in ALCE; without any sentence both are None.

Where we differ from ALCE, on purpose: a citation of a number absent from the reference list or of a
reference that did not resolve to a corpus paper has no text; ALCE treats such a sentence as unsupported
but leaves its citations *out* of the precision denominator (citing a non-existent document would then
never cost precision), we count that sentence's citations (its first three, as for any sentence) as
incorrect. ALCE splits sentences with NLTK's trained punkt model (a separate data download);
:func:`split_sentences` uses a rule documented there. Citation forms ``[1, 2]``, ``[1-3]``, ``[1; 2]``
are read whatever the evaluation protocol. With an LLM judge as the NLI backend an answer that could not
be obtained is *undecided*: the sentence (or citation) is left out of the means and counted, never
scored 0.

Pure: the caller passes the parsed survey, the resolution of its reference list, the resolved papers and
an entailment backend (:class:`NLIEntailment` over a cross-encoder's ``logits``, or
:class:`JudgeEntailment` over the LLM judge layer). Each backend memoises its decisions, so a run can ask
all surveys' questions of one stage in one batch (:func:`alce_stage_pairs`) before scoring them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from surge_dataset.core.interfaces import NLIBackend, Pair
from surge_dataset.core.records import Paper
from surge_dataset.scoring.citations import ENTAILMENT
from surge_dataset.survey import GeneratedSurvey
from surge_dataset.survey.citations import CITATION_ITEM_RE, expand_citation_range
from surge_dataset.survey.headings import is_references_title

__all__ = [
    "MAX_CITATIONS",
    "STAGES",
    "AlceResult",
    "AlceSentence",
    "Entailment",
    "JudgeEntailment",
    "NLIEntailment",
    "alce_citation_scores",
    "alce_premise",
    "alce_sentences",
    "alce_stage_pairs",
    "citation_numbers",
    "remove_citations",
    "split_sentences",
]

#: ALCE's ``--at_most_citations``: only a sentence's first three citations are read.
MAX_CITATIONS = 3
#: The order in which the questions of a survey can be asked: each stage needs the previous answers.
STAGES = ("joint", "single", "leave_one_out")


#: A group of citation numbers in brackets: ``[3]``, ``[1, 2]``, ``[1-3]``, ``[1; 2]``, ``[2, 4-6]``.
_CITE = r"\[\s*\d{1,6}(?:\s*[-\u2013\u2014]\s*\d{1,6})?(?:\s*[,;]\s*\d{1,6}(?:\s*[-\u2013\u2014]\s*\d{1,6})?)*\s*\]"
_CITE_RE = re.compile(_CITE)
_REMOVE_RE = re.compile(r"\s*" + _CITE)
#: A sentence end: ``.``/``?``/``!`` (closing quotes or brackets), then citation groups written after the
#: full stop (``text. [3]`` belongs to that sentence), then white space or the end of the text.
_END_RE = re.compile(r"[.?!]+[\"'\u201d\u2019)]*(?:\s*" + _CITE + r")*(?=\s|$)")
_LAST_WORD_RE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_ABBREVIATIONS = frozenset(
    "al e.g eg i.e ie cf vs etc fig figs eq eqs sec secs ref refs no nos vol pp approx resp dr mr ms prof "
    "jr sr st inc ed eds ch".split()
)
_BULLET_RE = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+")


# ------------------------------------------------------------------------------------------ sentences


@dataclass(frozen=True)
class AlceSentence:
    """One sentence of the survey: as written, as hypothesis (citations removed), and what it cites."""

    text: str
    hypothesis: str
    numbers: tuple[int, ...]  # cited reference numbers in order, duplicates kept, not yet cut to 3
    heading: str


def citation_numbers(sentence: str) -> list[int]:
    """The reference numbers a sentence cites, in order of appearance; ranges expanded."""
    numbers: list[int] = []
    for group in _CITE_RE.finditer(sentence):
        for item in CITATION_ITEM_RE.finditer(group.group(0)):
            low = int(item.group(1))
            high = int(item.group(2)) if item.group(2) else low
            numbers.extend(expand_citation_range(low, high))
    return numbers


def remove_citations(sentence: str) -> str:
    """The sentence without citation marks, list bullet and emphasis markers (ALCE's hypothesis)."""
    text = _REMOVE_RE.sub("", sentence)
    text = _BULLET_RE.sub("", text).replace("**", "").replace("__", "")
    text = re.sub(r"\s+([.,;:?!])", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def _is_abbreviation(text: str, dot: int) -> bool:
    word = _LAST_WORD_RE.search(text, max(0, dot - 12), dot)
    if word is None:
        return False
    last = word.group(1)
    return (len(last) == 1 and last.isupper()) or last.lower().rstrip(".") in _ABBREVIATIONS


_BLOCK_START_RE = re.compile(r"^\s*(?:[-*+\u2022]\s|\d+[.)]\s|\||>|#)")


def _blocks(text: str) -> list[str]:
    """Paragraphs and list items, each on one line: a blank line ends a block, a list item, table row,
    quote or heading starts one, and a wrapped line continues the block before it."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in text.split("\n"):
        if not line.strip():
            if current:
                blocks.append(current)
            current = []
            continue
        if current and _BLOCK_START_RE.match(line):
            blocks.append(current)
            current = []
        current.append(line.strip())
    if current:
        blocks.append(current)
    return [" ".join(block) for block in blocks]


def split_sentences(text: str) -> list[str]:
    """Sentences of a block of text (ALCE uses NLTK punkt; its trained model is a separate download).

    Paragraphs and list items are split apart first (a wrapped line continues its paragraph); within
    one, a sentence ends at ``.``/``?``/``!`` followed by white space, unless the word before a full
    stop is a common abbreviation (``et al.``, ``e.g.``, ``Fig.``) or a capital initial. Citations written
    after the full stop stay with their sentence. Pieces without any letter (table rules) are dropped.
    """
    sentences: list[str] = []
    for block in _blocks(text):
        begin = 0
        for match in _END_RE.finditer(block):
            if match.group(0).startswith(".") and _is_abbreviation(block, match.start()):
                continue
            sentences.append(block[begin : match.end()])
            begin = match.end()
        sentences.append(block[begin:])
    return [s.strip() for s in sentences if re.search(r"[^\W\d_]", s)]


def _reference_lines(parsed: GeneratedSurvey) -> set[str]:
    return {ref.raw.strip() for ref in parsed.references.values()}


def alce_sentences(parsed: GeneratedSurvey) -> list[AlceSentence]:
    """Every sentence of the survey's text in document order, reference list and headings excluded.

    Text under a References/Bibliography heading is skipped, and so is every line the parser read as a
    reference entry (under the official protocol those lines sit inside ordinary sections).
    """
    entries = _reference_lines(parsed)
    out: list[AlceSentence] = []
    for node in parsed.nodes():
        if node.level > 0 and is_references_title(node.title):
            continue
        heading = node.title if node.level > 0 else ""
        lines = [line for line in node.content.split("\n") if line.strip() not in entries]
        for sentence in split_sentences("\n".join(lines)):
            hypothesis = remove_citations(sentence)
            if re.search(r"[^\W\d_]", hypothesis):
                out.append(AlceSentence(sentence, hypothesis, tuple(citation_numbers(sentence)), heading))
    return out


def alce_premise(papers: Sequence[Paper]) -> str:
    """ALCE's premise: ``Title: <title>\\n<abstract>`` per cited paper, joined by line breaks."""
    return "\n".join(f"Title: {p.title}\n{p.abstract or ''}" for p in papers)


# ------------------------------------------------------------------------------------------ backends


class Entailment(Protocol):
    """Decides whether each (premise, hypothesis) pair is an entailment; None = no decision obtained."""

    def entails(self, pairs: Sequence[Pair]) -> list[bool | None]: ...


class NLIEntailment:
    """Entailment = the cross-encoder's top label is ``entailment`` (canonical logit columns).

    ``nli`` is anything with ``logits(pairs)`` (``NLIScorer``, ``PrefetchedNLI``, a test fake); the pair
    is fed as (premise, hypothesis). Decisions are memoised, so asking again costs nothing.
    """

    def __init__(self, nli: NLIBackend) -> None:
        self.nli = nli
        self._memo: dict[Pair, bool] = {}

    def entails(self, pairs: Sequence[Pair]) -> list[bool | None]:
        todo = list(dict.fromkeys(p for p in pairs if p not in self._memo))
        if todo:
            logits = np.asarray(self.nli.logits(todo))
            for pair, row in zip(todo, logits, strict=True):
                self._memo[pair] = int(np.argmax(row)) == ENTAILMENT
        return [self._memo[p] for p in pairs]


class JudgeEntailment:
    """An LLM judge as the NLI model: prompt ``alce_entailment`` (``surge_dataset.llm.prompts``), answer 1 or 0.

    ``judge`` is anything with ``run(requests) -> outcomes`` (normally :class:`surge_dataset.llm.Judge`,
    which batches, retries unreadable answers and caches). An answer missing after every try is None;
    ``failed`` holds the pairs whose request failed in transport (a rerun asks them again).
    """

    def __init__(self, judge: Any) -> None:
        self.judge = judge
        self.failed: set[Pair] = set()
        self._memo: dict[Pair, bool | None] = {}

    @staticmethod
    def request(pair: Pair) -> Any:
        from surge_dataset.llm.judge import JudgeRequest
        from surge_dataset.llm.prompts import get_prompt

        premise, hypothesis = pair
        return JudgeRequest.score(get_prompt("alce_entailment").render(premise=premise, claim=hypothesis), 0, 1)

    def entails(self, pairs: Sequence[Pair]) -> list[bool | None]:
        todo = list(dict.fromkeys(p for p in pairs if p not in self._memo))
        if todo:
            for pair, outcome in zip(todo, self.judge.run([self.request(p) for p in todo]), strict=True):
                self._memo[pair] = None if outcome.value is None else outcome.value == 1
                if outcome.value is None and getattr(outcome, "failed", False):
                    self.failed.add(pair)
        return [self._memo[p] for p in pairs]


# ------------------------------------------------------------------------------------------ scoring


@dataclass
class AlceResult:
    """ALCE scores of one survey and the counts they come from."""

    recall: float | None
    precision: float | None
    sentences: int  # sentences with a decision (the recall denominator)
    supported: int
    citations: int  # citations with a decision (the precision denominator), at most 3 per sentence
    correct: int
    multi_cited: int  # sentences with more than one citation
    overcited: int  # citations judged unnecessary in supported multi-citation sentences
    unusable: int  # citations of a missing number or of an unresolved reference, past the third included
    undecided: int  # sentences or citations left out because the backend gave no decision
    failed: int = 0  # of the undecided, how many because a judge request failed in transport
    details: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class _Plan:
    sentence: AlceSentence
    numbers: tuple[int, ...]  # cut to max_citations
    papers: tuple[Paper | None, ...]  # the cut citations' papers (None: no text)
    unusable: tuple[int, ...] = ()  # every cited number without text, cut or not, in order

    @property
    def usable(self) -> bool:
        return bool(self.papers) and not self.unusable

    def pair(self, keep: Sequence[int]) -> Pair:
        return alce_premise([self.papers[i] for i in keep]), self.sentence.hypothesis  # type: ignore[misc]

    def joint(self) -> Pair:
        return self.pair(range(len(self.papers)))

    def without(self, i: int) -> Pair:
        return self.pair([j for j in range(len(self.papers)) if j != i])


def _plans(
    sentences: Sequence[AlceSentence],
    references: Mapping[int, int | None],
    papers: Mapping[int, Paper],
    max_citations: int,
) -> list[_Plan]:
    # The order of ALCE's compute_autoais (eval.py of princeton-nlp/ALCE), per sentence:
    #   1. ref = every "[n" of the sentence, in order, duplicates kept (n - 1: ids from 0);
    #   2. no citation at all -> unsupported;
    #   3. elif any(ref_id >= len(docs) for ref_id in ref) -> unsupported, checked over ALL citations,
    #      a bad 4th one included; ALCE does not drop the bad numbers and go on, it rejects the sentence;
    #   4. else ref = ref[:at_most_citations] (3), and only these enter the premise and the precision count.
    # So the check comes before the cut: "X holds [1][2][3][7]." with [7] absent is unsupported, though its
    # first three citations all exist (cutting first would have kept it), and "[1][7][2][3]" is unsupported
    # too (filtering out [7] and then cutting would have kept [1][2][3]). "Without text" here is ALCE's out
    # of range (a number absent from the reference list) or, our addition, a reference not resolved to a
    # corpus paper.
    plans = []
    for sentence in sentences:
        docs = [papers.get(d) if (d := references.get(n)) is not None else None for n in sentence.numbers]
        unusable = tuple(n for n, doc in zip(sentence.numbers, docs, strict=True) if doc is None)
        plans.append(_Plan(sentence, sentence.numbers[:max_citations], tuple(docs[:max_citations]), unusable))
    return plans


def _stage_pairs(stage: str, plans: Sequence[_Plan], entailment: Entailment) -> list[Pair]:
    if stage not in STAGES:
        raise ValueError(f"unknown ALCE stage {stage!r}; expected one of {STAGES}")
    usable = [p for p in plans if p.usable]
    if stage == "joint":
        return [p.joint() for p in usable]
    multi = [p for p in usable if len(p.papers) > 1]
    supported = entailment.entails([p.joint() for p in multi])
    multi = [p for p, ok in zip(multi, supported, strict=True) if ok]
    if stage == "single":
        return [p.pair([i]) for p in multi for i in range(len(p.papers))]
    alone = entailment.entails([p.pair([i]) for p in multi for i in range(len(p.papers))])
    flags = iter(alone)
    return [p.without(i) for p in multi for i in range(len(p.papers)) if next(flags) is False]


def alce_stage_pairs(
    stage: str,
    sentences: Sequence[AlceSentence],
    references: Mapping[int, int | None],
    papers: Mapping[int, Paper],
    entailment: Entailment,
    *,
    max_citations: int = MAX_CITATIONS,
) -> list[Pair]:
    """The (premise, hypothesis) pairs one stage of :func:`alce_citation_scores` will ask about.

    ``joint``: one per sentence whose citations all have text; ``single``: each citation alone, for
    supported sentences with several citations; ``leave_one_out``: the others without it, for those
    citations that do not entail alone. Later stages ask ``entailment`` for the earlier answers, so a run
    prefetches stage by stage, all surveys at once.
    """
    return _stage_pairs(stage, _plans(sentences, references, papers, max_citations), entailment)


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def alce_citation_scores(
    sentences: Sequence[AlceSentence],
    references: Mapping[int, int | None],
    papers: Mapping[int, Paper],
    entailment: Entailment,
    *,
    max_citations: int = MAX_CITATIONS,
    with_details: bool = False,
) -> AlceResult:
    """ALCE citation recall and precision of one survey (rules in the module docstring).

    ``references`` maps each reference-list number to its resolved doc id (None = unresolved);
    ``papers`` holds the resolved papers by doc id.
    """
    plans = _plans(sentences, references, papers, max_citations)
    for stage in STAGES:  # one batched call per stage; scoring below reads the memoised decisions
        entailment.entails(_stage_pairs(stage, plans, entailment))
    failed_pairs = getattr(entailment, "failed", set())
    decided = supported = citations = correct = multi = overcited = unusable = undecided = failed = 0
    details: list[dict[str, Any]] = []
    for plan in plans:
        n = len(plan.numbers)
        multi += n > 1
        record: dict[str, Any] = {
            "kind": "alce_sentence", "heading": plan.sentence.heading, "sentence": plan.sentence.text,
            "hypothesis": plan.sentence.hypothesis, "numbers": list(plan.numbers),
            "doc_ids": [references.get(k) for k in plan.numbers],
        }
        verdicts: list[bool | None]
        if not n:
            joint: bool | None = False
            record["why"] = "no citation"
            verdicts = []
        elif not plan.usable:  # checked over every citation before the cut, as ALCE does
            joint = False
            missing = len(plan.unusable)
            unusable += missing
            record["why"] = f"{missing} citation(s) of a missing number or an unresolved reference"
            record["unusable_numbers"] = list(plan.unusable)
            verdicts = [False] * n
        else:
            joint = entailment.entails([plan.joint()])[0]
            record["why"] = "nli"
            if joint is None:  # the sentence is left out; its citations are not asked about
                verdicts = []
                failed += plan.joint() in failed_pairs
            elif not joint:
                verdicts = [False] * n
            elif n == 1:
                verdicts = [True]
            else:
                verdicts = []
                for i in range(n):
                    alone = entailment.entails([plan.pair([i])])[0]
                    if alone is None:
                        verdicts.append(None)
                        failed += plan.pair([i]) in failed_pairs
                    elif alone:
                        verdicts.append(True)
                    else:
                        rest = entailment.entails([plan.without(i)])[0]
                        verdicts.append(None if rest is None else not rest)
                        failed += rest is None and plan.without(i) in failed_pairs
                        overcited += rest is True
        if joint is None:
            undecided += 1
        else:
            decided += 1
            supported += joint
        for verdict in verdicts:
            if verdict is None:
                undecided += 1
            else:
                citations += 1
                correct += verdict
        if with_details:
            record.update(supported=joint, citations_correct=verdicts)
            details.append(record)
    recall = _ratio(supported, decided)
    precision = _ratio(correct, citations) if citations else (0.0 if decided else None)
    return AlceResult(recall, precision, decided, supported, citations, correct, multi, overcited, unusable,
                      undecided, failed, details)
