"""``surge human import``: the annotators' filled CSV, checked, named back and made into ``surge meta-eval``'s ranks.

The filled CSV is read strictly: the header must name the protocol's columns (others are ignored); every row must
name a topic and candidates of ``key.json``; a row given twice, a rank that is not a whole number, a verdict other
than better / comparable / worse, or an annotator's ranks of a topic that are not 1..n each once is refused, in one
line naming the file and the row. Rows whose answer (``rank`` or ``verdict``) is blank are left out (the topic was
not done); an annotator who answered some of a topic must answer all of it.

The ranks written (``survey_id,system,rank``, 1 = best, what :func:`.meta_eval.read_human_rankings` reads):

* ``ranking``: each system's mean rank over the annotators who ranked the topic;
* ``pairwise``: per topic, wins summed over every annotator and pair (``better``: 1 to the first survey, ``worse``:
  1 to the second, ``comparable``: 0.5 to each), systems ranked by wins, most first, equal wins sharing the mean
  of the ranks they span (1, 2.5, 2.5, 4). The de-anonymised verdicts are kept beside (``annotator,survey_id,first,
  second,verdict`` with system names).

Agreement between annotators (:mod:`.interrater`): ranking, Kendall's W per topic ranked by two annotators or more,
and its mean; pairwise, over the pairs every annotator judged, Cohen's kappa for two annotators, Fleiss' kappa for
more.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from surge_dataset.core.errors import InputFileError
from surge_dataset.core.io import reading_input
from surge_dataset.core.vocabulary import HUMAN_VERDICTS, RANKING, HumanProtocol
from surge_dataset.judging.human_packets import KEY_FORMAT, PAIRWISE_COLUMNS, RANKING_COLUMNS

__all__ = ["Answers", "HumanKey", "agreement", "human_ranks", "named_verdicts", "read_answers", "read_key", "write_csv"]


class _Topic(BaseModel):
    model_config = ConfigDict(extra="ignore")
    title: str
    candidates: dict[str, str]
    pairs: list[tuple[str, str]] | None = None


class HumanKey(BaseModel):
    """``key.json`` as :mod:`.human_packets` writes it (what is read back of it)."""

    model_config = ConfigDict(extra="ignore")
    format: str
    protocol: HumanProtocol
    topics: dict[int, _Topic]


def read_key(path: str | Path) -> HumanKey:
    """``key.json``, or one line saying why it is not a key ``surge human export`` wrote."""
    with reading_input(path):
        text = Path(path).read_text(encoding="utf-8")
    try:
        key = HumanKey.model_validate_json(text)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputFileError(f"{path}: not a key written by `surge human export` ({where}: {first['msg']})") from None
    if key.format != KEY_FORMAT:
        raise InputFileError(f"{path}: not a key written by `surge human export` (format {key.format!r})")
    return key


@dataclass
class Answers:
    """The filled CSV: per (annotator, survey id) the answers, by candidate (ranking) or by pair (pairwise)."""

    protocol: str
    ranks: dict[tuple[str, int], dict[str, int]] = field(default_factory=dict)
    verdicts: dict[tuple[str, int], dict[tuple[str, str], str]] = field(default_factory=dict)
    blank: int = 0

    def annotators(self) -> list[str]:
        groups = self.ranks if self.protocol == RANKING else self.verdicts
        return sorted({annotator for annotator, _ in groups})


def _fail(path: str | Path, line: int, message: str) -> InputFileError:
    return InputFileError(f"{path}:{line}: {message}")


def read_answers(path: str | Path, key: HumanKey) -> Answers:
    """The filled CSV, checked against the key (module docstring); an :class:`InputFileError` names the row."""
    columns = RANKING_COLUMNS if key.protocol == RANKING else PAIRWISE_COLUMNS
    answers = Answers(key.protocol)
    first_line: dict[tuple[str, int], int] = {}
    seen: dict[tuple[Any, ...], int] = {}
    with reading_input(path), open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        header = [f.strip() for f in reader.fieldnames or []]
        if not set(columns) <= set(header):
            raise _fail(path, 1, f"the header must name the columns {','.join(columns)} (a {key.protocol} packet); "
                        f"got {','.join(header) or 'nothing'}")
        for row in reader:
            line = reader.line_num
            row = {(k or "").strip(): (v or "").strip() for k, v in row.items() if k is not None}
            answer = row[columns[-1]]
            if not answer:
                answers.blank += 1
                continue
            annotator = row["annotator"]
            if not annotator:
                raise _fail(path, line, "the annotator is empty")
            try:
                sid = int(row["survey_id"])
            except ValueError:
                raise _fail(path, line, f"survey_id {row['survey_id']!r} is not a number") from None
            if sid not in key.topics:
                raise _fail(path, line, f"survey {sid} is not a topic of the packet ({', '.join(map(str, key.topics))})")
            known = key.topics[sid].candidates
            named = [row[c] for c in columns[2:-1]]
            for letter in named:
                if letter not in known:
                    raise _fail(path, line, f"candidate {letter!r} is not one of survey {sid}'s ({', '.join(known)})")
            group = (annotator, sid)
            first_line.setdefault(group, line)
            if key.protocol == RANKING:
                item: Any = named[0]
                try:
                    value: Any = int(answer)
                except ValueError:
                    raise _fail(path, line, f"rank {answer!r} is not a whole number") from None
                store: dict[Any, Any] = answers.ranks.setdefault(group, {})
            else:
                item = (named[0], named[1])
                exported = key.topics[sid].pairs or []
                if list(item) not in [list(p) for p in exported]:
                    raise _fail(path, line, f"{item[0]},{item[1]} is not a pair of survey {sid} as exported "
                                f"({'; '.join(f'{a},{b}' for a, b in exported)})")
                value = answer.lower()
                if value not in HUMAN_VERDICTS:
                    raise _fail(path, line, f"verdict {answer!r} is not one of {', '.join(HUMAN_VERDICTS)}")
                store = answers.verdicts.setdefault(group, {})
            if (group, item) in seen:
                raise _fail(path, line, f"annotator {annotator} answered survey {sid} {'/'.join(named)} already "
                            f"on line {seen[group, item]}")
            seen[group, item] = line
            store[item] = value
    _check_complete(path, key, answers, first_line)
    return answers


def _check_complete(path: str | Path, key: HumanKey, answers: Answers, first_line: Mapping[tuple[str, int], int]
                    ) -> None:
    """Every annotator answered all of each topic it started; ranks are 1..n each once."""
    for (annotator, sid), ranks in answers.ranks.items():
        letters = list(key.topics[sid].candidates)
        where = first_line[annotator, sid]
        missing = [c for c in letters if c not in ranks]
        if missing:
            raise _fail(path, where, f"annotator {annotator} ranked survey {sid} without {', '.join(missing)}")
        if sorted(ranks.values()) != list(range(1, len(letters) + 1)):
            given = ", ".join(str(ranks[c]) for c in letters)
            raise _fail(path, where, f"annotator {annotator}'s ranks of survey {sid} ({given}) are not 1 to "
                        f"{len(letters)} each once")
    for (annotator, sid), verdicts in answers.verdicts.items():
        missing = [f"{a},{b}" for a, b in key.topics[sid].pairs or [] if (a, b) not in verdicts]
        if missing:
            raise _fail(path, first_line[annotator, sid], f"annotator {annotator} judged survey {sid} without the "
                        f"pairs {'; '.join(missing)}")
    if not answers.ranks and not answers.verdicts:
        raise InputFileError(f"{path}: no answer filled in (every {'rank' if key.protocol == RANKING else 'verdict'} "
                             "is blank)")


def human_ranks(key: HumanKey, answers: Answers) -> dict[int, dict[str, float]]:
    """survey id -> system -> rank (1 = best), by the rules of the module docstring."""
    from scipy.stats import rankdata

    out: dict[int, dict[str, float]] = {}
    if key.protocol == RANKING:
        collected: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        for (_, sid), ranks in answers.ranks.items():
            for letter, rank in ranks.items():
                collected[sid][key.topics[sid].candidates[letter]].append(rank)
        return {sid: {system: float(np.mean(r)) for system, r in sorted(per.items())}
                for sid, per in sorted(collected.items())}
    wins: dict[int, dict[str, float]] = {}
    for (_, sid), verdicts in answers.verdicts.items():
        names = key.topics[sid].candidates
        per = wins.setdefault(sid, dict.fromkeys(sorted(names.values()), 0.0))
        for (a, b), verdict in verdicts.items():
            share = {"better": 1.0, "comparable": 0.5, "worse": 0.0}[verdict]
            per[names[a]] += share
            per[names[b]] += 1.0 - share
    for sid, per in sorted(wins.items()):
        systems = sorted(per)
        ranks = rankdata([-per[s] for s in systems], method="average")
        out[sid] = {s: float(r) for s, r in zip(systems, ranks, strict=True)}
    return out


def named_verdicts(key: HumanKey, answers: Answers) -> list[tuple[str, int, str, str, str]]:
    """The pairwise verdicts with system names: (annotator, survey id, first, second, verdict)."""
    return [(annotator, sid, key.topics[sid].candidates[a], key.topics[sid].candidates[b], verdict)
            for (annotator, sid), verdicts in sorted(answers.verdicts.items()) for (a, b), verdict in verdicts.items()]


def agreement(key: HumanKey, answers: Answers) -> dict[str, Any]:
    """Ranking: {"kendalls_w": {survey id: W}, "mean_w", "annotators"}; pairwise: {"kappa", "statistic", "items",
    "annotators"} (``statistic`` names Cohen's or Fleiss'; None where fewer than two annotators)."""
    from surge_dataset.judging.interrater import cohen_kappa, fleiss_kappa, kendalls_w, label_table

    annotators = answers.annotators()
    if key.protocol == RANKING:
        per_topic: dict[int, float | None] = {}
        for sid, topic in sorted(key.topics.items()):
            rows = [[answers.ranks[a, sid][c] for c in topic.candidates] for a in annotators if (a, sid) in answers.ranks]
            if len(rows) >= 2:
                per_topic[sid] = kendalls_w(rows)
        defined = [w for w in per_topic.values() if w is not None]
        return {"annotators": len(annotators), "kendalls_w": per_topic,
                "mean_w": float(np.mean(defined)) if defined else None}
    items = [(sid, pair) for sid, topic in sorted(key.topics.items()) for pair in topic.pairs or []
             if all(pair in answers.verdicts.get((a, sid), {}) for a in annotators)]
    labels = [[answers.verdicts[a, sid][pair] for a in annotators] for sid, pair in items]
    out: dict[str, Any] = {"annotators": len(annotators), "items": len(items), "statistic": None, "kappa": None}
    if len(annotators) == 2 and items:
        out["statistic"] = "cohen"
        out["kappa"] = cohen_kappa([x[0] for x in labels], [x[1] for x in labels], HUMAN_VERDICTS)
    elif len(annotators) > 2 and items:
        out["statistic"] = "fleiss"
        out["kappa"] = fleiss_kappa(label_table(labels, HUMAN_VERDICTS))
    return out


def write_csv(path: str | Path, header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
    """A CSV (system names quoted where they need it), written atomically."""
    import io

    from surge_dataset.core.io import atomic_write_text

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    atomic_write_text(path, buffer.getvalue())
