"""Time and peak RSS of reading hostile generated surveys: one degenerate line per shape, and a 10 MB mixed survey.

Each shape is a line a looping generator writes (``$x `` a million times, a run of spaces inside a reference entry,
``*a `` in an entry ...), put where it hurt: a prose paragraph that also holds a citation (the ``paper`` reading's
math/code/link scan) or a reference entry (the title patterns). Each case runs in its own child process
(``parse_survey`` + ``whole_reference_titles``, as ``surge evaluate`` reads a survey); peak RSS is that child's.

    python -m benchmarks.hostile_surveys [--repeat N]

Each case runs at N/4 and N repeats; the ratio of the two times shows whether reading grows linearly.

Measured (2 cores; ``--repeat 20000``/80,000 before, 1,000,000 after; a case over 30 s was stopped):

| shape (where) | before, 80,000 repeats | after, 1,000,000 repeats (4 MB) |
|---|---:|---:|
| ``\\[x `` in prose (``paper``) | 21.6 s | 0.7 s |
| ``$x$ `` in prose (``paper``) | 5.2 s | 1.5 s |
| ``](x `` in prose (``paper``) | > 30 s | 1.0 s |
| ``*a `` in a reference entry (``paper``) | > 30 s (16 s at 20,000) | 1.2 s |
| ``\u201ca `` in a reference entry (both) | > 30 s (6.4 s at 20,000) | 0.6 s |
| spaces inside ``[1] a ... b`` (``paper``) | > 30 s (4.0 s at 20,000) | 0.2 s |
| heading of 80,000 ``*`` (``paper``) | 0.5 s (quadratic) | 0.4 s at 1,000,000 |
| 10 MB mixed survey, ``official`` / ``paper`` | | 2.8 s, 262 MB / 6.4 s, 265 MB |
| 31.5 MB of ``[1] Title`` lines, ``official`` / ``paper`` | 1,281 MB / 1,284 MB | 751 MB / 859 MB |
"""

from __future__ import annotations

import argparse
import subprocess
import sys

SHAPES = {
    "prose: \\[x": ("# A\nSee [2]. ", "\\[x "), "prose: $x$": ("# A\nSee [2]. ", "$x$ "),
    "prose: ](x": ("# A\nSee [2]. ", "](x "), "prose: `` `": ("# A\nSee [2]. ", "`` ` "),
    "entry: *a": ("# References\n[1] ", "*a "), "entry: \u201ca": ("# References\n[1] ", "\u201ca "),
    "entry: spaces": ("# References\n[1] a", " "), "heading: *": ("# ", "*"),
}

_CHILD = """
import resource, sys, time
from surge_dataset.survey import parse_survey
from surge_dataset.survey.whole_titles import whole_reference_titles
head, unit, repeat, protocol = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = head + unit * repeat + "b\\n"
start = time.perf_counter()
whole_reference_titles(text, parse_survey(text, protocol=protocol))
print(f"{time.perf_counter() - start:.2f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}")
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1_000_000, help="how many times each line repeats its token")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a case is stopped")
    args = parser.parse_args(argv)
    quarter = max(1, args.repeat // 4)
    print(f"| shape | protocol | seconds at {quarter:,} | seconds at {args.repeat:,} | ratio (linear: about 4, "
          "quadratic: about 16) | peak RSS (MB) |\n|---|---|---:|---:|---:|---:|")
    for name, (head, unit) in SHAPES.items():
        for protocol in ("official", "paper"):
            small, _ = _measure(head, unit, quarter, protocol, args.timeout)
            large, rss = _measure(head, unit, args.repeat, protocol, args.timeout)
            ratio = f"{large / small:.1f}" if small and large and small > 0.05 else "-"
            print(f"| {name} | {protocol} | {_shown(small, args.timeout)} | {_shown(large, args.timeout)} | {ratio} "
                  f"| {rss} |")
    return 0


def _measure(head: str, unit: str, repeat: int, protocol: str, timeout: float) -> tuple[float | None, str]:
    """(seconds, peak RSS in MB) of one case in a child process; (None, '-') past the timeout."""
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, head, unit, str(repeat), protocol],
                              capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None, "-"
    seconds, rss = done.stdout.split()
    return float(seconds), rss


def _shown(seconds: float | None, timeout: float) -> str:
    return f"> {timeout:g}" if seconds is None else f"{seconds:.2f}"


if __name__ == "__main__":
    raise SystemExit(main())
