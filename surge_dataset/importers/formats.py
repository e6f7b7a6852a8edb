"""Readers per source format (``markdown``, ``autosurvey`` / ``surveyforge``, ``storm``, ``llmxmr``): each
yields :class:`PeerDocument` records, or ``(source, reason)`` for what it has to skip.

:data:`READERS` is the one list of formats: :data:`FORMATS` (and so ``surge import --format``) is read off
it, and ``tests/test_registries.py`` checks it names the words of :data:`~surge_dataset.vocabulary.ImportFormat`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..survey import decode_survey_bytes
from ..vocabulary import ImportFormat, check_choice
from .markdown import read_markdown
from .records import STORM_ARTICLES, TEXT_SUFFIXES, PeerDocument, RefEntry

#: What a reader yields: a peer survey, or ``(source, reason)`` for an input it has to skip.
Item = PeerDocument | tuple[str, str]

# ------------------------------------------------------------------------------------------ readers


def _read_text(path: Path) -> str:
    text, _ = decode_survey_bytes(path.read_bytes())
    return text


def _pick_file(folder: Path) -> tuple[Path | None, str | None]:
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")
                   and p.suffix.lower() in TEXT_SUFFIXES)
    markdown = [p for p in files if p.suffix.lower() in (".md", ".markdown")]
    if len(files) == 1:
        return files[0], None
    if len(markdown) == 1:
        return markdown[0], None
    return None, f"{len(files)} text files and {len(markdown)} Markdown files: cannot tell which is the survey"


def _markdown_documents(root: Path, title_citations: bool) -> Iterator[Item]:
    for entry in sorted(root.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            path, problem = _pick_file(entry)
            if path is None:
                yield str(entry), problem or "no file"
                continue
            key = entry.name
        elif entry.suffix.lower() in TEXT_SUFFIXES:
            path, key = entry, entry.stem
        else:
            continue
        yield read_markdown(_read_text(path), key, str(path), title_citations=title_citations)


def _storm_documents(root: Path) -> Iterator[Item]:
    folders = [root] if any((root / name).is_file() for name in STORM_ARTICLES) else sorted(
        p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    for folder in folders:
        article = next((folder / name for name in STORM_ARTICLES if (folder / name).is_file()), None)
        if article is None:
            yield str(folder), f"no {' or '.join(STORM_ARTICLES)}"
            continue
        doc = read_markdown(_read_text(article), folder.name, str(article), find_references=False)
        doc.title = folder.name.replace("_", " ")
        info_path = folder / "url_to_info.json"
        if not info_path.is_file():
            doc.notes.append("url_to_info.json is absent: citations have no titles")
        else:
            info = json.loads(_read_text(info_path))
            sources = info.get("url_to_info", {})
            for url, number in info.get("url_to_unified_index", {}).items():
                title = (sources.get(url) or {}).get("title") or url
                doc.references[str(int(number))] = RefEntry(str(title), url)
        yield doc


def _llmxmr_records(path: Path) -> Iterator[dict[str, Any]]:
    text = _read_text(path)
    if path.suffix == ".json":
        value = json.loads(text)
        yield from (value if isinstance(value, list) else [value])
        return
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def _llmxmr_documents(root: Path) -> Iterator[Item]:
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.suffix in (".jsonl", ".json"))
    for path in files:
        try:
            records = list(_llmxmr_records(path))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            yield str(path), f"not JSON lines: {exc}"
            continue
        for i, record in enumerate(records):
            source = f"{path}#{i}"
            if not isinstance(record, dict) or not isinstance(record.get("content"), str):
                yield source, "record without a 'content' string"
                continue
            title = str(record.get("title") or "").strip()
            doc = read_markdown(record["content"], title or f"{path.stem}-{i}", source)
            doc.title = title or doc.title
            papers = record.get("papers")
            if isinstance(papers, list) and papers:
                doc.references = {str(n): RefEntry(str(p.get("title") or ""), str(p.get("url") or ""))
                                  for n, p in enumerate(papers, 1) if isinstance(p, dict)}
            elif isinstance(record.get("ref_str"), str):
                refs = read_markdown("x\n\n" + record["ref_str"], doc.key, source).references
                doc.references = refs or doc.references
            yield doc


def _markdown_files(root: Path, title_citations: bool) -> Iterator[Item]:
    """One Markdown file, or a folder of them (``DIR/<name>/<one file>`` or ``DIR/<name>.md``)."""
    if root.is_file():
        return iter([read_markdown(_read_text(root), root.stem, str(root), title_citations=title_citations)])
    return _markdown_documents(root, title_citations=title_citations)


def _markdown_reader(root: Path) -> Iterator[Item]:
    return _markdown_files(root, title_citations=False)


def _autosurvey_reader(root: Path) -> Iterator[Item]:
    """AutoSurvey's Markdown; ``[Title A; Title B]`` cite titles when there is no numbered list (its drafts)."""
    return _markdown_files(root, title_citations=True)


#: The one table of ``surge import`` formats: format name -> reader of a file or folder (in help order).
READERS: dict[ImportFormat, Callable[[Path], Iterator[Item]]] = {
    "autosurvey": _autosurvey_reader,
    "storm": _storm_documents,
    "llmxmr": _llmxmr_documents,
    "surveyforge": _autosurvey_reader,  # SurveyForge writes AutoSurvey's format
    "markdown": _markdown_reader,
}
FORMATS: tuple[ImportFormat, ...] = tuple(READERS)


def read_documents(fmt: str, source: str | Path) -> Iterator[Item]:
    """Every peer survey under ``source`` in format ``fmt``; a ``(path, reason)`` pair for each input that
    cannot be read as one. An unknown ``fmt`` is a :class:`~surge_dataset.vocabulary.ChoiceError`
    (a ``ValueError``) naming the formats and the closest one."""
    check_choice("format", fmt, FORMATS)
    root = Path(source)
    if not root.exists():
        raise FileNotFoundError(f"{root}: no such file or folder")
    return READERS[fmt](root)  # type: ignore[index]  # checked above
