"""What other people's tools say about our retrieval outputs: pytrec_eval on our runs (ties included) and beir on our
exports give the numbers ``surge retrieval-eval`` gives."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.data.dataset import SurgeData
from surge_dataset.retrieval import build_bm25_index, export_retrieval
from surge_dataset.retrieval.evaluation import METRICS, evaluate_run
from surge_dataset.retrieval.index_base import Hit
from surge_dataset.retrieval.registry import open_index
from surge_dataset.retrieval.runs import (
    load_qrels,
    load_queries,
    read_trec_qrels,
    read_trec_run,
    retrieve,
    write_trec_qrels,
    write_trec_run,
)

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pip install -e '.[dev]' (pytrec-eval-terrier)")

#: Our metric names -> pytrec_eval's measures and result keys.
TREC_MEASURES = {f"recall@{k}": (f"recall.{k}", f"recall_{k}") for k in (20, 30, 100, 200, 500, 1000)}
TREC_MEASURES |= {"ndcg@10": ("ndcg_cut.10", "ndcg_cut_10"), "mrr": ("recip_rank", "recip_rank")}


def pytrec_eval_scores(run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]]) -> dict[str, dict]:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure for measure, _ in TREC_MEASURES.values()})
    scores = evaluator.evaluate(run)
    return {qid: {m: values[key] for m, (_, key) in TREC_MEASURES.items()} for qid, values in scores.items()}


def assert_same(ours: dict, theirs: dict) -> None:
    """Per query (the run's queries: pytrec_eval's) and their mean (our ``run`` average)."""
    assert set(theirs) == {q for q in ours["per_query"] if q in theirs} and theirs
    for qid, values in theirs.items():
        for metric in METRICS:
            assert ours["per_query"][qid][metric] == pytest.approx(values[metric], abs=1e-12), (qid, metric)
    for metric in METRICS:
        mean = sum(v[metric] for v in theirs.values()) / len(theirs)
        assert ours["means"]["run"][metric] == pytest.approx(mean, abs=1e-12), metric


@pytest.fixture(scope="module")
def data(sample_dataset: Path) -> SurgeData:
    return SurgeData.open(sample_dataset)


@pytest.fixture(scope="module")
def bm25(data: SurgeData, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("interop") / "bm25"
    build_bm25_index(data, out)
    return out


def tied_run() -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    """A run made of ties where they matter: at ranks 9-10 (nDCG@10), across rank 20 (R@20) with doc ids whose
    string order is not their numeric order, at score 0 over hundreds of papers (R@200), scores apart only in
    the 7th decimal (equal once written with 6), and a qrels query the run lacks."""
    rng = random.Random(7)
    run = {
        "1": {**{str(d): 10.0 - d for d in range(8)}, "9": 1.5, "10": 1.5, "100": 1.0},
        "2": {**{str(d): 5.0 + d for d in range(19)}, "7": 1.0, "30": 1.0, "200": 1.0, "1000": 1.0},
        "3": {**{str(d): 3.0 for d in range(150)}, **{str(d): 0.0 for d in range(150, 434)}},
        "4": {"1": 0.12345671, "2": 0.12345674, "3": 0.1234567},
        "5": {str(d): float(rng.choice([0.0, 0.5, 1.0])) for d in rng.sample(range(5000), 1200)},
    }
    qrels = {
        "1": {"10": 1, "3": 1},
        "2": {"30": 1, "7": 2},
        "3": {"433": 1, "151": 1, "2": 1},
        "4": {"2": 1},
        "5": {str(d): rng.choice([1, 2]) for d in rng.sample(range(5000), 80)},
        "6": {"1": 1},
    }
    return run, qrels


def test_retrieval_eval_equals_pytrec_eval_on_a_run_with_ties(tmp_path: Path) -> None:
    run, qrels = tied_run()
    path = write_trec_run(tmp_path / "run.trec", {q: {d: s for d, s in docs.items()} for q, docs in run.items()})
    assert read_trec_run(path) == run  # full precision: the 7th decimal survives
    qrels_path = write_trec_qrels(tmp_path / "qrels.txt", qrels)
    out = tmp_path / "metrics.json"
    result = CliRunner().invoke(app, ["retrieval-eval", "--run", str(path), "--qrels", str(qrels_path), "--out",
                                      str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    ours = json.loads(out.read_text())
    theirs = pytrec_eval_scores(run, qrels)
    assert_same(ours, theirs)
    assert ours["per_query"]["6"] == {m: 0.0 for m in METRICS} and "6" not in theirs  # the two averages
    assert ours["average"] == "qrels" and ours["recall@20"] == pytest.approx(
        sum(v["recall@20"] for v in ours["per_query"].values()) / 6)
    assert ours["per_query"]["3"]["recall@200"] == pytest.approx(2 / 3)  # doc 433 wins its tie at 0 ("433" > "199")
    # the file's rank column and line order are ignored, as pytrec_eval ignores them
    lines = path.read_text().splitlines()
    random.Random(1).shuffle(lines)
    shuffled = tmp_path / "shuffled.trec"
    shuffled.write_text("".join(" ".join([*line.split()[:3], "1", *line.split()[4:]]) + "\n" for line in lines))
    assert evaluate_run(shuffled, qrels)["per_query"] == ours["per_query"]
    through_ranx = evaluate_run(shuffled, qrels, engine="ranx")["per_query"]
    for qid, values in ours["per_query"].items():
        assert through_ranx[qid] == pytest.approx(values, abs=1e-12), qid


def test_one_index_one_ranking_at_every_k(data: SurgeData, bm25: Path, tmp_path: Path) -> None:
    """The papers tied at the k-th score are chosen by the tie rule, not by the searcher: the top 10 of a k = 10 run
    is the top 10 of a k = 1000 run, and pytrec_eval scores both runs as we do."""
    searcher = open_index(bm25)
    queries = load_queries(data, "test", "questions")
    qrels = load_qrels(data, "test", "questions")
    small, large = retrieve(searcher, queries, 10), retrieve(searcher, queries, 1000)
    scores = [h.score for hits in large.values() for h in hits]
    assert len(scores) - len(set(scores)) > 100  # the sample's BM25 question run is full of ties (at 0 above all)
    for qid in small:
        assert small[qid] == large[qid][:10], qid
        by_id = sorted(large[qid], key=lambda h: str(h.doc_id), reverse=True)
        assert large[qid] == sorted(by_id, key=lambda h: -h.score)  # score, then doc id (a string) descending
    for k, hits in ((10, small), (1000, large)):
        path = write_trec_run(tmp_path / f"k{k}.trec", hits)
        run = read_trec_run(path)
        ours = evaluate_run(path, qrels)
        assert_same(ours, pytrec_eval_scores(run, qrels))
    assert evaluate_run(tmp_path / "k10.trec", qrels)["ndcg@10"] == evaluate_run(tmp_path / "k1000.trec",
                                                                                 qrels)["ndcg@10"]


def test_retrieve_widens_the_search_until_the_tied_group_is_whole() -> None:
    class TiedSearcher:
        """Ten papers all scoring 1.0, returned in the order a searcher might pick (here: ascending ids, cut at k)."""

        doc_ids = np.arange(10)
        doc_days = np.zeros(10, dtype=np.int32)
        asked: list[int] = []

        def search(self, texts, k, cutoff_days=None):
            self.asked.append(k)
            return [[Hit(d, 1.0) for d in range(10)][:k] for _ in texts]

    searcher = TiedSearcher()
    from surge_dataset.retrieval.runs import RetrievalQuery

    hits = retrieve(searcher, [RetrievalQuery("1", "x", None, None)], 3)
    assert [h.doc_id for h in hits["1"]] == [9, 8, 7] and searcher.asked == [6, 10]


def _beir_run(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    return {f"q{q}": {f"d{d}": s for d, s in docs.items()} for q, docs in run.items()}


def test_the_beir_export_loads_in_beir_and_evaluates_as_ours(data: SurgeData, bm25: Path, tmp_path: Path) -> None:
    pytest.importorskip("beir", reason="pip install -e '.[dev]' (beir)")
    from beir.datasets.data_loader import GenericDataLoader
    from beir.retrieval.evaluation import EvaluateRetrieval

    out = tmp_path / "beir"
    counts = export_retrieval(data, out, fmt="beir", query_type="questions")
    corpus, queries, qrels = GenericDataLoader(data_folder=str(out)).load(split="test")
    assert len(corpus) == counts["corpus"] and len(queries) == counts["queries"]
    assert not set(corpus) & set(queries)  # distinct ids: BEIR drops a paper whose id is its query's
    assert read_trec_qrels(out / "qrels" / "test.tsv") == load_qrels(data, "test", "questions")

    run = {q: {str(h.doc_id): h.score for h in hits}
           for q, hits in retrieve(open_index(bm25), load_queries(data, "test", "questions"), 1000).items()}
    ks = [10, 20, 30, 100, 200, 500, 1000]
    ndcg, _, recall, _ = EvaluateRetrieval.evaluate(qrels, _beir_run(run), ks)  # ignore_identical_ids=True, default
    ours = evaluate_run(run, read_trec_qrels(out / "qrels" / "test.tsv"), average="run")
    assert ours["ndcg@10"] == pytest.approx(ndcg["NDCG@10"], abs=1e-5)  # BEIR rounds to 5 decimals
    for k in ks[1:]:
        assert ours[f"recall@{k}"] == pytest.approx(recall[f"Recall@{k}"], abs=1e-5), k


def test_beirs_exact_search_keeps_every_paper_of_the_export(data: SurgeData, tmp_path: Path) -> None:
    """BEIR's dense exact search skips a paper whose id equals the query's: with the export's ids it skips none,
    so its top k is the plain top k of the same vectors."""
    pytest.importorskip("beir", reason="pip install -e '.[dev]' (beir)")
    from beir.retrieval.search.dense import DenseRetrievalExactSearch

    out = tmp_path / "beir"
    export_retrieval(data, out, fmt="beir", query_type="titles")
    from beir.datasets.data_loader import GenericDataLoader

    corpus, queries, _ = GenericDataLoader(data_folder=str(out)).load(split="test")

    def vector(text: str) -> np.ndarray:
        v = np.zeros(64, dtype=np.float32)
        for word in text.lower().split():
            v[sum(map(ord, word)) % 64] += 1.0
        return v

    class Words:
        def encode_queries(self, texts, batch_size=32, **kwargs):
            return np.stack([vector(t) for t in texts])

        def encode_corpus(self, docs, batch_size=32, **kwargs):
            if isinstance(docs, dict):
                docs = [{"title": t, "text": x} for t, x in zip(docs["title"], docs["text"], strict=True)]
            return np.stack([vector(f"{d.get('title', '')} {d['text']}") for d in docs])

    top = 20
    found = DenseRetrievalExactSearch(Words(), batch_size=64, corpus_chunk_size=1000).search(
        corpus, queries, top, score_function="dot")
    ids = list(corpus)
    matrix = np.stack([vector(f"{corpus[i].get('title', '')} {corpus[i]['text']}") for i in ids])
    for qid, text in queries.items():
        scores = matrix @ vector(text)
        cut = np.sort(scores)[::-1][top - 1]
        assert {ids[i] for i in np.flatnonzero(scores > cut)} <= set(found[qid]), qid
        assert len(found[qid]) == top


def test_the_mteb_export_loads_in_beir(data: SurgeData, tmp_path: Path) -> None:
    pytest.importorskip("beir", reason="pip install -e '.[dev]' (beir)")
    from beir.datasets.data_loader_hf import HFDataLoader

    out = tmp_path / "mteb"
    counts = export_retrieval(data, out, fmt="mteb", query_type="questions")
    corpus, queries, qrels = HFDataLoader(hf_repo=str(out), hf_repo_qrels=str(out)).load(split="test")
    assert len(corpus) == counts["corpus"] and len(queries) == counts["queries"]
    assert not set(corpus["id"]) & set(queries["id"])
    assert {q.removeprefix("q"): {d.removeprefix("d"): r for d, r in docs.items()} for q, docs in qrels.items()} \
        == load_qrels(data, "test", "questions")
