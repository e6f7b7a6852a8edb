"""Make a deliberately worse "system" from rendered surveys, for the sample leaderboard (docs/leaderboard.md).

Why: the sample ships no generated surveys, so a leaderboard needs two systems whose difference is known.
For every ``IN/<id>/survey.md`` this writes ``OUT/<id>/survey.md`` with every reference of an even number
removed (its citations stay in the text: they become citations of missing numbers) and every third
section dropped (heading and text), so recall, SHR and ROUGE/BLEU all go down. Deterministic.

    python examples/degrade_surveys.py IN OUT
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REFERENCE = re.compile(r"^\[(\d+)\]\s")
HEADING = re.compile(r"^#{1,6}\s")


def degrade(text: str) -> str:
    """Drop even-numbered reference entries and every third section before the reference list."""
    lines, kept, in_references, section, dropping = text.splitlines(), [], False, 0, False
    for line in lines:
        if HEADING.match(line):
            in_references = line.lstrip("#").strip().lower() == "references"
            section += 1
            dropping = not in_references and section > 1 and section % 3 == 0
        if dropping:
            continue
        match = REFERENCE.match(line) if in_references else None
        if match and int(match.group(1)) % 2 == 0:
            continue
        kept.append(line)
    return "\n".join(kept) + "\n"


def main(source: Path, target: Path) -> None:
    for path in sorted(source.glob("*/*.md")):
        out = target / path.parent.name / path.name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(degrade(path.read_text(encoding="utf-8")), encoding="utf-8")
        print(out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(Path(sys.argv[1]), Path(sys.argv[2]))
