"""The comparison and the tables of ``benchmarks/evaluate_speed.py``: per-survey and average agreement of
ours with the released evaluator, timing tables (wall and CPU) with the stage breakdowns of both sides,
and the warm-rerun check. Loaded by file path by ``evaluate_speed.py`` (``benchmarks/`` is not a package).
"""

from __future__ import annotations

from typing import Any

METRICS = ("recall", "doc_acc", "sec_acc", "sent_acc", "shr", "rouge1", "rouge2", "rougeL", "bleu")
ROUGE_KEYS = ("rouge1", "rouge2", "rougeL", "bleu")
NLI_KEYS = ("doc_acc", "sec_acc", "sent_acc")
TOLERANCE = {"shr": 1e-5}
DEFAULT_TOLERANCE = 1e-6
SEPARATOR = "\\|"  # a literal | inside a Markdown table cell


def _mean(values: list[float | None]) -> float:
    """The released evaluator's average: a missing value counts 0."""
    return sum(v or 0.0 for v in values) / len(values) if values else 0.0


def agreement(ours: dict[str, Any], released: dict[str, Any], ids: list[int]) -> dict[str, Any]:
    """Per system and metric: surveys compared, surveys agreeing, both averages, every disagreement."""
    from tests.support.parity import compare

    table: dict[str, dict[str, dict[str, Any]]] = {}
    problems: list[str] = []
    for system, rec in released["systems"].items():
        mine = ours["results"][system]
        table[system] = {}
        for key in METRICS:
            covered = [str(s) for s in (released["rouge_ids"] if key in ROUGE_KEYS else ids)]
            theirs = {sid: {key: rec["surveys"][sid].get(key)} for sid in covered if sid in rec["surveys"]}
            ours_per = {
                sid: {key: mine["surveys"][sid].get(key)} for sid in covered if sid in mine["surveys"]
            }
            lines = compare(ours_per, theirs, [key], TOLERANCE, DEFAULT_TOLERANCE)
            if len(covered) == len(ids):
                ours_avg = mine["average"].get(key)
            else:  # the released average covers these surveys only: ours over the same ones
                ours_avg = _mean([mine["surveys"].get(sid, {}).get(key) for sid in covered])
            released_avg = rec["average"].get(key)
            mean_lines = compare(
                {"mean": {key: ours_avg}}, {"mean": {key: released_avg}}, [key], TOLERANCE, DEFAULT_TOLERANCE
            )
            table[system][key] = {
                "total": len(covered),
                "agree": len(covered) - len({line.split(":")[0] for line in lines}),
                "ours_avg": ours_avg,
                "released_avg": released_avg,
                "avg_agrees": not mean_lines,
            }
            problems += [f"{system} {line}" for line in lines + mean_lines]
    return {"table": table, "problems": problems}


