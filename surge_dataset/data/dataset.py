"""Opening a built SurGE dataset (local folder or Hub id) as typed records, reading Arrow directly.

Hot paths use pyarrow on the Parquet shards rather than ``datasets`` objects: iterating a lazy
``datasets`` column of 1M rows is two orders of magnitude slower than an Arrow column.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from surge_dataset.core.defaults import DEFAULT_DATA
from surge_dataset.core.errors import SurgeError
from surge_dataset.core.output_folder import suggest_other_folder
from surge_dataset.core.records import OFFICIAL_FILES, Query, Survey
from surge_dataset.core.vocabulary import UnknownNameError
from surge_dataset.data.build import META_FILE
from surge_dataset.data.corpus import Corpus


class DatasetNotFoundError(SurgeError, FileNotFoundError):
    """``--data`` names no built dataset: the message says how to build one (in a different folder)."""


class UnknownSurveyError(SurgeError, KeyError):
    """A survey id the dataset does not have."""

    __str__ = Exception.__str__  # no KeyError quotes


class MissingPartError(SurgeError, FileNotFoundError):
    """A built dataset without the config a command needs (its official file was absent at build time)."""


#: A Hub dataset id is exactly ``org/name``; a path with more parts (``tests/fixtures/x``) is a missing folder.
_HUB_ID_RE = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")


def _download_hub_dataset(repo_id: str) -> Path:
    """The Hub copy of a built dataset (once; then the HF cache). An id the Hub cannot serve, or a Hub out of reach,
    is a DatasetNotFoundError that says both readings of ``--data``, not a traceback from the HTTP client."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, HFValidationError, LocalEntryNotFoundError

    try:
        return Path(snapshot_download(repo_id=repo_id, repo_type="dataset"))
    except (HfHubHTTPError, HFValidationError, LocalEntryNotFoundError, OSError) as error:
        raise DatasetNotFoundError(
            f"{repo_id}: no such dataset folder, and the Hub dataset {repo_id} could not be fetched "
            f"({type(error).__name__}: {str(error).splitlines()[0] if str(error) else 'no detail'}); --data takes a "
            f"built dataset folder (default ./{DEFAULT_DATA}) or the id of a Hub copy") from error


def resolve_data_path(data: str | Path) -> Path:
    """A local built folder as is; otherwise treat ``data`` as a Hub dataset id and download it once."""
    path = Path(data)
    if path.exists():
        if not (path / META_FILE).exists():
            raw = [name for name in OFFICIAL_FILES.values() if (path / name).is_file()]
            source = path if raw else "DIR"
            built = suggest_other_folder(path) if raw else "surge"
            what = f"holds the official JSON files ({', '.join(raw)}), not a built dataset" if raw else (
                f"is not a built SurGE dataset (no {META_FILE})")
            raise DatasetNotFoundError(
                f"{path} {what}; build one with `surge data build --source {source} --out {built}` "
                f"and pass --data {built}"
            )
        return path
    if _HUB_ID_RE.fullmatch(str(data)):
        return _download_hub_dataset(str(data))
    if str(data) == DEFAULT_DATA:
        raise DatasetNotFoundError(
            f"{data}: no such dataset folder: --data defaults to ./{DEFAULT_DATA}, where `surge data build` writes "
            f"(`surge data build --source examples/sample --out {DEFAULT_DATA}` builds the shipped sample, as `make "
            "demo` does); run from the folder that holds it, or pass --data DIR")
    raise DatasetNotFoundError(f"{data}: no such dataset folder (and not a Hub id of the form org/name); --data takes "
                               f"a built dataset folder (default ./{DEFAULT_DATA}, where `surge data build` writes)")


