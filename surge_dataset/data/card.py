"""The dataset card (``README.md``): YAML ``configs`` + ``dataset_info`` so ``load_dataset`` needs no script."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import yaml

from surge_dataset.core.metadata import SURGE_BIBTEX
from surge_dataset.data.fresh_manifest import window_text

CONFIG_ORDER = ("surveys", "corpus", "queries", "quizzes", "surveygen_papers", "surveygen_surveys",
                "surveygen_second_level")

FIELD_DOCS = {
    "surveys": [
        ("survey_id", "int64", "`survey_id`", "Survey id (0-204); also the folder name of a generated survey."),
        ("survey_title", "string", "`survey_title`", "Title of the ground-truth survey."),
        ("authors", "list<string>", "`authors`", "Authors."),
        ("year", "string", "`year`", "Publication year, as a string (as published)."),
        ("date", "string", "`date`", "ISO timestamp of publication."),
        ("category", "string", "`category`", "Primary arXiv category, e.g. `cs.LG`."),
        ("abstract", "string", "`abstract`", "Abstract of the survey."),
        ("structure", "list<struct>", "`structure`",
         "Flat list of nodes `{id, parent_id, title, content, extra}`; the node titled `root` is the root "
         "and the tree is rebuilt by following `parent_id` (`surge_dataset.Survey.tree()`). `id` and "
         "`parent_id` are each int64 or string, as the file has them; a field that mixes integers and "
         "strings is string, and the integers' JSON values are kept in the node's `extra`."),
        ("all_cites", "list<int64>", "`all_cites`",
         "doc_ids of the corpus papers the survey cites (may be empty: valid data)."),
        ("bertopic_cd", "float64", "`Bertopic_CD`", "Topic diversity computed by the authors with BERTopic."),
        ("extra", "string", "(none)", "JSON object of fields not in the documented schema, kept losslessly; null if none."),
    ],
    "corpus": [
        ("doc_id", "int64", "`doc_id`", "Paper id used by `all_cites`, `cites` and every run file."),
        ("title", "string", "`Title`", "Paper title."),
        ("authors", "list<string>", "`Authors`", "Authors."),
        ("year", "string", "`Year`", "Year, as a string (as published)."),
        ("date", "string", "`Date`", "Date of the arXiv version."),
        ("abstract", "string", "`Abstract`", "Abstract."),
        ("category", "string", "`Category`", "arXiv category."),
        ("extra", "string", "(none)", "JSON object of unknown fields, or null."),
    ],
    "queries": [
        ("original_id", "string or int64", "`original_id`",
         "Id of the section in the authors' extraction (a UUID string in the released file; int64 when every "
         "value is an integer)."),
        ("query_id", "int64", "`query_id`", "Query id."),
        ("date", "string", "`date`", "Date of the survey."),
        ("year", "string", "`year`", "Year of the survey."),
        ("category", "string", "`category`", "arXiv category of the survey."),
        ("content", "string", "`content`", "Text of the section."),
        ("prefix_titles", "list<list<string>>", "`prefix_titles`",
         "Heading path as `[level, title]` pairs; the first is `[\"title\", <survey title>]`."),
        ("prefix_titles_query", "string", "`prefix_titles_query`", "A question used as the retrieval query."),
        ("cites", "list<int64>", "`cites`", "doc_ids cited in the section (the qrels)."),
        ("cite_extract_rate", "float64", "`cite_extract_rate`", "Share of the section's citations resolved."),
        ("origin_cites_number", "int64", "`origin_cites_number`", "Citations in the original section."),
        ("survey_id", "int64", "(derived)",
         "The survey whose title is `prefix_titles[0]`; null when none matches (split `unassigned`)."),
        ("extra", "string", "(none)", "JSON object of unknown fields, or null."),
    ],
    "quizzes": [
        ("survey_id", "int64", "`survey_id`", "The GT survey the question is drawn from (its split is the survey's)."),
        ("question_id", "string", "`question_id`", "Unique id, `<survey_id>-<n>` when `surge data quiz` wrote it."),
        ("section", "string", "`section`", "Title of the GT section the question was written from."),
        ("question", "string", "`question`", "The question."),
        ("options", "list<string>", "`options`", "The four options, in the order `answer` refers to."),
        ("answer", "string", "`answer`", "Letter (A-D) of the correct option."),
        ("evidence", "string", "`evidence`", "The sentence of the section the answer rests on, as quoted."),
        ("prompt_version", "string", "`prompt_version`", "Version of the writer's prompt (null if not recorded)."),
        ("generator", "string", "`generator`", "The model that wrote the question (null if not recorded)."),
    ],
}


#: The file beside a card that ``license_link`` points to (the Hub's template: with ``license: other``, "LICENSE" or
#: "LICENSE.md" inside the repository, or a URL).
LICENCE_FILE = "LICENSE.md"
#: Mixed licences (the card's "Licence" section): the authors' MIT release, CC0 arXiv metadata, and GT section texts
#: under each arXiv paper's own licence. The Hub's vocabulary for that is ``other``, named and linked.
LICENCE_FIELDS: dict[str, Any] = {
    "license": "other",
    "license_name": "mit-cc0-and-arxiv-paper-licences",
    "license_link": LICENCE_FILE,
}
LICENCE_TEXT = "\n".join([
    "The SurGE authors distribute the dataset and their code under the MIT license (paper §3.5, "
    "arXiv:2508.15658). The parts carry these licences:",
    "",
    "- **corpus** (titles, authors, abstracts, categories and dates of arXiv papers): arXiv's descriptive "
    "metadata, which arXiv's API Terms of Use and Submittal Agreement place under the CC0 1.0 public-domain "
    "dedication (paper §3.3 and §3.5). No PDF or source file is included.",
    "- **surveys**: the ground-truth surveys' metadata (title, authors, abstract, date, category) is arXiv "
    "metadata as above (CC0); their section texts (`structure[].content`) and headings come from the arXiv "
    "papers themselves and stay under the licence each paper's authors chose on arXiv (arXiv's non-exclusive "
    "distribution licence or a Creative Commons licence, shown on the paper's arXiv page).",
    "- **queries**: section texts and heading paths of the surveys (licensed as those texts) and the "
    "questions written for them.",
    "",
    "Check a survey's licence on its arXiv page before redistributing its text outside research "
    "evaluation. The `surge-bench` package that built this folder is MIT-licensed.",
])


def write_licence(folder: Path) -> None:
    """``LICENSE.md``, the file the card's ``license_link`` names: the "Licence" section's text."""
    (folder / LICENCE_FILE).write_text(f"# Licence\n\n{LICENCE_TEXT}\n", encoding="utf-8")


def size_category(n: int) -> str:
    """The Hub's size bucket for the largest config."""
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")):
        if n < limit:
            return label
    return "10M<n<100M"


