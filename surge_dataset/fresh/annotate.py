"""Expert filtering of a fresh split, as the SurGE paper (§3.2) did it for the released 205 surveys.

The paper's filter: two annotators judge every candidate survey along four dimensions -- citation impact,
content coverage, structural coherence, citation quality -- and label it "usable" or "not usable"; a survey
stays only if both say usable (disagreements are dropped), and Cohen's kappa on the usable labels measures
the agreement (the paper reports 0.792 over 250 surveys). Automatic extraction cannot judge these, so a fresh
split without this step is a weaker ground truth.

* :func:`write_sheet` -- one CSV row per survey of ``surveys.json``: what an annotator needs to find and judge
  it (arXiv link, counts, extraction rate), the four dimensions as empty 1-5 ratings, ``usable``, ``notes``;
  beside it ``<sheet>.README.md`` with one instruction per column (:data:`DIMENSIONS`).
* :func:`merge_sheets` -- two filled sheets -> :class:`Agreement`: kappa and percent agreement on ``usable``,
  the confusion counts, per-dimension agreement, the surveys both marked usable. Problems in a sheet (missing
  columns, a usable value outside :data:`USABLE_YES` / :data:`USABLE_NO`, a rating outside 1-5, differing
  survey ids, empty ``usable`` cells) are errors naming the file and spreadsheet row, never guessed.
* :func:`write_filtered_source` -- a new source folder with only the kept surveys, their queries, the corpus
  and the manifest with an ``annotation`` entry, ready for ``surge data build``.

The ratings are ours: the paper names the dimensions but publishes no scale or wording, so the 1-5 scale and
the instructions below are this package's (docs/data/annotate.md).
"""

from __future__ import annotations

import csv
import io
import shutil
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import InputFileError, OutputFolderError
from surge_dataset.core.io import atomic_write_json, atomic_write_text, file_sha256, reading_input
from surge_dataset.core.output_folder import OutputKind, check_output_folder, replacing_output_folder
from surge_dataset.core.records import OFFICIAL_FILES, ROOT_TITLE
from surge_dataset.data.build import survey_of_query, survey_title_lookup
from surge_dataset.data.fresh_manifest import FRESH_MANIFEST, read_fresh_manifest
from surge_dataset.data.validate import check_records, read_json_array

__all__ = [
    "DIMENSIONS",
    "LABEL_COLUMNS",
    "PAPER_KAPPA",
    "RATINGS",
    "SHEET_COLUMNS",
    "USABLE_NO",
    "USABLE_YES",
    "Agreement",
    "AnnotationSheetError",
    "DimensionAgreement",
    "agreement_lines",
    "annotation_record",
    "cohen_kappa",
    "merge_sheets",
    "read_sheet",
    "sheet_rows",
    "source_entries",
    "write_filtered_source",
    "write_sheet",
]

#: Cohen's kappa of the SurGE paper's two annotators on "usable" (§3.2, 250 surveys).
PAPER_KAPPA = 0.792

#: The paper's four dimensions (§3.2), in its order, with our one-line instruction for each.
DIMENSIONS: dict[str, str] = {
    "citation_impact": "Scholarly influence for its age: how often it is cited (column citations, when known), "
                       "where it appeared, whether work in its field already builds on it.",
    "content_coverage": "How completely it summarises the literature of its stated scope: the main lines of work "
                        "and the recent ones are there, with no large gaps.",
    "structural_coherence": "How logically its sections are organised: a clear taxonomy, headings that say what "
                            "they hold, no overlapping or stray sections.",
    "citation_quality": "Whether the cited works are relevant, diverse (not a few groups' papers) and traceable "
                        "(complete references; see cited_papers and extract_rate).",
}
#: The scale of a dimension cell (empty = not rated).
RATINGS = range(1, 6)
USABLE = "usable"
USABLE_INSTRUCTION = ("yes or no: keep it as ground truth for survey generation? A survey stays only if both "
                      "annotators write yes.")
