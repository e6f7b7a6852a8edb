"""``build_space``: the leaderboard's inputs into one folder that is a Gradio Space; ``serve_space`` runs it.

Layout of the folder (what ``surge leaderboard build`` writes, every file replaced at once)::

    README.md            the Space card: YAML header (sdk: gradio, app_file: app.py) and the inputs' hashes
    app.py, leaderboard_data.py, leaderboard_viewer.py      the app (copied from surge_dataset/leaderboard/space)
    requirements.txt     gradio, pandas, pyarrow, nh3, markdown-it-py: never surge-bench
    data/leaderboard.json   metrics, groups, warnings, the paper's published rows, versions, seeds, and per system
                            (``inputs``) what re-scoring found: ``verification`` (:mod:`.verify`)
    data/systems.parquet    one row per system: its verification (status, badge, what was verified, a mismatch's
                            first difference, whether it is ranked), group and settings (data fingerprint too), its
                            data's date window, survey counts, input hash
    data/means.parquet      system x metric: mean, 95 % CI, n, and the value's source (re-computed or self-reported)
    data/significance.parquet   metric x pair within a group: delta, p-value, CI of delta, n
    data/scores.parquet     system x survey: every metric, the counts, the diagnostics
    data/surveys.parquet    system x survey: the generated Markdown (as submitted; sanitised when shown)
    data/citations.parquet  one row per citation instance / reference entry (--details): verdict, evidence, place
    data/papers.parquet     the cited papers' titles and abstracts (from --data)
    data/outlines.parquet   the GT outline (from --data) and each generated outline, heading by heading
    data/retrieval.parquet  Recall@k of retrieval-eval inputs and the paper's Table 3
    verifications/<key>.json   each submission's re-computation, under the sha256 of what it covered (surveys, data,
                            weights, metric versions, settings): the next build of this folder compares against it
                            instead of re-scoring (:mod:`.rescore_store`; ``--reverify`` re-scores all)

A re-scored system publishes what the builder computed -- values, counts, diagnostics and citation verdicts from the
re-run -- and the submitted ones only where nothing was re-run (judged metrics, a model not here), each such cell
labelled self-reported. A mismatch is published below the ranking and never ranked (no paired test either).

No absolute path of the build machine goes into the folder: file names only, models by name (:mod:`surge_dataset.
models.identity`), and every free text (warnings, failures, diagnostics, verification reasons) with local paths cut
to their last part.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import InputFileError, SurgeError
from surge_dataset.core.metadata import installed_versions
from surge_dataset.core.output_folder import folder_kind, replacing_output_folder
from surge_dataset.core.stats import summarise
from surge_dataset.core.vocabulary import OFFICIAL
from surge_dataset.data.fresh_manifest import window_text
from surge_dataset.evaluation.catalogue import higher_is_better, metric_of_key
from surge_dataset.leaderboard.citations import (
    COLUMNS,
    VERDICTS,
    citation_rows,
    read_details,
    reference_titles,
)
from surge_dataset.leaderboard.groups import FILTERS, group_systems, pairwise
from surge_dataset.leaderboard.inputs import Entry, read_inputs
from surge_dataset.leaderboard.published import (
    Published,
    badge,
    first_difference,
    known_surveys,
    verify_entries,
)
from surge_dataset.leaderboard.rescore_store import STORE_FOLDER, RescoreStore
from surge_dataset.leaderboard.space.leaderboard_data import markdown_text
from surge_dataset.leaderboard.submission_rules import strip_local_paths
from surge_dataset.leaderboard.verify import RECOMPUTED, SELF_REPORTED
from surge_dataset.models.identity import model_copies
from surge_dataset.report.constants import (
    CI_LEVEL,
    DECIMALS,
    DEFAULT_DECIMALS,
    PAPER_SOURCE,
    PAPER_TABLE4,
    PUBLISHED_MARK,
    metric_label,
)
from surge_dataset.report.results import available_metrics, comparability_warnings
from surge_dataset.survey.headings import atx_heading_lines

SPACE_KIND = "leaderboard-space"
SPACE_FILES = ("app.py", "leaderboard_data.py", "leaderboard_viewer.py")
SPACE_SOURCE = Path(__file__).with_name("space")
#: The Space's own requirements: the app never imports surge-bench.
REQUIREMENTS = ("gradio>=6.0,<7", "pandas>=2.0", "pyarrow>=15", "nh3>=0.2.14,<0.4", "markdown-it-py>=3.0,<5")
#: gradio version written into the card when gradio is not installed here (the app is tested with 6.x).
FALLBACK_GRADIO = "6.31.0"
#: A generated survey longer than this is cut (with a note) in the Space: the viewer renders it whole.
MAX_SURVEY_CHARS = 1_000_000
COUNT_KEYS = ("references", "resolved", "not_in_corpus", "citations", "citations_of_missing_numbers", "future_citations")


@dataclass
class BuildSummary:
    out: Path
    systems: int
    groups: int
    surveys: int
    citations: int
    seconds: float
    warnings: list[str] = field(default_factory=list)
    files: dict[str, int] = field(default_factory=dict)  # file -> bytes
    verification: dict[str, dict[str, Any]] = field(default_factory=dict)  # system -> its verification record
    refused: list[dict[str, Any]] = field(default_factory=list)  # inputs not built, each with why (read_inputs)
    duplicates: list[dict[str, Any]] = field(default_factory=list)  # inputs of a kept system's surveys: no row
    rescored: int = 0  # submissions whose metrics were computed again in this build
    reused: int = 0  # submissions compared with a stored re-computation of the same inputs (.rescore_store)


def _schema(**columns: str) -> Any:
    import pyarrow as pa

    types = {"str": pa.string(), "int": pa.int64(), "int32": pa.int32(), "float": pa.float64(),
             "float32": pa.float32(), "bool": pa.bool_()}
    return pa.schema([(name, types[kind]) for name, kind in columns.items()])


def _write(rows: Iterable[dict[str, Any]], schema: Any, path: Path) -> None:
    """Rows (missing keys = null) as a zstd Parquet file with small row groups, so the app reads one survey fast."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(list(rows), schema=schema), path, row_group_size=8192, **PARQUET)


