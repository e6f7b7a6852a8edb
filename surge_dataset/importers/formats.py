"""The built-in readers of ``surge import``: each yields :class:`PeerDocument` records, or ``(source, reason)``
for what it has to skip, and is registered by name with :func:`~surge_dataset.importers.registry.import_format`.

:data:`READERS` (and :data:`FORMATS`, the same live mapping) is the registry itself: ``surge import --format``,
its help and its error for an unknown name read it, so a format of another package (entry-point group
``surge.importers``) is listed and read like these.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from surge_dataset.core.vocabulary import INSPECT_LOG
from surge_dataset.importers.keys import Bibliography, bibliography_beside, read_bibliography
from surge_dataset.importers.latex import read_latex_documents
from surge_dataset.importers.markdown import read_markdown
from surge_dataset.importers.records import (
    STORM_ARTICLES,
    TEXT_SUFFIXES,
    PeerDocument,
    RefEntry,
    SourceNotFoundError,
)
from surge_dataset.importers.registry import IMPORTERS, import_format
from surge_dataset.survey import decode_survey_bytes

#: What a reader yields: a peer survey, or ``(source, reason)`` for an input it has to skip.
Item = PeerDocument | tuple[str, str]

# ------------------------------------------------------------------------------------------ readers


def _read_text(path: Path) -> str:
    """The file's text as the evaluator decodes it, less a byte-order mark (none is written to OUT, and JSON
    refuses one)."""
    text, _ = decode_survey_bytes(path.read_bytes())
    return text.removeprefix("\ufeff")


def _empty(path: Path, text: str) -> str | None:
    """Why ``text`` (read from ``path``) is no survey at all, or None: a generation run that crashed or never
    wrote its output leaves an empty file, which must fail the import rather than become an empty survey."""
    if text.strip():
        return None
    size = path.stat().st_size
    what = "empty file (0 bytes)" if size == 0 else f"no text ({size} bytes of white space)"
    return f"{what}: nothing to import, not written (did the generation run fail?)"


def _pick_file(folder: Path) -> tuple[Path | None, str | None]:
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")
                   and p.suffix.lower() in TEXT_SUFFIXES)
    markdown = [p for p in files if p.suffix.lower() in (".md", ".markdown")]
    if len(files) == 1:
        return files[0], None
    if len(markdown) == 1:
        return markdown[0], None
    others = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        for path in others:
            if (reason := container_reason(path)) is not None:
                return None, f"no Markdown or text file, but {reason}"
    return None, f"{len(files)} text files and {len(markdown)} Markdown files: cannot tell which is the survey"


#: What a file that is no Markdown text is, by its suffix, and how to import it instead.
_CONTAINERS = {
    ".tex": "LaTeX ({name}): import it with --format latex",
    ".pdf": "a PDF ({name}), not text: import it with --format pdf (pip install 'surge-bench[pdf]'), or extract "
            "its text first (`pdftotext -layout {name}`) and import the .txt with --format markdown",
    ".json": "JSON ({name}): import it with --format llmxmr (the report under 'content', 'article', 'report' or "
             "'survey', or --field KEY)",
    ".jsonl": "JSON lines ({name}): import it with --format llmxmr (the report under 'content', 'article', "
              "'report' or 'survey', or --field KEY)",
    ".html": "an HTML page ({name}), not Markdown: import it with --format html (pip install 'surge-bench[html]')",
}
_CONTAINERS[".htm"] = _CONTAINERS[".xhtml"] = _CONTAINERS[".html"]


def container_reason(path: Path) -> str | None:
    """Why ``path`` is not a Markdown or text survey, naming what it is and the way to import it; None for text."""
    if path.name == "instance_dump.json":
        return "a Co-STORM run (instance_dump.json): import its folder with --format storm"
    if path.name in ("url_to_info.json", *STORM_ARTICLES):
        return f"a STORM run ({path.name}): import its folder with --format storm"
    what = _CONTAINERS.get(path.suffix.lower())
    if what is None and path.read_bytes()[:5] == b"%PDF-":
        what = _CONTAINERS[".pdf"]
    return what.format(name=path.name) if what else None


def _markdown_document(path: Path, key: str, title_citations: bool, own_folder: bool) -> Item:
    """One Markdown survey, with the bibliography beside it (``.bib`` / ``.bbl``) for citations by key."""
    if path.suffix.lower() not in TEXT_SUFFIXES and (reason := container_reason(path)) is not None:
        return str(path), reason
    text = _read_text(path)
    problem = _empty(path, text)
    if problem is not None:
        return str(path), problem
    doc = read_markdown(text, key, str(path), title_citations=title_citations)
    beside = bibliography_beside(path, own_folder=own_folder)
    if beside:
        bibliography = read_bibliography(beside)
        doc.bibliography, doc.bibliography_files = bibliography.entries, bibliography.files
    return doc


def _markdown_documents(root: Path, title_citations: bool) -> Iterator[Item]:
    for entry in sorted(root.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            path, problem = _pick_file(entry)
            if path is None:
                yield str(entry), problem or "no file"
                continue
            key, own_folder = entry.name, True
        elif entry.suffix.lower() in TEXT_SUFFIXES:
            path, key, own_folder = entry, entry.stem, False
        else:
            if entry.suffix.lower() not in (".bib", ".bbl") and (reason := container_reason(entry)) is not None:
                yield str(entry), reason
            continue
        yield _markdown_document(path, key, title_citations, own_folder)


def _storm_references(info: Any) -> dict[str, RefEntry] | str:
    """Citation number -> source of a STORM run's ``url_to_info.json``, or why it cannot be read."""
    if not isinstance(info, dict) or not isinstance(info.get("url_to_unified_index", {}), dict):
        return "url_to_info.json holds no 'url_to_unified_index' object"
    sources = info.get("url_to_info") if isinstance(info.get("url_to_info"), dict) else {}
    references: dict[str, RefEntry] = {}
    for url, number in info.get("url_to_unified_index", {}).items():
        if not str(number).strip().isdecimal():  # int() refuses '²', which isdigit() takes
            return f"url_to_info.json numbers {url!r} as {number!r}, not a citation number"
        source = sources.get(url) if isinstance(sources.get(url), dict) else {}
        references[str(int(number))] = RefEntry(str(source.get("title") or url), url)
    return references