NOTES_INSTRUCTION = "Free text: why not usable, doubts, problems of the extraction."

#: Words a ``usable`` cell may hold (compared lower-cased): what spreadsheets and people write for yes and no.
USABLE_YES = ("yes", "1", "true")
USABLE_NO = ("no", "0", "false")

#: What the sheet tells the annotator about each survey; then the columns they fill.
INFO_COLUMNS = ("survey_id", "arxiv_id", "title", "date", "category", "sections", "cited_papers", "citations",
                "extract_rate", "link")
LABEL_COLUMNS = (*DIMENSIONS, USABLE, "notes")
SHEET_COLUMNS = (*INFO_COLUMNS, *LABEL_COLUMNS)
REQUIRED_COLUMNS = ("survey_id", USABLE)
ARXIV_ABS = "https://arxiv.org/abs/"
#: The filtered source folder holds official JSON files (and the manifest), as `surge data export` writes them.
KIND: OutputKind = "official-json"
#: At most this many problems of one sheet are listed in an error (then a count).
SHOWN_PROBLEMS = 20


class AnnotationSheetError(InputFileError):
    """An annotation sheet that cannot be merged: the message names the file, the row and the problem."""


# --- writing the sheet ---------------------------------------------------------------------------------------


def _read_surveys(path: Path) -> list[dict[str, Any]]:
    """``surveys.json`` checked like the build checks it (its unknown fields are expected here: no warning)."""
    if not path.is_file():
        raise InputFileError(f"{path}: no such file (the source folder of `surge data fresh` holds surveys.json)")
    surveys = read_json_array(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_records("surveys", path, surveys)
    return surveys


def _manifest_entries(src: Path) -> tuple[dict[str, Any] | None, dict[int, dict[str, Any]]]:
    """The source's manifest (None without one) and its per-survey entries by survey_id."""
    path = src / FRESH_MANIFEST
    if not path.is_file():
        return None, {}
    manifest = read_fresh_manifest(path)
    entries = manifest.get("surveys") if isinstance(manifest.get("surveys"), list) else []
    return manifest, {e["survey_id"]: e for e in entries if isinstance(e, dict) and isinstance(e.get("survey_id"), int)}


def _first(*values: Any) -> Any:
    return next((v for v in values if v not in (None, "")), None)


def sheet_rows(src: str | Path) -> list[dict[str, str]]:
    """One sheet row per survey of ``src/surveys.json``, in file order, label columns empty."""
    src = Path(src)
    surveys = _read_surveys(src / OFFICIAL_FILES["surveys"])
    _, entries = _manifest_entries(src)
    rows = []
    for survey in surveys:
        entry = entries.get(survey["survey_id"], {})
        arxiv_id = _first(entry.get("arxiv_id"), survey.get("arxiv_id"))
        rate = _first(entry.get("extract_rate"), survey.get("extract_rate"), survey.get("cite_extract_rate"))
        info = {
            "survey_id": survey["survey_id"], "arxiv_id": arxiv_id, "title": survey["survey_title"],
            "date": str(survey["date"] or "")[:10], "category": survey["category"],
            "sections": sum(node["title"] != ROOT_TITLE for node in survey["structure"]),
            "cited_papers": len(survey["all_cites"]), "citations": _first(entry.get("citations"), survey.get("citations")),
            "extract_rate": f"{rate:.3f}" if isinstance(rate, int | float) else rate,
            "link": f"{ARXIV_ABS}{arxiv_id}" if arxiv_id else None,
        }
        rows.append({column: "" if info.get(column) is None else str(info[column]) for column in SHEET_COLUMNS})
    return rows


def _has_labels(path: Path) -> bool:
    """Whether an existing file at ``path`` holds labels (or is no sheet at all): then it is not replaced."""
    try:
        with reading_input(path), open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            if not set(REQUIRED_COLUMNS) <= set(reader.fieldnames or ()):
                return True  # someone's other file
            return any((row.get(column) or "").strip() for row in reader for column in LABEL_COLUMNS)
    except (InputFileError, csv.Error):
        return True


def sheet_readme(sheet_name: str) -> str:
    """The companion ``<sheet>.README.md``: the procedure and one instruction per column to fill."""
    lines = [f"# Annotating {sheet_name}", "",
             "Two annotators each fill their own copy of this sheet, independently (about 10 minutes per survey in "
             "the SurGE paper). Open the link, read the survey, then fill one row:", ""]
    lines += [f"- **{name}** (1-5, 5 best; empty if you cannot tell): {text}" for name, text in DIMENSIONS.items()]
    lines += [f"- **{USABLE}**: {USABLE_INSTRUCTION}", f"- **notes**: {NOTES_INSTRUCTION}", "",
              "Leave the other columns as they are. Then: `surge data annotate --merge A.csv B.csv --src SRC "
              "--filtered-out SRC-annotated` keeps the surveys both marked usable and prints Cohen's kappa "
              f"(the SurGE paper reports {PAPER_KAPPA} on 250 surveys).", ""]
    return "\n".join(lines)


def write_sheet(src: str | Path, out: str | Path, *, force: bool = False) -> tuple[int, Path]:
    """Write the annotation sheet of ``src`` to ``out`` (UTF-8 CSV with a byte-order mark, so spreadsheet programs
    read non-ASCII titles right) and ``<out>.README.md`` beside it; returns (rows, readme path).

    An existing ``out`` with labels filled, or that is not a sheet, is kept unless ``force``.
    """
    src, out = Path(src), Path(out)
    rows = sheet_rows(src)
    if out.exists() and not force and _has_labels(out):
        raise AnnotationSheetError(f"{out} exists and holds labels (or is not an annotation sheet); it is not "
                                   "replaced: choose another --out, or pass --force to overwrite it")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SHEET_COLUMNS)
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(out, buffer.getvalue(), encoding="utf-8-sig")
    readme = out.with_name(f"{out.stem}.README.md")
    atomic_write_text(readme, sheet_readme(out.name))
    return len(rows), readme


