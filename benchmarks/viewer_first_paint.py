"""First paint of the survey viewer for the largest survey a submission may carry (budget: 3 s).

One system, one survey: a generated survey of ``MAX_SURVEY_FILE_BYTES`` (4 MiB of citation sentences and a
60-entry reference list; the Space keeps its first ``MAX_SURVEY_CHARS``) and a ``--details`` file of
``MAX_DETAILS_BYTES`` for that one survey (one record per citation instance, in text order, then further records
up to the size: a submission may carry that many), with a dataset whose papers have ~1,000-character abstracts
(the evidence each coloured citation carries). ``build_space`` writes the Space; its ``python app.py`` is served;
headless chromium (Selenium with Debian's chromium-driver) opens the page, clicks the Survey viewer tab and waits
until the survey's coloured citations are in the page and two animation frames have passed (painted). Printed:
the build's time, the rows the Space keeps of the survey, the viewer page's HTML size and the first paint, median
of ``--runs``.

Before the viewer paged its citations (and the builder capped the rows it keeps per survey and the viewer the
text it renders at once), a 250 MB details file made a 33 MB viewer page that took chromium 58 s to paint; these
inputs (548,846 records) crashed chromium's tab. Now: 0.86 MB, about 1 s on 2 shared cores.

    python -m benchmarks.viewer_first_paint [--details-mb N] [--runs 3] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.leaderboard_scale import _sentence, _serve, _words, headless_chromium

try:
    import resource
except ImportError:  # not on Windows
    resource = None  # type: ignore[assignment]

PAINT_BUDGET_S = 3.0
REFERENCES, SECTIONS = 60, 30


def generate(root: Path, survey_bytes: int, details_bytes: int, seed: int) -> None:
    """A dataset source (1 GT survey, REFERENCES papers), a survey of ``survey_bytes`` and details of ``details_bytes``
    under ``root`` (skipped when already there)."""
    stamp = root / "generated.json"
    spec = {"survey_bytes": survey_bytes, "details_bytes": details_bytes, "seed": seed, "version": 1}
    if stamp.is_file() and json.loads(stamp.read_text()) == spec:
        return
    shutil.rmtree(root, ignore_errors=True)
    rng = random.Random(seed)
    pool = _words(rng, 200_000)
    papers = [{"Title": f"{_sentence(rng, pool, 7)} {j}", "Authors": ["A. Author"], "Year": "2021",
               "Date": "2021-01-01", "Abstract": " ".join(_sentence(rng, pool, 16) + "." for _ in range(8)),
               "Category": "cs.CL", "doc_id": j} for j in range(REFERENCES)]
    structure = [{"id": 0, "parent_id": -1, "title": "root", "content": ""}]
    structure += [{"id": h, "parent_id": 0, "title": _sentence(rng, pool, 4), "content": _sentence(rng, pool, 40)}
                  for h in range(1, SECTIONS + 1)]
    gt = [{"survey_id": 0, "survey_title": _sentence(rng, pool, 6), "authors": ["B. Author"], "year": "2023",
           "date": "2023-06-01", "category": "cs.CL", "abstract": _sentence(rng, pool, 30), "structure": structure,
           "all_cites": list(range(REFERENCES // 2)), "Bertopic_CD": 0.5}]
    (root / "source").mkdir(parents=True)
    (root / "source" / "corpus.json").write_text(json.dumps(papers))
    (root / "source" / "surveys.json").write_text(json.dumps(gt))

    references = "\n# References\n\n" + "\n".join(f"[{j + 1}] {p['Title']}" for j, p in enumerate(papers)) + "\n"
    lines, size, records = [], len(references), []
    probs = {"contradiction": 0.2, "entailment": 0.5, "neutral": 0.3}

    def record(number: int, heading: str, sentence: str) -> dict:
        score = rng.choice((0.0, 0.5, 1.0))
        return {"kind": "citation", "number": number, "heading": heading, "sentence": sentence, "doc_id": number - 1,
                "sec_score": score, "sec_why": "nli", "sec_probs": probs, "sent_score": score, "sent_why": "nli",
                "sent_probs": probs, "survey_id": 0}

    heading = ""
    while size < survey_bytes:
        if len(lines) % 200 == 0:
            heading = _sentence(rng, pool, 4)
            lines += [f"## {heading}", ""]
            size += len(heading) + 4
        number = rng.randint(1, REFERENCES)
        sentence = f"{_sentence(rng, pool, 18)} [{number}]."
        lines.append(sentence + "\n")
        size += len(sentence) + 2
        records.append(record(number, heading, sentence))
    folder = root / "passages" / "big" / "0"
    folder.mkdir(parents=True)
    (folder / "survey.md").write_text("# Introduction\n\n" + "\n".join(lines) + references)
    (root / "results").mkdir()
    with open(root / "results" / "big.details.jsonl", "w") as handle:
        written = 0
        for r in records:
            line = json.dumps(r) + "\n"
            handle.write(line)
            written += len(line)
        while written < details_bytes:  # more records than the text has citations: the submission may hold them
            r = record(rng.randint(1, REFERENCES), heading, f"{_sentence(rng, pool, 18)} [1].")
            line = json.dumps(r) + "\n"
            if written + len(line) > details_bytes:
                break
            handle.write(line)
            written += len(line)
    counts = {"references": REFERENCES, "resolved": REFERENCES, "not_in_corpus": 0, "citations": len(records),
              "citations_of_missing_numbers": 0, "future_citations": 0}
    config = {"metrics": ["recall", "citation_accuracy"], "protocol": "official", "aggregate": "released",
              "nli_model": "cross-encoder/nli-deberta-v3-base", "dtype": "fp32", "min_cites": 0,
              "exclude_empty": False, "system": "big", "passages": "big"}
    survey = {"recall": 0.5, "doc_acc": 0.5, "sec_acc": 0.5, "sent_acc": 0.5, "counts": counts, "diagnostics": []}
    (root / "results" / "big.json").write_text(json.dumps({"config": config, "surveys": {"0": survey},
                                                           "failures": []}))
    stamp.write_text(json.dumps(spec))


def first_paint(url: str, runs: int) -> tuple[list[float], int, str] | str:
    """Seconds from the click on the Survey viewer tab until its coloured citations are painted, per run; the
    page's HTML size then; the viewer's header."""
    try:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        return "selenium not installed"
    driver = headless_chromium()
    if isinstance(driver, str):
        return driver
    driver.set_script_timeout(600)
    times, size, header = [], 0, ""
    try:
        for _ in range(runs):
            driver.get("about:blank")
            driver.get(url)
            WebDriverWait(driver, 120).until(
                lambda d: d.find_elements(By.CSS_SELECTOR, "#leaderboard-table [data-testid='cell-0-0']"))
            tab = next(t for t in driver.find_elements(By.CSS_SELECTOR, "button[role=tab]")
                       if t.text.strip() == "Survey viewer")
            started = time.perf_counter()
            tab.click()
            WebDriverWait(driver, 600, poll_frequency=0.02).until(
                lambda d: d.find_elements(By.CSS_SELECTOR, "#viewer-survey-body .sg-cite"))
            driver.execute_async_script("const done = arguments[0]; "
                                        "requestAnimationFrame(() => requestAnimationFrame(done))")
            times.append(time.perf_counter() - started)
            size = driver.execute_script("return document.documentElement.outerHTML.length")
            header = driver.find_element(By.ID, "viewer-header").text
    finally:
        driver.quit()
    return times, size, header


def main(argv: list[str] | None = None) -> int:
    from surge_dataset.leaderboard.build import MAX_SURVEY_CHARS
    from surge_dataset.leaderboard.submission_rules import MAX_DETAILS_BYTES, MAX_SURVEY_FILE_BYTES

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--details-mb", type=float, default=MAX_DETAILS_BYTES / 2**20,
                        help="the details file's size in MiB (default: MAX_DETAILS_BYTES, the most a submission may carry)")
    parser.add_argument("--survey-mb", type=float, default=MAX_SURVEY_FILE_BYTES / 2**20,
                        help="the survey's size in MiB (default: MAX_SURVEY_FILE_BYTES)")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--runs", type=int, default=3, help="page loads measured (median reported)")
    parser.add_argument("--workdir", type=Path, help="reused between runs (default: a folder under /tmp, removed)")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="surge-viewer-paint-"))
    root = workdir.resolve() / "inputs"
    from surge_dataset.data.build import build_dataset
    from surge_dataset.leaderboard import build_space

    t0 = time.perf_counter()
    generate(root, int(args.survey_mb * 2**20), int(args.details_mb * 2**20), args.seed)
    if not (root / "surge").is_dir():
        build_dataset(root / "source", root / "surge")
    details = root / "results" / "big.details.jsonl"
    print(f"inputs ready in {time.perf_counter() - t0:.1f} s: survey {args.survey_mb:.1f} MiB (the Space keeps "
          f"{MAX_SURVEY_CHARS:,} characters), details {details.stat().st_size / 2**20:.1f} MiB", flush=True)
    space = workdir.resolve() / "space"
    summary = build_space([root / "results" / "big.json"], space, passages_root=root / "passages",
                          data=root / "surge", overwrite=True, resamples=200)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10 if resource else float("nan")  # KiB on Linux
    print(f"build: {summary.seconds:.1f} s, {summary.citations:,} citation records, data/citations.parquet "
          f"{summary.files['data/citations.parquet'] / 2**20:.1f} MiB; peak RSS {peak:,.0f} MiB", flush=True)
    process, url, _ = _serve(space)
    try:
        measured = first_paint(url, args.runs)
    finally:
        process.terminate()
        process.wait(30)
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    if isinstance(measured, str):
        print(f"first paint not measured: {measured}")
        return 0
    times, size, header = measured
    paint = statistics.median(times)
    shown = next((line for line in header.splitlines() if "Showing citations" in line), "all citations shown")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\n| measure | value | budget | ok |\n| --- | ---: | ---: | --- |\n"
          f"| survey viewer, first paint of the survey body | {paint:.2f} s | <= {PAINT_BUDGET_S:.0f} s | "
          f"{'yes' if paint <= PAINT_BUDGET_S else 'NO'} |\n| viewer page HTML | {size / 1e6:.2f} MB | – | |\n")
    print(f"runs: {', '.join(f'{t:.2f} s' for t in times)}; load average {load:.1f}\n{shown}")
    return 0 if paint <= PAINT_BUDGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
