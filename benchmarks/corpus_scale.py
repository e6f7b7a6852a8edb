"""Corpus at full scale: ``surge data build``, our title index, and the released evaluator's way.

Generates a synthetic ``corpus.json`` (official schema, ``--n`` papers, default the real 1,086,992)
and a ``surveys.json`` of 205 surveys, then measures, each step in its own child process so that
peak RSS is per step:

* build     ``surge data build --source SRC --out OUT`` (the CLI): wall time, peak RSS;
* ours      ``Corpus.open(OUT)`` + resolve 10,000 reference titles in batches of 100 (half present,
            taken from the corpus with case and punctuation perturbed; half absent): time to open,
            time to the first resolved title, total, peak RSS;
* released  the released evaluator's approach, re-implemented here for measurement only:
            ``json.load`` the whole corpus.json into Python dicts, build a dict normalised title ->
            doc_id over every paper (letters a-z of the lower-cased title; a later duplicate
            overwrites), then look the same 10,000 titles up in it.

Times to the first resolved title are measured inside the child from its first statement, so they
include importing what the step needs (numpy + pyarrow + surge_dataset for ours, json for released).
Wall times are those of the whole child process, measured by the parent. Peak RSS is the child's
maximum resident set size (``/usr/bin/time -v`` when present, else ``getrusage(RUSAGE_CHILDREN)`` of
a fresh wrapper process). Both lookups run on a warm page cache (the files were just written).

    .venv/bin/python benchmarks/corpus_scale.py --n 1086992 [--workdir DIR] [--keep] [--report FILE]

Exit status 1 when a correctness check fails (a present title not resolved to its doc_id, an absent one
resolved, or ours and the released way disagree); missed targets are reported as FAIL but exit 0.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

N_REAL = 1_086_992
N_SURVEYS = 205
N_REFS = 10_000
BATCH = 100  # titles per resolve() call: about one survey's reference list
SEED = 20250821
GEN_VERSION = 1
TIME_BIN = Path("/usr/bin/time")

TARGETS = {
    "build_s": 240.0,
    "build_mb": 8000.0,
    "ours_s": 5.0,
    "ours_mb": 1500.0,
    "first_ratio": 10.0,
    "rss_ratio": 4.0,
}


# --------------------------------------------------------------------------------------------------
# Synthetic data
# --------------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------------
# Steps (each runs in its own child process)
# --------------------------------------------------------------------------------------------------


def step_ours(workdir: Path) -> dict[str, Any]:
    """Open our memory-mapped index and resolve the test titles in batches of ``BATCH``."""
    t0 = time.perf_counter()
    from surge_dataset.data.corpus import Corpus

    t_import = time.perf_counter()
    titles = [r["title"] for r in json.loads((workdir / "src" / "refs.json").read_text(encoding="utf-8"))]
    t_refs = time.perf_counter()
    corpus = Corpus.open(workdir / "built")
    t_open = time.perf_counter()
    resolved = corpus.resolve(titles[:1])
    t_first = time.perf_counter()
    for start in range(1, len(titles), BATCH):
        resolved.extend(corpus.resolve(titles[start : start + BATCH]))
    t_end = time.perf_counter()
    refs_s = t_refs - t_import  # reading our own test file is not part of either approach
    return {
        "import_s": t_import - t0,
        "open_s": t_open - t_refs,
        "first_s": t_first - t0 - refs_s,
        "total_s": t_end - t0 - refs_s,
        "resolved": resolved,
    }


_NON_LETTERS = re.compile(r"[^a-z]")


def _released_norm(title: str) -> str:
    return _NON_LETTERS.sub("", title.lower())


def step_released(workdir: Path) -> dict[str, Any]:
    """The released evaluator's approach: whole corpus into Python, a dict of normalised titles."""
    t0 = time.perf_counter()
    titles = [r["title"] for r in json.loads((workdir / "src" / "refs.json").read_text(encoding="utf-8"))]
    t_refs = time.perf_counter()
    with open(workdir / "src" / "corpus.json", encoding="utf-8") as handle:
        corpus = json.load(handle)
    t_load = time.perf_counter()
    table = {}
    for paper in corpus:
        table[_released_norm(paper["Title"])] = paper["doc_id"]  # a later duplicate overwrites
    t_dict = time.perf_counter()
    resolved = [table.get(_released_norm(titles[0]))]
    t_first = time.perf_counter()
    resolved.extend(table.get(_released_norm(t)) for t in titles[1:])
    t_end = time.perf_counter()
    refs_s = t_refs - t0
    return {
        "load_s": t_load - t_refs,
        "dict_s": t_dict - t_load,
        "first_s": t_first - t0 - refs_s,
        "total_s": t_end - t0 - refs_s,
        "resolved": resolved,
        "n_papers": len(corpus),
    }


