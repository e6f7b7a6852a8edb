"""Query sets, qrels and TREC run files: what ``surge retrieve`` writes and ``surge retrieval-eval`` reads.

Two query sets per split (surveys are split 4:1, protocol §1):

* ``titles``    -- one query per survey: its title; relevant papers = the survey's ``all_cites``
  (Table 3 of the paper). Query id = ``survey_id``.
* ``questions`` -- one query per ``queries.json`` item of the split's surveys: its
  ``prefix_titles_query``; relevant papers = its ``cites``. Query id = ``query_id``.

A run is the plain TREC format (``qid Q0 docid rank score tag``, readable by ``ranx``, ``trec_eval``,
``pyserini``); what produced it (index, query set, k, date cutoff) goes in a JSON sidecar next to it,
``<run>.meta.json``, so a run file stays a valid TREC file.

``--date-cutoff`` drops, for each query, the papers dated after its survey (no peeking into the
future). It is off by default, as in the paper; the sidecar records whether it was on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import SurgeError
from surge_dataset.core.io import atomic_write_json, atomic_write_text
from surge_dataset.core.vocabulary import UnknownNameError, check_choice
from surge_dataset.data.filters import SurveyFilter, kept_query_ids
from surge_dataset.retrieval.index_base import (
    TIE_RULE,
    Hit,
    Searcher,
    day_to_iso,
    document_text,
    ranked,
    ranked_hits,
    read_manifest,
    require_config,
    to_day,
)
from surge_dataset.retrieval.registry import open_index

QUERY_TYPES = ("titles", "questions")
META_SUFFIX = ".meta.json"


class RunNotFoundError(SurgeError, FileNotFoundError):
    """A TREC run or qrels file that does not exist (``--run``)."""


class RunFormatError(SurgeError, ValueError):
    """A TREC run or qrels file, or a run's ``.meta.json`` sidecar, that cannot be read: the message names
    the file and the line."""


@dataclass(frozen=True)
class RetrievalQuery:
    """One query: its id, text, the survey it belongs to and the date used by the cutoff."""

    qid: str
    text: str
    survey_id: int | None
    date: str | None


def _check_query_set(data: Any, split: str, query_type: str) -> None:
    """A query type outside :data:`QUERY_TYPES` is a ``ChoiceError``; a split the dataset does not have an
    :class:`~surge_dataset.core.vocabulary.UnknownNameError` (a misspelt split would otherwise give an empty run)."""
    check_choice("query type", query_type, QUERY_TYPES)
    config = "surveys" if query_type == "titles" else "queries"
    require_config(data, config, f"--query-type {query_type}")
    splits = getattr(data, "splits", None)
    known = splits(config) if callable(splits) else None
    if known is not None and split is not None and split not in known:  # None: every split
        raise UnknownNameError("split", split, known, extra=f" in {getattr(data, 'path', 'the dataset')}")


def load_queries(data: Any, split: str, query_type: str = "titles",
                 survey_filter: SurveyFilter | None = None) -> list[RetrievalQuery]:
    """The queries of one split, in dataset order (only those ``survey_filter`` keeps, when given)."""
    _check_query_set(data, split, query_type)
    if survey_filter is not None and survey_filter.active:
        keep = kept_query_ids(data, query_type, survey_filter)
        return [q for q in load_queries(data, split, query_type) if q.qid in keep]
    if query_type == "titles":
        return [
            RetrievalQuery(str(s.survey_id), s.survey_title, s.survey_id, s.date) for s in data.surveys(split)
        ]
    dates = {s.survey_id: s.date for s in data.surveys()}
    return [
        RetrievalQuery(
            str(q.query_id), q.prefix_titles_query or "", q.survey_id, dates.get(q.survey_id) or q.date
        )
        for q in data.queries(split)
    ]


def load_qrels(data: Any, split: str, query_type: str = "titles",
               survey_filter: SurveyFilter | None = None) -> dict[str, dict[str, int]]:
    """Relevant papers per query: a survey's ``all_cites`` or a query's ``cites`` (relevance 1).

    Queries without any relevant paper (a survey with an empty ``all_cites``) are left out: recall is
    undefined for them. ``survey_filter`` keeps only the queries of the surveys it keeps.
    """
    _check_query_set(data, split, query_type)
    if survey_filter is not None and survey_filter.active:
        keep = kept_query_ids(data, query_type, survey_filter)
        return {q: d for q, d in load_qrels(data, split, query_type).items() if q in keep}
    if query_type == "titles":
        pairs = [(str(s.survey_id), s.all_cites) for s in data.surveys(split)]
    else:
        pairs = [(str(q.query_id), q.cites) for q in data.queries(split)]
    return {qid: {str(d): 1 for d in cites} for qid, cites in pairs if cites}


# --------------------------------------------------------------------------------------------------
# TREC files
# --------------------------------------------------------------------------------------------------


def write_trec_run(
    path: str | Path,
    results: Mapping[str, Sequence[Hit]] | Mapping[str, Mapping[str, float]],
    *,
    tag: str = "surge",
    metadata: Mapping[str, Any] | None = None,
) -> Path:
    """Write a TREC run atomically, ranked by :data:`~surge_dataset.retrieval.index_base.TIE_RULE`, each score at full
    precision (the shortest text that reads back as the same float: rounding made ties the ranking did not have);
    ``metadata`` goes to the sidecar."""
    path = Path(path)
    lines = []
    for qid, hits in results.items():
        pairs = ranked(hits if isinstance(hits, Mapping) else {str(h.doc_id): h.score for h in hits})
        for rank, (doc, score) in enumerate(pairs, start=1):
            lines.append(f"{qid} Q0 {doc} {rank} {score!r} {tag}\n")
    atomic_write_text(path, "".join(lines))
    if metadata is not None:
        atomic_write_json(metadata_path(path), dict(metadata))
    return path


#: The id prefixes of the BEIR and MTEB exports: BEIR drops a document whose id equals its query's (its exact
#: search skips it, its evaluator ignores the pair by default), so queries and papers, both numbered from 0, must
#: not share ids there. Runs and qrels read back from files lose them again (:func:`plain_id`).
QUERY_PREFIX = "q"
DOC_PREFIX = "d"
#: The header line of a BEIR qrels file (``qrels/<split>.tsv``: query id, doc id, relevance, tab-separated).
BEIR_QRELS_HEADER = ("query-id", "corpus-id", "score")


def plain_id(value: str, prefix: str) -> str:
    """``q12`` -> ``12`` (``prefix`` ``q``), ``d345`` -> ``345``: an exported id read back as the dataset's; any
    other id unchanged."""
    rest = value[len(prefix):]
    return rest if value.startswith(prefix) and rest.isdigit() else value


def _read_trec(path: str | Path, columns: int, value_at: int, what: str, value: type,
               doc_at: int = 2) -> dict[str, dict[str, Any]]:
    """``{qid: {doc_id: value(column value_at)}}`` (exported ids read back plain, :func:`plain_id`); a missing file
    is a :class:`RunNotFoundError`, a line with the wrong column count or a value that is not a number a
    :class:`RunFormatError` naming file:line. With ``columns`` 3 the file is BEIR's qrels: a header line, then
    ``query-id corpus-id score``."""
    if not Path(path).is_file():
        raise RunNotFoundError(f"{path}: no such TREC {what} file")
    table: dict[str, dict[str, Any]] = {}
    kind = "BEIR" if columns == 3 else "TREC"
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                parts = line.split()
                if not parts or (columns == 3 and number == 1 and tuple(parts) == BEIR_QRELS_HEADER):
                    continue
                if len(parts) != columns:
                    raise RunFormatError(
                        f"{path}:{number}: a {kind} {what} line has {columns} columns, found {len(parts)}")
                try:
                    qid, doc = plain_id(parts[0], QUERY_PREFIX), plain_id(parts[doc_at], DOC_PREFIX)
                    table.setdefault(qid, {})[doc] = value(parts[value_at])
                except ValueError:
                    column = "score" if what == "run" else "relevance"
                    raise RunFormatError(
                        f"{path}:{number}: the {column} {parts[value_at]!r} of a {kind} {what} line is not a number"
                    ) from None
    except UnicodeDecodeError:
        raise RunFormatError(f"{path}: not UTF-8 text, so not a TREC {what} file") from None
    return table


def read_trec_run(path: str | Path) -> dict[str, dict[str, float]]:
    """``{qid: {doc_id: score}}`` from a TREC run file (6 whitespace-separated columns)."""
    return _read_trec(path, 6, 4, "run", float)


def write_trec_qrels(path: str | Path, qrels: Mapping[str, Mapping[str, int]]) -> Path:
    path = Path(path)
    lines = [f"{qid} 0 {doc} {rel}\n" for qid, docs in qrels.items() for doc, rel in docs.items()]
    atomic_write_text(path, "".join(lines))
    return path


def read_trec_qrels(path: str | Path) -> dict[str, dict[str, int]]:
    """``{qid: {doc_id: relevance}}`` from a TREC qrels file (``qid 0 docid rel``) or a BEIR one (``qrels/<split>.tsv``
    of an export: the header ``query-id corpus-id score``, then three columns), told apart by that header."""
    if _first_line(path) == BEIR_QRELS_HEADER:
        return _read_trec(path, 3, 2, "qrels", int, doc_at=1)
    return _read_trec(path, 4, 3, "qrels", int)


def _first_line(path: str | Path) -> tuple[str, ...]:
    """The first line's columns (empty when the file is missing or unreadable: the reader reports it)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return tuple(handle.readline().split())
    except (OSError, UnicodeDecodeError):
        return ()