# --- reading and merging sheets ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SheetRow:
    """One annotated survey: its spreadsheet row number (the header is row 1), labels as read."""

    survey_id: int
    row: int
    usable: bool | None
    ratings: dict[str, int | None]


def _usable(text: str) -> bool | None:
    word = text.strip().lower()
    if not word:
        return None
    if word in USABLE_YES:
        return True
    if word in USABLE_NO:
        return False
    raise ValueError(f"usable is {text.strip()!r}; write yes or no (or 1/0, true/false)")


def _rating(column: str, text: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    try:
        value = int(float(text)) if float(text).is_integer() else None
    except ValueError:
        value = None
    if value not in RATINGS:
        raise ValueError(f"{column} is {text!r}; write a whole number from {RATINGS[0]} to {RATINGS[-1]}, or leave "
                         "it empty")
    return value


def _problems_error(path: Path, problems: list[str]) -> AnnotationSheetError:
    shown = problems[:SHOWN_PROBLEMS] + ([f"... and {len(problems) - SHOWN_PROBLEMS} more"]
                                         if len(problems) > SHOWN_PROBLEMS else [])
    return AnnotationSheetError(f"{path}: " + "; ".join(shown) if len(shown) == 1 else
                                f"{path}: {len(problems)} problems:\n  " + "\n  ".join(shown))


def read_sheet(path: str | Path) -> tuple[dict[int, SheetRow], tuple[str, ...]]:
    """A filled sheet: rows by survey id (blank rows skipped) and the dimension columns it has.

    Raises :class:`AnnotationSheetError` listing every row with a bad survey id, usable value or rating.
    """
    path = Path(path)
    with reading_input(path), open(path, encoding="utf-8-sig", newline="") as handle:
        try:
            table = list(csv.reader(handle))  # not DictReader: it skips blank lines, and row numbers would shift
        except csv.Error as exc:
            raise AnnotationSheetError(f"{path}: not a readable CSV file ({exc})") from None
    columns = [c.strip() for c in table[0]] if table else []
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise AnnotationSheetError(f"{path}: row 1 (the header) lacks the column(s) {', '.join(missing)}; its "
                                   f"columns: {', '.join(columns) or 'none'}")
    dimensions = tuple(d for d in DIMENSIONS if d in columns)
    rows: dict[int, SheetRow] = {}
    problems = []
    for number, values in enumerate(table[1:], start=2):
        cells = dict(zip(columns, values, strict=False))
        if not any(v.strip() for v in cells.values()):
            continue
        where = f"row {number}"
        try:
            survey_id = int(cells.get("survey_id", "").strip())
        except ValueError:
            problems.append(f"{where}: survey_id is {cells.get('survey_id', '')!r}, not a whole number")
            continue
        where += f" (survey {survey_id})"
        if survey_id in rows:
            problems.append(f"{where}: survey {survey_id} again (first at row {rows[survey_id].row})")
            continue
        try:
            usable = _usable(cells.get(USABLE, ""))
            ratings = {d: _rating(d, cells.get(d, "")) for d in dimensions}
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
            continue
        rows[survey_id] = SheetRow(survey_id, number, usable, ratings)
    if problems:
        raise _problems_error(path, problems)
    return rows, dimensions


def cohen_kappa(a: Sequence[Any], b: Sequence[Any], *, labels: Sequence[Any] | None = None,
                weights: str | None = None) -> float | None:
    """Cohen's kappa of two annotators (scikit-learn's), or None where it is undefined: no items, or both gave
    every item the one same label (the chance agreement is then 1 and kappa is 0/0)."""
    if not a or len(set(a) | set(b)) < 2:
        return None
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score(list(a), list(b), labels=labels, weights=weights))