#: zstd level 3: ~10 % smaller than the default level 1 for the surveys' text, at the same speed.
PARQUET: dict[str, Any] = {"compression": "zstd", "compression_level": 3}
CITATIONS = dict(system="str", survey_id="str", seq="int32", kind="str", number="int", heading="str", sentence="str",
                 sentence_from="int32", sentence_len="int32", doc_id="int", verdict="str", score="float",
                 entailment="float32", sec_score="float", sec_entailment="float32", rule="str", start="int32",
                 length="int32",
                 verdict_counts="str")  # the viewer's exact verdict counts (citations.py caps the rows per survey)
SURVEYS = dict(system="str", survey_id="str", file="str", text="str")
OUTLINES = dict(system="str", survey_id="str", seq="int", level="int", title="str", fingerprint="str")
PAPERS = dict(doc_id="int", title="str", abstract="str", fingerprint="str", source="str")


def _texts(entry: Entry, warnings: list[str]) -> dict[str, tuple[str, str]]:
    """survey id -> (file name, text) of the surveys this system's results scored, read as the evaluator reads."""
    from surge_dataset.evaluation.prepare import discover_passages
    from surge_dataset.survey import read_survey_file

    warnings += entry.notes
    if entry.passages is None:
        warnings.append(f"{entry.system.name}: no generated surveys found (give --passages-root DIR holding "
                        f"DIR/{entry.system.name}/): the viewer shows its scores only")
        return {}
    root = entry.passages.resolve()
    found, _ = discover_passages(entry.passages, entry.system.config.get("protocol") or OFFICIAL)
    texts = {}
    for survey_id, path in found:
        if str(survey_id) not in entry.system.surveys:
            continue
        if root not in path.resolve().parents:
            warnings.append(f"{entry.system.name}: survey {survey_id} ({path.name}) links outside its folder: left out")
            continue
        text, _ = read_survey_file(path)
        if len(text) > MAX_SURVEY_CHARS:
            warnings.append(f"{entry.system.name}: survey {survey_id} cut to {MAX_SURVEY_CHARS:,} characters")
            text = text[:MAX_SURVEY_CHARS]
        texts[str(survey_id)] = (path.name, text)
    return texts


def _outline(text: str) -> list[tuple[int, str]]:
    """The generated survey's headings as the viewer lists them (``#`` lines; the parser's skip rules are
    about scoring, not display, and parsing 2,000 surveys again would double the build)."""
    return [(len(m.group(1)), m.group(2)) for m in atx_heading_lines(text) if m.group(2)]