class SurgeData:
    """A built dataset: surveys by id and split, queries, the corpus index and the build metadata."""

    def __init__(self, path: str | Path):
        self.path = resolve_data_path(path)
        self.meta: dict[str, Any] = json.loads((self.path / META_FILE).read_text(encoding="utf-8"))

    @classmethod
    def open(cls, path: str | Path) -> SurgeData:
        return cls(path)

    @property
    def fingerprint(self) -> str:
        return self.meta.get("fingerprint", "")

    @property
    def configs(self) -> list[str]:
        return list(self.meta.get("configs", []))

    @property
    def window(self) -> dict[str, str | None] | None:
        """``{"since", "until"}`` of a fresh split (its manifest's query window; ``until`` None = open), or None:
        the official SurGE files record no window (see :attr:`survey_dates` for what their surveys say)."""
        fresh = self.meta.get("fresh")
        window = fresh.get("window") if isinstance(fresh, dict) else None
        return {"since": window.get("since"), "until": window.get("until")} if isinstance(window, dict) else None

    @functools.cached_property
    def survey_dates(self) -> tuple[str, str] | None:
        """The earliest and latest survey ``date`` (YYYY-MM-DD): what the surveys say, not a recorded window."""
        if "surveys" not in self.configs:
            return None
        dates = [str(d)[:10] for _, file in self._files("surveys")
                 for d in pq.read_table(file, columns=["date"]).column("date").to_pylist() if d]
        return (min(dates), max(dates)) if dates else None

    def _files(self, config: str, split: str | None = None) -> list[tuple[str, Path]]:
        folder = self.path / config
        if not folder.is_dir():
            raise MissingPartError(
                f"{self.path}: this dataset has no '{config}' config ({OFFICIAL_FILES[config]} was absent "
                "when it was built)"
            )
        found = []
        for file in sorted(folder.glob("*.parquet")):
            name = file.name.split("-", 1)[0]
            if split is None or name == split:
                found.append((name, file))
        return found

    def table(self, config: str, split: str | None = None) -> pa.Table:
        """The Arrow table of one config (all splits concatenated unless ``split`` is given)."""
        parts = [pq.read_table(file) for _, file in self._files(config, split)]
        if not parts:
            raise UnknownNameError(f"split of config '{config}' in {self.path}:", str(split), self.splits(config))
        return pa.concat_tables(parts)

    def splits(self, config: str) -> list[str]:
        return sorted({name for name, _ in self._files(config)})

    @functools.cached_property
    def _surveys(self) -> dict[int, Survey]:
        surveys = {}
        for split, file in self._files("surveys"):
            for row in pq.read_table(file).to_pylist():
                survey = Survey.from_row({**row, "split": split})
                surveys[survey.survey_id] = survey
        order = self.meta.get("survey_order") or sorted(surveys)
        return {i: surveys[i] for i in order if i in surveys}

    def surveys(self, split: str | None = None) -> list[Survey]:
        """Ground-truth surveys in the order of ``surveys.json``, optionally one split only."""
        return [s for s in self._surveys.values() if split is None or s.split == split]

    def survey(self, survey_id: int) -> Survey:
        try:
            return self._surveys[survey_id]
        except KeyError:
            ids = sorted(self._surveys)
            span = f" (its ids: {ids[0]}-{ids[-1]})" if ids else " (it has no surveys)"
            raise UnknownSurveyError(f"survey_id {survey_id} is not in {self.path}{span}") from None

    def has_survey(self, survey_id: int) -> bool:
        return survey_id in self._surveys

    def queries(self, split: str | None = None) -> list[Query]:
        out = []
        for name, file in self._files("queries", split):
            out.extend(Query.from_row(row, name) for row in pq.read_table(file).to_pylist())
        return out

    def close(self) -> None:
        """Close the corpus index's open file, if the corpus was opened (a later ``corpus`` reopens it)."""
        corpus = self.__dict__.pop("corpus", None)
        if corpus is not None:
            corpus.close()

    def __enter__(self) -> SurgeData:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @functools.cached_property
    def corpus(self) -> Corpus:
        if not (self.path / "index").is_dir():
            raise MissingPartError(
                f"{self.path}: no corpus index (corpus.json was absent when it was built); reference "
                "resolution needs it"
            )
        return Corpus.open(self.path)

    def iter_corpus_batches(self, columns: list[str] | None = None, batch_size: int = 65536) -> Iterator[pa.RecordBatch]:
        """Stream the corpus shards as Arrow record batches (for indexing a 1M-paper corpus)."""
        for _, file in self._files("corpus"):
            yield from pq.ParquetFile(file).iter_batches(batch_size=batch_size, columns=columns)


def open_dataset(path: str | os.PathLike[str]) -> SurgeData:
    """Shorthand for :meth:`SurgeData.open`."""
    return SurgeData.open(path)
