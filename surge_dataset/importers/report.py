"""The import itself: every peer survey converted into ``OUT/<survey_id>/survey.md``, and the report of
what was resolved, fuzzily matched, left unresolved or skipped."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from surge_dataset.core.io import atomic_write_json, atomic_write_text
from surge_dataset.core.output_folder import check_output_folder, write_marker
from surge_dataset.core.vocabulary import INSPECT_LOG, PROTOCOLS
from surge_dataset.evaluation.prepare import prepare_survey, survey_counts
from surge_dataset.importers.convert import convert_document
from surge_dataset.importers.formats import read_documents
from surge_dataset.importers.links import LinkOptions, LinkResolver
from surge_dataset.importers.markdown import text_problem
from surge_dataset.importers.records import DEFAULT_THRESHOLD
from surge_dataset.importers.resolution import TitleMatcher, survey_matcher


@dataclass
class ImportReport:
    """What ``surge import`` did: settings, one record per imported survey, and what was skipped."""

    format: str
    source: str
    out: str
    data: str
    data_fingerprint: str
    fuzzy: dict[str, Any]
    surveys: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    #: ``--format inspect`` of one log: the log's scores as a ``surge report`` input (results.json shape).
    results: str | None = None

    @property
    def totals(self) -> dict[str, Any]:
        keys = ("headings", "references", "resolved_exact", "resolved_fuzzy", "unresolved", "citations",
                "citations_without_entry", "unmatched_citation_count")
        evaluated = {p: Counter[str]() for p in PROTOCOLS}
        for record in self.surveys:
            for protocol, counts in record.get("evaluate_counts", {}).items():
                evaluated[protocol].update(counts)
        links = Counter[str]()
        for record in self.surveys:
            links.update(record.get("link_entries", {}))
        return {"surveys": len(self.surveys), "skipped": len(self.skipped),
                **{k: sum(s[k] for s in self.surveys) for k in keys}, "link_entries": dict(links),
                "evaluate_counts": {p: dict(c) for p, c in evaluated.items()}}

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "totals": self.totals, "counting": COUNTING}


#: How the report counts, written into it: why ``citations`` and ``surge evaluate``'s counts can differ.
COUNTING = {
    "headings": "section headings written, as the paper reading counts them (References, Abstract and empty "
                "headings are not sections; headings in code blocks are not headings)",
    "citations": "citation marks recognised in the input and written as [n] (a group [1, 2] counts 2; "
                 "citations by bibliography key, author-year and bracketed-title citations included; headings, "
                 "math, code and link targets are not read: surge_dataset.survey.citations, the paper reading's "
                 "rule)",
    "references": "reference lines written: the source's list, or the cited entries of its bibliography; none "
                  "(and no References heading) when there is no entry",
    "lost": "per survey, what the import could not keep and why",
    "link_entries": "references given only as an address (a URL, a DOI, an arXiv id): titled by the record of "
                    "their id ('id': arXiv for an arXiv id or arXiv DOI, Crossref for another DOI, else OpenAlex by "
                    "that DOI; 'id_arxiv', 'id_crossref', 'id_openalex' say which), by their own words ('title'), "
                    "by their landing page's citation_title or <title> ('page', an address with no id and no words), "
                    "or left as the URL ('url', resolving to no corpus paper); then resolved to the corpus by that "
                    "title like any reference",
    "guessed_citations": "flattened superscripts (digits after a word's closing punctuation) read as citations "
                         "of a numbered list: each one a guess, listed",
    "quality": "per survey, notes on the source as it came (surge_dataset/importers/quality.py): headings written "
               "twice, sections ending mid-sentence before the next heading, citations restarting at [1] in a later "
               "section, entries of its reference list no citation names; notes only, nothing written or counted "
               "changes",
    "evaluate_counts": "per protocol, the 'counts' `surge evaluate --protocol P` records for the written file "
                       "(it reads the file back as evaluate does). official, as the released evaluator, also "
                       "counts the [n] that opens each reference line, skips text before the first heading and "
                       "under headings containing 'root' or 'Abstract:', and keeps only the reference titles its "
                       "pattern reads (unreadable_by_official). paper's headings, references and citations equal "
                       "the importer's",
    "unreadable_by_official": "written reference lines whose title the released pattern cuts or loses, resolved "
                              "or not, with what it reads instead (official_reads, null: no title at all)",
}


def report_path(out: str | Path) -> Path:
    """Default report location: beside ``OUT`` (inside it, ``surge evaluate`` would list it as a failure)."""
    out = Path(out)
    return out.with_name(out.name + ".import_report.json")


def import_outputs(
    fmt: str,
    source: str | Path,
    data: Any,
    out: str | Path,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    report: str | Path | None = None,
    overwrite: bool = False,
    bib: str | Path | None = None,
    json_field: str | None = None,
    links: LinkOptions | None = None,
) -> ImportReport:
    """Convert every peer survey under ``source`` into ``out/<survey_id>/survey.md``; write the report.

    ``out`` is new, empty, or an earlier import (written into only with ``overwrite``); never the input,
    the dataset or a folder of other files. ``bib``: the bibliography for citations by key, instead of the
    one beside each survey. ``json_field``: the key of JSON records that holds the report (else ``article``, ``content``
    or ``report``). ``links``: how entries given only as a URL / DOI / arXiv id get a title (default: asked from
    arXiv, Crossref, OpenAlex or the landing page, cached; ``LinkOptions(lookup=False)`` asks nothing). An empty survey (no text under any heading) and one of which nothing is kept (no
    heading, citation or reference read) are failures, not written.
    """
    out = Path(out)
    check_output_folder(out, "imported-surveys", overwrite=overwrite, adds_to_existing=False,
                        inputs=[("SOURCE", source), ("--data", getattr(data, "path", None))])
    matcher = TitleMatcher(data, threshold)
    resolver = LinkResolver(links)
    match_survey = survey_matcher(data, threshold)
    try:
        rapidfuzz_version = metadata.version("rapidfuzz")
    except metadata.PackageNotFoundError:  # pragma: no cover - a dependency
        rapidfuzz_version = "unknown"
    result = ImportReport(
        format=fmt, source=str(source), out=str(out), data=str(getattr(data, "path", data)),
        data_fingerprint=getattr(data, "fingerprint", ""),
        fuzzy={"scorer": "rapidfuzz.fuzz.ratio", "processor": "rapidfuzz.utils.default_process",
               "threshold": float(threshold), "rapidfuzz": rapidfuzz_version,
               "exact_rule": "letters a-z of the lower-cased title (Corpus.resolve)"},
    )
    taken: dict[int, str] = {}
    for item in read_documents(fmt, source, bib=bib, json_field=json_field):
        if isinstance(item, tuple):
            result.skipped.append({"source": item[0], "reason": item[1]})
            continue
        if (problem := text_problem(item)) is not None:
            result.skipped.append({"source": item.source, "reason": problem})
            continue
        survey_id, how = match_survey(item)
        if survey_id is None:
            result.skipped.append({"source": item.source, "reason": how})
            continue
        if survey_id in taken:
            result.skipped.append({"source": item.source, "reason": f"survey {survey_id} already imported from {taken[survey_id]}"})
            continue
        markdown, record = convert_document(item, matcher, resolver)
        if not (record["headings"] or record["citations"] or record["references"]):
            result.skipped.append({"source": item.source, "reason": (
                "nothing kept: no heading, citation or reference was read in a non-empty source (is --format "
                f"{fmt} right?); lost: " + "; ".join(record["lost"] or ["-"]))})
            continue
        taken[survey_id] = item.source
        target = out / str(survey_id) / "survey.md"
        write_marker(out, "imported-surveys", "surge import")  # with the first survey: no empty folder left
        atomic_write_text(target, markdown)
        record["evaluate_counts"] = {p: survey_counts(prepare_survey(data, survey_id, target, p)) for p in PROTOCOLS}
        result.surveys.append({"survey_id": survey_id, "source": item.source, "output": str(target),
                               "matched_by": how, **record})
    result.surveys.sort(key=lambda s: s["survey_id"])
    if fmt == INSPECT_LOG and Path(source).is_file() and result.surveys:
        from surge_dataset.importers.inspect_results import write_inspect_results

        result.results = str(out.with_name(out.name + ".results.json"))
        write_inspect_results(source, result.results, passages=out)
    atomic_write_json(report if report is not None else report_path(out), result.as_dict())
    return result