COSTORM_DUMP = "instance_dump.json"
#: STORM's source line closes with where the page was read: ``[1] Title. Retrieved from https://...``.
_RETRIEVED_RE = re.compile(r"[.,]?\s*Retrieved from(?:\s+\S+)?\s*$", re.I)


def _costorm_document(folder: Path) -> Item:
    """A Co-STORM run: ``report.md`` (else the one Markdown file) cites ``[n]``, and ``instance_dump.json`` holds the
    sources under ``knowledge_base.info_uuid_to_info_dict`` (``n`` -> ``{"url", "title", ...}``)."""
    dump = folder / COSTORM_DUMP
    markdown = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".md")
    article = folder / "report.md" if (folder / "report.md").is_file() else (markdown[0] if len(markdown) == 1 else None)
    if article is None:
        return str(folder), f"a Co-STORM {COSTORM_DUMP} without report.md (or one Markdown file) beside it"
    text = _read_text(article)
    if (problem := _empty(article, text)) is not None:
        return str(article), problem
    try:
        infos = _load_json(_read_text(dump)).get("knowledge_base", {}).get("info_uuid_to_info_dict")
    except (json.JSONDecodeError, AttributeError) as exc:
        return str(dump), f"{COSTORM_DUMP} is no Co-STORM dump ({exc})"
    if not isinstance(infos, dict):
        return str(dump), f"{COSTORM_DUMP} holds no knowledge_base.info_uuid_to_info_dict object"
    doc = read_markdown(text, folder.name, str(article), find_references=False)
    doc.title = doc.title or folder.name.replace("_", " ")
    doc.references = {str(int(n)): RefEntry(str(info.get("title") or info.get("url") or ""), str(info.get("url") or ""))
                      for n, info in infos.items() if str(n).strip().isdecimal() and isinstance(info, dict)}
    doc.reference_list = True
    return doc


