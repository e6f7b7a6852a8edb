"""The judge's side of a report: ``surge arena`` ratings (``arena.md``) and the surveys that address their judge
(``injection.md``, and a warning per system), so a leaderboard row that games its judge is visible.

An arena output is recognised among the report's input files by its ``kind`` (``surge-arena``); results files
are searched for the ``judge_injection`` diagnostics the judged metrics write
(:mod:`surge_dataset.scoring.injection`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from surge_dataset.core.io import file_sha256, read_json
from surge_dataset.evaluation.results import SystemResults
from surge_dataset.report.constants import format_value

__all__ = ["arena_markdown", "arena_warnings", "injection_flags", "injection_markdown", "injection_warnings",
           "load_arenas", "split_arena_inputs"]

INJECTION_CODE = "judge_injection"  # surge_dataset.scoring.injection.INJECTION_CODE (kept import-light here)


def split_arena_inputs(paths: Sequence[str | Path]) -> tuple[list[Path], list[Path]]:
    """(results files, arena outputs) by content, so ``surge report *.json arena.json`` works."""
    from surge_dataset.judging.arena import is_arena_output

    results, arenas = [], []
    for path in map(Path, paths):
        (arenas if is_arena_output(read_json(path)) else results).append(path)
    return results, arenas


def load_arenas(paths: Sequence[Path]) -> list[dict[str, Any]]:
    return [{"path": str(p), "sha256": file_sha256(p), **read_json(p)} for p in paths]


def _r(value: Any) -> str:
    return format_value("rating", value)


def arena_warnings(arenas: Sequence[dict[str, Any]]) -> list[str]:
    """One warning per arena whose judge's position consistency is below the threshold (see arena.md)."""
    from surge_dataset.judging.arena import consistency_warning

    return [f"{Path(a['path']).name}: {flag}" for a in arenas if (flag := consistency_warning(a))]


def arena_markdown(arenas: Sequence[dict[str, Any]]) -> str:
    from surge_dataset.judging.arena import MIN_POSITION_CONSISTENCY, consistency_warning, shared_ranks

    lines = ["# Arena (Bradley-Terry)", "",
             "Pairs of two systems' surveys on one topic, judged in both orders (an inconsistent pair is a tie); "
             "Bradley-Terry log-strengths (mean 0) with 95% percentile bootstrap intervals over surveys, the Elo "
             "scale (1000 + 400·θ/ln 10), wins/ties/losses and the judge's position consistency per system. "
             "Systems with equal ratings share a rank. A judge whose position consistency (pairs answered alike in "
             f"both orders) is below {MIN_POSITION_CONSISTENCY:.2f} is flagged: its ranking follows the order the "
             "surveys were shown in more than the surveys.", ""]
    for arena in arenas:
        config = arena.get("config", {})
        lines += [f"## {Path(arena['path']).name}: judge {config.get('judge')}, {len(arena.get('pairs', []))} pairs, "
                  f"seed {config.get('seed')}, prompts {config.get('prompts_version')}", "",
                  "| Rank | System | Rating [95% CI] | Elo | W/T/L | Missing | Consistency |",
                  "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
        ranks = shared_ranks({name: s.get("rating") for name, s in arena["systems"].items()})
        for name in arena.get("ranking", []):
            s, rank = arena["systems"][name], ranks.get(name)
            interval = "" if s.get("ci_low") is None else f" [{_r(s['ci_low'])}, {_r(s['ci_high'])}]"
            elo = "–" if s.get("elo") is None else f"{s['elo']:.0f}"
            lines.append(f"| {'–' if rank is None else rank} | {name} | {_r(s.get('rating'))}{interval} | {elo} | "
                         f"{s['wins']}/{s['ties']}/{s['losses']} | {s['missing']} | {_r(s.get('consistency'))} |")
        flag = consistency_warning(arena)
        if flag:
            lines += ["", f"**Warning**: {flag}."]
        flagged = arena.get("injection") or []
        if flagged:
            lines += ["", "Surveys that address the judge: " + ", ".join(
                f"{f['system']}/{f['survey_id']}" for f in flagged) + "."]
        lines.append("")
    return "\n".join(lines)


def injection_flags(systems: Sequence[SystemResults]) -> dict[str, dict[str, list[str]]]:
    """system -> survey id -> the messages of its ``judge_injection`` diagnostics (flagged surveys only)."""
    flags: dict[str, dict[str, list[str]]] = {}
    for system in systems:
        for sid in system.survey_ids:
            found = [d.get("message", "") for d in system.surveys[sid].get("diagnostics") or []
                     if isinstance(d, dict) and d.get("code") == INJECTION_CODE]
            if found:
                flags.setdefault(system.name, {})[sid] = found
    return flags


def injection_warnings(flags: dict[str, dict[str, list[str]]]) -> list[str]:
    return [f"{name}: {len(per)} survey(s) address the judge ({', '.join(per)}): see injection.md"
            for name, per in flags.items()]


def injection_markdown(flags: dict[str, dict[str, list[str]]]) -> str:
    lines = ["# Surveys that address the judge", "",
             "Generated surveys whose text, as quoted to an LLM judge, holds instructions, score requests or messages "
             "to the judge (visible, in HTML comments or hidden with zero-width characters). The judge prompts tell "
             "the judge to ignore such text; the scores are not changed. Check these surveys before trusting their "
             "judged scores.", "", "| System | Survey | Findings |", "| --- | ---: | --- |"]
    for name, per in flags.items():
        for sid, messages in per.items():
            lines.append(f"| {name} | {sid} | " + "<br>".join(m.replace("|", "\\|") for m in messages) + " |")
    return "\n".join(lines) + "\n"
