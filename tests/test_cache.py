"""The one on-disk cache (surge_dataset.core.cache): every user is a thin keyed store on the same SQLite store, and
cache files written before the stores became one still read (a user's judge answers are never lost silently)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from surge_dataset.core.cache import JsonStore, SqliteStore, make_key
from surge_dataset.llm.client import LLM
from surge_dataset.llm.openai_backend import OpenAIBackend
from surge_dataset.models.cache import ScoreCache
from surge_dataset.references.chain import CACHE_NAME, ChainOptions, ReferenceChain

OLD_LLM_CACHE = Path(__file__).parent / "fixtures" / "cache" / "llm-v1.sqlite"
QUESTION = "How many sides has a square? Answer with a number."


def test_an_llm_cache_written_before_the_merge_is_read_as_it_is(tmp_path):
    shutil.copyfile(OLD_LLM_CACHE, tmp_path / "llm.sqlite")
    backend = OpenAIBackend("judge-model", base_url="http://127.0.0.1:9/v1", max_retries=0)  # nothing listens there
    [answer] = LLM(backend, cache_dir=tmp_path).generate([[{"role": "user", "content": QUESTION}]])
    assert (answer.text, answer.cached) == ("4", True)


def test_every_store_is_the_one_sqlite_store(tmp_path):
    llm_cache = LLM(OpenAIBackend("m"), cache_dir=tmp_path).cache
    bib_cache = ReferenceChain(ChainOptions(cache_dir=tmp_path)).cache
    assert type(llm_cache) is JsonStore and type(bib_cache) is JsonStore
    assert (llm_cache.path, bib_cache.path) == (tmp_path / "llm.sqlite", tmp_path / f"{CACHE_NAME}.sqlite")
    assert issubclass(JsonStore, SqliteStore) and issubclass(ScoreCache, SqliteStore)
    assert ScoreCache.make_key is JsonStore.make_key is make_key  # one key rule
    vectors, answers = ScoreCache(tmp_path, "v"), JsonStore(tmp_path, "a")
    vectors.put_many({"k": np.array([1.0, 2.0])})
    answers.put_many({"k": {"text": "x"}})
    assert vectors.get_many(["k"])["k"].tolist() == [1.0, 2.0] and answers.get_many(["k"]) == {"k": {"text": "x"}}