def metadata_path(run_path: str | Path) -> Path:
    run_path = Path(run_path)
    return run_path.with_name(run_path.name + META_SUFFIX)


def read_run_metadata(run_path: str | Path) -> dict[str, Any]:
    """The sidecar of a run, or {} when it has none (a run from another tool); an unreadable one is a
    :class:`RunFormatError`."""
    path = metadata_path(run_path)
    if not path.is_file():
        return {}
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise RunFormatError(f"{path}: not a JSON sidecar ({exc}); delete it or write the run again") from None
    if not isinstance(meta, dict):
        raise RunFormatError(f"{path}: a run's sidecar holds a JSON object, not a {type(meta).__name__}")
    return meta


# --------------------------------------------------------------------------------------------------
# Retrieval
# --------------------------------------------------------------------------------------------------


def retrieve(
    searcher: Searcher,
    queries: Sequence[RetrievalQuery],
    k: int,
    *,
    date_cutoff: bool = False,
    batch_size: int = 256,
) -> dict[str, list[Hit]]:
    """Top-``k`` papers per query in :data:`~surge_dataset.retrieval.index_base.TIE_RULE`'s order; with ``date_cutoff``
    only papers not dated after the query's survey.

    Which of the papers tied at the k-th score make the top ``k`` follows the same rule: the searcher is asked for
    more than ``k`` and, while the last paper it returned still shares the k-th score (the tied group may go on
    beyond it), asked again for twice as many, up to the whole index. Without this the searcher's internal order
    chose among tied papers, differently for different ``k`` (one index, two nDCG@10 values).
    """
    limit = len(searcher.doc_ids) if getattr(searcher, "doc_ids", None) is not None else None
    results: dict[str, list[Hit]] = {}
    for start in range(0, len(queries), batch_size):
        chunk = list(queries[start : start + batch_size])
        days = [to_day(q.date) for q in chunk] if date_cutoff else None
        texts = [q.text for q in chunk]
        asked = 2 * k if limit is None else min(2 * k, limit)
        found = searcher.search(texts, asked, days)
        open_ties = [i for i, hits in enumerate(found) if not _tie_group_complete(hits, k, asked, limit)]
        while open_ties:
            asked = 2 * asked if limit is None else min(2 * asked, limit)
            more = searcher.search([texts[i] for i in open_ties], asked,
                                   None if days is None else [days[i] for i in open_ties])
            for i, hits in zip(open_ties, more, strict=True):
                found[i] = hits
            open_ties = [i for i in open_ties if not _tie_group_complete(found[i], k, asked, limit)]
        for query, hits in zip(chunk, found, strict=True):
            results[query.qid] = ranked_hits(hits)[:k]
    return results