@import_format("storm")
def _storm_documents(root: Path) -> Iterator[Item]:
    if root.is_file():  # the article itself: its folder is the run
        if root.name not in STORM_ARTICLES:
            raise SourceNotFoundError(f"{root}: --format storm reads a run folder (DIR/<topic>/"
                                      f"{STORM_ARTICLES[0]}) or a folder of them, not a file")
        root = root.parent
    folders = [root] if any((root / name).is_file() for name in STORM_ARTICLES) else sorted(
        p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    for folder in folders:
        if (folder / COSTORM_DUMP).is_file() and not any((folder / name).is_file() for name in STORM_ARTICLES):
            yield _costorm_document(folder)
            continue
        article = next((folder / name for name in STORM_ARTICLES if (folder / name).is_file()), None)
        if article is None:
            yield str(folder), f"no {' or '.join(STORM_ARTICLES)} (nor a Co-STORM {COSTORM_DUMP} with its report.md)"
            continue
        text = _read_text(article)
        if (problem := _empty(article, text)) is not None:
            yield str(article), problem
            continue
        info_path = folder / "url_to_info.json"
        # without url_to_info.json the article's own trailing "[1] ... Retrieved from URL" lines are its sources
        doc = read_markdown(text, folder.name, str(article), find_references=not info_path.is_file())
        doc.title = folder.name.replace("_", " ")
        if not info_path.is_file():
            doc.references = {n: replace(e, title=_RETRIEVED_RE.sub("", e.title).rstrip(". ") or e.title)
                              for n, e in doc.references.items()}
            doc.lost.append("url_to_info.json is absent: the sources are the article's own [n] lines "
                            f"({len(doc.references)} read)" if doc.references else
                            "url_to_info.json is absent: citations have no titles, so no reference is written")
            yield doc
            continue
        try:
            references = _storm_references(_load_json(_read_text(info_path)))
        except json.JSONDecodeError as exc:
            references = f"url_to_info.json is not JSON ({exc}): did the run finish writing its sources?"
        if isinstance(references, str):
            yield str(info_path), references
            continue
        doc.references, doc.reference_list = references, True
        yield doc


def _load_json(text: str) -> Any:
    """``json.loads``, with its other refusals (nesting deeper than the recursion limit, an integer of more than
    4300 digits) raised as :class:`json.JSONDecodeError` too, so a hostile file is a skip, not a traceback."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except (ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).split(";")[0]
        raise json.JSONDecodeError(why, text, 0) from None


class _BadLine(str):
    """A line of a JSON lines file that is no JSON: why, in words; its neighbours are still read."""


def _llmxmr_records(text: str) -> list[Any]:
    """The records of an LLMxMapReduce-V2 output: one JSON value (an object, or a list of them), else JSON
    lines (the pipeline appends one line per survey, whatever the file is called). A line that is no JSON (a run
    killed while appending) is a :class:`_BadLine` in its place, so one torn line loses no other record; a file
    of which no line is JSON raises the first line's error."""
    try:
        value = _load_json(text)
    except json.JSONDecodeError:
        records: list[Any] = []
        # "\n" only: a JSON string may hold U+2028, U+0085 ... raw (ensure_ascii=False), which splitlines() cuts at
        for number, line in enumerate(text.split("\n"), 1):
            if line.strip():
                try:
                    records.append(_load_json(line))
                except json.JSONDecodeError as exc:
                    records.append(_BadLine(f"line {number} is no JSON ({exc.msg} at column {exc.colno})"))
        if all(isinstance(r, _BadLine) for r in records):
            raise
        return records
    return value if isinstance(value, list) else [value]


#: Where JSON records hold the report: LLMxMapReduce-V2's ``content``, DeepResearch Bench's ``article``, ``report``,
#: AutoSurvey's ``survey`` (its Markdown with the ``## References`` list; ``reference`` repeats the list as arXiv ids).
TEXT_FIELDS = ("content", "article", "report", "survey")


def _record_text(record: Any, json_field: str | None) -> tuple[str | None, str]:
    """(the report's Markdown, the field it came from) of a record, or (None, why not)."""
    if not isinstance(record, dict):
        return None, f"a record that is no JSON object but {type(record).__name__}"
    fields = (json_field,) if json_field else TEXT_FIELDS
    for name in fields:
        if isinstance(record.get(name), str):
            return record[name], name
    wrong = [name for name in fields if name in record]
    if wrong:
        return None, f"the record's {wrong[0]!r} is {type(record[wrong[0]]).__name__}, not the report's text"
    keys = ", ".join(repr(k) for k in list(record)[:8])
    wanted = " or ".join(repr(f) for f in fields)
    return None, f"record without a {wanted} string (its keys: {keys}): name the report's key with --field KEY"


@import_format("llmxmr")
def _llmxmr_documents(root: Path, json_field: str | None = None) -> Iterator[Item]:
    """Each record of each ``*.json`` / ``*.jsonl`` file. A file holding one record names its survey by
    where it is, as the other formats do: the folder under SOURCE that holds it (``SOURCE/<name>/output.json``),
    else its file name (``SOURCE/<name>.jsonl``; SOURCE itself: its stem, then its folder's name). Records of
    a file holding several are named by their ``survey_id`` or ``title``."""
    files = [root] if root.is_file() else sorted(
        p for p in root.rglob("*") if p.suffix in (".jsonl", ".json") and p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(root).parts))
    for path in files:
        text = _read_text(path)
        if (problem := _empty(path, text)) is not None:
            yield str(path), problem
            continue
        try:
            records = _llmxmr_records(text)
        except json.JSONDecodeError as exc:
            yield str(path), f"neither JSON nor JSON lines: {exc}"
            continue
        if not records:
            yield str(path), "an empty JSON list: no record to import (did the run fail?)"
            continue
        parts = path.relative_to(root).parts if path != root else ()
        where = parts[0] if len(parts) > 1 else path.stem
        aliases = [path.resolve().parent.name] if path == root else []
        for i, record in enumerate(records):
            source = f"{path}#{i}"
            if isinstance(record, _BadLine):
                yield source, str(record)
                continue
            text, name = _record_text(record, json_field)
            if text is None:
                yield source, name
                continue
            if not text.strip():
                yield source, f"the record's {name!r} is empty: nothing to import, not written (did the run fail?)"
                continue
            title = str(record.get("title") or "").strip()
            key = where if len(records) == 1 else f"{path.stem}-{i}"
            doc = read_markdown(text, key, source)
            doc.title = title or doc.title
            doc.aliases = aliases if len(records) == 1 else []
            if isinstance(record.get("survey_id"), int | str) and str(record["survey_id"]).strip().isdecimal():
                doc.aliases.insert(0, str(record["survey_id"]).strip())  # a record that names its survey
            papers = record.get("papers")
            if isinstance(papers, list) and papers:
                doc.references = {str(n): RefEntry(str(p.get("title") or ""), str(p.get("url") or ""))
                                  for n, p in enumerate(papers, 1) if isinstance(p, dict)}
                doc.reference_list = True
            elif isinstance(record.get("ref_str"), str):
                refs = read_markdown("x\n\n" + record["ref_str"], doc.key, source).references
                doc.references = refs or doc.references
                doc.reference_list = doc.reference_list or bool(refs)
            yield doc


