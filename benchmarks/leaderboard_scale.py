"""Scale of the leaderboard Space: `surge leaderboard build` for 10 systems x 205 surveys x ~200
citations in <= 60 s, data files <= 50 MB, and the app's first page interactive in <= 3 s on 2 CPU cores.

Synthetic, deterministic inputs (``--seed``), written once into ``--workdir`` and reused:

* a built dataset (``surge data build``) of ``--surveys`` GT surveys (30 headings each) and a corpus of 60
  papers per survey with ~1,000-character abstracts (the viewer's evidence);
* per system, ``--surveys`` generated surveys (30 sections, ``--citations`` citation sentences, a 60-entry
  reference list, 80 % of it resolvable), their ``results.json`` (recall, Doc/Sec/Sent-Acc, SHR, ROUGE, BLEU;
  ``surge evaluate``'s shape) and the ``--details`` JSONL ``surge evaluate`` writes for citation accuracy
  (one record per reference entry and per citation instance, scores, NLI probabilities).

Measured in one run, pinned to 2 CPU cores (``os.sched_setaffinity``; children inherit it):

* build: ``build_space`` in this process, wall clock, and the size of the Space's ``data/`` folder;
* server start: ``python app.py`` in the Space -> first HTTP 200 (mostly ``import gradio``; not in the budget);
* first page: headless chromium (Selenium with Debian's chromium-driver, when installed) opens the page; the
  time from navigation start (``performance.now()``) until the table's rows and its sort menus are in the
  page, median of ``--runs`` page loads.

    python -m benchmarks.leaderboard_scale [--systems 10] [--surveys 205] [--citations 200] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

BUILD_BUDGET_S, PAGE_BUDGET_S, DATA_BUDGET_MB = 60.0, 3.0, 50.0
SECTIONS, REFERENCES, RESOLVED_SHARE = 30, 60, 0.8
SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "pe", "da", "gri", "sto", "ple", "bra", "tun", "mor"]


def _words(rng: random.Random, n: int) -> list[str]:
    vocabulary = sorted({"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3))) for _ in range(6000)})
    return [rng.choice(vocabulary) for _ in range(n)]


def _sentence(rng: random.Random, pool: list[str], n: int) -> str:
    start = rng.randrange(len(pool) - n)
    return " ".join(pool[start:start + n]).capitalize()


def generate(root: Path, systems: int, surveys: int, citations: int, seed: int) -> None:
    """Dataset source, generated surveys, results and details under ``root`` (skipped when already there)."""
    stamp = root / "generated.json"
    spec = {"systems": systems, "surveys": surveys, "citations": citations, "seed": seed, "version": 1}
    if stamp.is_file() and json.loads(stamp.read_text()) == spec:
        return
    shutil.rmtree(root, ignore_errors=True)
    rng = random.Random(seed)
    pool = _words(rng, 400_000)
    papers, gt = [], []
    for s in range(surveys):
        cites = []
        for j in range(REFERENCES):
            doc_id = s * REFERENCES + j
            papers.append({"Title": f"{_sentence(rng, pool, 7)} {doc_id}", "Authors": ["A. Author"], "Year": "2021",
                           "Date": "2021-01-01", "Abstract": " ".join(_sentence(rng, pool, 16) + "." for _ in range(8)),
                           "Category": "cs.CL", "doc_id": doc_id})
            cites.append(doc_id)
        structure = [{"id": 0, "parent_id": -1, "title": "root", "content": ""}]
        for h in range(1, SECTIONS + 1):
            structure.append({"id": h, "parent_id": 0 if h % 3 == 1 else h - (h - 1) % 3,
                              "title": _sentence(rng, pool, 4), "content": _sentence(rng, pool, 40) + "."})
        gt.append({"survey_id": s, "survey_title": _sentence(rng, pool, 6), "authors": ["B. Author"], "year": "2023",
                   "date": "2023-06-01", "category": "cs.CL", "abstract": _sentence(rng, pool, 30),
                   "structure": structure, "all_cites": cites[: REFERENCES // 2], "Bertopic_CD": 0.5})
    source = root / "source"
    source.mkdir(parents=True)
    (source / "corpus.json").write_text(json.dumps(papers))
    (source / "surveys.json").write_text(json.dumps(gt))
    for k in range(systems):
        _system(root, f"system-{k:02d}", k, papers, surveys, citations, rng, pool)
    stamp.write_text(json.dumps(spec))


def _system(root: Path, name: str, k: int, papers: list[dict], surveys: int, citations: int,
            rng: random.Random, pool: list[str]) -> None:
    results: dict = {}
    details = []
    for s in range(surveys):
        titles = [papers[s * REFERENCES + j]["Title"] if rng.random() < RESOLVED_SHARE else _sentence(rng, pool, 6)
                  for j in range(REFERENCES)]
        lines, per = [], citations // SECTIONS
        for h in range(SECTIONS):
            heading = _sentence(rng, pool, 4)
            lines += [f"{'#' * (1 + h % 2)} {heading}", ""]
            body = []
            for _ in range(per):
                number = rng.randint(1, REFERENCES + 2)  # now and then a number absent from the list
                sentence = f"{_sentence(rng, pool, 18)} [{number}]"
                body.append(sentence + ".")
                sent = rng.choice((0.0, 0.5, 1.0))
                resolved = number <= REFERENCES and titles[number - 1] == papers[s * REFERENCES + number - 1]["Title"]
                probs = {"contradiction": 0.2, "entailment": round(rng.random(), 6), "neutral": 0.3}
                details.append({"kind": "citation", "number": number, "heading": heading, "sentence": sentence,
                                "doc_id": s * REFERENCES + number - 1 if resolved else None,
                                "sec_score": sent, "sec_why": "nli", "sec_probs": probs, "sent_score": sent,
                                "sent_why": "nli" if resolved else "title not found in the corpus (not_in_corpus)",
                                "sent_probs": probs, "survey_id": s})
            lines += [" ".join(body), ""]
        lines += ["# References", ""] + [f"[{j + 1}] {t}" for j, t in enumerate(titles)]
        folder = root / "passages" / name / str(s)
        folder.mkdir(parents=True)
        (folder / "survey.md").write_text("\n".join(lines) + "\n")
        details += [{"kind": "reference", "number": j + 1, "heading": None, "sentence": None,
                     "doc_id": s * REFERENCES + j, "doc_score": 1.0, "doc_why": "in the ground truth's all_cites",
                     "survey_id": s} for j in range(REFERENCES)]
        values = {m: round(min(1.0, max(0.0, rng.gauss(0.3 + 0.04 * k, 0.1))), 4)
                  for m in ("recall", "doc_acc", "sec_acc", "sent_acc", "shr", "rouge1", "rouge2", "rougeL")}
        results[str(s)] = {**values, "bleu": round(rng.uniform(5, 15), 2),
                           "counts": {"references": REFERENCES, "resolved": int(REFERENCES * RESOLVED_SHARE),
                                      "not_in_corpus": REFERENCES - int(REFERENCES * RESOLVED_SHARE),
                                      "citations": citations, "citations_of_missing_numbers": 2, "future_citations": 0},
                           "diagnostics": [{"code": "synthetic", "message": "a benchmark survey", "line": None}]}
    config = {"metrics": ["recall", "citation_accuracy", "shr", "rouge_bleu"], "protocol": "official",
              "aggregate": "released", "nli_model": "cross-encoder/nli-deberta-v3-base",
              "embedding_model": "BAAI/bge-large-en-v1.5", "dtype": "fp32", "embedding_dtype": "auto",
              "min_cites": 0, "exclude_empty": False, "system": name, "passages": name}
    (root / "results").mkdir(exist_ok=True)
    (root / "results" / f"{name}.json").write_text(json.dumps({"config": config, "surveys": results, "failures": []}))
    with open(root / "results" / f"{name}.details.jsonl", "w") as handle:
        handle.writelines(json.dumps(d) + "\n" for d in details)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(space: Path) -> tuple[subprocess.Popen, str, float]:
    port = _free_port()
    env = {**os.environ, "GRADIO_SERVER_PORT": str(port), "GRADIO_SERVER_NAME": "127.0.0.1"}
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "app.py"], cwd=space, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    while process.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return process, url, time.perf_counter() - started
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the Space's app.py exited before serving")


def headless_chromium(window: str = "1400,1000") -> Any:
    """Debian's chromium under Selenium (Debian's chromium-driver), headless and making no background requests; or
    why there is none (a string)."""
    chromium = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
    driver_path = shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return "selenium not installed"
    if not chromium or not driver_path:
        return "chromium/chromedriver not installed (scripts/setup.sh, as root)"
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--no-first-run", f"--window-size={window}"):
        options.add_argument(argument)
    options.binary_location = chromium
    return webdriver.Chrome(service=Service(driver_path), options=options)


def _first_page(url: str, runs: int) -> list[float] | str:
    driver = headless_chromium()
    if isinstance(driver, str):
        return driver
    ready = ("return document.querySelector(\"#leaderboard-table [data-testid='cell-0-0']\") && "
             "document.querySelector('#leaderboard-table button.cell-menu-button') ? performance.now() : null")
    times = []
    try:
        for _ in range(runs):
            driver.get("about:blank")
            driver.get(url)
            deadline = time.monotonic() + 60
            while (at := driver.execute_script(ready)) is None and time.monotonic() < deadline:
                time.sleep(0.02)
            times.append((at or float("nan")) / 1000)
    finally:
        driver.quit()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--surveys", type=int, default=205)
    parser.add_argument("--citations", type=int, default=200, help="citation instances per survey")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--runs", type=int, default=3, help="page loads measured (median reported)")
    parser.add_argument("--workdir", type=Path, help="reused between runs (default: a folder under /tmp, removed)")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > 2:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="surge-leaderboard-scale-"))
    root = workdir.resolve() / "inputs"
    from surge_dataset.data.build import build_dataset
    from surge_dataset.leaderboard import build_space

    t0 = time.perf_counter()
    generate(root, args.systems, args.surveys, args.citations, args.seed)
    if not (root / "surge").is_dir():
        build_dataset(root / "source", root / "surge")
    print(f"inputs ready in {time.perf_counter() - t0:.1f} s ({root})", flush=True)
    results = sorted((root / "results").glob("*.json"))
    space = workdir.resolve() / "space"
    cpu = time.process_time()
    summary = build_space(results, space, passages_root=root / "passages", data=root / "surge", overwrite=True)
    cpu = time.process_time() - cpu
    data_mb = sum(size for name, size in summary.files.items() if name.startswith("data/")) / 2**20
    process, url, server_s = _serve(space)
    try:
        page = _first_page(url, args.runs)
    finally:
        process.terminate()
        process.wait(30)
    page_s = statistics.median(page) if isinstance(page, list) else None
    rows = [("build (`build_space`), wall clock", f"{summary.seconds:.1f} s", f"<= {BUILD_BUDGET_S:.0f} s",
             summary.seconds <= BUILD_BUDGET_S),
            ("build, CPU time of this process (load-independent)", f"{cpu:.1f} s", "–", None),
            ("data files (data/)", f"{data_mb:.1f} MB", f"<= {DATA_BUDGET_MB:.0f} MB", data_mb <= DATA_BUDGET_MB),
            ("first page interactive (browser)", f"{page_s:.2f} s" if page_s is not None else f"not measured: {page}",
             f"<= {PAGE_BUDGET_S:.0f} s", page_s is not None and page_s <= PAGE_BUDGET_S),
            ("server start (`python app.py` -> HTTP 200)", f"{server_s:.1f} s", "–", None)]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\n{summary.systems} systems x {args.surveys} surveys, {summary.citations:,} citation records, "
          f"{cores} CPU cores (load average {load:.1f} at the end)\n")
    print("| measure | value | budget | ok |\n| --- | ---: | ---: | --- |")
    for name, value, budget, ok in rows:
        print(f"| {name} | {value} | {budget} | {'' if ok is None else 'yes' if ok else 'NO'} |")
    if isinstance(page, list):
        print(f"\npage loads: {', '.join(f'{t:.2f} s' for t in page)}")
    print("data: " + ", ".join(f"{n[5:]} {s / 2**20:.1f} MB" for n, s in summary.files.items() if n.startswith("data/")))
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if all(ok is not False for *_, ok in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