@dataclass(frozen=True)
class DimensionAgreement:
    """One dimension over the surveys both annotators rated: exact agreement and quadratic-weighted kappa."""

    rated: int
    agreement: float | None
    kappa: float | None


@dataclass
class Agreement:
    """Two merged sheets: the usable labels per survey, the agreement figures and what is kept."""

    sheets: tuple[Path, Path]
    usable: dict[int, tuple[bool, bool]]  # survey id -> (sheet A, sheet B), in sheet A's order
    kappa: float | None
    agreement: float
    confusion: dict[str, int]  # "yes/yes", "yes/no", "no/yes", "no/no": sheet A's label / sheet B's
    dimensions: dict[str, DimensionAgreement] = field(default_factory=dict)

    @property
    def kept(self) -> list[int]:
        return [i for i, (a, b) in self.usable.items() if a and b]

    @property
    def dropped(self) -> list[int]:
        return [i for i, (a, b) in self.usable.items() if not (a and b)]


def _word(label: bool) -> str:
    return USABLE_YES[0] if label else USABLE_NO[0]


def merge_sheets(sheet_a: str | Path, sheet_b: str | Path) -> Agreement:
    """Merge two filled sheets of the same surveys; refuses differing survey ids and empty ``usable`` cells."""
    paths = (Path(sheet_a), Path(sheet_b))
    (rows_a, dims_a), (rows_b, dims_b) = read_sheet(paths[0]), read_sheet(paths[1])
    only_a, only_b = sorted(set(rows_a) - set(rows_b)), sorted(set(rows_b) - set(rows_a))
    if only_a or only_b:
        parts = [f"only in {p}: {', '.join(map(str, ids))}" for p, ids in zip(paths, (only_a, only_b), strict=True) if ids]
        raise AnnotationSheetError("the two sheets list different surveys (" + "; ".join(parts) + "); both "
                                   "annotators must label the same sheet")
    empty = [f"{p} row {rows[i].row} (survey {i})" for p, rows in zip(paths, (rows_a, rows_b), strict=True)
             for i in rows if rows[i].usable is None]
    if empty:
        raise AnnotationSheetError(f"{len(empty)} usable cell(s) are empty, and a label is never guessed: "
                                   + ", ".join(empty[:SHOWN_PROBLEMS]) + (" ..." if len(empty) > SHOWN_PROBLEMS else "")
                                   + "; fill them with yes or no")
    usable = {i: (bool(rows_a[i].usable), bool(rows_b[i].usable)) for i in rows_a}
    pairs = list(usable.values())
    confusion = {f"{_word(x)}/{_word(y)}": sum(p == (x, y) for p in pairs) for x in (True, False) for y in (True, False)}
    dimensions = {}
    for name in (d for d in dims_a if d in dims_b):
        rated = [(rows_a[i].ratings[name], rows_b[i].ratings[name]) for i in rows_a]
        rated = [(x, y) for x, y in rated if x is not None and y is not None]
        if rated:
            a, b = zip(*rated, strict=True)
            dimensions[name] = DimensionAgreement(len(rated), sum(x == y for x, y in rated) / len(rated),
                                                  cohen_kappa(a, b, labels=list(RATINGS), weights="quadratic"))
    return Agreement(
        sheets=paths, usable=usable,
        kappa=cohen_kappa([_word(a) for a, _ in pairs], [_word(b) for _, b in pairs]) if pairs else None,
        agreement=sum(a == b for a, b in pairs) / len(pairs) if pairs else 0.0,
        confusion=confusion, dimensions=dimensions,
    )


