"""Write the synthetic SurGE sample shipped in ``examples/sample/`` (surveys, corpus, queries, README).

The real SurGE files are too large to ship and are not ours to redistribute, so every test and example
runs on this small sample instead. It follows the official JSON schema exactly (protocol.md §1) and is
built to make expected metric values computable by hand:

* each survey's ``all_cites`` is exactly the union of the papers cited by its sections;
* every section with content of at least 100 characters in a survey with citations cites at least one
  paper and yields exactly one query; short (< 100 characters) and empty sections cite nothing;
* the corpus holds the cited papers, uncited papers on the same topics and off-topic papers;
* deliberate edge cases (titles that normalise alike, punctuation the released evaluator's title pattern
  breaks on, temporal leakage, a non-ASCII title, papers cited by two surveys, a survey without
  citations) are listed in ``EDGE_CASES``, printed at the end and written to the README.

Stdlib only and deterministic: one ``random.Random(SEED)`` drives every random choice, nothing iterates
over a set, and the output is byte-identical from run to run.

Usage: ``python examples/make_sample.py [--out DIR]`` (default: ``examples/sample`` beside this file).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SEED = 20250821
DEFAULT_OUT = Path(__file__).resolve().parent / "sample"
LEVEL_NAMES = {1: "section", 2: "subsection", 3: "subsubsection"}
# The released evaluator's title pattern keeps only a final run of these characters (protocol.md §4).
_TITLE_TAIL = re.compile(r"[\w\s:,.\-]+$")
_NOT_ASCII_LOWER = re.compile(r"[^a-z]+")

EDGE_CASES: dict[str, Any] = {}  # filled by main(); build_sample() returns the same dict


def normalise_title(title: str) -> str:
    """Keep only the letters a-z of the lower-cased title (the released evaluator's matching rule)."""
    return _NOT_ASCII_LOWER.sub("", title.lower())


def iso(day: dt.date) -> str:
    """The timestamp format of the real files (``2021-03-04T00:00:00``)."""
    return f"{day.isoformat()}T00:00:00"


# ---------------------------------------------------------------------------------------------------
# Topics: vocabulary for abstracts of every paper and for the titles of generated (uncited) papers.
# ---------------------------------------------------------------------------------------------------

# The hand-written tables (and the README's text) live in examples/sample_spec/; this file turns them into
# the sample.
if str(Path(__file__).resolve().parent) not in sys.path:  # also when loaded by path (the tests)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_spec.conventions import LONG_CONTENT, survey_uuid  # noqa: E402
from sample_spec.more_surveys import SURVEYS_41_43  # noqa: E402
from sample_spec.other_topics import OTHER_TOPICS  # noqa: E402
from sample_spec.papers import FIXED_DATES, HAND_PAPERS, MENTIONED_ONLY  # noqa: E402
from sample_spec.phrases import (  # noqa: E402
    CLOSINGS,
    CONTRIBUTION,
    DETAILS,
    FIRST_NAMES,
    LAST_NAMES,
    NUMBER_WORDS,
    RESULTS_METHOD,
    RESULTS_STUDY,
    TITLE_PATTERNS,
)
from sample_spec.readme import render_readme  # noqa: E402
from sample_spec.records import SurveySpec, Topic  # noqa: E402
from sample_spec.surveys import SURVEYS_0_2  # noqa: E402
from sample_spec.topics import SURVEYED_TOPICS  # noqa: E402

TOPICS: dict[str, Topic] = {t.name: t for t in (*SURVEYED_TOPICS, *OTHER_TOPICS)}
SURVEYS: tuple[SurveySpec, ...] = (*SURVEYS_0_2, *SURVEYS_41_43)


# ---------------------------------------------------------------------------------------------------
# Building the sample
# ---------------------------------------------------------------------------------------------------


@dataclass
class Paper:
    """A corpus entry before doc ids are assigned."""

    key: str
    topic: str
    title: str
    gist: str
    kind: str
    date: dt.date | None = None
    authors: list[str] = field(default_factory=list)
    abstract: str = ""


@dataclass
class Sample:
    """The three official files (as JSON-ready lists), the README text and the edge cases."""

    surveys: list[dict[str, Any]]
    corpus: list[dict[str, Any]]
    queries: list[dict[str, Any]]
    readme: str
    edge_cases: dict[str, Any]


def lower_phrase(text: str) -> str:
    """Lower-case a title-cased phrase for use inside a sentence, keeping acronyms such as ``IoT``/``5G``."""
    words = []
    for word in text.split(" "):
        keep = sum(ch.isupper() for ch in word) > 1 or any(ch.isdigit() for ch in word)
        words.append(word if keep else word.lower())
    return " ".join(words)


def random_day(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    """A day drawn uniformly from ``[start, end]``."""
    return start + dt.timedelta(days=rng.randint(0, (end - start).days))


def make_authors(rng: random.Random, low: int = 2, high: int = 6) -> list[str]:
    """Distinct plausible author names."""
    wanted = rng.randint(low, high)
    names: list[str] = []
    while len(names) < wanted:
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        if name not in names:
            names.append(name)
    return names


def make_abstract(rng: random.Random, topic: Topic, gist: str, kind: str) -> str:
    """A 3-5 sentence abstract of 300-900 characters that names the paper's gist in topic vocabulary."""
    context = rng.choice(topic.contexts)
    contribution = rng.choice(CONTRIBUTION).format(g=gist)
    contribution = contribution[0].upper() + contribution[1:]
    results = rng.choice(RESULTS_STUDY if kind == "study" else RESULTS_METHOD).format(
        n=rng.choice(NUMBER_WORDS), metric=rng.choice(topic.metrics), x=rng.randint(2, 15)
    )
    detail = rng.choice(DETAILS)
    closing = rng.choice(CLOSINGS)
    sentences = [context, contribution]
    if rng.random() < 0.6:
        sentences.append(detail)
    sentences.append(results)
    if rng.random() < 0.5:
        sentences.append(closing)
    text = " ".join(sentences)
    if len(text) < 300:
        text = " ".join([context, contribution, detail, results, closing])
    assert 300 <= len(text) <= 900, (len(text), text)
    return text


def generated_papers(rng: random.Random, topic: Topic, taken: set[str]) -> list[Paper]:
    """``topic.n_generated`` uncited papers with distinct method/task pairs and distinct normalised titles."""
    pairs = [(m, t) for m in topic.methods for t in topic.tasks]
    rng.shuffle(pairs)
    papers: list[Paper] = []
    for method, task in pairs:
        if len(papers) == topic.n_generated:
            break
        title_fmt, gist_fmt = rng.choice(TITLE_PATTERNS)
        title = title_fmt.format(M=method, T=task)
        if normalise_title(title) in taken:
            continue
        taken.add(normalise_title(title))
        gist = gist_fmt.format(m=lower_phrase(method), t=lower_phrase(task))
        papers.append(Paper(f"{topic.name}_gen{len(papers):02d}", topic.name, title, gist, "method"))
    assert len(papers) == topic.n_generated, topic.name
    return papers


#: The real surveys.json has string section ids while the root's parent_id is an integer: so does the sample.
ROOT_PARENT_ID = -1


def node_depths(nodes: list[dict[str, Any]]) -> dict[str, int]:
    """Depth of every node below the root (root = 0), following ``parent_id``."""
    by_id = {n["id"]: n for n in nodes}
    depths: dict[str, int] = {}
    for node in nodes:
        depth, cur = 0, node
        while cur["title"] != "root":
            depth += 1
            cur = by_id[cur["parent_id"]]
        depths[node["id"]] = depth
    return depths


def official_title_tail(title: str) -> str:
    """What the released evaluator's reference pattern keeps of ``[1] <title>`` (protocol.md §4)."""
    match = _TITLE_TAIL.search(title)
    return match.group(0) if match else ""


def build_sample() -> Sample:
    """Build the whole sample in memory; every random choice comes from one ``Random(SEED)``."""
    rng = random.Random(SEED)

    # Which surveys cite which hand-written paper (order of first citation).
    citing: dict[str, list[int]] = {}
    for spec in SURVEYS:
        for node in spec.nodes:
            for key in node[3]:
                if spec.survey_id not in citing.setdefault(key, []):
                    citing[key].append(spec.survey_id)
    survey_date = {s.survey_id: s.date for s in SURVEYS}

    papers = [Paper(key, topic, title, gist, kind) for key, topic, title, gist, kind in HAND_PAPERS]
    known = {p.key for p in papers}
    missing = sorted(k for k in citing if k not in known)
    assert not missing, f"sections cite unknown papers: {missing}"
    taken = {normalise_title(p.title) for p in papers}
    for topic in TOPICS.values():
        papers.extend(generated_papers(rng, topic, taken))

    for paper in papers:
        if paper.key in FIXED_DATES:
            paper.date = FIXED_DATES[paper.key]
        elif paper.key in citing or paper.key in MENTIONED_ONLY:
            sids = citing.get(paper.key) or [MENTIONED_ONLY[paper.key]]
            first = min(survey_date[s] for s in sids)
            paper.date = random_day(rng, first - dt.timedelta(days=4 * 365), first - dt.timedelta(days=45))
        else:
            paper.date = random_day(rng, dt.date(2016, 1, 1), dt.date(2023, 6, 30))
        paper.authors = make_authors(rng)
        paper.abstract = make_abstract(rng, TOPICS[paper.topic], paper.gist, paper.kind)

    rng.shuffle(papers)
    # The two titles that normalise alike: the cited one first, so the released evaluator (last wins)
    # resolves the shared normal form to the uncited duplicate.
    pos = {p.key: i for i, p in enumerate(papers)}
    if pos["g_review"] > pos["g_dup"]:
        i, j = pos["g_review"], pos["g_dup"]
        papers[i], papers[j] = papers[j], papers[i]
    doc_id = {p.key: i for i, p in enumerate(papers)}

    corpus = [
        {
            "Title": p.title,
            "Authors": p.authors,
            "Year": str(p.date.year),
            "Date": iso(p.date),
            "Abstract": p.abstract,
            "Category": TOPICS[p.topic].category,
            "doc_id": doc_id[p.key],
        }
        for p in papers
    ]

    surveys: list[dict[str, Any]] = []
    queries: list[dict[str, Any]] = []
    for spec in SURVEYS:
        structure = [{"id": "0", "parent_id": ROOT_PARENT_ID, "title": "root", "content": ""}]
        structure += [{"id": str(n[0]), "parent_id": str(n[1]), "title": n[2], "content": n[5]} for n in spec.nodes]
        all_keys = sorted({k for n in spec.nodes for k in n[3]})
        all_cites = [] if spec.empty_all_cites else sorted(doc_id[k] for k in all_keys)
        surveys.append(
            {
                "survey_id": spec.survey_id,
                "survey_title": spec.title,
                "authors": make_authors(rng, 3, 5),
                "year": str(spec.date.year),
                "date": iso(spec.date),
                "category": spec.category,
                "abstract": spec.abstract,
                "structure": structure,
                "all_cites": all_cites,
                "Bertopic_CD": spec.bertopic_cd,
            }
        )
        if spec.empty_all_cites:
            continue
        by_id = {n["id"]: n for n in structure}
        depths = node_depths(structure)
        for node_id, _parent, title, keys, question, content in spec.nodes:
            if len(content) < LONG_CONTENT:
                continue
            chain, cur = [], by_id[str(node_id)]
            while cur["title"] != "root":
                chain.append([LEVEL_NAMES[depths[cur["id"]]], cur["title"]])
                cur = by_id[cur["parent_id"]]
            cites = sorted({doc_id[k] for k in keys})
            assert cites, f"survey {spec.survey_id} section {title!r} has content but cites nothing"
            origin = len(cites) + rng.choice((0, 0, 1, 2))
            queries.append(
                {
                    "original_id": survey_uuid(spec.survey_id),
                    "query_id": len(queries),
                    "date": iso(spec.date),
                    "year": str(spec.date.year),
                    "category": spec.category,
                    "content": content,
                    "prefix_titles": [["title", spec.title], *reversed(chain)],
                    "prefix_titles_query": question,
                    "cites": cites,
                    "cite_extract_rate": round(len(cites) / origin, 4),
                    "origin_cites_number": origin,
                }
            )

    edge_cases = find_edge_cases(surveys, corpus, doc_id, citing)
    check(surveys, corpus, queries, edge_cases)
    return Sample(surveys, corpus, queries, render_readme(surveys, corpus, queries, edge_cases), edge_cases)


def find_edge_cases(
    surveys: list[dict[str, Any]],
    corpus: list[dict[str, Any]],
    doc_id: dict[str, int],
    citing: dict[str, list[int]],
) -> dict[str, Any]:
    """Collect the deliberate edge cases with their doc ids (all keys are strings: JSON-printable)."""
    date = {s["survey_id"]: s["date"] for s in surveys}
    cited_by = {
        d: [s["survey_id"] for s in surveys if d in s["all_cites"]] for d in sorted(doc_id[k] for k in citing)
    }
    cited_by = {d: sids for d, sids in cited_by.items() if sids}

    def ids_with(char: str) -> list[int]:
        return [d for d in cited_by if char in corpus[d]["Title"]]

    leakage = [
        {"survey_id": sid, "doc_id": d, "paper_date": corpus[d]["Date"], "survey_date": date[sid]}
        for d, sids in cited_by.items()
        for sid in sids
        if corpus[d]["Date"] > date[sid]
    ]
    return {
        "duplicate_normalised_titles": {
            "normalised": normalise_title(corpus[doc_id["g_review"]]["Title"]),
            "cited_earlier": doc_id["g_review"],
            "uncited_later_resolved_by_official": doc_id["g_dup"],
            "cited_by": cited_by[doc_id["g_review"]],
        },
        "cited_titles_with_punctuation": {
            "?": ids_with("?"),
            "'": ids_with("'"),
            "()": [d for d in ids_with("(") if d in ids_with(")")],
            ":": ids_with(":"),
            "/": ids_with("/"),
        },
        "temporal_leakage": leakage,
        "non_ascii_title": [d for d in cited_by if not corpus[d]["Title"].isascii()],
        "cited_by_two_surveys": {str(d): sids for d, sids in cited_by.items() if len(sids) > 1},
        "empty_all_cites_surveys": [s["survey_id"] for s in surveys if not s["all_cites"]],
    }


def check(
    surveys: list[dict[str, Any]],
    corpus: list[dict[str, Any]],
    queries: list[dict[str, Any]],
    edge_cases: dict[str, Any],
) -> None:
    """Fail loudly if the sample breaks one of the properties later tests rely on."""
    norms: dict[str, list[int]] = {}
    for paper in corpus:
        norms.setdefault(normalise_title(paper["Title"]), []).append(paper["doc_id"])
    dups = [ids for ids in norms.values() if len(ids) > 1]
    dup = edge_cases["duplicate_normalised_titles"]
    assert dups == [[dup["cited_earlier"], dup["uncited_later_resolved_by_official"]]], dups
    cited = sorted({d for s in surveys for d in s["all_cites"]})
    for d in cited:
        tail = official_title_tail(corpus[d]["Title"])
        if tail != corpus[d]["Title"]:  # the released pattern truncates it: the tail must resolve to nothing
            assert normalise_title(tail) not in norms, (corpus[d]["Title"], tail)
    for survey in surveys:
        titles = [n["title"] for n in survey["structure"]]
        assert titles.count("root") == 1
        assert not any("root" in t or "Abstract:" in t for t in titles if t != "root"), titles
        assert max(node_depths(survey["structure"]).values()) == 3, survey["survey_id"]
        long_nodes = [n for n in survey["structure"] if len(n["content"]) >= LONG_CONTENT]
        n_queries = sum(q["original_id"] == survey_uuid(survey["survey_id"]) for q in queries)
        assert n_queries == (len(long_nodes) if survey["all_cites"] else 0)
        for node in survey["structure"]:
            assert "[" not in node["content"], "ground-truth content carries no bracket citations"
    for paper in corpus:
        assert 300 <= len(paper["Abstract"]) <= 900
    cases = edge_cases
    assert all(cases["cited_titles_with_punctuation"].values()), cases
    assert len(cases["temporal_leakage"]) >= 2 and cases["non_ascii_title"] and cases["cited_by_two_surveys"]
    assert len(corpus) >= 320 and len(queries) >= 50


def write_json(path: Path, obj: Any) -> None:
    """The on-disk format of the sample: UTF-8, one-space indent, trailing newline."""
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        json.dump(obj, handle, ensure_ascii=False, indent=1)
        handle.write("\n")


def main(argv: list[str] | None = None) -> int:
    """Write the four sample files into ``--out`` and print the edge cases."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: %(default)s)")
    args = parser.parse_args(argv)
    sample = build_sample()
    args.out.mkdir(parents=True, exist_ok=True)
    write_json(args.out / "surveys.json", sample.surveys)
    write_json(args.out / "corpus.json", sample.corpus)
    write_json(args.out / "queries.json", sample.queries)
    (args.out / "README.md").write_text(sample.readme, encoding="utf-8", newline="\n")
    EDGE_CASES.clear()
    EDGE_CASES.update(sample.edge_cases)
    print(
        f"wrote {len(sample.surveys)} surveys, {len(sample.corpus)} papers, {len(sample.queries)} queries"
        f" to {args.out}"
    )
    print("EDGE_CASES = {")
    for key, value in EDGE_CASES.items():
        print(f"    {key!r}: {json.dumps(value, ensure_ascii=False)},")
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
