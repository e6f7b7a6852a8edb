"""From a passage folder to prepared surveys: discovery, reading, parsing, citation resolution.

``DIR/<survey_id>/<file>`` -> :class:`PreparedSurvey` (the GT record, the parsed Markdown, its
references resolved against the corpus). Everything a metric reads comes from here, so every metric
sees the same reading of a survey.
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surge_dataset.core.defaults import DEFAULT_DATA
from surge_dataset.core.diagnostics import Diagnostic
from surge_dataset.core.errors import SurgeError
from surge_dataset.core.metadata import installed_versions
from surge_dataset.core.records import Paper, Survey
from surge_dataset.core.vocabulary import OFFICIAL
from surge_dataset.data.corpus import Corpus
from surge_dataset.data.dataset import SurgeData
from surge_dataset.scoring.citations import CitationInstance
from surge_dataset.survey import GeneratedSurvey, parse_survey, read_survey_file
from surge_dataset.survey.decode import decode_survey_bytes


@dataclass
class PreparedSurvey:
    """A generated survey read, parsed and resolved against the corpus; ready for scoring."""

    survey_id: int
    path: Path
    gt: Survey
    parsed: GeneratedSurvey
    references: dict[int, int | None]  # reference number -> resolved doc id
    papers: dict[int, Paper]  # doc id -> paper, for every resolved reference
    citations: list[CitationInstance]
    read_diagnostics: list[Diagnostic]
    gt_titles: list[str] = field(default_factory=list)  # corpus titles of GT all_cites (SurveyGen's R_H)
    corpus: Corpus | None = field(default=None, repr=False, compare=False)  # what resolved the references
    #: the survey's Markdown as read (what richness counts tables, figures and code blocks in)
    text: str = field(default="", repr=False, compare=False)


def package_versions() -> dict[str, str]:
    return {"python": platform.python_version(), **installed_versions(
        ("surge-bench", "torch", "transformers", "sentence-transformers", "rouge-score", "sacrebleu"))}


# ------------------------------------------------------------------------------------------ discovery


class PassagesNotFoundError(SurgeError, FileNotFoundError):
    """``--passages`` is missing or is a file: the generated surveys are read from DIR/<survey_id>/<file>."""


def discover_passages(
    passage_dir: str | Path, protocol: str = "official", *, data_hint: str = DEFAULT_DATA,
) -> tuple[list[tuple[int, Path]], list[dict[str, Any]]]:
    """``DIR/<survey_id>/<file>`` entries, and a failure record for every entry that cannot be used.

    A folder of ``<survey_id>.md`` files and no survey folder is refused, naming the ``surge import`` command
    (with ``--data data_hint``) that writes the layout.

    With several files in a folder the one ending in ``.md`` is taken (the released evaluator's rule).
    With several ``.md`` files, ``official`` takes the first one the file system lists, as the released
    evaluator does (``os.listdir`` order); ``paper`` refuses to guess and reports the folder.
    """
    root = Path(passage_dir)
    if root.is_file():
        raise PassagesNotFoundError(f"--passages {root} is a file, not a folder: pass the folder DIR that holds "
                                    "DIR/<survey_id>/<file>.md (one folder per survey)")
    if not root.is_dir():
        raise PassagesNotFoundError(f"--passages {root}: no such folder")
    flat = _flat_survey_files(root)
    if flat:
        shown = ", ".join(p.name for p in flat[:3]) + (", ..." if len(flat) > 3 else "")
        raise PassagesNotFoundError(
            f"--passages {root} holds survey files ({shown}) directly, not one folder per survey "
            f"({root}/<survey_id>/<file>.md); `surge import {root} --format markdown --data {data_hint} "
            f"--out {root}-folders` writes that layout (and resolves the references); then pass --passages "
            f"{root}-folders")
    found, failures = [], []
    seen: dict[int, Path] = {}  # survey id -> its folder: a run finds each survey's answers by its id
    for entry in sorted(root.iterdir(), key=lambda p: (not p.name.isdigit(), int(p.name) if p.name.isdigit() else 0, p.name)):
        if entry.name.startswith("."):
            continue
        if not entry.is_dir():
            failures.append({"survey_id": None, "path": str(entry), "error": "not a folder: expected DIR/<survey_id>/<file>"})
            continue
        if not entry.name.isdigit():
            failures.append({"survey_id": None, "path": str(entry), "error": "folder name is not a numeric survey id"})
            continue
        if int(entry.name) in seen:  # 7/ and 007/
            failures.append({"survey_id": int(entry.name), "path": str(entry), "error": f"survey id {int(entry.name)} "
                             f"already has the folder {seen[int(entry.name)]}: one folder per survey"})
            continue
        seen[int(entry.name)] = entry
        files = sorted(p for p in entry.iterdir() if p.is_file() and not p.name.startswith("."))
        markdown = [p for p in files if p.suffix.lower() == ".md"]
        if not files:
            failures.append({"survey_id": int(entry.name), "path": str(entry),
                             "error": "folder holds no file" + _not_files(entry)})
        elif len(files) == 1:
            found.append((int(entry.name), files[0]))
        elif len(markdown) == 1:
            found.append((int(entry.name), markdown[0]))
        elif protocol == OFFICIAL and (listed := _listed_markdown(entry)):
            found.append((int(entry.name), listed[0]))
        else:
            failures.append(
                {"survey_id": int(entry.name), "path": str(entry),
                 "error": f"{len(files)} files and {len(markdown)} ending in .md: cannot tell which is the survey"}
            )
    return found, failures


def _not_files(folder: Path) -> str:
    """What a survey folder holds instead of a file, said after "folder holds no file" (empty when nothing)."""
    kinds = []
    for entry in sorted(folder.iterdir())[:5]:
        if entry.name.startswith("."):
            continue
        kind = ("a link that leads nowhere or loops" if entry.is_symlink() and not entry.exists()
                else "a folder" if entry.is_dir() else "not a regular file")
        kinds.append(f"{entry.name}: {kind}")
    return f" ({'; '.join(kinds)})" if kinds else ""


def _flat_survey_files(root: Path) -> list[Path]:
    """``<survey_id>.md`` files directly in ``root`` when it holds no ``<survey_id>/`` folder: the flat layout
    some systems write, which ``surge import --format markdown`` converts."""
    entries = [p for p in root.iterdir() if not p.name.startswith(".")]
    if any(p.is_dir() and p.name.isdigit() for p in entries):
        return []
    return sorted((p for p in entries if p.is_file() and p.suffix.lower() == ".md" and p.stem.isdigit()),
                  key=lambda p: int(p.stem))


def _listed_markdown(folder: Path) -> list[Path]:
    """Files ending in ``.md`` (case-sensitive) in the file system's listing order: the released choice."""
    return [folder / name for name in os.listdir(folder)
            if name.endswith(".md") and not name.startswith(".") and (folder / name).is_file()]


def resolve_citations(
    parsed: GeneratedSurvey, corpus: Corpus | None
) -> tuple[dict[int, int | None], dict[int, Paper], list[CitationInstance]]:
    """Reference number -> resolved doc id, the resolved papers by id, and the citation instances.

    Without a corpus nothing resolves (metrics that need one declare ``corpus`` in their needs).
    """
    numbers = list(parsed.references)
    titles = [parsed.references[n].title for n in numbers]
    citations = [CitationInstance(c.number, c.node_title, c.sentence) for c in parsed.citations]
    if corpus is None or not numbers:
        return dict.fromkeys(numbers), {}, citations
    # the released evaluator's dict also "resolves" a letterless title (see Corpus.resolve_rows)
    resolved = corpus.resolve(titles, empty_matches=parsed.protocol == OFFICIAL)
    papers = {p.doc_id: p for p in corpus.get(sorted({d for d in resolved if d is not None})) if p is not None}
    return dict(zip(numbers, resolved, strict=True)), papers, citations


def prepare_text(
    text: str | bytes,
    gt: Survey,
    corpus: Corpus | None,
    protocol: str,
    *,
    survey_id: int | None = None,
    path: Path | None = None,
    read_diagnostics: list[Diagnostic] | None = None,
) -> PreparedSurvey:
    """Parse and resolve one generated survey given as text (what the ``evaluate`` modules receive)."""
    parsed = parse_survey(text, protocol=protocol)
    references, papers, citations = resolve_citations(parsed, corpus)
    gt_titles = [p.title for p in corpus.get(list(gt.all_cites)) if p is not None] if corpus is not None else []
    return PreparedSurvey(
        survey_id=gt.survey_id if survey_id is None else survey_id, path=path or Path("<text>"), gt=gt,
        parsed=parsed, references=references, papers=papers, citations=citations,
        read_diagnostics=read_diagnostics or [], gt_titles=gt_titles, corpus=corpus,
        text=decode_survey_bytes(bytes(text))[0] if isinstance(text, bytes | bytearray) else text,
    )


class UnknownSurveyError(SurgeError, KeyError):
    """A survey folder whose id the dataset has no ground truth for (still a ``KeyError`` for callers that caught
    one); its message reads without ``KeyError``'s quotes."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def prepare_survey(data: SurgeData, survey_id: int, path: Path, protocol: str) -> PreparedSurvey:
    """Read, parse and resolve one generated survey (raises on unreadable files or unknown ids)."""
    if not data.has_survey(survey_id):
        raise UnknownSurveyError(f"survey id {survey_id} has no ground truth in the dataset")
    text, read_diagnostics = read_survey_file(path)
    return prepare_text(text, data.survey(survey_id), data.corpus, protocol, survey_id=survey_id, path=path,
                        read_diagnostics=read_diagnostics)


# ------------------------------------------------------------------------------------------ counts


def _date_key(value: str | None) -> str | None:
    """YYYY-MM-DD (or YYYY) prefix for comparing dates written in ISO-like forms."""
    if not value:
        return None
    text = value.strip()
    if len(text) >= 10 and text[4] == "-" and text[7] == "-":
        return text[:10]
    return text[:4] if text[:4].isdigit() else None


def _is_after(paper: Paper, gt: Survey) -> bool:
    paper_date, gt_date = _date_key(paper.date) or _date_key(paper.year), _date_key(gt.date) or _date_key(gt.year)
    if not paper_date or not gt_date:
        return False
    width = min(len(paper_date), len(gt_date))
    return paper_date[:width] > gt_date[:width]


def survey_counts(prepared: PreparedSurvey) -> dict[str, int]:
    resolved = [d for d in prepared.references.values() if d is not None]
    future = sum(1 for d in resolved if d in prepared.papers and _is_after(prepared.papers[d], prepared.gt))
    missing = sum(1 for c in prepared.citations if c.number not in prepared.references)
    counts = {
        "headings": len(prepared.parsed.headings()),  # the protocol's section headings (SHR's H_P)
        "references": len(prepared.references),
        "resolved": len(resolved),
        "not_in_corpus": len(prepared.references) - len(resolved),
        "citations": len(prepared.citations),
        "citations_of_missing_numbers": missing,
        "future_citations": future,
    }
    return counts