def _kappa_text(kappa: float | None, labels: Sequence[bool]) -> str:
    if kappa is not None:
        return f"{kappa:.3f}"
    if not labels:
        return "undefined (no survey)"
    return (f"undefined: both annotators labelled every survey {_word(labels[0])}, so chance agreement is 1 "
            "and kappa is 0/0")


def agreement_lines(agreement: Agreement) -> list[str]:
    """The merge's result as lines to print: kappa (or why it is undefined), agreement, confusion, dimensions."""
    n = len(agreement.usable)
    a_name, b_name = (p.name for p in agreement.sheets)
    c = agreement.confusion
    lines = [f"Cohen's kappa on usable: {_kappa_text(agreement.kappa, [a for a, _ in agreement.usable.values()])} "
             f"(the SurGE paper: {PAPER_KAPPA} on 250 surveys)",
             f"agreement: {agreement.agreement:.1%} of {n} surveys",
             f"confusion ({a_name} / {b_name}): yes/yes {c['yes/yes']}, yes/no {c['yes/no']}, "
             f"no/yes {c['no/yes']}, no/no {c['no/no']}"]
    for name, dim in agreement.dimensions.items():
        kappa = f"{dim.kappa:.3f}" if dim.kappa is not None else "undefined (one rating throughout)"
        lines.append(f"{name}: {dim.agreement:.1%} identical ratings, weighted kappa {kappa} ({dim.rated} rated by both)")
    lines.append(f"kept (usable for both): {len(agreement.kept)}; dropped: {len(agreement.dropped)}")
    return lines