def _split_files(folder: Path, config: str) -> dict[str, list[Path]]:
    splits: dict[str, list[Path]] = {}
    for path in sorted((folder / config).glob("*.parquet")):
        splits.setdefault(path.name.split("-", 1)[0], []).append(path)
    return splits


def card_metadata(folder: Path) -> dict[str, Any]:
    """YAML front matter: licence, task tags, ``configs`` (data_files per split) and ``dataset_info``."""
    from datasets import Features  # imported lazily: `datasets` is slow to import

    configs, infos = [], []
    for config in CONFIG_ORDER:
        splits = _split_files(folder, config)
        if not splits:
            continue
        order = sorted(splits, key=lambda s: {"train": 0, "test": 1}.get(s, 2))
        entry: dict[str, Any] = {
            "config_name": config,
            "data_files": [{"split": s, "path": f"{config}/{s}-*.parquet"} for s in order],
        }
        if config == "surveys":
            entry["default"] = True
        configs.append(entry)
        schema = pq.read_schema(splits[order[0]][0])
        split_info = []
        for split in order:
            metas = [pq.read_metadata(p) for p in splits[split]]
            split_info.append(
                {
                    "name": split,
                    "num_bytes": sum(m.row_group(i).total_byte_size for m in metas for i in range(m.num_row_groups)),
                    "num_examples": sum(m.num_rows for m in metas),
                }
            )
        infos.append(
            {
                "config_name": config,
                "features": Features.from_arrow_schema(schema)._to_yaml_list(),
                "splits": split_info,
                "download_size": sum(p.stat().st_size for files in splits.values() for p in files),
                "dataset_size": sum(split["num_bytes"] for split in split_info),
            }
        )
    return {
        **LICENCE_FIELDS,
        "language": ["en"],
        "pretty_name": "SurGE: Survey Generation Evaluation",
        "task_categories": ["text-generation", "text-retrieval", "summarization"],
        "tags": ["survey-generation", "scientific-documents", "citation", "retrieval", "arxiv"],
        "size_categories": [size_category(max((i["splits"][0]["num_examples"] for i in infos), default=0))],
        "configs": configs,
        "dataset_info": infos,
    }