def _tie_group_complete(hits: Sequence[Hit], k: int, asked: int, limit: int | None) -> bool:
    """Whether ``hits`` (a searcher's top ``asked``) hold every paper that could be in the top ``k`` under the tie
    rule: the whole index was asked for, or the searcher ran out (fewer hits than asked, no index size known), or
    the lowest score returned is below the k-th (every paper left out scores lower still)."""
    if k <= 0 or (limit is not None and asked >= limit) or (limit is None and len(hits) < asked):
        return True
    if len(hits) < k:  # masked papers took places (a date cutoff): allowed ones may follow
        return False
    scores = sorted((h.score for h in hits), reverse=True)
    return scores[-1] < scores[k - 1]


def run_retrieval(
    index: str | Path,
    data: Any,
    out: str | Path,
    *,
    split: str = "test",
    query_type: str = "titles",
    k: int = 1000,
    date_cutoff: bool = False,
    survey_filter: SurveyFilter | None = None,
    reranker: Any = None,
    rerank_depth: int = 100,
    **index_kwargs: Any,
) -> dict[str, Any]:
    """Open ``index``, retrieve for a split's query set, write ``out`` (TREC) and its sidecar; return the sidecar.

    ``reranker`` (a :class:`~surge_dataset.retrieval.rerank.Reranker`): each query's first ``rerank_depth`` papers
    are put in its order before the run is written (``surge retrieve --rerank``)."""
    start = time.perf_counter()
    survey_filter = survey_filter or SurveyFilter()
    queries = load_queries(data, split, query_type, survey_filter)  # a wrong split fails before the index loads
    searcher = open_index(index, **index_kwargs)
    results = retrieve(searcher, queries, k, date_cutoff=date_cutoff)
    if reranker is not None:
        from surge_dataset.retrieval.rerank import rerank_results

        def texts_of(doc_ids: list[int]) -> list[str]:
            return [document_text(p.title, p.abstract) if p is not None else "" for p in data.corpus.get(doc_ids)]

        results = rerank_results(reranker, {q.qid: q.text for q in queries}, results, texts_of, rerank_depth)
    manifest = read_manifest(index)
    metadata = {
        "index": str(index),
        "index_kind": manifest.get("kind"),
        "model": getattr(searcher, "model_path", None),
        "data": str(getattr(data, "path", data)),
        "data_fingerprint": getattr(data, "fingerprint", ""),
        "split": split,
        "query_type": query_type,
        "n_queries": len(queries),
        "k": k,
        "date_cutoff": bool(date_cutoff),
        "date_cutoff_rule": (
            "papers dated after the query's survey date are dropped (papers without a date are kept)"
            if date_cutoff else None
        ),
        "filters": survey_filter.as_dict(),  # --min-cites / --exclude-empty (surge_dataset/data/filters.py)
        "ties": TIE_RULE,
        **({"rerank": {**reranker.describe(), "depth": rerank_depth,
                       "llm": str(getattr(getattr(reranker, "llm", None), "spec", None))}} if reranker is not None else {}),
        "seconds": round(time.perf_counter() - start, 3),
    }
    if date_cutoff:
        metadata["cutoff_dates"] = {q.qid: day_to_iso(to_day(q.date)) for q in queries}
    write_trec_run(out, results, tag=f"surge-{manifest.get('kind')}", metadata=metadata)
    return metadata