def _open_dataset(data: str | Path | None, warnings: list[str]) -> Any:
    text = str(data)
    hub_id = text.count("/") == 1 and not text.startswith((".", "/", "~"))  # the rule of SurgeData.open
    if data is None or (not Path(data).exists() and not hub_id):
        where = "given" if data is None else f"at {Path(str(data)).name}"
        warnings.append(f"no dataset {where}: GT outlines and the cited papers' abstracts are left out (pass --data)")
        return None
    from surge_dataset.data.dataset import SurgeData

    return SurgeData.open(data)


def _scores_row(name: str, survey_id: str, record: dict[str, Any], metrics: Sequence[str]) -> dict[str, Any]:
    from surge_dataset.evaluation.results import is_number

    counts = record.get("counts") or {}
    diagnostics = record.get("diagnostics") or []
    row = {"system": name, "survey_id": survey_id,
           "diagnostics": strip_local_paths(json.dumps(diagnostics, ensure_ascii=False)[:20_000]),
           "diagnostic_codes": ", ".join(sorted({str(d.get("code")) for d in diagnostics if isinstance(d, dict)}))}
    row.update({m: float(record[m]) if is_number(record.get(m)) else None for m in metrics})
    row.update({k: int(counts[k]) if is_number(counts.get(k)) else None for k in COUNT_KEYS})
    return row


def data_window_text(config: dict[str, Any]) -> str:
    """The date window a results file records (``config.data_window``, from a fresh split's manifest) as the table
    shows it: "SINCE to UNTIL" ("open" without an end), "" for data that has none (the official SurGE files), and
    "unknown" for results written before ``surge evaluate`` recorded it or holding something else there."""
    if "data_window" not in config:
        return "unknown"
    window = config["data_window"]
    if window is None:
        return ""
    if isinstance(window, dict) and isinstance(window.get("since"), str) and isinstance(window.get("until"), str | None):
        return window_text(window)
    return "unknown"


def _meta(entries: Sequence[Entry], metrics: Sequence[str], groups: Sequence[Any], warnings: list[str], *,
          title: str, seed: int, resamples: int, refused: Sequence[dict[str, Any]] = (),
          duplicates: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    from surge_dataset.retrieval.evaluation import TABLE3

    return {
        "title": title,
        "metrics": [{"key": m, "label": metric_label(m), "decimals": DECIMALS.get(m, DEFAULT_DECIMALS),
                     "judged": bool(getattr(metric_of_key(m), "judged", False)),
                     "higher_is_better": higher_is_better(m)} for m in metrics],
        "groups": [{"label": g.label, "settings": g.settings, "systems": g.systems, "surveys": len(g.surveys)}
                   for g in groups],
        "filters": FILTERS,
        "warnings": [strip_local_paths(w) for w in warnings],
        "verdicts": list(VERDICTS),
        "published": {"mark": PUBLISHED_MARK, "source": PAPER_SOURCE, "rows": PAPER_TABLE4, "table3": TABLE3},
        "statistics": {"seed": seed, "resamples": resamples, "ci_level": CI_LEVEL},
        "inputs": [{"system": e.system.name, "file": e.system.path.name, "sha256": e.system.sha256,
                    "submission": e.submission is not None, "details": e.details is not None,
                    "verification": e.verification,
                    "failures": [{"survey_id": f.get("survey_id"), "error": strip_local_paths(str(f.get("error")))[:500]}
                                 for f in e.system.failures]} for e in entries],
        "versions": installed_versions(("surge-bench", "pyarrow", "numpy", "scipy")),
        "refused": list(refused),  # names and one-line reasons, local paths already cut (read_inputs)
        "duplicates": list(duplicates),
    }


def _card(meta: dict[str, Any], gradio_version: str) -> str:
    def cell(text: str) -> str:  # names come from submissions: plain text, the app's own Markdown escaping
        return markdown_text(text)

    rows = "\n".join(f"| {cell(i['system'])} | {cell(i['file'])} | {cell((i['verification'] or {}).get('status', '—'))} "
                     f"| `{i['sha256'][:16]}` |" for i in meta["inputs"])
    header = {"title": meta["title"][:60], "emoji": "📚", "colorFrom": "indigo", "colorTo": "blue", "sdk": "gradio",
              "sdk_version": gradio_version, "app_file": "app.py", "pinned": False, "license": "mit",
              "short_description": "SurGE: scientific survey generation leaderboard"}
    yaml = "\n".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in header.items())
    return (f"---\n{yaml}\n---\n\n# {markdown_text(meta['title'])}\n\nThe SurGE benchmark's leaderboard, written by "
            f"`surge leaderboard build` (surge-bench {meta['versions'].get('surge-bench')}). Pages: the Table 4 layout "
            "with 95% CIs and paired significance; per-system survey scores; every generated survey with its "
            "citations coloured by verdict; plots. Verification: each submission's deterministic metrics are "
            "re-computed from its surveys when the Space is built; judged metrics are self-reported.\n\n"
            "Run it locally: `pip install -r requirements.txt && python app.py`.\n\n| System | Results file | "
            "Verification | sha256 |\n| --- | --- | --- | --- |\n" + rows + "\n")