def _markdown_files(root: Path, title_citations: bool) -> Iterator[Item]:
    """One Markdown file (named by its stem, else its folder's name), or a folder of them (``DIR/<name>/<one
    file>`` or ``DIR/<name>.md``)."""
    if root.is_file():
        item = _markdown_document(root, root.stem, title_citations, own_folder=False)
        if isinstance(item, PeerDocument):
            item.aliases.append(root.resolve().parent.name)
        return iter([item])
    return _markdown_documents(root, title_citations=title_citations)


@import_format("markdown")
def _markdown_reader(root: Path) -> Iterator[Item]:
    return _markdown_files(root, title_citations=False)


@import_format("surveyforge")  # SurveyForge writes AutoSurvey's format
@import_format("autosurvey")
def _autosurvey_reader(root: Path) -> Iterator[Item]:
    """AutoSurvey's Markdown; ``[Title A; Title B]`` cite titles when there is no numbered list (its drafts)."""
    return _markdown_files(root, title_citations=True)


@import_format("pdf")
def _pdf_reader(root: Path) -> Iterator[Item]:
    """A survey saved as PDF; pypdf (the ``pdf`` extra) loads only for this format."""
    from surge_dataset.importers.pdf import read_pdf_documents

    return read_pdf_documents(root)


@import_format("html")
def _html_reader(root: Path) -> Iterator[Item]:
    """A report saved as an HTML page; markdownify (the ``html`` extra) loads only for this format."""
    from surge_dataset.importers.html import read_html_documents

    return read_html_documents(root)