STEPS = {"ours": step_ours, "released": step_released}


# --------------------------------------------------------------------------------------------------
# Measuring a child process
# --------------------------------------------------------------------------------------------------


def _parse_time_v(text: str) -> float:
    match = re.search(r"Maximum resident set size \(kbytes\):\s*(\d+)", text)
    if not match:
        raise RuntimeError(f"could not read the peak RSS from /usr/bin/time -v:\n{text[-2000:]}")
    return int(match.group(1)) * 1024 / 1e6


def measure(cmd: list[str], workdir: Path, name: str) -> tuple[float, float, str]:
    """Run ``cmd`` as a child; return (wall seconds, peak RSS in MB, its stdout+stderr)."""
    log = workdir / f"time-{name}.txt"
    if TIME_BIN.exists():
        full = [str(TIME_BIN), "-v", "-o", str(log), *cmd]
    else:  # a fresh wrapper process: its RUSAGE_CHILDREN covers exactly this one command
        full = [sys.executable, __file__, "--_wrap", str(log), "--", *cmd]
    t0 = time.perf_counter()
    proc = subprocess.run(full, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    wall = time.perf_counter() - t0
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise RuntimeError(f"step {name} failed ({proc.returncode}): {' '.join(cmd)}\n{output[-4000:]}")
    text = log.read_text()
    rss = _parse_time_v(text) if TIME_BIN.exists() else int(text) * 1024 / 1e6
    return wall, rss, output


def _wrap(log: str, cmd: list[str]) -> int:
    code = subprocess.call(cmd)
    Path(log).write_text(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))  # kB on Linux
    return code


def _surge_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("surge")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "surge_dataset.cli"]


# --------------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------------


