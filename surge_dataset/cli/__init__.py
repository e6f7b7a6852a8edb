"""The ``surge`` command line: one typer sub-app per area, heavy imports deferred to the command."""

from __future__ import annotations

import sys

import typer
from typer.core import TyperGroup

# The command modules are imported as modules: a command function named like its module (evaluate, generate,
# report, submit) would otherwise hide the module `surge_dataset.cli.<name>` behind the package attribute.
from surge_dataset.cli import (
    analysis,
    annotate,  # noqa: F401 - registers `surge data annotate` on data_app
    evaluate,
    fresh,  # noqa: F401 - registers `surge data fresh` on data_app
    generate,
    quiz,  # noqa: F401 - registers `surge data quiz` on data_app
    report,
    submit,
)
from surge_dataset.cli.console import console, quiet_libraries, user_errors
from surge_dataset.cli.data import data_app
from surge_dataset.cli.human import human_app
from surge_dataset.cli.importing import import_outputs_command
from surge_dataset.cli.judging import arena, judge_agreement, meta_eval
from surge_dataset.cli.leaderboard import leaderboard_app
from surge_dataset.cli.metrics import metrics_app, models_app
from surge_dataset.cli.retrieval import export_retrieval, index_app, retrieval_eval, retrieve


class SurgeGroup(TyperGroup):
    """The root command: every :class:`SurgeError` and a full disk end as one line and exit 2, once, here."""

    def invoke(self, ctx):  # noqa: ANN001, ANN201 - click's signature
        quiet_libraries()
        with user_errors():
            return super().invoke(ctx)


app = typer.Typer(
    cls=SurgeGroup,
    name="surge",
    help="SurGE benchmark for scientific survey generation: data, evaluation, retrieval, baselines.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

#: Every command and sub-app, wired here only; their bodies live in cli/<area>.py.
app.add_typer(data_app, name="data")
app.command("evaluate")(evaluate.evaluate)
app.command("meta-eval")(meta_eval)
app.command("arena")(arena)
app.command("judge-agreement")(judge_agreement)
app.add_typer(human_app, name="human")
app.command("report")(report.report)
app.command("reference-distributions")(analysis.reference_distributions)
app.command("discipline-anova")(analysis.discipline_anova)
app.command("generate")(generate.generate)
app.command("import")(import_outputs_command)
app.add_typer(metrics_app, name="metrics")
app.add_typer(models_app, name="models")
app.add_typer(index_app, name="index")
app.add_typer(leaderboard_app, name="leaderboard")
app.command("retrieve")(retrieve)
app.command("retrieval-eval")(retrieval_eval)
app.command("submit")(submit.submit)
data_app.command("export-retrieval")(export_retrieval)


def _print_version(value: bool) -> None:
    if value:
        from surge_dataset.core.metadata import SURGE_BENCH_VERSION

        typer.echo(f"surge-bench {SURGE_BENCH_VERSION}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print surge-bench's version and exit."),
) -> None:
    """SurGE benchmark for scientific survey generation: data, evaluation, retrieval, baselines."""




def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover - interactive
        console.print("[red]interrupted[/]")
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
