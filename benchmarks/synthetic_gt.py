"""The synthetic ground truth of ``benchmarks/evaluate_speed.py`` (and ``alce_speed.py``): deterministic
surveys and a corpus built around the 30 shared baseline outputs (``shared/data/official/baseline_outputs/
{ID,Naive,Autosurvey}/<0-9>/``), so the released evaluator and ours score the same inputs.

* surveys 0-9, titles from the ID outputs' file names (``_`` -> ``:``; the rows of ``gt_surveys.csv`` are
  not the same topics as the numbered folders, e.g. row 2 vs folder 2), a ``structure`` of 44 nodes under
  the root (40 with ~800 characters of content built from shuffled sentences of the three outputs on the
  same topic, 4 heading-only), headings sampled from the outputs' own headings;
* ``corpus.json``: about 60 % of the distinct reference titles the three outputs cite (extracted with the
  ``official`` parser) plus synthetic filler papers (``benchmarks/synthetic_corpus.py``'s generator) up to
  ``n_papers`` (20,000); abstracts of two synthetic sentences; ``all_cites`` = half of the inserted titles
  of that survey + 30 filler papers.

Imported as ``benchmarks.synthetic_gt`` (run the benchmarks from the repository root with ``python -m``).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BASELINES = ROOT.parent / "shared" / "data" / "official" / "baseline_outputs"
SYSTEMS = ("ID", "Naive", "Autosurvey")
SURVEY_IDS = tuple(range(10))
N_PAPERS = 20_000
SEED = 20250902
GT_NODES, GT_EMPTY, GT_CHARS = 44, 4, 800
INSERT_SHARE, CITE_SHARE, FILLER_CITES = 0.6, 0.5, 30
GT_DATE = "2023-06-01T00:00:00"


# --------------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------------


def passage_file(system: str, survey_id: int) -> Path:
    """The survey file of one system and id (with several files, the one ending in ``.md``)."""
    files = sorted(p for p in (BASELINES / system / str(survey_id)).iterdir() if p.is_file())
    markdown = [p for p in files if p.suffix == ".md"]
    return markdown[0] if len(files) > 1 and markdown else files[0]


def survey_title(survey_id: int) -> str:
    """The topic's title, from the ID output's file name (``Graph Learning_ A Survey`` -> ``...: A Survey``)."""
    name = passage_file("ID", survey_id).name.removesuffix(".md").rstrip("_ ")
    return re.sub(r"\s*_\s*", ": ", re.sub(r"\s+", " ", name)).strip()


def _load_synthetic_corpus() -> Any:
    """``benchmarks/synthetic_corpus.py`` (its ``Synth`` makes filler titles and abstracts)."""
    from benchmarks import synthetic_corpus

    return synthetic_corpus


_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+")


def _prose_sentences(text: str) -> list[str]:
    """Sentences of body lines (no headings, no ``[n]`` reference lines), 30+ characters each."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "[", "|", "-", "*")):
            continue
        out.extend(s for s in _SENTENCE_SPLIT.split(line) if len(s) >= 30)
    return out


def _pack(sentences: list[str], start: int, n_chars: int) -> tuple[str, int]:
    """Consecutive sentences from ``start`` (cycling) until about ``n_chars``; returns (text, next start)."""
    chosen: list[str] = []
    while sum(len(s) + 1 for s in chosen) < n_chars:
        chosen.append(sentences[start % len(sentences)])
        start += 1
    return " ".join(chosen), start


def generate_source(src: Path, n_papers: int = N_PAPERS, seed: int = SEED) -> dict[str, Any]:
    """Write the synthetic ``surveys.json`` and ``corpus.json`` into ``src``; returns a summary."""
    from surge_dataset.core.normalise import normalise_title
    from surge_dataset.survey import parse_survey, read_survey_file

    rng = random.Random(seed)
    synth = _load_synthetic_corpus().Synth(seed)
    src.mkdir(parents=True, exist_ok=True)

    topics: dict[int, dict[str, Any]] = {}
    inserted: dict[str, str] = {}  # normalised -> title as extracted, in first-seen order
    owners: dict[str, set[int]] = {}
    for sid in SURVEY_IDS:
        titles, headings, sentences = [], [], []
        for system in SYSTEMS:  # always all three: the data must not depend on --systems
            text, _ = read_survey_file(passage_file(system, sid))
            parsed = parse_survey(text, protocol="official")
            titles += [ref.title.strip() for ref in parsed.references.values()]
            headings += parsed.heading_titles()
            sentences += _prose_sentences(text)
        rng.shuffle(sentences)
        topics[sid] = {
            "headings": list(dict.fromkeys(h for h in headings if h.strip())),
            "sentences": sentences,
        }
        for title in titles:
            key = normalise_title(title)
            if not key:
                continue
            if key not in owners:
                owners[key] = set()
                if rng.random() < INSERT_SHARE:
                    inserted[key] = title
            owners[key].add(sid)

    rows = rng.sample(range(n_papers), len(inserted))
    row_title = dict(zip(rows, inserted.values(), strict=True))
    doc_of = dict(zip(inserted, rows, strict=True))  # doc_id = row
    filler_titles = iter(synth.titles(n_papers))
    # Two synthetic sentences (~260 characters): under the tiny model's mostly character-level tokenizer
    # that is ~230 tokens, about what a real 157-word abstract costs nli-deberta-v3-base.
    abstracts = [" ".join(a.split(". ")[:2]) + "." for a in synth.abstracts(n_papers)]
    corpus, fillers = [], []
    for row in range(n_papers):
        if row in row_title:
            title = row_title[row]
        else:
            title = next(filler_titles)
            while normalise_title(title) in inserted:
                title = next(filler_titles)
            fillers.append(row)
        year = 1995 + rng.randrange(30)
        corpus.append(
            {
                "Title": title,
                "Authors": synth.author_lists[row % len(synth.author_lists)],
                "Year": str(year),
                "Date": f"{year}-{1 + rng.randrange(12):02d}-{1 + rng.randrange(28):02d}T00:00:00",
                "Abstract": abstracts[row],
                "Category": "cs.LG",
                "doc_id": row,
            }
        )
    (src / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")

    surveys = []
    for sid in SURVEY_IDS:
        topic = topics[sid]
        pool = topic["headings"]
        headings = rng.sample(pool, min(GT_NODES, len(pool)))
        headings += synth.titles(GT_NODES - len(headings))
        empty = set(rng.sample(range(1, GT_NODES + 1), GT_EMPTY))
        nodes = [{"id": 0, "parent_id": None, "title": "root", "content": ""}]
        last = {1: 0, 2: 0}  # last node id at depth 1 and 2
        cursor = 0
        for j in range(1, GT_NODES + 1):
            roll = rng.random()
            depth = 1 if j == 1 or roll < 0.3 else 2 if roll < 0.8 or not last[2] else 3
            parent = 0 if depth == 1 else last[depth - 1]
            if depth < 3:
                last[depth] = j
                if depth == 1:
                    last[2] = 0
            content = ""
            if j not in empty:
                content, cursor = _pack(topic["sentences"], cursor, GT_CHARS)
            nodes.append({"id": j, "parent_id": parent, "title": headings[j - 1], "content": content})
        mine = [doc_of[k] for k, o in owners.items() if sid in o and k in doc_of]
        cites = [d for d in mine if rng.random() < CITE_SHARE] + rng.sample(fillers, FILLER_CITES)
        surveys.append(
            {
                "survey_id": sid,
                "survey_title": survey_title(sid),
                "authors": ["Synthetic Author"],
                "year": GT_DATE[:4],
                "date": GT_DATE,
                "category": "cs.LG",
                "abstract": _pack(topic["sentences"], cursor, 1000)[0],
                "structure": nodes,
                "all_cites": sorted(set(cites)),
                "Bertopic_CD": 0.5,
            }
        )
    (src / "surveys.json").write_text(json.dumps(surveys), encoding="utf-8")
    return {
        "papers": n_papers,
        "inserted": len(inserted),
        "distinct_titles": len(owners),
        "all_cites": sum(len(s["all_cites"]) for s in surveys),
    }


def link_passages(folder: Path, system: str, ids: list[int]) -> Path:
    """``folder/<system>/<id>/<file>`` symlinks to the shared outputs (only the surveys asked for)."""
    root = folder / system
    for sid in ids:
        target = passage_file(system, sid)
        (root / str(sid)).mkdir(parents=True, exist_ok=True)
        (root / str(sid) / target.name).symlink_to(target)
    return root