def _mark(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report(n: int, res: dict[str, dict[str, Any]], checks: list[str]) -> str:
    """The results as a Markdown table, the ratios and the targets."""
    b, o, r = res["build"], res["ours"], res["released"]
    first_ratio = r["first_s"] / o["first_s"]
    rss_ratio = r["rss_mb"] / o["rss_mb"]
    t = TARGETS
    lines = [
        f"### Corpus at scale: {n:,} papers, {N_REFS:,} reference titles ({N_REFS // 2:,} present, "
        f"{N_REFS - N_REFS // 2:,} absent)",
        "",
        "| step | wall time (s) | time to first resolved title (s) | peak RSS (MB) | detail |",
        "|---|---:|---:|---:|---|",
        f"| build (`surge data build`) | {b['wall_s']:.1f} | – | {b['rss_mb']:,.0f} | "
        f"corpus.json {b['json_gb']:.2f} GB -> dataset folder {b['out_gb']:.2f} GB |",
        f"| ours open+resolve | {o['wall_s']:.2f} | {o['first_s']:.3f} | {o['rss_mb']:,.0f} | "
        f"imports {o['import_s']:.2f} s, open {o['open_s']:.3f} s, resolve all {o['total_s']:.2f} s "
        f"(in-process, batches of {BATCH}) |",
        f"| released way | {r['wall_s']:.1f} | {r['first_s']:.1f} | {r['rss_mb']:,.0f} | "
        f"json.load {r['load_s']:.1f} s, title dict {r['dict_s']:.1f} s, resolve all {r['total_s']:.1f} s |",
        "",
        f"Ratios (released / ours): time to first resolved title **{first_ratio:.1f}×**, "
        f"peak RSS **{rss_ratio:.1f}×**.",
        "",
        "| target | measured | result |",
        "|---|---:|---|",
        f"| build ≤ 4 min | {b['wall_s']:.1f} s | {_mark(b['wall_s'] <= t['build_s'])} |",
        f"| build ≤ 8 GB peak RSS | {b['rss_mb'] / 1000:.2f} GB | {_mark(b['rss_mb'] <= t['build_mb'])} |",
        f"| open + resolve ≤ 5 s | {o['wall_s']:.2f} s | {_mark(o['wall_s'] <= t['ours_s'])} |",
        f"| open + resolve ≤ 1.5 GB peak RSS | {o['rss_mb'] / 1000:.2f} GB | {_mark(o['rss_mb'] <= t['ours_mb'])} |",
        f"| ≥ 10× faster to first resolved title | {first_ratio:.1f}× | {_mark(first_ratio >= t['first_ratio'])} |",
        f"| ≥ 4× less memory than the released way | {rss_ratio:.1f}× | {_mark(rss_ratio >= t['rss_ratio'])} |",
        "",
        "Wall time: the whole child process (interpreter start included). Time to first resolved title: from the "
        "child's first statement (imports included). MB = 10^6 bytes. "
        + ("Peak RSS from `/usr/bin/time -v`." if TIME_BIN.exists() else "Peak RSS from getrusage(RUSAGE_CHILDREN)."),
        "",
        *[f"- {c}" for c in checks],
    ]
    return "\n".join(lines) + "\n"


def _clean(workdir: Path) -> None:
    """Remove what this script wrote into ``workdir``, then ``workdir`` itself if it is left empty."""
    for name in ("src", "built"):
        shutil.rmtree(workdir / name, ignore_errors=True)
    for pattern in ("result-*.json", "time-*.txt"):
        for path in workdir.glob(pattern):
            path.unlink()
    for path in workdir.glob(".built.*"):  # a build interrupted before its final rename
        shutil.rmtree(path, ignore_errors=True)
    try:
        workdir.rmdir()
    except OSError:
        pass


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_wrap":  # internal: measurement wrapper without /usr/bin/time
        return _wrap(argv[1], argv[3:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=N_REAL, help="corpus papers (default: the real 1,086,992)")
    parser.add_argument("--workdir", type=Path, help="work folder (default: a temporary folder under /tmp)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (generated data is reused)")
    parser.add_argument("--report", type=Path, help="also write the table as Markdown to this file")
    parser.add_argument("--_step", choices=sorted(STEPS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args._step:  # internal: one measured step, result as JSON in the work folder
        result = STEPS[args._step](args.workdir)
        (args.workdir / f"result-{args._step}.json").write_text(json.dumps(result))
        return 0

    if args.n < N_REFS:
        parser.error(f"--n must be at least {N_REFS}")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="surge-corpus-scale-", dir="/tmp"))
    workdir.mkdir(parents=True, exist_ok=True)
    workdir = workdir.resolve()
    src, built = workdir / "src", workdir / "built"
    try:
        meta_file = src / "gen_meta.json"
        wanted = {"n": args.n, "seed": SEED, "version": GEN_VERSION}
        if meta_file.exists() and json.loads(meta_file.read_text()) == wanted and (src / "corpus.json").exists():
            print(f"reusing the generated data in {src}", flush=True)
        else:
            print(f"generating {args.n:,} papers + {N_SURVEYS} surveys in {src} ...", flush=True)
            t0 = time.perf_counter()
            generate(src, args.n)
            print(f"  generated in {time.perf_counter() - t0:.1f} s "
                  f"(corpus.json {(src / 'corpus.json').stat().st_size / 1e9:.2f} GB)", flush=True)
        if built.exists():
            shutil.rmtree(built)
        res: dict[str, dict[str, Any]] = {}

        print("build: surge data build ...", flush=True)
        wall, rss, _ = measure([*_surge_cmd(), "data", "build", "--source", str(src), "--out", str(built)],
                               workdir, "build")
        res["build"] = {"wall_s": wall, "rss_mb": rss, "json_gb": (src / "corpus.json").stat().st_size / 1e9,
                        "out_gb": _dir_bytes(built) / 1e9}
        print(f"  {wall:.1f} s, {rss:,.0f} MB", flush=True)

        for step in ("ours", "released"):
            print(f"{step}: resolving {N_REFS:,} titles ...", flush=True)
            wall, rss, _ = measure([sys.executable, str(Path(__file__).resolve()), "--_step", step,
                                    "--workdir", str(workdir)], workdir, step)
            res[step] = json.loads((workdir / f"result-{step}.json").read_text())
            res[step].update(wall_s=wall, rss_mb=rss)
            print(f"  {wall:.2f} s, {rss:,.0f} MB", flush=True)

        refs = json.loads((src / "refs.json").read_text(encoding="utf-8"))
        expect = [r["expect"] for r in refs]  # doc_id = corpus row in the synthetic corpus
        present = [i for i, e in enumerate(expect) if e is not None]
        absent = [i for i, e in enumerate(expect) if e is None]
        checks = []
        ok_all = True
        for step in ("ours", "released"):
            got = res[step].pop("resolved")
            hits = sum(got[i] == expect[i] for i in present)
            misses = sum(got[i] is None for i in absent)
            ok = hits == len(present) and misses == len(absent)
            ok_all &= ok
            checks.append(f"{step}: {hits:,}/{len(present):,} present titles resolved to the right doc_id, "
                          f"{misses:,}/{len(absent):,} absent titles unresolved — {_mark(ok)}")
            res[step]["_got"] = got
        same = res["ours"].pop("_got") == res["released"].pop("_got")
        ok_all &= same
        checks.append(f"ours and the released way give identical results for all {N_REFS:,} titles — {_mark(same)}")
        table = report(args.n, res, checks)
        print()
        print(table)
        if args.report:
            args.report.parent.mkdir(parents=True, exist_ok=True)
            args.report.write_text(table, encoding="utf-8")
        return 0 if ok_all else 1
    finally:
        if not args.keep:
            _clean(workdir)


if __name__ == "__main__":
    sys.exit(main())