def derived_queries_text(derived: dict[str, Any]) -> str:
    """The card's paragraph on a ``queries`` config derived from ``surveys.json`` (``meta["queries_derived"]``)."""
    sources = derived.get("surveys_by_cites_source", {})
    return (
        f"**Queries (derived, not the authors' file).** This build did not read the authors' `queries.json` "
        f"({derived.get('reason', 'n/a')}): the `queries` config was derived from `surveys.json` by "
        f"`surge_dataset.data.queries` (rule version {derived.get('version')}): one query per section with at "
        "least one resolved citation, in file order, `query_id` from 0, `original_id` = the section's node id. "
        "`prefix_titles` (the heading path, first `[\"title\", <survey title>]`), `content`, `date`, `year` and "
        "`category` are what the authors' definition gives. `prefix_titles_query` is our own deterministic "
        f"question ({derived.get('question_template', '')}); the authors' questions were written by an LLM, so "
        f"the wording differs. `cites`: a section's own `cites` where `surveys.json` carries them "
        f"({sources.get('section', 0)} survey(s)); otherwise the survey's `all_cites` for every section with at least "
        f"100 characters of content ({sources.get('all_cites', 0)} survey(s): survey-level relevance, a superset of "
        "the section's, with `cite_extract_rate` null and `origin_cites_number` = the size of `all_cites`); "
        f"{sources.get('no_query', 0)} survey(s) give no query. Each row's `extra` holds `derived_from` and "
        "`cites_from` (`section` or `all_cites`)."
    )


def quiz_set_text(quizzes: dict[str, Any]) -> str:
    """The card's paragraph on the pinned quiz set (``meta["quizzes"]``): who wrote it and how to use it."""
    return (
        f"**Quiz set (not part of the SurGE release).** The `quizzes` config pins {quizzes.get('questions')} "
        f"multiple-choice questions on {quizzes.get('surveys')} GT surveys, from `{quizzes.get('file')}` (quiz set "
        f"fingerprint `{quizzes.get('fingerprint')}`), written by {'; '.join(quizzes.get('writers') or ['n/a'])} "
        "with `surge data quiz`: one GT section at a time, each question quoting the sentence its answer rests on. "
        "`surge evaluate --metrics quiz --judge ...` asks every system these same questions and records the "
        "fingerprint with its results. The questions were written by a language model from the surveys' texts and "
        "carry those texts' licences."
    )


