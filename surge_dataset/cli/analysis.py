"""SurveyGen's analyses and data step: ``surge reference-distributions`` (its Figure 3) and ``surge
discipline-anova`` (its §4.3), beside ``surge report``, over a built dataset and what ``surge evaluate`` wrote; and
``surge data surveygen-select`` (its §2.2 construction filters and §3.1 evaluation subset), registered on data_app."""

from __future__ import annotations

from pathlib import Path

import typer

from surge_dataset.cli.console import console, out_console
from surge_dataset.cli.data import data_app
from surge_dataset.cli.options import data_option


def _named(items: list[str]) -> dict[str, Path]:
    """``NAME=FILE`` (or a bare FILE, named by its stem) -> {name: path}."""
    out = {}
    for item in items:
        name, _, path = item.rpartition("=")
        out[name or Path(path).stem] = Path(path)
    return out


def reference_distributions(
    details: list[str] = typer.Option(..., "--details", help="NAME=FILE: a system's `surge evaluate --details` "
                                      "JSONL (its resolved references); repeat per system."),
    data: str = data_option("the GT surveys, the corpus years and (SurveyGen) citation counts"),
    out: Path = typer.Option(None, "--out", help="Write the rows as JSON to this file."),
) -> None:
    """KS test of cited papers' year, years gap and citation count against the human survey's (SurveyGen Fig. 3)."""
    from surge_dataset.cli.data import open_data
    from surge_dataset.core.io import atomic_write_json
    from surge_dataset.report.distributions import (
        distributions_markdown,
        paper_lookups,
        reference_distributions,
    )
    from surge_dataset.report.distributions import resolved_references as read

    systems = {name: read(path) for name, path in _named(details).items()}
    survey_ids = sorted({i for cited in systems.values() for i in cited})
    result = reference_distributions(systems, **paper_lookups(open_data(data), survey_ids))
    typer.echo(distributions_markdown(result))
    if out is not None:
        atomic_write_json(out, result)
        out_console.print(f"{out}: {len(result['rows'])} rows", highlight=False)


def discipline_anova(
    results: list[str] = typer.Argument(..., help="NAME=FILE (or FILE): `surge evaluate` results, one per system."),
    metric: str = typer.Option(..., "--metric", help="A result key, e.g. rougeL_whole or kpr."),
    data: str = data_option("its surveys' disciplines (SurveyGen's metadata)"),
    out: Path = typer.Option(None, "--out", help="Write the rows as JSON to this file."),
) -> None:
    """One-way ANOVA of a metric's per-survey values across disciplines, per system (SurveyGen §4.3)."""
    from surge_dataset.cli.data import open_data
    from surge_dataset.core.errors import SurgeError
    from surge_dataset.core.io import atomic_write_json
    from surge_dataset.report import load_results
    from surge_dataset.report.disciplines import (
        NO_DISCIPLINE,
        discipline_anova,
        discipline_markdown,
        survey_disciplines,
    )

    disciplines = survey_disciplines(open_data(data))
    if disciplines is None:
        raise SurgeError(f"{data}: {NO_DISCIPLINE}")
    named = _named(results)
    systems = {name: loaded.values(metric) for name, loaded in
               zip(named, load_results(list(named.values())), strict=True)}
    if not any(systems.values()):
        raise SurgeError(f"no results file has per-survey values of '{metric}'")
    rows = discipline_anova(systems, disciplines, metric)
    typer.echo(discipline_markdown(rows))
    for row in rows:
        if row["unlabelled"]:
            console.print(f"[yellow]note:[/] {row['system']}: {row['unlabelled']} survey(s) without a discipline "
                          "left out", highlight=False)
    if out is not None:
        atomic_write_json(out, rows)
        out_console.print(f"{out}: {len(rows)} rows", highlight=False)


@data_app.command("surveygen-select")
def data_surveygen_select(
    files: list[Path] = typer.Argument(..., help="Candidate survey JSON files in SurveyGen's layout (S2ORC-style)."),
    out: Path = typer.Option(..., "--out", help="JSON file: every candidate's decision and why."),
    min_references: int = typer.Option(30, "--min-references", help="Drop candidates with fewer references."),
    min_sections: int = typer.Option(3, "--min-sections", help="Drop candidates with fewer top-level sections."),
    judge: list[str] = typer.Option(None, "--judge", help="A voter on 'is it a survey' (title + abstract); repeat "
                                    "for a majority vote (the paper used three LLMs). None: no vote."),
    evaluation_subset: bool = typer.Option(False, "--evaluation-subset", help="Then keep the paper's evaluation "
                                           "subset: the 30 most cited of each of Biology, Medicine, Psychology, CS."),
    per_domain: int = typer.Option(30, "--per-domain", help="Surveys per domain of --evaluation-subset."),
) -> None:
    """SurveyGen's construction filters (>= 30 references, >= 3 sections, optional LLM vote) on your candidates."""
    from surge_dataset.core.io import atomic_write_json
    from surge_dataset.fresh.surveygen_select import select_candidates
    from surge_dataset.llm import Judge, make_llm

    judges = [Judge(make_llm(spec)) for spec in judge or []]
    decisions = select_candidates(files, min_references=min_references, min_sections=min_sections, judges=judges,
                                  evaluation_subset=evaluation_subset, per_domain=per_domain)
    atomic_write_json(out, decisions)
    for d in decisions:
        out_console.print(f"{'kept   ' if d['kept'] else 'dropped'} {d['path']}" + (f": {d['why']}" if d["why"] else ""),
                          highlight=False)
    kept = sum(d["kept"] for d in decisions)
    out_console.print(f"{out}: {kept} of {len(decisions)} kept; convert them with `surge data from-surveygen`",
                      highlight=False)
