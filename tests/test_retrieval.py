"""Retrieval on the sample data: BM25, the dense index (crash + resume), TREC runs, ranx metrics, exports, CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from surge_dataset.data.build import build_dataset
from surge_dataset.data.dataset import SurgeData
from surge_dataset.retrieval import (
    METRICS,
    BM25Index,
    Hit,
    build_bm25_index,
    encode_corpus,
    evaluate_run,
    export_retrieval,
    load_qrels,
    load_queries,
    read_run_metadata,
    read_trec_qrels,
    read_trec_run,
    retrieve,
    run_retrieval,
    to_day,
    write_trec_qrels,
    write_trec_run,
)
from surge_dataset.retrieval.encoder import DenseEncoder
from surge_dataset.retrieval.encoding import ENCODING_MANIFEST
from surge_dataset.retrieval.faiss_index import FAISS_FILE, DenseIndex
from surge_dataset.retrieval.index_base import UNKNOWN_DAY, batch_texts, document_text

from .conftest import SAMPLE_DIR

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread() -> Iterator[None]:
    """Tiny models on a shared 2-core machine: one intra-op thread avoids OpenMP oversubscription stalls."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> SurgeData:
    out = tmp_path_factory.mktemp("retrieval") / "surge"
    build_dataset(SAMPLE_DIR, out)
    return SurgeData.open(out)


