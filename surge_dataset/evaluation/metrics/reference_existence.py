"""Reference existence (SurveyGen's citation accuracy): the share of checked reference entries that exist.

Each entry of the reference list gets one label from the resolver chain (``surge_dataset/references/``):
``in_corpus``, ``exists``, ``not_found`` or ``unchecked``; the value is (in_corpus + exists) / (in_corpus +
exists + not_found), ``unchecked`` entries (a service failed) being left out rather than counted fabricated.
The prefetch asks each source once for the whole run (every distinct title the corpus lacks), through the run's
look-up session, and hands each survey's labels over; ``score`` only reads them.

Titles are read whole under every protocol (:func:`~surge_dataset.survey.whole_titles.whole_reference_titles`):
``--protocol official`` reproduces the released evaluator's title pattern for SurGE's own metrics, which cuts a
title at ``'``, ``(``, ``?``, ``&``, ``/``...; this metric is SurveyGen's and does not inherit the cut. An entry
whose released title was cut is looked up (in the corpus too) by its whole title; one the pattern reads whole keeps
exactly the released title, so its label does not change.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.vocabulary import (
    CORPUS,
    EXISTS,
    IN_CORPUS,
    NOT_FOUND,
    REFERENCE_LABELS,
    SURVEYGEN,
    UNCHECKED,
)
from surge_dataset.evaluation.metric import Diagnostic, Metric, MetricOutput, diagnostic, register
from surge_dataset.survey.whole_titles import WholeTitle, whole_reference_titles

__all__ = ["ReferenceExistence", "entry_titles", "label_surveys"]

#: Reference entries listed by name in a diagnostic before "..." (the details list them all).
SHOWN = 3


def _options(config: Any, lookups: Any) -> Any:
    from surge_dataset.evaluation.run_options import RunOptions
    from surge_dataset.references import ChainOptions

    return ChainOptions.from_settings(config, lookups.run or RunOptions(), lookups.environ)


def entry_titles(survey: Any) -> dict[int, Any]:
    """Reference number -> its whole title (``WholeTitle``) and exact corpus doc id, under the survey's protocol."""
    whole = whole_reference_titles(survey.text, survey.parsed) if survey.text else {
        n: WholeTitle(n, r.title, r.line) for n, r in survey.parsed.references.items()}
    cut = [n for n, w in whole.items() if w.cut or n not in survey.references]
    resolved = dict(survey.references)
    corpus = getattr(survey, "corpus", None)
    if cut:
        ids = corpus.resolve([whole[n].title for n in cut]) if corpus is not None else [None] * len(cut)
        resolved.update(zip(cut, ids, strict=True))
    return {n: (w, resolved.get(n)) for n, w in sorted(whole.items())}


def label_surveys(surveys: Any, config: Any, lookups: Any) -> dict[int, dict[int, Any]]:
    """Survey id -> reference number -> (evidence, published after the survey, whole title) of every reference entry
    of ``surveys``, asking each source once per title through ``lookups`` (a ``references.LookupSession``)."""
    from surge_dataset.references import label_reference

    options = _options(config, lookups)
    chain = lookups.chain(options)
    titles: dict[str, str] = {}
    entries = {id(survey): entry_titles(survey) for survey in surveys}
    for survey in surveys:
        for whole, doc_id in entries[id(survey)].values():
            key = normalise_title(whole.title)
            if doc_id is None and key:
                titles.setdefault(key, whole.title)
    corpus = next((s.corpus for s in surveys if getattr(s, "corpus", None) is not None), None)
    answers: dict[str, list[Any]] = {}
    if titles:
        chain.check()
        answers = chain.lookup(titles, corpus)
    fuzzy = sorted({e.doc_id for e in _fuzzy_in_corpus(answers, titles, options.threshold)})
    papers = {p.doc_id: p for p in corpus.get(fuzzy) if p is not None} if corpus is not None and fuzzy else {}
    labelled = {}
    for survey in surveys:
        labels = {}
        for number, (whole, doc_id) in entries[id(survey)].items():
            evidence = label_reference(whole.title, doc_id, answers.get(normalise_title(whole.title), []),
                                       options.threshold)
            labels[number] = (evidence, _after_survey(evidence, survey, papers), whole)
        labelled[survey.survey_id] = labels
    return labelled


def _fuzzy_in_corpus(answers: dict[str, list[Any]], titles: dict[str, str], threshold: float) -> list[Any]:
    from surge_dataset.references import label_reference

    found = [label_reference(titles[key], None, answers[key], threshold) for key in answers]
    return [e for e in found if e.label == IN_CORPUS and e.doc_id is not None]


