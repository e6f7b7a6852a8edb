"""``surge human export``: blind annotation packets of several systems' surveys, one per topic.

For every topic (a survey id that at least two systems wrote a survey for) the systems' surveys become candidates
``A``, ``B``, ... in an order drawn afresh for each topic (``numpy.random.default_rng([seed, survey_id])``: the same
seed gives the same order whatever else is exported, another seed another); the system names are replaced in the
surveys' text too (``[system]``), so nothing in the packet says which system wrote what. The folder written::

    OUT/key.json               which letter is which system (keep it from the annotators)
    OUT/packet/README.md       the protocol, for the annotators
    OUT/packet/<id>.md, .html  one page per topic: the candidates' surveys (and, pairwise, the pairs to judge)
    OUT/packet/to-fill.csv     one row per annotator and answer to give

``ranking`` (SurGE's Table 2 protocol): each annotator ranks a topic's candidates 1 (best) .. n, every rank once:
``annotator,survey_id,candidate,rank``. ``pairwise`` (SurveyGen's Table 6 protocol): each pair of candidates (every
pair, or each system against one, ``against``: SurveyGen compares every generated survey with the human one) in a
drawn order, the first survey ``better`` / ``comparable`` / ``worse`` than the second:
``annotator,survey_id,first,second,verdict``. :mod:`.human_results` reads the filled CSV back.
"""

from __future__ import annotations

import csv
import html
import io
import itertools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from surge_dataset.core.vocabulary import HUMAN_PROTOCOLS, HUMAN_VERDICTS, RANKING, check_choice
from surge_dataset.judging import JudgingError

__all__ = ["KEY_FORMAT", "REDACTED", "RANKING_COLUMNS", "PAIRWISE_COLUMNS", "letters", "plan_packets", "write_packets"]

KEY_FORMAT = "surge-human-key"
REDACTED = "[system]"
RANKING_COLUMNS = ("annotator", "survey_id", "candidate", "rank")
PAIRWISE_COLUMNS = ("annotator", "survey_id", "first", "second", "verdict")
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def letters(count: int) -> list[str]:
    """``A``, ``B``, ... for ``count`` candidates (26 at most: more is not a page anyone ranks)."""
    if count > len(_LETTERS):
        raise JudgingError(f"{count} systems on one topic: at most {len(_LETTERS)} can be ranked side by side")
    return list(_LETTERS[:count])


def _surveys(passages: Mapping[str, str | Path]) -> dict[str, dict[int, Path]]:
    """system -> survey id -> its survey file (``DIR/<survey_id>/<file>``, the evaluator's layout)."""
    from surge_dataset.evaluation.prepare import discover_passages

    return {name: dict(discover_passages(folder)[0]) for name, folder in passages.items()}


def plan_packets(passages: Mapping[str, str | Path], titles: Mapping[int, str], *, protocol: str = RANKING,
                 seed: int = 0, survey_ids: Sequence[int] | None = None, annotators: int = 1,
                 against: str | None = None) -> dict[str, Any]:
    """The key: per topic the letters' systems, their survey files and (pairwise) the pairs in their drawn order."""
    check_choice("--protocol", protocol, HUMAN_PROTOCOLS)
    if len(passages) < 2:
        raise JudgingError("--passages: give at least two systems (NAME=DIR each) to compare")
    if annotators < 1:
        raise JudgingError("--annotators must be 1 or more")
    if against is not None and against not in passages:
        raise JudgingError(f"--against {against}: not one of the systems ({', '.join(passages)})")
    found = _surveys(passages)
    ids = list(survey_ids) if survey_ids else sorted({sid for per in found.values() for sid in per})
    topics: dict[str, Any] = {}
    for sid in ids:
        if sid not in titles:
            raise JudgingError(f"survey {sid} is not in the dataset (--data): cannot name its topic")
        systems = sorted(name for name in passages if sid in found[name])
        if len(systems) < 2 or (against is not None and against not in systems):
            continue  # one survey alone is nothing to compare
        rng = np.random.default_rng([seed, sid])
        order = [systems[i] for i in rng.permutation(len(systems))]
        names = dict(zip(letters(len(order)), order, strict=True))
        topic: dict[str, Any] = {"title": titles[sid], "candidates": names,
                                 "files": {letter: str(found[name][sid]) for letter, name in names.items()}}
        if protocol != RANKING:
            pairs = [list(p) for p in itertools.combinations(names, 2)
                     if against is None or against in (names[p[0]], names[p[1]])]
            pairs = [pairs[i] for i in rng.permutation(len(pairs))]
            topic["pairs"] = [p if rng.random() < 0.5 else p[::-1] for p in pairs]
        topics[str(sid)] = topic
    if not topics:
        raise JudgingError("no topic has surveys from two systems or more: check --passages and --surveys")
    return {"format": KEY_FORMAT, "version": 1, "protocol": protocol, "seed": seed, "annotators": annotators,
            "against": against, "systems": sorted(passages), "topics": topics}


