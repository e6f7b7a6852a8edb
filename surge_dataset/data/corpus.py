"""The corpus index: normalised title -> doc_id and doc_id -> paper, memory-mapped, built once.

The released evaluator json.loads the whole 1.09M-paper corpus and builds a Python dict of
normalised titles at every start (tens of seconds, several GB). We build the index once at
``surge data build`` time and open it lazily:

* ``index/title_keys.npy``  uint64 hash of each normalised title, sorted (ties: corpus order);
* ``index/title_rows.npy``  int64 corpus row of each entry, aligned with the keys;
* ``index/doc_ids.npy`` / ``index/doc_rows.npy``  sorted doc ids and their corpus rows;
* ``index/papers.arrow``  uncompressed Arrow IPC file (doc_id, title, abstract, date, year) in corpus
  order, for O(1) random access (Parquet would decompress whole row groups per lookup): a value is read
  with positional reads of just its bytes, so RSS does not grow with the corpus (see ``_PaperFile``).

Resolution is a vectorised ``searchsorted`` on the keys, then an exact comparison of the normalised
titles, so hash collisions can never produce a wrong match.

Duplicate normalised titles: when several corpus papers normalise alike, the one that comes LAST in
``corpus.json`` wins -- the released evaluator's dict-overwrite behaviour, kept for comparability.
``resolve_all`` returns every candidate.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import struct
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from surge_dataset.core.normalise import normalise_title
from surge_dataset.core.records import Paper

INDEX_DIR = "index"
PAPER_COLUMNS = ["doc_id", "title", "abstract", "date", "year"]


def title_key(normalised: str) -> int:
    """Stable 64-bit key of a normalised title (blake2b; Python's ``hash`` is salted per process)."""
    return int.from_bytes(hashlib.blake2b(normalised.encode("utf-8"), digest_size=8).digest(), "little")


def title_keys(titles: Iterable[str]) -> np.ndarray:
    return np.fromiter((title_key(normalise_title(t)) for t in titles), dtype=np.uint64)


class CorpusIndexWriter:
    """Writes the index files from the corpus table given in consecutive parts (a streamed build).

    Only the title keys and doc ids (8 bytes each per paper) are held until :meth:`close`; each part's
    papers go straight to ``papers.arrow``. The files are the same whether the table comes whole or in parts.
    """

    def __init__(self, out_dir: str | Path):
        self.out = Path(out_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        self._keys: list[np.ndarray] = []
        self._doc_ids: list[np.ndarray] = []
        self._sink = pa.OSFile(str(self.out / "papers.arrow"), "wb")
        self._writer: pa.ipc.RecordBatchFileWriter | None = None

    def add(self, table: pa.Table) -> None:
        """Append the next corpus rows (columns doc_id, title, abstract, date, year, in any order)."""
        self._keys.append(title_keys("" if t is None else t for t in table.column("title").to_pylist()))
        self._doc_ids.append(table.column("doc_id").to_numpy().astype(np.int64))
        papers = table.select(PAPER_COLUMNS)
        if self._writer is None:
            self._writer = pa.ipc.new_file(self._sink, papers.schema)
        for batch in papers.to_batches(max_chunksize=65536):
            self._writer.write_batch(batch)

    def doc_ids(self) -> np.ndarray:
        """Every doc id added so far, in corpus order."""
        return np.concatenate(self._doc_ids) if self._doc_ids else np.zeros(0, dtype=np.int64)

    def close(self, schema: pa.Schema | None = None) -> None:
        """Write the sorted key and doc id files and finish ``papers.arrow`` (``schema``: if no part came)."""
        if self._writer is None:
            if schema is None:
                raise ValueError("no corpus rows were added and no schema was given")
            self._writer = pa.ipc.new_file(self._sink, schema)
        self._writer.close()
        self._sink.close()
        keys = np.concatenate(self._keys) if self._keys else np.zeros(0, dtype=np.uint64)
        rows = np.arange(len(keys), dtype=np.int64)
        order = np.lexsort((rows, keys))  # by key, then corpus order (so the last duplicate is last)
        np.save(self.out / "title_keys.npy", keys[order])
        np.save(self.out / "title_rows.npy", rows[order])
        doc_ids = self.doc_ids()
        doc_order = np.argsort(doc_ids, kind="stable")
        np.save(self.out / "doc_ids.npy", doc_ids[doc_order])
        np.save(self.out / "doc_rows.npy", doc_order.astype(np.int64))

    def abort(self) -> None:
        """Release the open file after a failed build (the caller discards the folder)."""
        if self._writer is not None:
            try:
                self._writer.close()
            except (OSError, pa.ArrowException):
                pass
        self._sink.close()


def write_corpus_index(table: pa.Table, out_dir: str | Path) -> None:
    """Write the index files for a corpus table with columns doc_id, title, abstract, date, year."""
    writer = CorpusIndexWriter(out_dir)
    writer.add(table)
    writer.close()


@dataclass(frozen=True)
class _Layout:
    """Where one column of one record batch lies in ``papers.arrow`` (file offsets)."""

    validity: int | None  # the validity bitmap; None when the column has no nulls
    offsets: int | None  # strings: the value offsets (``width`` bytes each); None for signed integers
    values: int  # the values: integers (``width`` bytes each) or the string bytes
    width: int


def _layout(array: pa.Array, base: int, size: int) -> _Layout | None:
    """The file layout of a column read zero-copy from a memory map of ``size`` bytes at ``base``.

    None when it is not a layout we read (or a buffer does not lie inside the map): read through the map.
    """
    buffers = array.buffers()
    if array.offset or any(b is None for b in buffers[1:]):
        return None
    if any(b is not None and b.size and not 0 <= b.address - base <= size - b.size for b in buffers):
        return None
    validity = None if buffers[0] is None or array.null_count == 0 else buffers[0].address - base
    if pa.types.is_signed_integer(array.type):
        return _Layout(validity, None, buffers[1].address - base, array.type.bit_width // 8)
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        width = 8 if pa.types.is_large_string(array.type) else 4
        return _Layout(validity, buffers[1].address - base, buffers[2].address - base, width)
    return None


class _PaperFile:
    """Single values of ``papers.arrow`` by (record batch, row), read with ``os.pread``.

    Why not a memory map: every page a map touches counts in the process's RSS, and on file systems
    with large page-cache folios (ext4 on recent kernels) touching one row maps up to a few hundred KB
    around it, so a few hundred scattered papers showed as hundreds of MB. Positional reads of exactly
    the bytes of a value (offsets, then the string) keep RSS flat at any corpus size. The file is
    memory-mapped only while opening, to learn where each buffer lies; columns of a type we do not read
    this way (never written by ``surge data build``) are read through that map instead.
    """

    def __init__(self, path: Path):
        self.path = path
        # A raw descriptor closed by a finalizer (when the corpus is closed or collected): an open file object left
        # to the garbage collector raised a ResourceWarning after every compute().
        self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        self._finalizer = weakref.finalize(self, os.close, self._fd)
        source = pa.memory_map(str(path), "r")
        base = source.read_buffer(1).address
        source.seek(0)
        reader = pa.ipc.open_file(source)
        batches = [reader.get_batch(i) for i in range(reader.num_record_batches)]
        self.starts = np.cumsum([0] + [b.num_rows for b in batches], dtype=np.int64).tolist()  # bisect: fast
        self.names = reader.schema.names
        size = source.size()
        self._layouts = [[_layout(b.column(i), base, size) for i in range(b.num_columns)] for b in batches]
        # keep the map only if some column has to be read through it
        self._batches = batches if any(x is None for row in self._layouts for x in row) else None

    def __len__(self) -> int:
        return self.starts[-1]

    def locate(self, row: int) -> tuple[int, int]:
        """(record batch, row within it) of a corpus row."""
        batch = bisect.bisect_right(self.starts, row) - 1
        return batch, int(row) - self.starts[batch]

    def value(self, batch: int, local: int, column: int) -> Any:
        """The value of one cell, as ``as_py()`` would give it."""
        layout = self._layouts[batch][column]
        if layout is None:
            assert self._batches is not None
            return self._batches[batch].column(column)[local].as_py()
        fd = self._fd
        if layout.validity is not None and not os.pread(fd, 1, layout.validity + local // 8)[0] >> (local % 8) & 1:
            return None
        width = layout.width
        if layout.offsets is None:
            return int.from_bytes(os.pread(fd, width, layout.values + local * width), "little", signed=True)
        start, end = struct.unpack("<qq" if width == 8 else "<ii", os.pread(fd, 2 * width, layout.offsets + local * width))
        return os.pread(fd, end - start, layout.values + start).decode("utf-8") if end > start else ""

    def row(self, batch: int, local: int) -> dict[str, Any]:
        return {name: self.value(batch, local, i) for i, name in enumerate(self.names)}

    def close(self) -> None:
        """Close the file (later reads fail); the finalizer does it otherwise."""
        self._finalizer()


class Corpus:
    """Lazy access to the corpus index: title resolution and paper lookup by doc id, reading only those rows."""

    def __init__(self, index_dir: str | Path):
        self.index_dir = Path(index_dir)
        missing = [
            n for n in ("title_keys.npy", "title_rows.npy", "doc_ids.npy", "doc_rows.npy", "papers.arrow")
            if not (self.index_dir / n).exists()
        ]
        if missing:
            raise FileNotFoundError(
                f"{self.index_dir}: corpus index incomplete (missing {', '.join(missing)}); "
                "rebuild the dataset with `surge data build`"
            )
        self._keys = np.load(self.index_dir / "title_keys.npy", mmap_mode="r")
        self._title_rows = np.load(self.index_dir / "title_rows.npy", mmap_mode="r")
        self._doc_ids = np.load(self.index_dir / "doc_ids.npy", mmap_mode="r")
        self._doc_rows = np.load(self.index_dir / "doc_rows.npy", mmap_mode="r")
        self._papers = _PaperFile(self.index_dir / "papers.arrow")
        self._title_column = self._papers.names.index("title")
        self._id_column = self._papers.names.index("doc_id")

    def close(self) -> None:
        """Close ``papers.arrow`` now rather than when the corpus is collected (the arrays are memory maps)."""
        self._papers.close()

    def __enter__(self) -> Corpus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __reduce__(self) -> tuple[type[Corpus], tuple[Path]]:
        """Pickles as its folder (for worker processes): the open file is reopened, nothing is copied."""
        return (type(self), (self.index_dir,))

    @classmethod
    def open(cls, path: str | Path) -> Corpus:
        """Open from a built dataset folder (``<path>/index``) or from the index folder itself."""
        path = Path(path)
        return cls(path / INDEX_DIR if (path / INDEX_DIR).is_dir() else path)

    def __len__(self) -> int:
        return len(self._papers)

    def _row_title(self, row: int) -> str:
        return normalise_title(self._papers.value(*self._papers.locate(row), self._title_column))

    def _row_doc_id(self, row: int) -> int:
        return self._papers.value(*self._papers.locate(row), self._id_column)

    def _candidates(self, key: int, normalised: str) -> list[int]:
        """Corpus rows whose normalised title equals ``normalised``, in corpus order."""
        lo = int(np.searchsorted(self._keys, np.uint64(key), side="left"))
        hi = int(np.searchsorted(self._keys, np.uint64(key), side="right"))
        return [int(r) for r in self._title_rows[lo:hi] if self._row_title(r) == normalised]

    def resolve_rows(self, titles: Sequence[str | None], *, empty_matches: bool = False) -> list[int | None]:
        """Corpus row of each title (last duplicate wins), or None when no corpus title matches.

        A title with no letters a-z normalises to the empty string. By default it never matches;
        with ``empty_matches`` it matches the LAST corpus title that has no letters either, which is
        what the released evaluator's dict lookup does (``--protocol official``).
        """
        normalised = [normalise_title(t) for t in titles]
        keys = np.fromiter((title_key(n) for n in normalised), dtype=np.uint64, count=len(normalised))
        hi = np.searchsorted(self._keys, keys, side="right")
        found: list[int | None] = []
        for i, norm in enumerate(normalised):
            if not norm and not empty_matches:  # a letterless title matches nothing (docs/evaluation/protocols.md)
                found.append(None)
                continue
            position = int(hi[i]) - 1
            if position < 0 or self._keys[position] != keys[i]:
                found.append(None)
                continue
            row = self._title_rows[position]
            if self._row_title(row) == norm:  # the common case: the last entry of the key run matches
                found.append(int(row))
                continue
            rows = self._candidates(int(keys[i]), norm)  # a genuine 64-bit collision: check them all
            found.append(rows[-1] if rows else None)
        return found

    def resolve(self, titles: Sequence[str | None], *, empty_matches: bool = False) -> list[int | None]:
        """doc_id of each title by normalised-title match (last duplicate in corpus order wins)."""
        rows = self.resolve_rows(titles, empty_matches=empty_matches)
        return [None if r is None else self._row_doc_id(r) for r in rows]

    def resolve_all(self, title: str) -> list[int]:
        """Every doc_id whose normalised title equals that of ``title``, in corpus order."""
        norm = normalise_title(title)
        if not norm:
            return []
        return [self._row_doc_id(r) for r in self._candidates(title_key(norm), norm)]

    def rows_of(self, doc_ids: Sequence[int]) -> list[int | None]:
        """Corpus row of each doc id (None when the corpus has no such id)."""
        query = np.asarray(list(doc_ids), dtype=np.int64)
        pos = np.searchsorted(self._doc_ids, query)
        out: list[int | None] = []
        for p, d in zip(pos, query, strict=True):
            out.append(int(self._doc_rows[p]) if p < len(self._doc_ids) and self._doc_ids[p] == d else None)
        return out

    def get(self, doc_ids: Sequence[int]) -> list[Paper | None]:
        """The papers with these doc ids (title, abstract, date, year), None for unknown ids."""
        rows = self.rows_of(doc_ids)
        by_row = {r: self._papers.row(*self._papers.locate(r)) for r in rows if r is not None}
        return [None if r is None else Paper(**by_row[r]) for r in rows]

    def __contains__(self, doc_id: int) -> bool:
        return self.rows_of([doc_id])[0] is not None