def _manifest_counts(folder: Path, fresh: dict[str, Any]) -> dict[str, Any]:
    """The ``counts`` of the manifest the build copied into ``folder`` (``meta`` keeps only its window and
    annotation); empty when it cannot be read, so a card is still written (the build checked the file)."""
    try:
        manifest = json.loads((folder / str(fresh.get("manifest") or "fresh_manifest.json")).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    counts = manifest.get("counts") if isinstance(manifest, dict) else None
    return counts if isinstance(counts, dict) else {}


def fresh_split_text(folder: Path, fresh: dict[str, Any]) -> list[str]:
    """The card's "Fresh split" section (``meta["fresh"]``): the README otherwise describes the authors' release,
    so a reader must learn here that these surveys are newer ones, from which window, and how they were kept."""
    window = fresh.get("window") or {}
    categories = fresh.get("categories")
    counts = _manifest_counts(folder, fresh)
    kept, dropped = counts.get("kept"), counts.get("dropped")
    lines = [
        "## Fresh split",
        "",
        "This is not the authors' release: `surge data fresh` built these surveys, corpus and queries from arXiv "
        "surveys published in the date window below (so a model whose training data ends before it cannot have read "
        "them), with SurGE's construction rules and schema. `fresh_manifest.json` beside this card "
        "lists every candidate it dropped and why, the settings and the package versions.",
        "",
        f"- Date window: {window_text(window, 'open (no end date)')}",
        "- arXiv categories: " + (", ".join(map(str, categories)) if isinstance(categories, list) and categories
                                  else "not recorded"),
        f"- Created: {fresh.get('created') or 'not recorded'}",
        f"- Surveys kept by `surge data fresh`: {kept if kept is not None else 'not recorded'}; candidates dropped: "
        f"{dropped if dropped is not None else 'not recorded'}",
    ]
    annotation = fresh.get("annotation")
    if isinstance(annotation, dict):
        kappa = annotation.get("kappa")
        shown = f"{kappa:.3f}" if isinstance(kappa, int | float) else "undefined"
        lines.append(f"- Expert annotation (`surge data annotate --merge`): Cohen's κ {shown}; surveys both annotators "
                     f"marked usable (kept): {annotation.get('kept')}")
    return [*lines, ""]


def surveygen_text(counts: dict[str, int]) -> str:
    """The card's paragraph on SurveyGen's quality indicators (``meta["surveygen"]``: config -> rows)."""
    shown = ", ".join(f"`{config}` ({n:,} rows, split `train`)" for config, n in counts.items())
    return (f"**SurveyGen quality indicators (not part of the SurGE release).** This data was converted from SurveyGen "
            f"(Bao et al., 2025, arXiv:2508.17647) by `surge data from-surveygen`; its per-paper and per-survey "
            f"indicators are kept unchanged in {shown}: citation and influential citation counts, authors' h-index, "
            "paper and citation counts, venue h-index, i10-index and CORE status, and each survey's fields of study "
            "and discipline (`surge_dataset.data.surveygen_meta`). `surge data stats` adds SurveyGen's Table 1 "
            "columns, `surge reference-distributions` and `surge discipline-anova` read them."
            + (" `surveygen_second_level` holds its second-level references, one row per work that a cited paper "
               "cites (`work_id` as the source gives it, `cited_by_doc_ids`, `doc_id` when the work is itself a "
               "corpus paper, and its title, abstract, DOI and citation count where the source has them; "
               "`surge_dataset.data.surveygen_second_level`)." if "surveygen_second_level" in counts else ""))


def write_card(folder: Path, meta: dict[str, Any]) -> None:
    """Write ``folder/README.md`` (front matter + documentation) for the built dataset."""
    front = yaml.safe_dump(card_metadata(folder), sort_keys=False, allow_unicode=True, width=120)
    counts = meta.get("counts", {})
    lines = [f"---\n{front}---", "", "# SurGE: Survey Generation Evaluation", ""]
    lines += [
        "The SurGE benchmark for scientific survey generation (Su et al., 2025, arXiv:2508.15658): "
        "ground-truth surveys written by people, a 1,086,992-paper arXiv corpus, and retrieval queries. "
        "Built by `surge data build` (package `surge-bench`) from the authors' official JSON files, "
        "content unchanged: only the field names are snake_case and the types explicit.",
        "",
        "```python",
        "from datasets import load_dataset",
        'surveys = load_dataset("<this folder or org/surge>")              # default config: surveys',
        'corpus = load_dataset("<this folder or org/surge>", "corpus", split="train")',
        'queries = load_dataset("<this folder or org/surge>", "queries", split="test")',
        "```",
        "",
    ]
    if isinstance(meta.get("fresh"), dict):
        lines += fresh_split_text(folder, meta["fresh"])
    lines += [
        "## Configs and splits",
        "",
        "| config | split | rows |",
        "| --- | --- | ---: |",
    ]
    derived = meta.get("queries_derived")
    for config in CONFIG_ORDER:
        for split, n in counts.get(config, {}).items():
            mark = " (derived)" if derived and config == "queries" else ""
            lines.append(f"| `{config}`{mark} | `{split}` | {n:,} |")
    if meta.get("absent_files"):
        lines += ["", f"Absent from the source folder when this was built: {', '.join(meta['absent_files'])}."]
    if derived:
        lines += ["", derived_queries_text(derived)]
    if isinstance(meta.get("quizzes"), dict):
        lines += ["", quiz_set_text(meta["quizzes"])]
    if isinstance(meta.get("surveygen"), dict):
        lines += ["", surveygen_text(meta["surveygen"])]
    lines += [
        "",
        f"**Split.** {meta.get('split_rule', 'n/a')}. The paper splits the 205 surveys 4:1 but does not "
        "publish the lists; the released baseline outputs cover exactly survey ids 0-40 (41 = 205 / 5), so "
        "those are taken as the test split unless the data itself carries a `split` field. Queries carry "
        "the split of their survey (matched by the normalised title in `prefix_titles[0]`). The corpus is "
        "one split (`train`, the `datasets` convention for unsplit data).",
        "",
        "**Corpus index.** `index/` holds a memory-mapped normalised-title -> doc_id index and a paper "
        "lookup table used by `surge evaluate` (`surge_dataset.Corpus.open(folder)`); `load_dataset` "
        "ignores it.",
        "",
    ]
    for config in CONFIG_ORDER:
        if config not in counts:
            continue
        heading = f"## Fields: `{config}`" + (" (derived from `surveys.json`)" if derived and config == "queries" else "")
        lines += [heading, "", "| column | type | official JSON key | meaning |",
                  "| --- | --- | --- | --- |"]
        lines += [f"| `{c}` | {t} | {k} | {d} |" for c, t, k, d in FIELD_DOCS[config]]
        lines.append("")
    lines += [
        "`surge data export --data <folder> --out DIR` writes the official JSON files back, losslessly.",
        "",
        "## Licence",
        "",
        LICENCE_TEXT,
        "",
        "## Citation",
        "",
        "```bibtex",
        SURGE_BIBTEX.rstrip(),
        "```",
        "",
    ]
    (folder / "README.md").write_text("\n".join(lines), encoding="utf-8")
    write_licence(folder)
