"""Reference existence (SurveyGen's citation accuracy): the share of checked reference entries that exist.

Each entry of the reference list gets one label from the resolver chain (``surge_dataset/references/``):
``in_corpus``, ``exists``, ``not_found`` or ``unchecked``; the value is (in_corpus + exists) / (in_corpus +
exists + not_found), ``unchecked`` entries (a service failed) being left out rather than counted fabricated.
The prefetch asks each source once for the whole run (every distinct title the corpus lacks); ``score`` only
reads the labels.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ...normalise import normalise_title
from ...vocabulary import CORPUS, EXISTS, IN_CORPUS, NOT_FOUND, REFERENCE_LABELS, SURVEYGEN, UNCHECKED
from ..metric import Metric, MetricOutput, diagnostic, register

__all__ = ["ReferenceExistence", "label_surveys"]

#: Reference entries listed by name in a diagnostic before "..." (the details list them all).
SHOWN = 3


def _options(config: Any) -> Any:
    from ...references import ChainOptions, current_session
    from ..config import RunOptions

    session = current_session()
    return session, ChainOptions.from_settings(config, session.run or RunOptions(), session.environ)


def label_surveys(surveys: Any, config: Any) -> None:
    """Label every reference entry of ``surveys`` (``survey.reference_labels``), asking each source once per title."""
    from ...references import label_reference

    session, options = _options(config)
    chain = session.chain(options)
    titles: dict[str, str] = {}
    for survey in surveys:
        for number, reference in survey.parsed.references.items():
            key = normalise_title(reference.title)
            if survey.references.get(number) is None and key:
                titles.setdefault(key, reference.title)
    corpus = next((s.corpus for s in surveys if getattr(s, "corpus", None) is not None), None)
    answers: dict[str, list[Any]] = {}
    if titles:
        chain.check()
        answers = chain.lookup(titles, corpus)
    fuzzy = sorted({e.doc_id for e in _fuzzy_in_corpus(answers, titles, options.threshold)})
    papers = {p.doc_id: p for p in corpus.get(fuzzy) if p is not None} if corpus is not None and fuzzy else {}
    for survey in surveys:
        labels = {}
        for number, reference in survey.parsed.references.items():
            evidence = label_reference(reference.title, survey.references.get(number),
                                       answers.get(normalise_title(reference.title), []), options.threshold)
            labels[number] = (evidence, _after_survey(evidence, survey, papers))
        survey.reference_labels = labels


def _fuzzy_in_corpus(answers: dict[str, list[Any]], titles: dict[str, str], threshold: float) -> list[Any]:
    from ...references import label_reference

    found = [label_reference(titles[key], None, answers[key], threshold) for key in answers]
    return [e for e in found if e.label == IN_CORPUS and e.doc_id is not None]


def _after_survey(evidence: Any, survey: Any, papers: dict[int, Any]) -> bool:
    """Whether the paper the entry was found as is dated after the GT survey (temporal leakage)."""
    from ...references import published_after

    if evidence.label == IN_CORPUS:
        paper = survey.papers.get(evidence.doc_id) or papers.get(evidence.doc_id)
        return paper is not None and published_after(paper.date, paper.year, survey.gt.date, survey.gt.year)
    if evidence.label == EXISTS:
        return published_after(evidence.date, evidence.year, survey.gt.date, survey.gt.year)
    return False


def _titles(numbers: list[int], survey: Any) -> str:
    shown = ", ".join(f"[{n}] {survey.parsed.references[n].title[:60]!r}" for n in numbers[:SHOWN])
    return shown + (", ..." if len(numbers) > SHOWN else "")


@register
class ReferenceExistence(Metric):
    name = "reference_existence"
    keys = ("reference_existence",)
    value_range = (0.0, 1.0)
    needs = frozenset({"corpus"})
    order = 75
    description = (
        "Share of the generated survey's reference entries that exist, in the corpus or, by title, in a "
        "bibliographic service (SurveyGen's OpenAlex, Semantic Scholar, arXiv, Crossref), over the entries "
        "checked (SurveyGen citation accuracy)"
    )

    def prefetch(self, surveys, models, config):
        """Every unresolved title of the run, once per source (``references.chain``)."""
        label_surveys(surveys, config)

    def estimate_requests(self, surveys, config):
        return [], None  # no judge question: the services' requests are not LLM calls

    def score(self, survey, models, config):
        if survey.reference_labels is None:
            label_surveys([survey], config)
        labels = survey.reference_labels or {}
        counts = Counter(evidence.label for evidence, _ in labels.values())
        checked = counts[IN_CORPUS] + counts[EXISTS] + counts[NOT_FOUND]
        value = (counts[IN_CORPUS] + counts[EXISTS]) / checked if checked else None
        after = [n for n, (_, late) in labels.items() if late]
        out = {f"refs_{label}": counts[label] for label in REFERENCE_LABELS}
        out.update(refs_after_survey=len(after), reference_lookups_failed=counts[UNCHECKED])
        return MetricOutput({"reference_existence": value}, counts=out, diagnostics=self._notes(survey, labels, after, config),
                            details=[{"kind": "reference", "metric": self.name, "number": number,
                                      "title": survey.parsed.references[number].title, "after_survey": late,
                                      **evidence.as_record()} for number, (evidence, late) in sorted(labels.items())])

    def _notes(self, survey, labels, after, config) -> list[dict[str, Any]]:
        from ...references import is_offline, parse_services

        notes = []
        if not labels:
            notes.append(diagnostic("no_references", "the survey has no reference entry: reference_existence undefined"))
        lacking = [n for n, (e, _) in labels.items() if e.source != CORPUS and e.label in (NOT_FOUND, UNCHECKED)]
        services = parse_services(config.bib_services)
        web = [s for s in services if s != SURVEYGEN]
        if lacking and (not web or is_offline()):
            why = "SURGE_OFFLINE=1" if web else "no web service in --bib-services" if services else "no --bib-services"
            notes.append(diagnostic(
                "references_corpus_only", f"{why}: {len(lacking)} reference entries the corpus lacks were not "
                f"looked up on the web and count as not_found ({_titles(sorted(lacking), survey)}); "
                "reference_existence is a lower bound"))
        unchecked = sorted(n for n, (e, _) in labels.items() if e.label == UNCHECKED)
        if unchecked:
            first = labels[unchecked[0]][0].failed[0]
            notes.append(diagnostic(
                "references_unchecked", f"{len(unchecked)} reference entries could not be checked ({first}): left "
                f"out of reference_existence; a rerun asks again ({_titles(unchecked, survey)})"))
        if after:
            date = survey.gt.date or survey.gt.year
            notes.append(diagnostic(
                "reference_after_survey", f"{len(after)} reference entries were published after the survey's date "
                f"({date}): temporal leakage ({_titles(sorted(after), survey)})"))
        return notes