@pytest.fixture(scope="module")
def bm25_dir(data: SurgeData, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bm25") / "index"
    build_bm25_index(data, out, batch_size=100)  # several batches: exercises the streaming build
    return out


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from surge_dataset.testing.models import build_tiny_roberta

    return build_tiny_roberta(tmp_path_factory.mktemp("model") / "roberta", seed=0, max_length=128)


def _corpus_texts(data: SurgeData) -> tuple[list[int], list[str]]:
    ids, texts = [], []
    for batch in data.iter_corpus_batches(["doc_id", "title", "abstract"]):
        ids += batch.column("doc_id").to_pylist()
        texts += batch_texts(batch)
    return ids, texts


# --------------------------------------------------------------------------------------------------
# BM25
# --------------------------------------------------------------------------------------------------


def test_bm25_scores_equal_bm25s_own_indexing(data: SurgeData, bm25_dir: Path) -> None:
    """Our vectorised tokenizer + numpy build must give bm25s' own tokenizer + indexing, term for term."""
    import bm25s
    import scipy.sparse as sp
    import Stemmer
    from bm25s.tokenization import Tokenizer

    _, texts = _corpus_texts(data)
    tokenizer = Tokenizer(lower=True, stopwords="en", stemmer=Stemmer.Stemmer("english"))
    reference = bm25s.BM25()
    reference.index(tokenizer.to_tokenized_tuple(tokenizer.tokenize(texts, show_progress=False)), show_progress=False)
    ours = BM25Index.load(bm25_dir).retriever
    assert ours.vocab_dict == reference.vocab_dict
    shape = (len(texts), len(reference.vocab_dict))

    def matrix(scores: dict) -> sp.csc_matrix:
        return sp.csc_matrix(
            (np.asarray(scores["data"]), np.asarray(scores["indices"]), np.asarray(scores["indptr"])), shape=shape
        )

    assert abs(matrix(ours.scores) - matrix(reference.scores)).max() < 1e-5


def test_bm25_index_is_memory_mapped_and_documented(bm25_dir: Path) -> None:
    index = BM25Index.load(bm25_dir)
    assert isinstance(index.retriever.scores["data"], np.memmap)
    assert isinstance(index.doc_ids, np.memmap)
    manifest = index.manifest
    assert manifest["kind"] == "bm25" and manifest["n_docs"] == 341
    assert "Snowball English" in manifest["text_processing"]["stemmer"]
    assert "English" in manifest["text_processing"]["stopwords"]


def test_bm25_rare_words_hand_checkable_recall(data: SurgeData, bm25_dir: Path) -> None:
    """'hypothetical' and 'shot' occur in exactly one corpus paper (the HyDE-style paper): it is ranked first.

    The question cites two papers; the other one ("Don't Stop Pretraining") shares none of the rare
    words, so recall@1 is exactly 1/2 and MRR is 1.
    """
    index = BM25Index.load(bm25_dir)
    vocab, scores = index.retriever.vocab_dict, index.retriever.scores
    (query,) = [q for q in data.queries("test") if "hypothetical documents" in (q.prefix_titles_query or "")]
    (paper,) = [p for p in data.corpus.get(query.cites) if "Hypothetical Document" in p.title]
    for stem in ("hypothet", "shot"):  # hand check: document frequency 1, and it is that paper
        term = vocab[stem]
        postings = np.asarray(scores["indices"][scores["indptr"][term] : scores["indptr"][term + 1]])
        assert index.doc_ids[postings].tolist() == [paper.doc_id]
    hits = index.search([query.prefix_titles_query], k=341)[0]
    assert hits[0].doc_id == paper.doc_id
    assert hits[0].score > 2 * hits[1].score
    run = {str(query.query_id): {str(h.doc_id): h.score for h in hits[:1]}}
    result = evaluate_run(run, {str(query.query_id): {str(d): 1 for d in query.cites}})
    assert len(query.cites) == 2
    assert result["recall@20"] == pytest.approx(0.5)
    assert result["mrr"] == pytest.approx(1.0)


def test_bm25_titles_recall_on_sample(data: SurgeData, bm25_dir: Path) -> None:
    queries = load_queries(data, "test", "titles")
    assert [q.qid for q in queries] == ["0", "1", "2"]
    results = retrieve(BM25Index.load(bm25_dir), queries, k=1000)
    assert all(len(hits) == 341 for hits in results.values())  # k is capped at the corpus size
    run = {qid: {str(h.doc_id): h.score for h in hits} for qid, hits in results.items()}
    metrics = evaluate_run(run, load_qrels(data, "test", "titles"))
    assert metrics["recall@1000"] == pytest.approx(1.0)  # every paper is ranked
    assert 0.2 < metrics["recall@20"] < 1.0


# --------------------------------------------------------------------------------------------------
# Runs, qrels, ranx
# --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_run_file_round_trips_through_ranx(tmp_path: Path) -> None:
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    results = {
        "7": [Hit(3, 2.5), Hit(11, 1.25), Hit(5, 1.25)],
        "12": [Hit(5, 0.5), Hit(3, -1.0)],
    }
    path = write_trec_run(tmp_path / "run.trec", results, tag="t", metadata={"k": 3})
    lines = path.read_text().splitlines()
    assert lines[0] == "7 Q0 3 1 2.5 t"  # full precision: no rounding that would make new ties
    # ties by doc id as a string, descending (trec_eval's and pytrec_eval's order): "5" > "11"
    assert lines[1].split()[2:4] == ["5", "2"] and lines[2].split()[2:4] == ["11", "3"]
    ours = read_trec_run(path)
    theirs = Run.from_file(str(path), kind="trec")
    assert theirs.to_dict() == ours == {"7": {"3": 2.5, "11": 1.25, "5": 1.25}, "12": {"5": 0.5, "3": -1.0}}
    assert read_run_metadata(path) == {"k": 3}

    qrels = {"7": {"11": 1, "99": 1}, "12": {"3": 1}, "13": {"4": 1}}
    write_trec_qrels(tmp_path / "qrels.txt", qrels)
    assert read_trec_qrels(tmp_path / "qrels.txt") == qrels
    assert Qrels.from_file(str(tmp_path / "qrels.txt"), kind="trec").to_dict() == qrels

    result = evaluate_run(path, qrels)
    assert set(result) == set(METRICS) | {"per_query", "average", "means", "n_queries", "n_run_queries"}
    per = result["per_query"]
    assert per["7"]["recall@20"] == 0.5 and per["7"]["mrr"] == 1 / 3  # "11" is ranked after its tie "5"
    assert per["12"]["recall@20"] == 1.0 and per["12"]["mrr"] == 0.5
    assert per["13"]["recall@20"] == 0.0  # a qrels query missing from the run counts as 0
    assert result["recall@20"] == pytest.approx(0.5)
    # over the queries the run has (BEIR's, pytrec_eval's average), offered beside ours
    assert result["means"]["run"]["recall@20"] == pytest.approx(0.75) and result["n_run_queries"] == 2
    assert evaluate_run(path, qrels, average="run")["recall@20"] == pytest.approx(0.75)
    direct = ranx_evaluate(Qrels.from_dict(qrels), Run.from_dict({"7": {"3": 3.0, "5": 2.0, "11": 1.0},
                                                                  "12": {"5": 0.5, "3": -1.0}}), "ndcg@10",
                           make_comparable=True)
    assert result["ndcg@10"] == pytest.approx(direct)

    # The default numpy engine (no numba compile) gives ranx's numbers on a random run with graded qrels.
    from .test_cli_output import random_run

    run, graded = random_run()
    ours, theirs = evaluate_run(run, graded), evaluate_run(run, graded, engine="ranx")
    assert list(ours["per_query"]) == list(theirs["per_query"])
    for qid, values in ours["per_query"].items():
        for metric in METRICS:
            assert values[metric] == pytest.approx(theirs["per_query"][qid][metric], abs=1e-12), (qid, metric)
    assert ours["per_query"]["missing-from-run"] == {m: 0.0 for m in METRICS}
    with pytest.raises(ValueError, match="engine"):
        evaluate_run(run, graded, engine="trec_eval")


def test_qrels_and_queries_of_both_types(data: SurgeData) -> None:
    titles = load_qrels(data, "test", "titles")
    assert set(titles) == {"0", "1", "2"}
    assert titles["0"] == {str(d): 1 for d in data.survey(0).all_cites}
    questions = load_qrels(data, "test", "questions")
    test_queries = data.queries("test")
    assert set(questions) == {str(q.query_id) for q in test_queries if q.cites}
    assert "43" not in load_qrels(data, "train", "titles")  # empty all_cites: recall undefined, left out
    assert [q.text for q in load_queries(data, "test", "questions")] == [q.prefix_titles_query for q in test_queries]
    with pytest.raises(ValueError):
        load_queries(data, "test", "sections")


def test_to_day_is_conservative() -> None:
    assert to_day("2021-03-04T00:00:00") == to_day("2021-03-04")
    assert to_day("2021-03") == to_day("2021-03-01")
    assert to_day(None, "2021") == to_day("2021-01-01")
    assert to_day("not a date") == UNKNOWN_DAY
    assert document_text("Title", None) == "Title" and document_text("T", " abstract ") == "T abstract"


def test_date_cutoff_drops_papers_after_the_survey(data: SurgeData, bm25_dir: Path, tmp_path: Path) -> None:
    survey = data.survey(0)
    cited = data.corpus.get(survey.all_cites)
    future = {p.doc_id for p in cited if to_day(p.date, p.year) > to_day(survey.date)}
    assert future, "the sample has papers cited by survey 0 but dated after it"

    meta = run_retrieval(bm25_dir, data, tmp_path / "open.trec", k=1000)
    assert meta["date_cutoff"] is False
    assert future <= {int(d) for d in read_trec_run(tmp_path / "open.trec")["0"]}

    meta = run_retrieval(bm25_dir, data, tmp_path / "cut.trec", k=1000, date_cutoff=True)
    assert read_run_metadata(tmp_path / "cut.trec")["date_cutoff"] is True
    assert meta["cutoff_dates"]["0"] == "2021-03-04"
    run = read_trec_run(tmp_path / "cut.trec")
    kept = {int(d) for d in run["0"]}
    assert not future & kept
    dates = {p.doc_id: to_day(p.date, p.year) for p in data.corpus.get(sorted(kept))}
    assert max(dates.values()) <= to_day(survey.date)
    n_allowed = sum(1 for p in data.corpus.get(_corpus_texts(data)[0]) if to_day(p.date, p.year) <= to_day(survey.date))
    assert len(kept) == n_allowed  # every allowed paper, and only those, when k exceeds them
    recall_open = evaluate_run(tmp_path / "open.trec", load_qrels(data, "test"))["per_query"]["0"]["recall@1000"]
    recall_cut = evaluate_run(run, load_qrels(data, "test"))["per_query"]["0"]["recall@1000"]
    assert recall_open == 1.0
    assert recall_cut == pytest.approx(1 - len(future) / len(survey.all_cites))


# --------------------------------------------------------------------------------------------------
# Dense: crash mid-encoding, resume, FAISS
# --------------------------------------------------------------------------------------------------


class _Crash(RuntimeError):
    pass


def test_dense_encoding_resumes_after_a_crash(data: SurgeData, tiny_model: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "dense"

    def crash_after_shard_1(index: int) -> None:
        if index == 1:
            raise _Crash("killed after shard 1")

    with pytest.raises(_Crash):
        encode_corpus(tiny_model, data, out, shard_size=100, batch_size=16, on_shard=crash_after_shard_1)
    shards = out / "shards"
    assert sorted(p.name for p in shards.glob("emb-*.npy")) == ["emb-00000.npy", "emb-00001.npy"]
    assert (out / ENCODING_MANIFEST).is_file()
    assert not (out / FAISS_FILE).exists() and not (out / "surge_index.json").exists()
    before = {p.name: p.stat().st_mtime_ns for p in shards.iterdir()}

    encoded_texts: list[int] = []
    original = DenseEncoder.encode_documents

    def counting(self: DenseEncoder, texts: list[str], batch_size: int = 64, **kwargs: object) -> np.ndarray:
        encoded_texts.append(len(texts))
        return original(self, texts, batch_size=batch_size, **kwargs)  # kwargs: the progress callback

    monkeypatch.setattr(DenseEncoder, "encode_documents", counting)
    report = encode_corpus(tiny_model, data, out, shard_size=100, batch_size=16)
    assert report.skipped == [0, 1] and report.encoded == [2, 3]
    assert encoded_texts == [100, 41]  # only the unfinished shards went through the model
    assert all(p.stat().st_mtime_ns == before[p.name] for p in shards.iterdir() if p.name in before)

    manifest = report.manifest
    assert manifest["n_docs"] == 341 and manifest["faiss"] == "flat" and manifest["n_shards"] == 4
    index = DenseIndex.load(out)
    ids, texts = _corpus_texts(data)
    assert index.doc_ids.tolist() == ids
    fresh = DenseEncoder(tiny_model).encode_documents(texts)
    stored = index.index.reconstruct_n(0, index.index.ntotal)
    np.testing.assert_allclose(stored, fresh, rtol=1e-4, atol=1e-4)  # resumed == encoded in one go

    # Different settings on the same folder are refused rather than silently mixed.
    with pytest.raises(FileExistsError):
        encode_corpus(tiny_model, data, out, shard_size=50)


def test_dense_search_exact_with_cutoff_and_approximate_options(data: SurgeData, tiny_model: Path,
                                                                 tmp_path: Path) -> None:
    report = encode_corpus(tiny_model, data, tmp_path / "flat", shard_size=200, batch_size=32)
    index = DenseIndex.load(tmp_path / "flat")
    queries = load_queries(data, "test", "titles")
    vectors = index.encoder.encode_queries([q.text for q in queries])
    ids, texts = _corpus_texts(data)
    docs = index.index.reconstruct_n(0, index.index.ntotal)
    for engine in ("auto", "faiss"):  # our blockwise exact search and FAISS' own agree with numpy
        hits = index.search_vectors(vectors, k=10, engine=engine)
        for q in range(len(queries)):
            expected = np.sort(vectors[q] @ docs.T)[::-1][:10]
            np.testing.assert_allclose([h.score for h in hits[q]], expected, rtol=1e-4)

    day = to_day(data.survey(0).date)
    dates = {p.doc_id: to_day(p.date, p.year) for p in data.corpus.get(ids)}
    allowed = {d for d, t in dates.items() if t <= day}
    for engine in ("auto", "faiss"):
        cut = index.search_vectors(vectors[:1], k=1000, cutoff_days=[day], engine=engine)[0]
        assert {h.doc_id for h in cut} == allowed and len(cut) == len(allowed)
    from surge_dataset.retrieval.faiss_index import exact_topk

    scores, rows = exact_topk(vectors, docs, 5, block=64)  # several blocks merge into the true top 5
    np.testing.assert_allclose(scores, -np.sort(-(vectors @ docs.T), axis=1)[:, :5], rtol=1e-5)

    for kind in ("ivf", "hnsw"):
        report = encode_corpus(tiny_model, data, tmp_path / "flat", shard_size=200, faiss_index=kind)
        assert report.encoded == [] and report.skipped == [0, 1]  # FAISS rebuilt from the stored shards
        assert report.manifest["faiss"] == kind
        assert 0.0 <= report.manifest["recall_vs_exact@100"] <= 1.0
        approx = DenseIndex.load(tmp_path / "flat").search_vectors(vectors, k=20)
        assert all(len(h) == 20 for h in approx)


# --------------------------------------------------------------------------------------------------
# Exports
# --------------------------------------------------------------------------------------------------


def test_export_beir_layout(data: SurgeData, tmp_path: Path) -> None:
    out = tmp_path / "beir"
    counts = export_retrieval(data, out, fmt="beir")
    assert counts == {"corpus": 341, "queries": 3, "qrels": sum(len(s.all_cites) for s in data.surveys("test"))}
    corpus = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert set(corpus[0]) == {"_id", "title", "text"} and len(corpus) == 341
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    assert queries[0] == {"_id": "q0", "text": data.survey(0).survey_title}
    assert corpus[0]["_id"] == "d0" and not {q["_id"] for q in queries} & {c["_id"] for c in corpus}
    rows = (out / "qrels" / "test.tsv").read_text().splitlines()
    assert rows[0] == "query-id\tcorpus-id\tscore"
    qrels: dict[str, dict[str, int]] = {}
    for row in rows[1:]:
        qid, doc, score = row.split("\t")
        qrels.setdefault(qid.removeprefix("q"), {})[doc.removeprefix("d")] = int(score)
    assert qrels == load_qrels(data, "test", "titles")
    assert read_trec_qrels(out / "qrels" / "test.tsv") == qrels  # the export's own qrels read back plain


def test_export_mteb_layout_loads_with_datasets(data: SurgeData, tmp_path: Path) -> None:
    from datasets import load_dataset

    out = tmp_path / "mteb"
    counts = export_retrieval(data, out, fmt="mteb", query_type="questions")
    cache = str(tmp_path / "hf-cache")
    corpus = load_dataset(str(out), "corpus", cache_dir=cache)["corpus"]
    queries = load_dataset(str(out), "queries", cache_dir=cache)["queries"]
    qrels = load_dataset(str(out), "default", cache_dir=cache)["test"]
    assert corpus.column_names == ["_id", "title", "text"] and corpus.num_rows == 341
    assert queries.column_names == ["_id", "text"] and queries.num_rows == counts["queries"]
    assert qrels.column_names == ["query-id", "corpus-id", "score"] and qrels.num_rows == counts["qrels"]
    expected = load_qrels(data, "test", "questions")
    assert {(r["query-id"], r["corpus-id"]) for r in qrels} == {(f"q{q}", f"d{d}") for q, docs in expected.items()
                                                               for d in docs}
    import yaml

    front = yaml.safe_load((out / "README.md").read_text(encoding="utf-8").split("---\n")[1])
    assert front["license"] == "other" and front["license_name"] and (out / front["license_link"]).is_file()
    assert {"language", "pretty_name", "size_categories", "task_categories", "task_ids", "configs"} <= set(front)
    with pytest.raises(FileExistsError):
        export_retrieval(data, out, fmt="mteb")
    with pytest.raises(ValueError):
        export_retrieval(data, tmp_path / "x", fmt="trec")


# --------------------------------------------------------------------------------------------------
# Command line (registered by the lead in cli.py exactly like this)
# --------------------------------------------------------------------------------------------------


def _app() -> typer.Typer:
    from surge_dataset.cli import SurgeGroup
    from surge_dataset.cli.retrieval import export_retrieval as export_cmd
    from surge_dataset.cli.retrieval import index_app, retrieval_eval
    from surge_dataset.cli.retrieval import retrieve as retrieve_cmd

    app = typer.Typer(cls=SurgeGroup)  # the root that turns a SurgeError into one line and exit 2
    data_app = typer.Typer()
    app.add_typer(data_app, name="data")
    app.add_typer(index_app, name="index")
    app.command("retrieve")(retrieve_cmd)
    app.command("retrieval-eval")(retrieval_eval)
    data_app.command("export-retrieval")(export_cmd)
    return app


def test_cli_index_retrieve_eval_export(data: SurgeData, tmp_path: Path) -> None:
    app, runner = _app(), CliRunner()
    env = {"COLUMNS": "200"}
    result = runner.invoke(app, ["index", "bm25", "--data", str(data.path), "--out", str(tmp_path / "bm25")], env=env)
    assert result.exit_code == 0, result.output
    assert "341 papers" in result.output
    result = runner.invoke(app, ["index", "bm25", "--data", str(data.path), "--out", str(tmp_path / "bm25")], env=env)
    assert result.exit_code == 2 and "already exists" in result.output

    run = tmp_path / "run.trec"
    result = runner.invoke(app, ["retrieve", "--index", str(tmp_path / "bm25"), "--data", str(data.path),
                                 "--queries", "test", "--query-type", "questions", "--k", "100",
                                 "--out", str(run), "--date-cutoff"], env=env)
    assert result.exit_code == 0, result.output
    meta = read_run_metadata(run)
    assert meta["query_type"] == "questions" and meta["date_cutoff"] is True and meta["k"] == 100

    metrics = tmp_path / "metrics.json"
    result = runner.invoke(app, ["retrieval-eval", "--run", str(run), "--qrels", "test", "--data", str(data.path),
                                 "--out", str(metrics)], env=env)
    assert result.exit_code == 0, result.output
    assert "R@20" in result.output and "R@1000" in result.output
    written = json.loads(metrics.read_text())
    assert {m for m in METRICS} <= set(written) and written["query_type"] == "questions"
    assert set(written["per_query"]) == set(load_qrels(data, "test", "questions"))

    qrels_file = write_trec_qrels(tmp_path / "qrels.txt", load_qrels(data, "test", "questions"))
    result = runner.invoke(app, ["retrieval-eval", "--run", str(run), "--qrels", str(qrels_file)], env=env)
    assert result.exit_code == 0, result.output

    result = runner.invoke(app, ["data", "export-retrieval", "--data", str(data.path), "--out",
                                 str(tmp_path / "exp"), "--format", "beir", "--query-type", "questions"], env=env)
    assert result.exit_code == 0 and (tmp_path / "exp" / "qrels" / "test.tsv").is_file(), result.output
    beir_metrics = tmp_path / "beir-metrics.json"  # the export's own BEIR qrels (3 columns, a header) as --qrels
    result = runner.invoke(app, ["retrieval-eval", "--run", str(run), "--qrels", str(tmp_path / "exp" / "qrels" /
                                 "test.tsv"), "--out", str(beir_metrics)], env=env)
    assert result.exit_code == 0, result.output
    assert "missing = 0" in result.output and "in the run (BEIR, pytrec_eval)" in result.output
    from_beir = json.loads(beir_metrics.read_text())
    assert from_beir["per_query"] == written["per_query"] and from_beir["means"] == written["means"]
    result = runner.invoke(app, ["data", "export-retrieval", "--data", str(data.path), "--out",
                                 str(tmp_path / "exp2"), "--format", "csv"], env=env)
    assert result.exit_code == 2

    result = runner.invoke(app, ["retrieve", "--index", str(tmp_path / "nope"), "--data", str(data.path)], env=env)
    assert result.exit_code == 2 and "not a surge index" in result.output


def test_environment_has_no_remote_code_paths() -> None:
    """The retriever never passes trust_remote_code (a model folder must not run its own code)."""
    root = Path(__file__).resolve().parents[1]
    for file in [*(root / "surge_dataset" / "retrieval").glob("*.py"), root / "training" / "train_retriever.py"]:
        assert "trust_remote_code=True" not in file.read_text(encoding="utf-8"), file
