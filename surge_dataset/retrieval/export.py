"""``surge data export-retrieval``: a split's corpus / queries / qrels in BEIR's or MTEB's layout.

Both toolkits speak the same three tables, so the benchmark runs inside them unchanged:

* ``beir``: ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl`` (``_id``, ``text``),
  ``qrels/<split>.tsv`` (header ``query-id  corpus-id  score``) -- what ``beir``'s
  ``GenericDataLoader(folder).load(split=...)`` reads.
* ``mteb``: a Hugging Face dataset folder with three configs declared in its ``README.md`` --
  ``corpus`` (split ``corpus``: ``_id``, ``title``, ``text``), ``queries`` (split ``queries``: ``_id``,
  ``text``) and ``default`` (the qrels, split ``<split>``: ``query-id``, ``corpus-id``, ``score``) --
  the layout of MTEB's retrieval datasets on the Hub (``load_dataset(folder, "corpus")`` etc.); push it
  and point a ``AbsTaskRetrieval`` task's ``dataset.path`` at it.

The whole corpus is exported (retrieval is over all 1.09M papers), streamed batch by batch. Ids are strings
with a prefix: ``d<doc_id>`` for papers, ``q<survey_id>`` / ``q<query_id>`` for queries. Both are numbered from 0,
and BEIR treats a paper whose id equals its query's as the query itself (its exact search drops it, its evaluator
ignores the pair by default), which silently removed relevant papers and overstated a run's scores. Runs and qrels
that ``surge retrieval-eval`` reads lose the prefixes again (``runs.plain_id``), so a run made inside BEIR or MTEB
evaluates against the dataset's qrels, and the export's own ``qrels/<split>.tsv`` is accepted as ``--qrels``.
Paper text = the abstract, title separately (both toolkits join them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from surge_dataset.core.output_folder import replacing_output_folder
from surge_dataset.core.vocabulary import check_choice
from surge_dataset.data.card import LICENCE_FIELDS, size_category, write_licence
from surge_dataset.retrieval.index_base import iter_corpus, require_config
from surge_dataset.retrieval.runs import DOC_PREFIX, QUERY_PREFIX, load_qrels, load_queries

FORMATS = ("beir", "mteb")
_CORPUS_SCHEMA = pa.schema([("_id", pa.string()), ("title", pa.string()), ("text", pa.string())])
_QUERY_SCHEMA = pa.schema([("_id", pa.string()), ("text", pa.string())])
_QRELS_SCHEMA = pa.schema([("query-id", pa.string()), ("corpus-id", pa.string()), ("score", pa.int64())])


def _corpus_tables(data: Any) -> Any:
    for batch in iter_corpus(data, ["doc_id", "title", "abstract"]):
        yield pa.table(
            {
                "_id": pa.array([f"{DOC_PREFIX}{d}" for d in batch.column("doc_id").to_pylist()], pa.string()),
                "title": pa.array([t or "" for t in batch.column("title").to_pylist()], pa.string()),
                "text": pa.array([a or "" for a in batch.column("abstract").to_pylist()], pa.string()),
            },
            schema=_CORPUS_SCHEMA,
        )


def _mteb_card(split: str, query_type: str, counts: dict[str, int]) -> str:
    """The export's dataset card: the metadata the Hub's template asks for (licence named and linked, language,
    size, task), then the three configs MTEB loads."""
    front = yaml.safe_dump({
        **LICENCE_FIELDS,
        "language": ["en"],
        "pretty_name": f"SurGE retrieval ({split} split, {query_type} as queries)",
        "multilinguality": ["monolingual"],
        "size_categories": [size_category(counts["corpus"])],
        "source_datasets": ["original"],
        "task_categories": ["text-retrieval"],
        "task_ids": ["document-retrieval"],
        "tags": ["mteb", "beir", "survey-generation", "scientific-documents", "arxiv"],
    }, sort_keys=False, allow_unicode=True, width=120)
    return f"""---
{front}configs:
- config_name: corpus
  data_files:
  - split: corpus
    path: corpus/corpus-*.parquet
