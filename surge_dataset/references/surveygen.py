"""SurveyGen's reference metadata as a local source: no request, so it answers offline too.

SurveyGen (protocol.md §8) ships each human survey's reference list enriched from Semantic Scholar and
OpenAlex: ``references[].title``, ``matched_paper_id`` (S2 corpus id) and ``metadata`` (``paperId``, ``doi``
or ``externalIds.DOI``, ``externalIds.ArXiv``, ``year``, ``publicationDate``). ``surge data from-surveygen``
keeps titles, years and abstracts in ``corpus.json`` but drops these ids, so on a dataset converted from
SurveyGen the corpus already answers every title, and this source adds what a survey's generated references
share with *any* SurveyGen survey (4,200 surveys, 242k references, on the full data): papers known to exist,
with their S2 id and DOI. Point ``--bib-surveygen`` at the SurveyGen JSON file(s).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.io import reading_input
from surge_dataset.core.vocabulary import SURVEYGEN
from surge_dataset.references.base import Candidate, arxiv_id_of, year_of
from surge_dataset.references.match import NEAR_FLOOR, TitleIndex

__all__ = ["SurveyGenSource", "surveygen_files"]


def surveygen_files(path: str | Path) -> list[Path]:
    """The JSON files of ``path``: itself, or every ``*.json`` under a folder (sorted)."""
    root = Path(path).expanduser()
    if root.is_dir():
        files = sorted(p for p in root.rglob("*.json") if p.is_file())
        if not files:
            raise InputFileError(f"--bib-surveygen {root}: the folder holds no .json file")
        return files
    if not root.is_file():
        raise InputFileError(f"--bib-surveygen {root}: no such file or folder")
    return [root]


def _text(value: Any) -> str:
    text = str(value).strip() if value is not None else ""
    return "" if text == "None" else text


def _candidate(ref: dict[str, Any]) -> Candidate | None:
    metadata = ref.get("metadata") if isinstance(ref.get("metadata"), dict) else {}
    title = _text(ref.get("title")) or _text(metadata.get("title"))
    if not title:
        return None
    external = metadata.get("externalIds") if isinstance(metadata.get("externalIds"), dict) else {}
    doi = _text(metadata.get("doi")) or _text(external.get("DOI")) or None
    corpus_id = _text(ref.get("matched_paper_id")) or _text(metadata.get("corpusId"))
    date = _text(metadata.get("publicationDate")) or None
    return Candidate(title=title, id=f"CorpusId:{corpus_id}" if corpus_id else (_text(metadata.get("paperId")) or None),
                     doi=doi, arxiv_id=_text(external.get("ArXiv")) or arxiv_id_of(doi),
                     year=year_of(_text(metadata.get("year")) or date), date=date)


class SurveyGenSource:
    """Every reference of the given SurveyGen files, searchable by title (exact, then fuzzy)."""

    name = SURVEYGEN

    def __init__(self, candidates: Iterable[Candidate]) -> None:
        self.candidates = list(candidates)
        self._index = TitleIndex(c.title for c in self.candidates)

    @classmethod
    def load(cls, path: str | Path) -> SurveyGenSource:
        candidates = []
        for file in surveygen_files(path):
            with reading_input(file):
                data = json.loads(file.read_text(encoding="utf-8"))
            refs = data.get("references") if isinstance(data, dict) else None
            if not isinstance(refs, list):
                raise InputFileError(f"{file}: not a SurveyGen survey (no 'references' list)")
            candidates += [c for c in (_candidate(r) for r in refs if isinstance(r, dict)) if c is not None]
        return cls(candidates)

    def __len__(self) -> int:
        return len(self.candidates)

    def search(self, title: str) -> list[Candidate]:
        """The closest reference to ``title`` (if it scores at least the near floor), as a one-item list."""
        near = self._index.nearest(title, NEAR_FLOOR)
        return [] if near is None else [self.candidates[near.position]]