def _fmt(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def timing_report(
    systems: list[str], ids: list[int], ours_cold: dict, ours_warm: dict, released: dict | None
) -> str:
    """The timing tables (wall and CPU) and the stage breakdowns of both sides."""
    n = len(ids)
    estimated = released is not None and len(released["rouge_ids"]) < n
    mark = "*" if estimated else ""
    out: list[str] = []
    for title, o_key, setup_key in (
        ("Wall time", "seconds", "setup"),
        ("CPU time (process, all threads)", "cpu", "setup_cpu"),
    ):
        out += [f"{title}, seconds per survey:", ""]
        if released is None:
            out += ["| system | surveys | ours cold | ours warm | warm / cold |", "|---|---:|---:|---:|---:|"]
        else:
            out += [
                "| system | surveys | ours cold | ours warm | released | speed-up cold | speed-up warm | warm / cold |",
                "|---|---:|---:|---:|---:|---:|---:|---:|",
            ]
        tot = {"cold": 0.0, "warm": 0.0, "rel": 0.0}

        def row(name: str, count: int, cold: float, warm: float, rel: float, per: int) -> str:
            if released is None:
                return (
                    f"| {name} | {count} | {cold / per:.2f} | {warm / per:.3f} | {100 * warm / cold:.1f} % |"
                )
            return (
                f"| {name} | {count} | {cold / per:.2f} | {warm / per:.3f} | {rel / per:.2f}{mark} | "
                f"{rel / cold:.1f}× | {rel / warm:.0f}× | {100 * warm / cold:.1f} % |"
            )

        for system in systems:
            cold, warm = ours_cold[o_key][system], ours_warm[o_key][system]
            rel = released["systems"][system][o_key] if released else 0.0
            tot["cold"] += cold
            tot["warm"] += warm
            tot["rel"] += rel
            out.append(row(system, n, cold, warm, rel, n))
        total = n * len(systems)
        out.append(row("**all**", total, tot["cold"], tot["warm"], tot["rel"], total))
        out += [
            row(
                "all, incl. setup (total s)",
                total,
                tot["cold"] + ours_cold[setup_key],
                tot["warm"] + ours_warm[setup_key],
                tot["rel"] + (released[setup_key] if released else 0.0),
                1,
            ),
            "",
        ]
    if estimated:
        covered = ", ".join(map(str, released["rouge_ids"])) or "none"
        out += [
            f"\\* EXTRAPOLATED: the released evaluator ran ROUGE-BLEU only on survey(s) {covered} of each "
            "system; for the others its ROUGE/BLEU time is extrapolated from those at the same seconds per "
            "(generated file characters × GT section characters). Its coverage, NLI and SHR ran on every survey.",
            "",
        ]
    setup = (
        f"Setup (once per run, not in the per-survey rows): ours {ours_cold['setup']:.1f} s cold / "
        f"{ours_warm['setup']:.1f} s warm (open the built dataset, load both models)"
    )
    if released:
        setup += (
            f"; released {released['setup']:.1f} s (load both models, import its code, its constructor's "
            "json.load of surveys.json and corpus.json)"
        )
    out += [
        setup + ".",
        (f"NLI pairs: released scored {released['pairs']:,}; " if released else "NLI pairs: ")
        + f"ours cold requested {ours_cold['nli_requested']:,} and computed {ours_cold['nli_computed']:,} "
        f"(de-duplicated); ours warm computed {ours_warm['nli_computed']:,} ({ours_warm['nli_hits']:,} "
        f"cache hits) and embedded {ours_warm['embed_computed']} headings.",
        "",
    ]
    if released:
        out += [
            "Released evaluator, wall seconds per survey by stage (time inside its model calls and its "
            "eval_rougeBleu; rest: its parsing, title resolution and result writing):",
            "",
            "| system | NLI (doc, sec, sent) | SHR | ROUGE/BLEU | rest |",
            "|---|---:|---:|---:|---:|",
        ]
        for system in systems:
            rec = released["systems"][system]
            st = rec["stages"]
            rest = rec["seconds"] - sum(st.values())
            out.append(
                f"| {system} | {st['nli'] / n:.2f} | {st['shr'] / n:.2f} | {st['rouge_bleu'] / n:.1f}{mark} | "
                f"{rest / n:.2f} |"
            )
        out.append("")
    out += [
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
    return "\n".join(out) + "\n"


def agreement_report(systems: list[str], ids: list[int], released: dict, agreed: dict) -> str:
    """Surveys agreeing per metric and system, both averages, and the disagreements."""
    table = agreed["table"]
    rouge = ", ".join(map(str, released["rouge_ids"])) or "none"
    out = [
        f"Released evaluator covered: surveys {', '.join(map(str, ids))} of each system for recall, "
        f"Doc/Sec/Sent-Acc and SHR; surveys {rouge} for ROUGE/BLEU.",
        "",
        f"Per-survey agreement, ours (cold) vs released (surveys within {DEFAULT_TOLERANCE:g}, SHR "
        f"{TOLERANCE['shr']:g} / surveys compared):",
        "",
        "| system | " + " | ".join(METRICS) + " |",
        "|---|" + "---:|" * len(METRICS),
    ]
    for system in systems:
        cells = [f"{table[system][k]['agree']}/{table[system][k]['total']}" for k in METRICS]
        out.append(f"| {system} | " + " | ".join(cells) + " |")
    sums = [
        f"{sum(table[s][k]['agree'] for s in systems)}/{sum(table[s][k]['total'] for s in systems)}"
        for k in METRICS
    ]
    out += [
        "| **all** | " + " | ".join(sums) + " |",
        "",
        "Averages, ours \\| released (the released evaluator's mean, a missing value counted 0; ROUGE/BLEU "
        "over the surveys it ran them on, ours over the same ones; ≠ marks a difference beyond tolerance):",
        "",
        "| system | " + " | ".join(METRICS) + " |",
        "|---|" + "---:|" * len(METRICS),
    ]
    for system in systems:
        cells = [
            f"{_fmt(c['ours_avg'], 4)} {SEPARATOR if c['avg_agrees'] else '≠'} {_fmt(c['released_avg'], 4)}"
            for c in (table[system][k] for k in METRICS)
        ]
        out.append(f"| {system} | " + " | ".join(cells) + " |")
    out.append("")
    return "\n".join(out) + "\n"


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
