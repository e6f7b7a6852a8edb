"""Memory at corpus scale: resolving a few titles reads those rows only, and the build streams corpus.json.

At the real 1.09M papers, ``Corpus.get`` once copied the whole memory-mapped corpus (``read_all`` +
``take``: ~3 GB) and ``surge data build`` parsed corpus.json whole (~5 GB). Each check runs in a fresh
child process, which imports everything first, resets its peak RSS (``/proc/self/clear_refs``) and
reports how far the peak rose during the work alone; that rise must stay a small fraction of the data.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import orjson
import pyarrow as pa
import pytest

from surge_dataset.data.corpus import write_corpus_index

ROOT = Path(__file__).resolve().parents[1]
N_INDEX = 150_000  # papers in the index test: papers.arrow of ~160 MB
N_BUILD = 60_000  # papers in the build test: corpus.json of ~70 MB
ABSTRACT_CHARS = 1000

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc to measure peak RSS"
)

# Shared by both children: peak RSS reset after the imports, and the rise of the peak since then.
_MEASURE = """
import json, sys

def _status(field):
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) * 1024 for line in handle if line.startswith(field + ":"))

def start():
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")  # reset VmHWM to the current RSS
    return _status("VmRSS")

def report(base, **extra):
    print(json.dumps({"rise": _status("VmHWM") - base, **extra}))
"""

_WORD = """
def _word(i):
    # a number spelt in letters: titles must differ in their letters, the only thing normalisation keeps
    return "".join("abcdefghij"[int(d)] for d in str(i))
"""
_namespace: dict = {}
exec(_WORD, _namespace)  # the same helper here and in the child
_word = _namespace["_word"]

_INDEX_CHILD = _MEASURE + _WORD + """
import numpy as np, pyarrow
from surge_dataset.data.corpus import Corpus
index, n, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
base = start()
corpus = Corpus.open(index)
rows = np.linspace(0, n - 1, 300).astype(int).tolist()  # three surveys' references, spread over the corpus
titles = [f"PAPER {_word(r)} on the memory of things" for r in rows] + ["no such paper"] * 20
resolved = corpus.resolve(titles)
papers = corpus.get([d for d in resolved if d is not None] + [-5])
ok = resolved[:300] == rows and resolved[300:] == [None] * 20 and papers[-1] is None
ok = ok and [p.doc_id for p in papers[:-1]] == rows and all(len(p.abstract) == width for p in papers[:-1])
ok = ok and corpus.resolve_all(f"paper {_word(7)} on the memory of things!") == [7] and len(corpus) == n and 3 in corpus
report(base, ok=ok)
"""

_BUILD_CHILD = _MEASURE + """
import pyarrow.parquet
import surge_dataset.data.build as build
import surge_dataset.data.card  # noqa: F401 - imported by the build at its end (it pulls in `datasets`)
# This test's corpus is ~18x smaller than the real one: scale what is held at once down alike.
build.CHUNK_ROWS = 5_000
try:
    from surge_dataset.data import jsonstream
    jsonstream.BLOCK_BYTES = 1 << 20
except ImportError:  # a build that does not stream has no block size to scale
    pass
source, out, warm_source = sys.argv[1:4]
# A first, small build brings every lazily allocated pool and buffer to its working size; what the
# measured build adds on top of that grows with what it holds at once.
build.build_dataset(warm_source, out + "-warm-up", shard_rows=20_000)
base = start()
report_ = build.build_dataset(source, out, shard_rows=20_000)
report(base, counts=report_.counts)
"""



def _run_child(code: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _letters(rng: np.random.Generator, n: int, width: int) -> pa.Array:
    """``n`` strings of ``width`` random lower-case letters and spaces, built without Python strings."""
    alphabet = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz    ", dtype=np.uint8)
    data = alphabet[rng.integers(0, len(alphabet), size=n * width)]
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int32)
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))


@pytest.fixture(scope="module")
def big_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus index of ``N_INDEX`` papers (~1 KB abstracts each), written as the build writes it."""
    index = tmp_path_factory.mktemp("index")
    rng = np.random.default_rng(0)
    table = pa.table({
        "doc_id": pa.array(np.arange(N_INDEX, dtype=np.int64)),
        "title": pa.array([f"Paper {_word(i)} on the memory of things" for i in range(N_INDEX)]),
        "abstract": _letters(rng, N_INDEX, ABSTRACT_CHARS),
        "date": pa.array(["2020-01-01T00:00:00"] * N_INDEX),
        "year": pa.array(["2020"] * N_INDEX),
    })
    write_corpus_index(table, index)
    return index


def test_resolving_a_few_titles_reads_only_their_rows(big_index: Path) -> None:
    size = (big_index / "papers.arrow").stat().st_size
    assert size > 150e6
    result = _run_child(_INDEX_CHILD, str(big_index), str(N_INDEX), str(ABSTRACT_CHARS))
    assert result["ok"]
    # Read: the bytes of 300 rows and pages of the small key arrays. Copying the table would add ~size.
    assert result["rise"] < 0.1 * size, f"peak RSS rose {result['rise'] / 1e6:.0f} MB for a {size / 1e6:.0f} MB corpus"


def _write_corpus_json(src: Path, n: int) -> None:
    """An official corpus.json of ``n`` papers with ~1 KB abstracts (plus a small surveys.json)."""
    rng = np.random.default_rng(1)
    abstracts = _letters(rng, n, ABSTRACT_CHARS).to_pylist()
    records = [
        {"Title": f"Paper {i} on streaming", "Authors": ["Ana Abe", "Bo Brown"], "Year": "2021",
         "Date": "2021-05-01T00:00:00", "Abstract": abstracts[i], "Category": "cs.CL", "doc_id": i}
        for i in range(n)
    ]
    src.mkdir(parents=True)
    (src / "corpus.json").write_bytes(orjson.dumps(records))
    survey = {"survey_id": 0, "survey_title": "A survey", "authors": ["Ana Abe"], "year": "2022",
              "date": "2022-01-01", "category": "cs.CL", "abstract": "x",
              "structure": [{"id": 0, "parent_id": None, "title": "root", "content": ""}],
              "all_cites": [1, 2], "Bertopic_CD": 0.5}
    (src / "surveys.json").write_bytes(orjson.dumps([survey]))


def test_build_streams_the_corpus(tmp_path: Path) -> None:
    _write_corpus_json(tmp_path / "src", N_BUILD)
    _write_corpus_json(tmp_path / "warm-up", N_BUILD // 6)
    size = (tmp_path / "src" / "corpus.json").stat().st_size
    result = _run_child(_BUILD_CHILD, str(tmp_path / "src"), str(tmp_path / "out"), str(tmp_path / "warm-up"))
    assert result["counts"]["corpus"] == {"train": N_BUILD}
    # Parsing the file whole holds its bytes plus every record as Python objects: over 3x ``size``.
    # Streaming holds one table of records and one block of JSON at a time.
    assert result["rise"] < 0.5 * size, f"peak RSS rose {result['rise'] / 1e6:.0f} MB for {size / 1e6:.0f} MB of JSON"