@import_format(INSPECT_LOG)
def _inspect_reader(root: Path) -> Iterator[Item]:
    """Inspect logs of ``surge/survey`` (a .eval/.json log or a folder of them); inspect_ai loads only for this
    format (imported here: ``inspect_logs`` imports this package's parsers)."""
    from surge_dataset.importers.inspect_logs import read_inspect_logs

    return read_inspect_logs(root)


import_format("latex")(read_latex_documents)

#: Format name -> reader: the registry (a live mapping, built-ins and installed formats alike).
READERS = IMPORTERS
FORMATS = IMPORTERS


def read_documents(fmt: str, source: str | Path, *, bib: str | Path | None = None,
                   json_field: str | None = None) -> Iterator[Item]:
    """Every peer survey under ``source`` in format ``fmt``; a ``(path, reason)`` pair for each input that
    cannot be read as one (an empty file among them: a run that failed). ``bib``: the bibliography that
    resolves citations by key (``.bib`` or ``.bbl``), instead of the one beside each survey. An unknown
    ``fmt`` is a :class:`~surge_dataset.core.vocabulary.ChoiceError` naming the formats and the closest one; a
    missing ``source`` or ``bib`` a :class:`SourceNotFoundError`."""
    reader = IMPORTERS.load(fmt, setting="format")
    root = Path(source)
    if not root.exists():
        raise SourceNotFoundError(f"{root}: no such file or folder")
    if json_field is not None and fmt != "llmxmr":
        raise SourceNotFoundError(f"--field {json_field}: JSON records are read by --format llmxmr, not {fmt}")
    if json_field is not None:
        reader = partial(_llmxmr_documents, json_field=json_field)
    if root.is_file() and fmt != "html" and root.suffix.lower() in (".html", ".htm", ".xhtml"):
        return iter([(str(root), container_reason(root) or "an HTML page")])  # whatever the format, say what it is
    if bib is None:
        return _nothing_read_says_why(reader(root), root, fmt)
    if not Path(bib).is_file():
        raise SourceNotFoundError(f"--bib {bib}: no such file")
    bibliography = read_bibliography([Path(bib)])
    if not bibliography.entries:
        raise SourceNotFoundError(f"--bib {bib}: no BibTeX or .bbl entry in it")
    return _nothing_read_says_why(_with_bibliography(reader(root), bibliography), root, fmt)


def _nothing_read_says_why(items: Iterator[Item], root: Path, fmt: str) -> Iterator[Item]:
    """The reader's items; when it found no input at all, one refusal that says what ``root`` holds instead
    (a folder of PDFs given as ``--format html`` is "a PDF: use --format pdf", not an empty table)."""
    found = False
    for item in items:
        found = True
        yield item
    if not found:
        yield str(root), _what_is_there(root, fmt)


def _what_is_there(root: Path, fmt: str) -> str:
    files = [root] if root.is_file() else sorted(
        p for p in root.rglob("*") if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts))
    if not files:
        return f"an empty folder: no {fmt} input in it"
    suffixes = Counter(p.suffix.lower() or "no suffix" for p in files)
    held = ", ".join(f"{n} {suffix}" for suffix, n in suffixes.most_common(4)) + (" ..." if len(suffixes) > 4 else "")
    hints = [reason for p in files[:50] if (reason := container_reason(p)) and f"--format {fmt}" not in reason]
    return f"no {fmt} input found (it holds {held} file(s))" + (f"; the first is {hints[0]}" if hints else "")


def _with_bibliography(items: Iterator[Item], bibliography: Bibliography) -> Iterator[Item]:
    for item in items:
        if isinstance(item, PeerDocument):
            item.bibliography, item.bibliography_files = bibliography.entries, bibliography.files
        yield item