def _after_survey(evidence: Any, survey: Any, papers: dict[int, Any]) -> bool:
    """Whether the paper the entry was found as is dated after the GT survey (temporal leakage)."""
    from surge_dataset.references import published_after

    if evidence.label == IN_CORPUS:
        paper = survey.papers.get(evidence.doc_id) or papers.get(evidence.doc_id)
        if paper is None and survey.corpus is not None and evidence.doc_id is not None:
            paper = next(iter(survey.corpus.get([evidence.doc_id])), None)
        return paper is not None and published_after(paper.date, paper.year, survey.gt.date, survey.gt.year)
    if evidence.label == EXISTS:
        return published_after(evidence.date, evidence.year, survey.gt.date, survey.gt.year)
    return False


def _titles(numbers: list[int], labels: dict[int, Any]) -> str:
    shown = ", ".join(f"[{n}] {labels[n][2].title[:60]!r}" for n in numbers[:SHOWN])
    return shown + (", ..." if len(numbers) > SHOWN else "")


@register
class ReferenceExistence(Metric):
    name = "reference_existence"
    keys = ("reference_existence",)
    value_range = (0.0, 1.0)
    needs = frozenset({"corpus"})
    groups = ("surveygen",)  # SurveyGen's "Acc" column (Table 2): offline by default, --bib-services asks further
    order = 75
    description = (
        "Share of the generated survey's reference entries that exist, in the corpus or, by title, in a "
        "bibliographic service (SurveyGen's OpenAlex, Semantic Scholar, arXiv, Crossref), over the entries "
        "checked (SurveyGen citation accuracy)"
    )

    def prefetch(self, surveys, models, config):
        """Every unresolved title of the run, once per source (``references.chain``): each survey's labels."""
        if models.lookups is None:
            raise ValueError("reference_existence looks titles up through the run's look-up session: none was given")
        return label_surveys(surveys, config, models.lookups)

    def estimate_requests(self, surveys, config):
        return [], None  # no judge question: the services' requests are not LLM calls

    def score(self, survey, models, config):
        labels = models.prefetched
        counts = Counter(evidence.label for evidence, _, _ in labels.values())
        checked = counts[IN_CORPUS] + counts[EXISTS] + counts[NOT_FOUND]
        value = (counts[IN_CORPUS] + counts[EXISTS]) / checked if checked else None
        after = [n for n, (_, late, _) in labels.items() if late]
        out = {f"refs_{label}": counts[label] for label in REFERENCE_LABELS}
        out.update(refs_after_survey=len(after), reference_lookups_failed=counts[UNCHECKED])
        return MetricOutput({"reference_existence": value}, counts=out, diagnostics=self._notes(survey, labels, after, config),
                            details=[{"kind": "reference", "metric": self.name, "number": number,
                                      "title": whole.title, "after_survey": late,
                                      **({"protocol_title": whole.protocol_title} if whole.cut else {}),
                                      **evidence.as_record()} for number, (evidence, late, whole) in sorted(labels.items())])

    def _notes(self, survey, labels, after, config) -> list[Diagnostic]:
        from surge_dataset.references import is_offline, parse_services

        notes = []
        if not labels:
            notes.append(diagnostic("no_references", "the survey has no reference entry: reference_existence undefined"))
        lacking = [n for n, (e, _, _) in labels.items() if e.source != CORPUS and e.label in (NOT_FOUND, UNCHECKED)]
        services = parse_services(config.bib_services)
        web = [s for s in services if s != SURVEYGEN]
        if lacking and (not web or is_offline()):
            why = "SURGE_OFFLINE=1" if web else "no web service in --bib-services" if services else "no --bib-services"
            notes.append(diagnostic(
                "references_corpus_only", f"{why}: {len(lacking)} reference entries the corpus lacks were not "
                f"looked up on the web and count as not_found ({_titles(sorted(lacking), labels)}); "
                "reference_existence is a lower bound"))
        unchecked = sorted(n for n, (e, _, _) in labels.items() if e.label == UNCHECKED)
        if unchecked:
            first = labels[unchecked[0]][0].failed[0]
            notes.append(diagnostic(
                "references_unchecked", f"{len(unchecked)} reference entries could not be checked ({first}): left "
                f"out of reference_existence; a rerun asks again ({_titles(unchecked, labels)})"))
        if after:
            date = survey.gt.date or survey.gt.year
            notes.append(diagnostic(
                "reference_after_survey", f"{len(after)} reference entries were published after the survey's date "
                f"({date}): temporal leakage ({_titles(sorted(after), labels)})"))
        return notes
