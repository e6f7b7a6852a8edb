"""Every closed vocabulary of surge-bench, named once, and the one parser for id lists and comma lists.

A setting that takes one of a few words (``--protocol official``) is typed with the ``Literal`` below, its
choices are read off that type (``PROTOCOLS = get_args(ProtocolName)``), and code that branches on it
compares with the named constant (``protocol == OFFICIAL``), never a retyped string: a typo then fails at
import, and ``tests/test_vocabulary.py`` guards against a raw string creeping back in.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal, get_args

from surge_dataset.core.errors import SettingError, SurgeError

__all__ = [
    "AGGREGATIONS",
    "ALCE_BACKENDS",
    "ALL_SPLITS",
    "ARXIV",
    "ARXIV_SOURCE_HOST",
    "CITATIONS_STAGE",
    "CITATION_SOURCES",
    "FRESH_HOSTS",
    "FRESH_STAGES",
    "NO_CITATION_SOURCE",
    "RESOLVE_STAGE",
    "RULE_STAGE",
    "SOURCE_STAGE",
    "CitationSource",
    "FreshHost",
    "FreshStage",
    "BBL",
    "BIB",
    "BIBLIOGRAPHY_KINDS",
    "BROKEN_LATEX",
    "CROSSREF",
    "DEFINED",
    "DTYPES",
    "EXISTS",
    "INSPECT_LOG",
    "IN_CORPUS",
    "JUDGE_STYLES",
    "MALFORMED_ARCHIVE",
    "HUMAN_PROTOCOLS",
    "HUMAN_VERDICTS",
    "METRIC_GROUPS",
    "MODEL_KINDS",
    "NOT_FOUND",
    "NO_BIBLIOGRAPHY",
    "NO_SECTIONS",
    "NO_TEX",
    "OFFICIAL",
    "OPENALEX",
    "PAIRWISE",
    "PAPER",
    "PROTOCOLS",
    "QUIZ_ANSWERS",
    "RANKING",
    "QUIZ_CHOICES",
    "QUIZ_UNANSWERED",
    "REFERENCE_LABELS",
    "RELEASED",
    "SEMANTIC_SCHOLAR",
    "SOURCE_PROBLEMS",
    "SPLITS",
    "SURVEYGEN",
    "UNCHECKED",
    "AggregateName",
    "AlceBackend",
    "BibliographyKind",
    "ChoiceError",
    "HumanProtocol",
    "HumanVerdict",
    "DType",
    "JudgeStyle",
    "MetricGroup",
    "ModelKind",
    "ProtocolName",
    "QuizAnswer",
    "ReferenceLabel",
    "SourceProblem",
    "Split",
    "UnknownNameError",
    "check_choice",
    "closest_hint",
    "parse_assignments",
    "parse_ids",
    "parse_list",
    "split_name",
]

#: How generated surveys are read and scored: ``official`` = the released evaluator's reading, ``paper`` = the
#: paper's text (protocol.md).
ProtocolName = Literal["official", "paper"]
OFFICIAL: Final[ProtocolName] = "official"
PAPER: Final[ProtocolName] = "paper"
PROTOCOLS: tuple[ProtocolName, ...] = get_args(ProtocolName)

#: How undefined values enter a mean: ``released`` scores them 0 (the released evaluator), ``defined`` leaves
#: them out and counts them.
AggregateName = Literal["released", "defined"]
RELEASED: Final[AggregateName] = "released"
DEFINED: Final[AggregateName] = "defined"
AGGREGATIONS: tuple[AggregateName, ...] = get_args(AggregateName)

#: A model's compute precision (``auto``: fp16 on CUDA, fp32 elsewhere).
DType = Literal["auto", "fp32", "fp16", "bf16"]
DTYPES: tuple[DType, ...] = get_args(DType)

#: What decides ALCE's entailments: the NLI cross-encoder or the LLM judge.
AlceBackend = Literal["nli", "judge"]
ALCE_BACKENDS: tuple[AlceBackend, ...] = get_args(AlceBackend)

#: The judge settings of SQS and CQS: ``released`` = the released evaluator's decoding, ``surge`` = ours.
JudgeStyle = Literal["surge", "released"]
SURGE_STYLE: Final[JudgeStyle] = "surge"
RELEASED_STYLE: Final[JudgeStyle] = "released"
JUDGE_STYLES: tuple[JudgeStyle, ...] = get_args(JudgeStyle)

#: The models a metric can ask the runner for (each built at most once per run).
ModelKind = Literal["nli", "encoder", "judge", "ner"]
NLI: Final[ModelKind] = "nli"
ENCODER: Final[ModelKind] = "encoder"
JUDGE: Final[ModelKind] = "judge"
NER: Final[ModelKind] = "ner"
MODEL_KINDS: tuple[ModelKind, ...] = get_args(ModelKind)
#: Not a model: the metric resolves reference titles against the corpus.
CORPUS: Final = "corpus"

#: The built-in LLM backends of ``--llm`` / ``--judge`` specs (``openai:<model>``, ``hf:<model>``,
#: ``gguf:<file>``). The backends are an open set: ``LLM_BACKENDS`` of ``llm/base.py`` (entry-point group
#: ``surge.llm_backends``).
OPENAI: Final = "openai"
HF: Final = "hf"
GGUF: Final = "gguf"

#: ``--metrics`` aliases: ``all`` = the SurGE metrics, ``surveygen`` = SurveyGen's.
MetricGroup = Literal["all", "surveygen"]
METRIC_GROUPS: tuple[MetricGroup, ...] = get_args(MetricGroup)

#: The ``surge import`` format of Inspect logs. The formats are an open set: the registry of
#: ``importers/registry.py`` (entry-point group ``surge.importers``), not a vocabulary.
INSPECT_LOG: Final = "inspect"

#: Which GT surveys a command runs over.
Split = Literal["test", "train", "all"]
ALL_SPLITS: Final[Split] = "all"
SPLITS: tuple[Split, ...] = get_args(Split)


#: The built-in sources ``reference_existence`` looks a reference title up in after the corpus: ``surveygen`` =
#: the references of SurveyGen files (local, ``--bib-surveygen``), the others web APIs. The web services are an
#: open set: the registry of ``references/registry.py`` (entry-point group ``surge.bib_services``).
SURVEYGEN: Final = "surveygen"
OPENALEX: Final = "openalex"
SEMANTIC_SCHOLAR: Final = "semanticscholar"
ARXIV: Final = "arxiv"
CROSSREF: Final = "crossref"

#: What ``reference_existence`` says of one reference entry: ``in_corpus`` (a corpus paper), ``exists`` (a
#: service knows the title), ``not_found`` (every source asked answered and none knows it), ``unchecked`` (a
#: service failed and none found it: never counted as fabricated).
ReferenceLabel = Literal["in_corpus", "exists", "not_found", "unchecked"]
IN_CORPUS: Final[ReferenceLabel] = "in_corpus"
EXISTS: Final[ReferenceLabel] = "exists"
NOT_FOUND: Final[ReferenceLabel] = "not_found"
UNCHECKED: Final[ReferenceLabel] = "unchecked"
REFERENCE_LABELS: tuple[ReferenceLabel, ...] = get_args(ReferenceLabel)

#: Where ``surge data fresh`` read a survey's bibliography (``fresh/bibliography.py``): ``bbl`` = a compiled
#: list (a ``.bbl`` file or an inline ``thebibliography``), ``bib`` = a BibTeX database.
BibliographyKind = Literal["bbl", "bib"]
BBL: Final[BibliographyKind] = "bbl"
BIB: Final[BibliographyKind] = "bib"
BIBLIOGRAPHY_KINDS: tuple[BibliographyKind, ...] = get_args(BibliographyKind)

#: Why an arXiv e-print cannot give a survey (``fresh/latex.py``'s ``SourceError.reason``).
SourceProblem = Literal["malformed_archive", "no_tex", "no_bibliography", "broken_latex", "no_sections"]
MALFORMED_ARCHIVE: Final[SourceProblem] = "malformed_archive"
NO_TEX: Final[SourceProblem] = "no_tex"
NO_BIBLIOGRAPHY: Final[SourceProblem] = "no_bibliography"
BROKEN_LATEX: Final[SourceProblem] = "broken_latex"
NO_SECTIONS: Final[SourceProblem] = "no_sections"
SOURCE_PROBLEMS: tuple[SourceProblem, ...] = get_args(SourceProblem)

#: Where ``surge data fresh`` reads a candidate survey's citation count (``none``: not looked up).
CitationSource = Literal["openalex", "semanticscholar", "none"]
NO_CITATION_SOURCE: Final[CitationSource] = "none"
CITATION_SOURCES: tuple[CitationSource, ...] = get_args(CitationSource)

#: The hosts ``surge data fresh`` asks, as ``--bib-base-url HOST=URL`` names them (``arxiv-src``: the e-prints).
FreshHost = Literal["arxiv", "arxiv-src", "openalex", "semanticscholar"]
ARXIV_SOURCE_HOST: Final[FreshHost] = "arxiv-src"
FRESH_HOSTS: tuple[FreshHost, ...] = get_args(FreshHost)

#: The step of ``surge data fresh`` at which a candidate survey was dropped (``fresh_manifest.json``).
FreshStage = Literal["rule", "citations", "source", "resolve"]
RULE_STAGE: Final[FreshStage] = "rule"
CITATIONS_STAGE: Final[FreshStage] = "citations"
SOURCE_STAGE: Final[FreshStage] = "source"
RESOLVE_STAGE: Final[FreshStage] = "resolve"
FRESH_STAGES: tuple[FreshStage, ...] = get_args(FreshStage)


#: The letters of a quiz question's four options (``quizzes.jsonl``'s ``answer``), and the fifth choice the answering
#: model is offered besides them: "E: the survey does not say" (graded as unanswered, never correct).
QuizAnswer = Literal["A", "B", "C", "D"]
QUIZ_ANSWERS: tuple[QuizAnswer, ...] = get_args(QuizAnswer)
QUIZ_UNANSWERED: Final = "E"
QUIZ_CHOICES: tuple[str, ...] = (*QUIZ_ANSWERS, QUIZ_UNANSWERED)


#: Human evaluation (``surge human``): SurGE's blind ranking of every system's survey on a topic, or SurveyGen's
#: pairwise comparison of two surveys.
HumanProtocol = Literal["ranking", "pairwise"]
RANKING: Final[HumanProtocol] = "ranking"
PAIRWISE: Final[HumanProtocol] = "pairwise"
HUMAN_PROTOCOLS: tuple[HumanProtocol, ...] = get_args(HumanProtocol)

#: A pairwise verdict, read as "the first survey is ... the second" (SurveyGen's Table 6 protocol).
HumanVerdict = Literal["better", "comparable", "worse"]
HUMAN_VERDICTS: tuple[HumanVerdict, ...] = get_args(HumanVerdict)

def closest_hint(name: str, known: Iterable[str]) -> str:
    """``closest: 'recall'`` when a known name is near ``name`` (difflib), else the list of known names."""
    known = list(known)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f"closest: {close[0]!r}" if close else f"known: {', '.join(known)}"


class UnknownNameError(SurgeError, KeyError):
    """A name that is not in a registry (metric, generator, index kind, bundled model), with the closest one.

    A ``KeyError`` for the callers that caught one before; printed without ``KeyError``'s quotes.
    """

    def __init__(self, kind: str, name: str, known: Iterable[str], *, extra: str = "") -> None:
        self.kind, self.name = kind, name
        super().__init__(f"unknown {kind} {name!r} ({closest_hint(name, known)}){extra}")

    __str__ = Exception.__str__


class ChoiceError(SettingError):
    """A setting given a word outside its vocabulary."""


def check_choice(setting: str, value: object, choices: Sequence[str]) -> None:
    """Raise :class:`ChoiceError` naming the setting, the choices and the closest one, unless ``value`` is one."""
    if value in choices:
        return
    close = difflib.get_close_matches(str(value), list(choices), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ChoiceError(f"{setting} must be one of {', '.join(choices)}, not {value!r}{hint}")


def parse_list(text: str | Sequence[str] | None) -> list[str]:
    """``'recall, shr,'`` or ``['recall', 'shr']`` -> ``['recall', 'shr']``: the one comma-list rule (blanks dropped)."""
    if text is None:
        return []
    items = text.split(",") if isinstance(text, str) else text
    return [item.strip() for item in items if item.strip()]


def parse_assignments(items: Mapping[str, Any] | Sequence[str] | str | None, option: str, *, shape: str = "NAME=VALUE",
                      hint: str = "", choices: Sequence[str] | None = None,
                      empty_value: bool = False) -> dict[str, str]:
    """``['openalex=http://h', ...]`` (a repeatable ``NAME=VALUE`` option) or a mapping -> ``{name: value}``: the
    one ``NAME=VALUE`` rule (``--bib-base-url``, ``--bib-rate-limit``, ``--model``, ``--details``, ``-o``).

    Names and values are stripped; a later item of the same name wins. An item without ``=``, a name or (unless
    ``empty_value``) a value is a :class:`SettingError` naming ``option`` and the expected ``shape`` (``hint`` is
    appended, e.g. ``", e.g. arxiv=http://127.0.0.1:8000"``); with ``choices`` every name is checked
    (:func:`check_choice`: the closest one on a typo).
    """
    if not items:
        return {}
    if isinstance(items, str):
        items = [items]
    pairs = [(str(k), str(v)) for k, v in items.items()] if isinstance(items, Mapping) else []
    for item in [] if isinstance(items, Mapping) else items:
        name, sep, value = str(item).partition("=")
        if not sep or not name.strip() or not (value.strip() or empty_value):
            raise SettingError(f"{option} {item!r}: expected {shape}{hint}")
        pairs.append((name, value))
    out: dict[str, str] = {}
    for name, value in pairs:
        if choices is not None:
            check_choice(option, name.strip(), choices)
        out[name.strip()] = value.strip()
    return out


def split_name(spec: str | os.PathLike[str]) -> tuple[str | None, str]:
    """``NAME=PATH`` -> ``(NAME, PATH)``; a bare ``PATH`` -> ``(None, PATH)``: the optional name of a file given on the
    command line (``surge meta-eval``, ``surge judge-agreement``). A path that exists is taken whole, ``=`` and all."""
    text = os.fspath(spec)
    if "=" in text and not os.path.exists(text):
        name, _, rest = text.partition("=")
        return (name.strip() or None), rest.strip()
    return None, text


def parse_ids(text: str | Sequence[int] | None) -> list[int]:
    """``'10,11'``, ``'0-40'`` or ``'1,5-7'`` -> survey ids, in the order given (ranges inclusive).

    Raises :class:`~surge_dataset.core.errors.SettingError` (a ``ValueError``) naming the part that is not a
    number or a range.
    """
    if text is None:
        return []
    if not isinstance(text, str):
        return [int(i) for i in text]
    ids: list[int] = []
    for part in parse_list(text):
        lo, sep, hi = part.partition("-")
        try:
            ids.extend(range(int(lo), int(hi) + 1) if sep else [int(part)])
        except ValueError:
            raise SettingError(f"{part!r} is not a survey id or a range such as '0-40'") from None
    return ids