def build_space(
    inputs: Sequence[str | Path], out: str | Path, *, passages_root: str | Path | None = None,
    details: Iterable[str] = (), data: str | Path | None = None, title: str = "SurGE leaderboard", seed: int = 0,
    resamples: int = 10_000, overwrite: bool = False, progress: Callable[[str], None] | None = None,
    verify: bool | None = None, models: Iterable[str] | Mapping[str, str] = (), device: str | None = None,
    reverify: bool = False, verifications: str | Path | None = None,
) -> BuildSummary:
    """Write the Space folder ``out``; inputs are checked first (:class:`SurgeError` naming a bad file).

    ``verify``: re-score every input (True), none (False), or the submission folders only (None, the default);
    ``models``: ``NAME=PATH`` local copies of the models the inputs name (found in the Hub cache otherwise).
    ``verifications``: the folder that keeps re-scorings between builds (:mod:`.rescore_store`; default: the
    Space's own ``verifications/``, carried from the previous build of ``out``); ``reverify``: reuse none.
    """
    started = time.perf_counter()
    if resamples < 100 or seed < 0:
        raise InputFileError(f"--resamples must be at least 100 and --seed >= 0 (got {resamples}, {seed})")
    copies = model_copies(models)
    entries, runs, refused, duplicates = read_inputs(inputs, passages_root=passages_root, details=details)
    data_warnings: list[str] = []
    dataset = _open_dataset(data, data_warnings)
    entries = known_surveys(entries, dataset, refused)
    sources = [("RESULTS", e.system.path) for e in entries] + [("--passages-root", passages_root), ("--data", data)]
    say = progress or (lambda _message: None)
    with replacing_output_folder(out, SPACE_KIND, "surge leaderboard build", inputs=sources,
                                 overwrite=overwrite) as tmp:
        metrics = [m for m in available_metrics([e.system for e in entries]) if metric_of_key(m) is not None]
        store = _store(Path(out), tmp, verifications, reverify)
        published = verify_entries(entries, metrics, dataset, verify, copies, device, say, refused, store)
        warnings_of_store = list(store.refused)
        entries = [e for e in entries if e.system.name in published]  # a submission re-scoring could not read: refused
        if not entries and not runs:
            raise InputFileError(f"nothing to build: every input was refused ({refused[0]['file']}: "
                                 f"{refused[0]['reason']})" if refused else "nothing to build")
        systems = [e.system for e in entries]
        metrics = [m for m in available_metrics(systems) if metric_of_key(m) is not None]
        groups, warnings = group_systems(systems)
        warnings += [w for w in comparability_warnings(systems) if "failed" in w] + data_warnings + warnings_of_store
        folder = tmp / "data"
        folder.mkdir()
        say("means, 95% CIs and paired tests")
        summaries = summarise(systems, metrics, seed=seed, resamples=resamples)
        ranked = [replace(g, systems=[n for n in g.systems if published[n].ranked]) for g in groups]
        pairs = pairwise(systems, ranked, metrics, seed=seed, resamples=resamples)
        counts = _write_surveys(entries, metrics, folder, dataset, warnings, say, published)
        group_of = {n: g for g in groups for n in g.systems}
        setting_names = list(groups[0].settings) if groups else []
        _write(({"system": e.system.name, "verification": (e.verification or {}).get("status"),
                 "verification_label": (e.verification or {}).get("label"),
                 "verification_summary": strip_local_paths((e.verification or {}).get("summary", "")),
                 "status": published[e.system.name].status, "ranked": published[e.system.name].ranked,
                 "badge": badge(e.verification), "verified_groups": (e.verification or {}).get("verified_groups"),
                 "first_difference": first_difference(e.verification),
                 "group": group_of[e.system.name].label, **group_of[e.system.name].settings,
                 "surveys": len(e.system.surveys), "failures": len(e.system.failures),
                 "has_details": e.details is not None, "has_passages": e.passages is not None,
                 "submission": e.submission is not None, "source": e.system.path.name, "sha256": e.system.sha256,
                 "data_window": data_window_text(e.system.config)}
                for e in entries),
               _schema(system="str", verification="str", verification_label="str", verification_summary="str",
                       status="str", ranked="bool", badge="str", verified_groups="str", first_difference="str", group="str",
                       **dict.fromkeys(setting_names, "str"), surveys="int", failures="int", has_details="bool",
                       has_passages="bool", submission="bool", source="str", sha256="str", data_window="str"),
               folder / "systems.parquet")
        _write(({"system": name, "metric": m, **vars(s), "source": published[name].sources.get(m)}
                for name, per in summaries.items() for m, s in per.items()),
               _schema(system="str", metric="str", mean="float", ci_low="float", ci_high="float", n="int", source="str"),
               folder / "means.parquet")
        _write(pairs, _schema(group="str", metric="str", a="str", b="str", delta="float", p_value="float",
                              ci_low="float", ci_high="float", n="int"), folder / "significance.parquet")
        _write(({"system": r.name, "k": k, "recall": v} for r in runs for k, v in r.recall_at_k()),
               _schema(system="str", k="int", recall="float"), folder / "retrieval.parquet")
        meta = _meta(entries, metrics, groups, warnings, title=title, seed=seed, resamples=resamples, refused=refused,
                     duplicates=duplicates)
        (folder / "leaderboard.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
        for name in SPACE_FILES:
            shutil.copyfile(SPACE_SOURCE / name, tmp / name)
        gradio_version = installed_versions(("gradio",))["gradio"]
        (tmp / "README.md").write_text(_card(meta, FALLBACK_GRADIO if gradio_version == "not installed"
                                             else gradio_version), encoding="utf-8")
        (tmp / "requirements.txt").write_text("\n".join(REQUIREMENTS) + "\n", encoding="utf-8")
        files = {str(p.relative_to(tmp)): p.stat().st_size for p in sorted(tmp.rglob("*")) if p.is_file()}
    return BuildSummary(Path(out), len(entries), len(groups), counts[0], counts[1],
                        time.perf_counter() - started, meta["warnings"], files,
                        {e.system.name: e.verification or {} for e in entries}, refused, duplicates,
                        len(store.computed), len(store.reused))


def _store(out: Path, staging: Path, chosen: str | Path | None, reverify: bool) -> RescoreStore:
    """Where re-scorings are kept: the chosen folder, read and written in place; else the new Space's own
    ``verifications/``, seeded from the previous build of ``out`` (a folder this command wrote, never a user's)."""
    if chosen is not None:
        return RescoreStore(Path(chosen), reuse=not reverify)
    previous = out / STORE_FOLDER
    sources = [previous] if previous.is_dir() and folder_kind(out) == SPACE_KIND else []
    return RescoreStore(staging / STORE_FOLDER, sources, reuse=not reverify)


def _write_surveys(entries: Sequence[Entry], metrics: Sequence[str], folder: Path, dataset: Any,
                   warnings: list[str], say: Callable[[str], None],
                   published: Mapping[str, Published]) -> tuple[int, int]:
    """scores, surveys, citations, outlines and papers, one system at a time (details can be large)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schemas = {"citations": _schema(**CITATIONS), "surveys": _schema(**SURVEYS)}
    options = {"citations": {"use_dictionary": ["system", "survey_id", "kind", "heading", "verdict", "score",
                                                "sec_score", "rule"],
                             "column_encoding": {"seq": "DELTA_BINARY_PACKED", "start": "DELTA_BINARY_PACKED"}},
               "surveys": {}}
    writers = {name: pq.ParquetWriter(folder / f"{name}.parquet", schema, **PARQUET, **options[name])
               for name, schema in schemas.items()}
    scores, outlines, titles, doc_ids = [], [], {}, set()
    n_surveys = n_citations = 0
    try:
        for entry in entries:
            s = entry.system
            say(f"surveys of {s.name}")
            protocol = s.config.get("protocol") or OFFICIAL
            texts = _texts(entry, warnings)
            redone = published[s.name].details
            records = redone if redone is not None else read_details(entry.details) if entry.details is not None \
                else {}
            columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
            for survey_id in s.survey_ids:
                n_surveys += 1
                scores.append({**_scores_row(s.name, survey_id, s.surveys[survey_id], metrics),
                               "has_text": survey_id in texts, "has_details": survey_id in records,
                               "counts_source": RECOMPUTED if published[s.name].counts_recomputed else SELF_REPORTED,
                               "details_source": RECOMPUTED if redone is not None else SELF_REPORTED})
                text = texts.get(survey_id, (None, None))[1]
                n_citations += citation_rows(columns, s.name, survey_id, records.get(survey_id, []), text, protocol)
                if text is not None:
                    outlines += [{"system": s.name, "survey_id": survey_id, "seq": i, "level": level, "title": t}
                                 for i, (level, t) in enumerate(_outline(text))]
            for survey in records.values():
                titles.update(reference_titles(survey))
            doc_ids.update(d for d in columns["doc_id"] if d is not None)
            writers["citations"].write_table(pa.table(columns, schema=schemas["citations"]), 8192)
            writers["surveys"].write_table(pa.Table.from_pylist(
                [{"system": s.name, "survey_id": k, "file": f, "text": t} for k, (f, t) in texts.items()],
                schema=schemas["surveys"]), 64)
            del columns, records, texts
    finally:
        for writer in writers.values():
            writer.close()
    _write(scores, _schema(system="str", survey_id="str", **dict.fromkeys(metrics, "float"),
                           **dict.fromkeys(COUNT_KEYS, "int"), diagnostic_codes="str", diagnostics="str",
                           has_text="bool", has_details="bool", counts_source="str", details_source="str"),
           folder / "scores.parquet")
    gt_rows, papers = [], {}
    if dataset is not None:
        for survey_id in sorted({r["survey_id"] for r in scores}):
            if survey_id.isdigit() and dataset.has_survey(int(survey_id)):
                gt_rows += [{"system": "", "survey_id": survey_id, "seq": i, "level": section.depth,
                             "title": section.title, "fingerprint": dataset.fingerprint}
                            for i, section in enumerate(dataset.survey(int(survey_id)).sections())]
        papers = {p.doc_id: p for p in dataset.corpus.get(sorted(doc_ids)) if p is not None}
    _write([*outlines, *gt_rows], _schema(**OUTLINES), folder / "outlines.parquet")
    _write([*({"doc_id": d, "title": p.title, "abstract": p.abstract, "fingerprint": dataset.fingerprint,
               "source": "corpus"} for d, p in papers.items()),
            *({"doc_id": d, "title": t, "source": "the survey's reference list"}
              for d, t in titles.items() if d not in papers)], _schema(**PAPERS), folder / "papers.parquet")
    return n_surveys, n_citations


def serve_space(space: str | Path, *, port: int = 7860, host: str = "127.0.0.1") -> int:
    """Run the Space's ``app.py`` (exactly what the Space runs) on ``host:port``, in place of this process.

    ``os.execve``: the app *is* the ``surge leaderboard serve`` process from then on, so a SIGTERM or Ctrl-C to it
    stops the app and leaves nothing behind (a child process would outlive a killed parent). Where ``exec`` is not
    available (Windows), the app runs as a child that gets SIGTERM/SIGINT forwarded; returns its exit code.
    """
    space = Path(space)
    if not (space / "app.py").is_file() or folder_kind(space) != SPACE_KIND:
        raise InputFileError(f"{space} is not a leaderboard Space folder: write one with "
                             "`surge leaderboard build RESULTS... --out SPACE`")
    if importlib.util.find_spec("gradio") is None:
        raise SurgeError("serving the leaderboard needs gradio: pip install 'surge-bench[leaderboard]'")
    env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "GRADIO_SERVER_NAME": host}
    command = [sys.executable, "app.py"]
    if os.name == "posix":
        sys.stdout.flush()
        sys.stderr.flush()
        os.chdir(space)
        os.execve(sys.executable, command, env)  # does not return
    child = subprocess.Popen(command, cwd=space, env=env)
    forward = {sig: signal.signal(sig, lambda number, _frame: child.send_signal(number))
               for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        return child.wait()
    finally:
        for sig, previous in forward.items():
            signal.signal(sig, previous)
