"""``surge human export`` and ``surge human import``: blind packets for annotators, and their answers back.

The work lives in :mod:`surge_dataset.judging.human_packets` and :mod:`surge_dataset.judging.human_results`.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from surge_dataset.cli.console import console, out_console
from surge_dataset.cli.options import data_option

__all__ = ["human_app"]

human_app = typer.Typer(no_args_is_help=True)


@human_app.callback()
def human() -> None:
    """Human evaluation: blind packets of the systems' surveys for annotators, their answers into `surge meta-eval`."""


@human_app.command("export")
def export(
    passages: list[str] = typer.Option(..., "--passages", help="NAME=DIR, once per system (or a comma list): the "
                                       "system's surveys as DIR/<survey_id>/<file>; name the human survey GT."),
    data: str = data_option("the topics' titles"),
    protocol: str = typer.Option("ranking", "--protocol", help="ranking (SurGE: rank a topic's surveys 1..n) or "
                                 "pairwise (SurveyGen: the first survey better / comparable / worse than the second)."),
    out: Path = typer.Option(..., "--out", help="Folder: OUT/packet/ for the annotators, OUT/key.json kept apart."),
    seed: int = typer.Option(0, "--seed", help="Seed of each topic's order of candidates (and pairs)."),
    surveys: str = typer.Option(None, "--surveys", help="Topics to export, e.g. '0-4,7' (default: every survey "
                                "two systems or more wrote)."),
    annotators: int = typer.Option(1, "--annotators", help="Annotators: the CSV to fill has rows for each."),
    against: str = typer.Option(None, "--against", help="Pairwise: only the pairs of each system with this one "
                                "(e.g. GT, as SurveyGen compares every generated survey with the human one)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an --out this command wrote before."),
) -> None:
    """Anonymised, order-randomised annotation packets (Markdown, HTML) and the CSV to fill, one page per topic."""
    from rich.markup import escape

    from surge_dataset.cli.data import open_data
    from surge_dataset.core.output_folder import replacing_output_folder
    from surge_dataset.core.vocabulary import parse_ids, parse_list, split_name
    from surge_dataset.judging.human_packets import REDACTED, plan_packets, write_packets

    named = [split_name(spec) for item in passages for spec in parse_list(item)]
    folders = {name or Path(path).name: Path(path) for name, path in named}
    dataset = open_data(data)
    ids = parse_ids(surveys)
    titles = {s.survey_id: s.survey_title for s in (dataset.survey(i) for i in ids)} if ids else \
        {s.survey_id: s.survey_title for s in dataset.surveys(None)}
    key = plan_packets(folders, titles, protocol=protocol, seed=seed, survey_ids=ids or None,
                       annotators=annotators, against=against)
    inputs = [("--passages", path) for path in folders.values()]
    with replacing_output_folder(out, "human-packets", "surge human export", inputs=inputs, overwrite=overwrite) as tmp:
        redacted = write_packets(key, tmp)
    for system, count in redacted.items():
        if count:
            console.print(f"[yellow]note:[/] {count} mentions of {escape(system)} in the surveys read {escape(REDACTED)}",
                          highlight=False)
    out_console.print(f"{out}/packet/: {len(key['topics'])} topics, {protocol}, for {annotators} annotator(s) "
                      f"(to-fill.csv); {out}/key.json names the systems: keep it from them", highlight=False)


@human_app.command("import")
def import_answers(
    filled: Path = typer.Argument(..., help="The annotators' to-fill.csv, filled (one file; concatenate theirs)."),
    key: Path = typer.Option(..., "--key", help="The key.json `surge human export` wrote beside the packet."),
    out: Path = typer.Option(Path("human.csv"), "--out", help="CSV survey_id,system,rank for `surge meta-eval "
                             "--human`; pairwise also writes the named verdicts as OUT's stem + -pairwise.csv."),
) -> None:
    """Check the filled CSV, name the systems back, write the ranks `surge meta-eval` reads; agreement between
    annotators (Kendall's W per topic; Cohen's or Fleiss' kappa)."""
    from surge_dataset.core.vocabulary import RANKING
    from surge_dataset.judging.human_results import (
        agreement,
        human_ranks,
        named_verdicts,
        read_answers,
        read_key,
        write_csv,
    )

    parsed = read_key(key)
    answers = read_answers(filled, parsed)
    ranks = human_ranks(parsed, answers)
    write_csv(out, ("survey_id", "system", "rank"),
              [(sid, system, f"{rank:g}") for sid, per in ranks.items() for system, rank in per.items()])
    figures = agreement(parsed, answers)
    if parsed.protocol == RANKING:
        table = Table(title=f"Kendall's W, {figures['annotators']} annotators")
        table.add_column("topic")
        table.add_column("W", justify="right")
        for sid, w in figures["kendalls_w"].items():
            table.add_row(str(sid), "–" if w is None else f"{w:.3f}")
        mean = figures["mean_w"]
        out_console.print(table)
        out_console.print(f"mean W {'–' if mean is None else f'{mean:.3f}'} over {len(figures['kendalls_w'])} topics "
                          "ranked by two annotators or more", highlight=False)
    else:
        pairs = out.with_name(f"{out.stem}-pairwise.csv")
        write_csv(pairs, ("annotator", "survey_id", "first", "second", "verdict"), named_verdicts(parsed, answers))
        kappa = figures["kappa"]
        name = {"cohen": "Cohen's kappa", "fleiss": "Fleiss' kappa"}.get(figures["statistic"] or "", "kappa")
        out_console.print(f"{name} between {figures['annotators']} annotators over {figures['items']} pairs: "
                          f"{'–' if kappa is None else f'{kappa:.3f}'}", highlight=False)
        out_console.print(f"{pairs}: the verdicts with system names", highlight=False)
    out_console.print(f"{out}: ranks of {len(ranks)} topics ({answers.blank} blank rows left out); "
                      f"next: surge meta-eval --human {out} --results NAME=results.json ...", highlight=False)