def annotation_record(agreement: Agreement, entries: Mapping[int, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The ``annotation`` entry of the manifest (and the merge's JSON): figures, kept ids, each dropped survey
    with both labels (and its arXiv id and title when ``entries``, the manifest's surveys by id, has them)."""
    entries = entries or {}
    dropped = []
    for i in agreement.dropped:
        entry = entries.get(i, {})
        dropped.append({"survey_id": i, **{k: entry[k] for k in ("arxiv_id", "title") if entry.get(k)},
                        USABLE: [_word(label) for label in agreement.usable[i]]})
    return {
        "kappa": agreement.kappa, "agreement": agreement.agreement, "confusion": agreement.confusion,
        "dimensions": {name: vars(dim) for name, dim in agreement.dimensions.items()},
        "kept": agreement.kept, "dropped": dropped,
        "sheets": [{"path": str(p), "sha256": file_sha256(p)} for p in agreement.sheets],
    }


# --- the filtered source folder ------------------------------------------------------------------------------


def source_entries(src: str | Path, agreement: Agreement) -> dict[int, dict[str, Any]]:
    """What ``src`` says of each annotated survey (manifest entry, title): the sheets must list exactly its surveys."""
    src = Path(src)
    surveys = _read_surveys(src / OFFICIAL_FILES["surveys"])
    _, entries = _manifest_entries(src)
    ids = [s["survey_id"] for s in surveys]
    unlabelled, unknown = sorted(set(ids) - set(agreement.usable)), sorted(set(agreement.usable) - set(ids))
    if unlabelled or unknown:
        parts = ([f"not in the sheets: {', '.join(map(str, unlabelled))}"] if unlabelled else []) + (
            [f"not in its surveys.json: {', '.join(map(str, unknown))}"] if unknown else [])
        raise AnnotationSheetError(f"the sheets do not match {src}: survey ids " + "; ".join(parts))
    found = {}
    for survey in surveys:
        entry = dict(entries.get(survey["survey_id"], {}))
        found[survey["survey_id"]] = {**entry, "title": survey["survey_title"],
                                      "arxiv_id": _first(entry.get("arxiv_id"), survey.get("arxiv_id"))}
    return found


def write_filtered_source(src: str | Path, agreement: Agreement, out: str | Path, *, force: bool = False) -> dict[str, Any]:
    """Write ``out``: ``src`` with only the surveys both annotators marked usable, their queries, the corpus as is,
    and the manifest with its ``annotation`` entry (returned). The sheets must list exactly ``src``'s surveys."""
    src, out = Path(src), Path(out)
    manifest, _ = _manifest_entries(src)
    if manifest is None:
        raise InputFileError(f"{src}: no {FRESH_MANIFEST}; --filtered-out writes a fresh split's source folder, so "
                             "--src must be a folder of `surge data fresh`")
    record = annotation_record(agreement, source_entries(src, agreement))
    surveys = _read_surveys(src / OFFICIAL_FILES["surveys"])
    keep = set(agreement.kept)
    by_title = survey_title_lookup(surveys, [s["survey_id"] for s in surveys])
    updated = {**manifest, "annotation": record}
    if isinstance(manifest.get("surveys"), list):
        updated["surveys"] = [e for e in manifest["surveys"] if not isinstance(e, dict) or e.get("survey_id") in keep]
    inputs = [("--src", src), *(("--merge", p) for p in agreement.sheets)]
    # someone else's files, another kind of folder or an input are refused even with --force; ours need --force
    if check_output_folder(out, KIND, inputs=inputs, overwrite=True, option="--filtered-out") and not force:
        raise OutputFolderError(f"--filtered-out {out} already exists (written by surge data annotate); pass "
                                "--force to replace it")
    with replacing_output_folder(out, KIND, "surge data annotate", inputs=inputs, overwrite=True,
                                 option="--filtered-out") as tmp:
        atomic_write_json(tmp / OFFICIAL_FILES["surveys"], [s for s in surveys if s["survey_id"] in keep])
        queries_path = src / OFFICIAL_FILES["queries"]
        if queries_path.is_file():
            dropped = set(agreement.dropped)  # a query naming no survey is kept: the build reports it
            atomic_write_json(tmp / OFFICIAL_FILES["queries"],
                              [q for q in read_json_array(queries_path) if survey_of_query(q, by_title) not in dropped])
        corpus_path = src / OFFICIAL_FILES["corpus"]
        if corpus_path.is_file():
            shutil.copyfile(corpus_path, tmp / OFFICIAL_FILES["corpus"])
        atomic_write_json(tmp / FRESH_MANIFEST, updated)
    return record