def _redact(text: str, names: Sequence[str]) -> tuple[str, int]:
    """Every system name (whole word, any case) replaced by :data:`REDACTED`; how many were replaced."""
    pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(n)}(?![\w-])" for n in sorted(names, key=len, reverse=True)),
                         re.IGNORECASE)
    return pattern.subn(REDACTED, text)


def _demoted(text: str) -> str:
    """The survey's headings two levels down, so that they sit under the packet's ``## Survey A``."""
    return re.sub(r"^(#{1,6})(?=\s)", lambda m: "#" * min(6, len(m.group(1)) + 2), text, flags=re.M)


def _instructions(key: Mapping[str, Any], count: int) -> str:
    if key["protocol"] == RANKING:
        return (f"Rank the {count} surveys below from 1 (best) to {count} (worst), each rank once; write the ranks in "
                "your rows of `to-fill.csv` (column `rank`).")
    return ("For each pair below, is the first survey `better` than, `comparable` to, or `worse` than the second? "
            "Write the word in your rows of `to-fill.csv` (column `verdict`).")


def _page(sid: str, topic: Mapping[str, Any], key: Mapping[str, Any], texts: Mapping[str, str]) -> str:
    lines = [f"# Topic {sid}: {topic['title']}", "", _instructions(key, len(texts)), ""]
    if "pairs" in topic:
        lines += [f"{i}. Survey {a} vs Survey {b}" for i, (a, b) in enumerate(topic["pairs"], 1)] + [""]
    for letter, text in texts.items():
        lines += ["---", "", f"## Survey {letter}", "", _demoted(text).strip(), ""]
    return "\n".join(lines)


def _html(title: str, markdown: str) -> str:
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).render(markdown)  # raw HTML in a survey shown as text
    return (f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>\n'
            "<style>body{max-width:50em;margin:2em auto;font-family:sans-serif;line-height:1.5}</style></head>\n"
            f"<body>\n{body}</body></html>\n")


def _to_fill(key: Mapping[str, Any]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(RANKING_COLUMNS if key["protocol"] == RANKING else PAIRWISE_COLUMNS)
    for annotator in range(1, key["annotators"] + 1):
        for sid, topic in key["topics"].items():
            if key["protocol"] == RANKING:
                writer.writerows([annotator, sid, letter, ""] for letter in topic["candidates"])
            else:
                writer.writerows([annotator, sid, a, b, ""] for a, b in topic["pairs"])
    return buffer.getvalue()


def _readme(key: Mapping[str, Any]) -> str:
    what = ("rank every topic's surveys, 1 = best" if key["protocol"] == RANKING else
            f"judge each pair: the first survey {' / '.join(HUMAN_VERDICTS)} than the second")
    return (f"# Annotation packet ({key['protocol']})\n\nOne page per topic (`<topic>.md`, or `<topic>.html` in a "
            "browser). The surveys are anonymous: the letters are drawn afresh for every topic, and names that "
            f"would say who wrote a survey read `{REDACTED}`. Judge on the surveys' structure and content, not their "
            f"length alone. Your task: {what}.\n\nFill your rows of `to-fill.csv` (column `annotator` is your "
            "number; keep the other columns as they are) and send the file back; rows you leave out of a topic "
            "leave the topic out.\n")


def write_packets(key: dict[str, Any], folder: Path) -> dict[str, int]:
    """Write the packet under ``folder/packet`` and the key as ``folder/key.json``; system name -> redactions."""
    from surge_dataset.core.io import atomic_write_json
    from surge_dataset.survey.decode import read_survey_file

    packet = folder / "packet"
    packet.mkdir(parents=True, exist_ok=True)
    redacted = dict.fromkeys(key["systems"], 0)
    for sid, topic in key["topics"].items():
        texts = {}
        for letter, path in topic["files"].items():
            texts[letter], count = _redact(read_survey_file(path)[0], key["systems"])
            redacted[topic["candidates"][letter]] += count
        page = _page(sid, topic, key, texts)
        (packet / f"{sid}.md").write_text(page, encoding="utf-8")
        (packet / f"{sid}.html").write_text(_html(f"Topic {sid}", page), encoding="utf-8")
    (packet / "README.md").write_text(_readme(key), encoding="utf-8")
    (packet / "to-fill.csv").write_text(_to_fill(key), encoding="utf-8")
    atomic_write_json(folder / "key.json", {**key, "redacted": redacted})
    return redacted
