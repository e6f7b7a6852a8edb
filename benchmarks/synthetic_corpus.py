"""The synthetic corpus of the scale benchmarks, in the official schema: ``corpus.json`` (``n`` papers:
pronounceable titles, ~1,000-character abstracts, authors, dates, categories), ``surveys.json`` (205
surveys) and ``refs.json`` (10,000 reference titles to resolve: half taken from the corpus with case and
punctuation perturbed, half absent). Deterministic for a seed.

Used by ``corpus_scale.py`` and ``retrieval_scale.py`` (through ``corpus_scale``) and, for filler papers,
by ``synthetic_gt.py``. Loaded by file path: ``benchmarks/`` is not a package.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

N_SURVEYS = 205
N_REFS = 10_000
SEED = 20250821
GEN_VERSION = 1


# Words are built from these letters only; an absent title carries a word with 'q', 'x' or 'z', so its
# normalised form can never equal a corpus title's.
_ONSETS = ["b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "br", "st", "tr", "pl"]
_VOWELS = ["a", "e", "i", "o", "u", "ea", "io"]
_CODAS = ["", "", "n", "r", "s", "l", "t", "m"]
_FOREIGN = ["Quixotic", "Zephyrq", "Xquanta", "Quazimodal", "Zyxoid", "Quorzex"]
_CATEGORIES = ["cs.CL", "cs.LG", "cs.CV", "cs.AI", "cs.IR", "stat.ML", "cs.RO", "cs.SE", "cs.DB", "cs.CR"]
_FIRST = ["Ana", "Bo", "Chen", "Dmitri", "Émilie", "Fatima", "Günter", "Hiro", "Ines", "José", "Kai", "Li",
          "Maria", "Noor", "Olu", "Priya", "Rafael", "Sofia", "Tomás", "Wei", "Yuki", "Zoë"]
_LAST = ["Abe", "Brown", "Chen", "Dubois", "Esposito", "Fischer", "García", "Huang", "Ivanov", "Jensen",
         "Kim", "Lee", "Müller", "Nakamura", "Okafor", "Patel", "Rossi", "Smith", "Tanaka", "Wang", "Zhang"]


def _vocabulary(rng: Any, size: int = 8000) -> list[str]:
    """``size`` distinct pseudo-words of 1-3 syllables (deterministic for a given generator)."""
    words: dict[str, None] = {}
    while len(words) < size:
        n_syl = int(rng.choice([1, 2, 3], p=[0.3, 0.45, 0.25]))
        word = "".join(
            _ONSETS[rng.integers(len(_ONSETS))] + _VOWELS[rng.integers(len(_VOWELS))] + _CODAS[rng.integers(len(_CODAS))]
            for _ in range(n_syl)
        )
        words.setdefault(word, None)
    return list(words)


class Synth:
    """Deterministic generator of titles, abstracts and author lists, vectorised with numpy."""

    def __init__(self, seed: int = SEED):
        import numpy as np

        self.rng = np.random.default_rng(seed)
        self.words = _vocabulary(self.rng)
        self.capital = [w.capitalize() for w in self.words]
        # a pool of sentences; an abstract is 8 of them (~1,000 characters)
        n_sent = 200_000
        lengths = self.rng.integers(11, 21, size=n_sent)
        picks = self.rng.integers(0, len(self.words), size=int(lengths.sum()))
        sentences, pos = [], 0
        words = self.words
        for length in lengths.tolist():
            chunk = picks[pos : pos + length].tolist()
            pos += length
            sentences.append(self.capital[chunk[0]] + " " + " ".join(words[i] for i in chunk[1:]) + ".")
        self.sentences = sentences
        authors = [f"{f} {last}" for f in _FIRST for last in _LAST]
        self.author_lists = [
            [authors[i] for i in self.rng.choice(len(authors), size=k, replace=False).tolist()]
            for k in self.rng.integers(1, 7, size=4096).tolist()
        ]

    def titles(self, n: int) -> list[str]:
        """``n`` titles of 7-13 capitalised words; about one in three has a colon after word 3."""
        idx = self.rng.integers(0, len(self.words), size=(n, 13)).tolist()
        lengths = self.rng.integers(7, 14, size=n).tolist()
        colon = (self.rng.random(n) < 0.33).tolist()
        cap = self.capital
        out = []
        for row, length, c in zip(idx, lengths, colon, strict=True):
            parts = [cap[i] for i in row[:length]]
            if c:
                parts[2] += ":"
            out.append(" ".join(parts))
        return out

    def abstracts(self, n: int) -> list[str]:
        idx = self.rng.integers(0, len(self.sentences), size=(n, 8)).tolist()
        s = self.sentences
        return [" ".join([s[i] for i in row]) for row in idx]


def _perturb(title: str, k: int) -> str:
    """Same letters a-z after lower-casing, different surface form (case, punctuation, spacing)."""
    kind = k % 8
    if kind == 0:
        return title.lower()
    if kind == 1:
        return title.upper()
    if kind == 2:
        return title.swapcase().replace(":", " -")
    if kind == 3:
        return title.replace(" ", "-") + "."
    if kind == 4:
        return f'"{title}"?'
    if kind == 5:
        return title.replace(":", "").replace(" ", "  ")
    if kind == 6:
        return title.replace(" ", ", ", 1) + " (2021)"
    return "  " + title.lower().replace(" ", "_") + " "


def _absent(title: str, k: int) -> str:
    """A near miss: a corpus title with one word replaced by (or extended with) a word not in the vocabulary."""
    words = title.split(" ")
    foreign = _FOREIGN[k % len(_FOREIGN)]
    if k % 3 == 0:
        words[k % len(words)] = foreign
    elif k % 3 == 1:
        words.insert(k % len(words), foreign.lower())
    else:
        words.append(foreign.upper())
    return " ".join(words)


def generate(src: Path, n: int, seed: int = SEED, chunk: int = 20_000) -> dict[str, Any]:
    """Write ``corpus.json``, ``surveys.json`` and ``refs.json`` (the 10,000 test titles) into ``src``."""
    import numpy as np
    import orjson

    src.mkdir(parents=True, exist_ok=True)
    synth = Synth(seed)
    rng = synth.rng
    n_present = N_REFS // 2
    present_rows = np.sort(rng.choice(n, size=min(n_present, n), replace=False))
    absent_rows = np.sort(rng.choice(n, size=min(N_REFS - n_present, n), replace=False))
    wanted = {int(r): None for r in np.concatenate([present_rows, absent_rows]).tolist()}
    years = rng.integers(1990, 2025, size=n)
    months = rng.integers(1, 13, size=n)
    days = rng.integers(1, 29, size=n)
    cats = rng.integers(0, len(_CATEGORIES), size=n)
    auth = rng.integers(0, len(synth.author_lists), size=n)
    with open(src / "corpus.json", "wb") as handle:
        handle.write(b"[\n")
        for start in range(0, n, chunk):
            stop = min(n, start + chunk)
            titles = synth.titles(stop - start)
            abstracts = synth.abstracts(stop - start)
            records = []
            for j, i in enumerate(range(start, stop)):
                y = int(years[i])
                records.append({
                    "Title": titles[j],
                    "Authors": synth.author_lists[auth[i]],
                    "Year": str(y),
                    "Date": f"{y}-{months[i]:02d}-{days[i]:02d}T00:00:00",
                    "Abstract": abstracts[j],
                    "Category": _CATEGORIES[cats[i]],
                    "doc_id": i,
                })
                if i in wanted:
                    wanted[i] = titles[j]
            body = orjson.dumps(records)[1:-1].replace(b'},{"Title"', b'},\n{"Title"')
            if start:
                handle.write(b",\n")
            handle.write(body)
        handle.write(b"\n]\n")

    surveys = []
    survey_titles = synth.titles(N_SURVEYS)
    for sid in range(N_SURVEYS):
        n_nodes = int(rng.integers(10, 60))
        nodes = [{"id": 0, "parent_id": None, "title": "root", "content": ""}]
        depth = {0: 0}
        heads = synth.titles(n_nodes)
        texts = synth.abstracts(n_nodes)
        for j in range(1, n_nodes):
            parent = int(rng.integers(0, j))
            while depth[parent] >= 3:
                parent = nodes[parent]["parent_id"]
            depth[j] = depth[parent] + 1
            nodes.append({"id": j, "parent_id": parent, "title": " ".join(heads[j].split()[:4]),
                          "content": texts[j] if rng.random() < 0.7 else ""})
        cites = np.unique(rng.integers(0, n, size=int(rng.integers(20, 120)))).tolist()
        surveys.append({
            "survey_id": sid, "survey_title": survey_titles[sid], "authors": synth.author_lists[sid],
            "year": "2023", "date": "2023-06-01T00:00:00", "category": _CATEGORIES[sid % len(_CATEGORIES)],
            "abstract": synth.abstracts(1)[0], "structure": nodes, "all_cites": cites,
            "Bertopic_CD": round(float(rng.random()), 4),
        })
    (src / "surveys.json").write_bytes(orjson.dumps(surveys))

    refs: list[dict[str, Any]] = []
    for k, row in enumerate(present_rows.tolist()):
        refs.append({"title": _perturb(wanted[row], k), "expect": row})
    for k, row in enumerate(absent_rows.tolist()):
        refs.append({"title": _absent(wanted[row], k), "expect": None})
    order = rng.permutation(len(refs)).tolist()  # interleave present and absent
    refs = [refs[i] for i in order]
    (src / "refs.json").write_bytes(orjson.dumps(refs))
    meta = {"n": n, "seed": seed, "version": GEN_VERSION}
    (src / "gen_meta.json").write_text(json.dumps(meta))
    return meta


def is_generated(src: Path, n: int, seed: int = SEED) -> bool:
    """Whether ``src`` already holds this generator's data of ``n`` papers (benchmarks reuse it with --keep)."""
    meta = src / "gen_meta.json"
    wanted = {"n": n, "seed": seed, "version": GEN_VERSION}
    return meta.exists() and json.loads(meta.read_text()) == wanted and (src / "corpus.json").exists()