- config_name: queries
  data_files:
  - split: queries
    path: queries/queries-*.parquet
- config_name: default
  data_files:
  - split: {split}
    path: qrels/{split}-*.parquet
---

# SurGE retrieval ({split} split, {query_type} as queries)

Exported by `surge data export-retrieval --format mteb`: {counts['corpus']:,} papers,
{counts['queries']:,} queries, {counts['qrels']:,} relevance judgements (a query's relevant papers are
the papers its survey{' section' if query_type == 'questions' else ''} cites). Ids: `q<id>` for queries, `d<doc_id>` for
papers (distinct, as BEIR needs); `surge retrieval-eval` reads runs with these ids back as the dataset's.
Licence: [{LICENCE_FIELDS['license_link']}]({LICENCE_FIELDS['license_link']}).
"""


def export_retrieval(
    data: Any,
    out: str | Path,
    *,
    fmt: str = "beir",
    split: str = "test",
    query_type: str = "titles",
    overwrite: bool = False,
) -> dict[str, int]:
    """Write ``data``'s ``split`` in ``fmt`` (``beir`` or ``mteb``) to ``out``; returns row counts."""
    check_choice("format", fmt, FORMATS)
    require_config(data, "corpus", "an export")  # before the queries are written, not after
    queries = load_queries(data, split, query_type)
    qrels = load_qrels(data, split, query_type)
    queries = [q for q in queries if q.qid in qrels]  # both toolkits drop queries without judgements
    counts = {"corpus": 0, "queries": len(queries), "qrels": sum(len(d) for d in qrels.values())}
    qrel_rows = [(f"{QUERY_PREFIX}{qid}", f"{DOC_PREFIX}{doc}", rel) for qid, docs in qrels.items()
                 for doc, rel in docs.items()]
    with replacing_output_folder(out, "retrieval-export", "surge data export-retrieval",
                                 inputs=[("--data", getattr(data, "path", None))], overwrite=overwrite) as tmp:
        if fmt == "beir":
            with open(tmp / "corpus.jsonl", "w", encoding="utf-8") as handle:
                for table in _corpus_tables(data):
                    for row in table.to_pylist():
                        handle.write(json.dumps(row, ensure_ascii=False) + "\n")
                    counts["corpus"] += table.num_rows
            with open(tmp / "queries.jsonl", "w", encoding="utf-8") as handle:
                for q in queries:
                    handle.write(json.dumps({"_id": f"{QUERY_PREFIX}{q.qid}", "text": q.text}, ensure_ascii=False)
                                 + "\n")
            (tmp / "qrels").mkdir()
            with open(tmp / "qrels" / f"{split}.tsv", "w", encoding="utf-8") as handle:
                handle.write("query-id\tcorpus-id\tscore\n")
                for qid, doc, rel in qrel_rows:
                    handle.write(f"{qid}\t{doc}\t{rel}\n")
        else:
            for name in ("corpus", "queries", "qrels"):
                (tmp / name).mkdir()
            with pq.ParquetWriter(tmp / "corpus" / "corpus-00000-of-00001.parquet", _CORPUS_SCHEMA) as writer:
                for table in _corpus_tables(data):
                    writer.write_table(table)
                    counts["corpus"] += table.num_rows
            pq.write_table(
                pa.table({"_id": [f"{QUERY_PREFIX}{q.qid}" for q in queries], "text": [q.text for q in queries]},
                         schema=_QUERY_SCHEMA),
                tmp / "queries" / "queries-00000-of-00001.parquet",
            )
            pq.write_table(
                pa.table(
                    {
                        "query-id": [r[0] for r in qrel_rows],
                        "corpus-id": [r[1] for r in qrel_rows],
                        "score": [r[2] for r in qrel_rows],
                    },
                    schema=_QRELS_SCHEMA,
                ),
                tmp / "qrels" / f"{split}-00000-of-00001.parquet",
            )
            (tmp / "README.md").write_text(_mteb_card(split, query_type, counts), encoding="utf-8")
            write_licence(tmp)
    return counts
