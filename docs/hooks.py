"""MkDocs hook (mkdocs.yml ``hooks:``): the pages generated from the code when the site is built.

* ``metrics/index.md`` and ``metrics/<name>.md``: one page per metric card ``metrics/<name>/README.md``, its YAML
  front matter stripped and its ``<!-- surge:inputs -->`` and ``<!-- surge:example -->`` spans filled by
  :func:`surge_dataset.publish.modules.render_card`, exactly as ``surge metrics install`` and ``surge metrics push`` publish it. The nav's ``metrics/index.md``
  entry becomes a section holding every card, so a new metric folder gets a page without editing mkdocs.yml.
* ``reference/cli.md``: every command and option of the ``surge`` typer app, walked from the click command
  tree (``typer.main.get_command``) that ``surge --help`` prints from. Duck-typed: typer vendors its own click.
* ``reference/layout.md``: the floors of pyproject's layers contract (:data:`LAYERS`, each named and explained by
  :data:`FLOORS`), every package of ``surge_dataset`` on its floor with its docstring's first paragraph and one line per module (each module's docstring summary), read with ``ast`` (nothing imported),
  then the repository's other top-level folders.

Nothing is written into ``docs/``: the pages exist only in the build.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
METRICS = ROOT / "metrics"
PACKAGE = ROOT / "surge_dataset"
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
FENCE_TAG = re.compile(r"^(\s*```[\w-]+) [\w-]+$", re.M)


def metric_folders() -> list[Path]:
    return sorted(p.parent for p in METRICS.glob("*/README.md"))


def metric_page(folder: Path) -> str:
    """The card as published (inputs span filled), without its YAML front matter."""
    from surge_dataset.publish.modules import render_card

    return FRONT_MATTER.sub("", render_card(folder), count=1).lstrip()


def metric_title(folder: Path) -> str:
    match = re.search(r"^title:\s*(.+)$", (folder / "README.md").read_text(encoding="utf-8"), re.M)
    return f"{folder.name}: {match.group(1).strip()}" if match else folder.name


def metrics_index() -> str:
    lines = ["# Metrics", "",
             "One page per `evaluate` module of `metrics/`, generated from its card `metrics/<name>/README.md` "
             "when the site is built (the same text `surge metrics install` and `surge metrics push` publish). "
             "Each is also a `--metrics` name of `surge evaluate`; see [surge evaluate](../evaluation/index.md) "
             "for how they are run together.", "",
             "| module | card |", "| --- | --- |"]
    lines += [f"| `{f.name}` | [{metric_title(f).split(': ', 1)[-1]}]({f.name}.md) |" for f in metric_folders()]
    return "\n".join(lines) + "\n"


# --- the CLI reference -------------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _param_row(param: Any, ctx: Any) -> str:
    if param.param_type_name == "option":
        names = " / ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts])
        kind = "flag" if param.is_flag else param.type.name.upper()
    else:
        names = f"`{param.human_readable_name}`"
        kind = f"argument, {param.type.name.upper()}" + (", repeatable" if param.nargs == -1 else "")
    if getattr(param.type, "choices", None):
        kind += ": " + ", ".join(f"`{c}`" for c in param.type.choices)
    default = param.get_default(ctx, call=False)
    if param.required:
        shown = "required"
    elif default is None or default in ((), [], "") or callable(default):
        shown = ""
    else:
        shown = f"`{default}`"
    return f"| {names} | {_cell(kind)} | {shown} | {_cell(getattr(param, 'help', None) or '')} |"


def _command_section(command: Any, path: list[str], parent: Any, out: list[str]) -> None:
    ctx = command.context_class(command, info_name=path[-1], parent=parent)
    name = " ".join(path)
    out += [f"{'#' * min(len(path) + 1, 4)} `{name}`", ""]
    if command.help:
        out += [command.help.strip(), ""]
    out += ["```text", f"{name} {' '.join(command.collect_usage_pieces(ctx))}".rstrip(), "```", ""]
    params = [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]
    if params:
        out += ["| option | type | default | help |", "| --- | --- | --- | --- |"]
        out += [_param_row(p, ctx) for p in params]
        out.append("")
    if hasattr(command, "list_commands"):
        for sub in command.list_commands(ctx):
            child = command.get_command(ctx, sub)
            if child is not None and not child.hidden:
                _command_section(child, [*path, sub], ctx, out)


def cli_reference() -> str:
    import typer

    from surge_dataset.cli import app

    out = ["# Command line (`surge`)", "",
           "Generated from the typer app (`surge_dataset.cli.app`) when the site is built: every command and "
           "option that `surge … --help` shows, with the same help text.", ""]
    _command_section(typer.main.get_command(app), ["surge"], None, out)
    return "\n".join(out)


# --- the layout ---------------------------------------------------------------------------------------------

#: Each floor of pyproject's layers contract (its packages, as the contract lists them) -> its name in the docs and
#: why it sits where it does: the import of the floor below that holds it up. The floors themselves are read from
#: pyproject (:func:`contract_floors`); a floor added there without a line here stops the docs build.
FLOORS: dict[tuple[str, ...], tuple[str, str]] = {
    ("cli",): ("command line", "the commands over everything below; the only floor that prints with Rich"),
    ("leaderboard",): ("leaderboard", "shows results as the report does (`report.results`, `report.constants`): "
                                      "above report"),
    ("importers", "inspect", "report"): (
        "imports, Inspect, report", "importers and the Inspect task render answers with generation's writer "
                                    "(`generation.inspect_survey`); report draws judging's arena: above generation "
                                    "and judging"),
    ("generation", "judging", "publish"): (
        "generation, judging, publishing", "generation reads retrieval runs; judging re-scores with evaluation's "
                                           "engine; publish packs its metrics: above the engines"),
    ("evaluation", "retrieval", "fresh", "quiz", "protocols"): (
        "engines", "evaluation, quiz and protocols call scoring's functions; retrieval and fresh ask an LLM: above "
                   "scoring"),
    ("scoring",): ("scoring", "asks the judge's request type and prompts (`llm.judge`, `llm.prompts`): above llm"),
    ("llm",): ("LLM", "local backends load models as `models/` does (`models.base`, `models.threads`): above the "
                      "domain"),
    ("data", "models", "survey", "references"): ("domain", "what SurGE is made of; each needs core alone"),
    ("core",): ("base", "errors, vocabularies, settings, records, atomic I/O, statistics: imports nothing of the "
                        "package"),
}


def contract_floors() -> list[tuple[str, ...]]:
    """The floors of pyproject's layers contract, top to bottom, each as its package names (``surge_dataset.``
    dropped); a floor whose packages are not all independent (``|``) is refused."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the docs extra installs tomli there
        import tomli as tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["id"] == "layers")["layers"]
    floors = []
    for floor in layers:
        if ":" in floor:
            raise ValueError(f"pyproject.toml: the floor {floor!r} of the layers contract separates its packages "
                             "with ':' (siblings that may import each other); use '|'")
        floors.append(tuple(name.strip().removeprefix("surge_dataset.") for name in floor.split("|")))
    return floors


def _layers() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    floors = contract_floors()
    unexplained = [floor for floor in floors if floor not in FLOORS]
    stale = [floor for floor in FLOORS if floor not in floors]
    if unexplained or stale:
        raise ValueError(f"docs/hooks.py FLOORS and pyproject's layers contract disagree: floors without a name and "
                         f"reason {unexplained}, named floors the contract lacks {stale}")
    return tuple((*FLOORS[floor], floor) for floor in floors)


#: The packages of ``surge_dataset`` by floor, top to bottom, as pyproject's layers contract has them: a package
#: imports from the floors below its own, never above nor its own floor's other packages. Every package is on
#: exactly one floor or outside them (tests/test_docs_site.py).
LAYERS: tuple[tuple[str, str, tuple[str, ...]], ...] = _layers()
#: Packages outside the floors: imported by no product module (tests/test_package_contents.py).
OUTSIDE_LAYERS: dict[str, str] = {
    "testing": "public test doubles for users' own tests and the examples; no module of the package imports it",
}
#: The repository's other top-level folders: (folder, what, the file whose docstring says the rest, if any).
FOLDERS: tuple[tuple[str, str, str | None], ...] = (
    ("metrics/", "One folder per metric, an `evaluate` module each: `<name>.py` (a declaration over the registry), "
                 "its card `README.md`, `app.py`; shipped in the wheel as `surge_dataset/_metrics`.", None),
    ("baselines/", "`baselines/surge_baselines/`, installed as the package `surge_baselines`.",
     "baselines/surge_baselines/__init__.py"),
    ("training/", "`train_retriever.py` (the `accelerate` entry point) and `configs/paper.yaml`.",
     "training/train_retriever.py"),
    ("benchmarks/", "", "benchmarks/__init__.py"),
    ("tests/", "The tests, one file per area, and `tests/support/`.", "tests/support/__init__.py"),
    ("examples/", "The shipped sample (`examples/sample/`, synthetic data in the official schema, written by "
                  "`examples/make_sample.py` from `examples/sample_spec/`), its quiz set and the scripts the docs "
                  "quote.", None),
    ("docs/", "These pages (`mkdocs.yml`); `docs/hooks.py` generates the metric pages, the command-line reference "
              "and this page.", None),
)


ROLE = re.compile(r":(?:mod|class|func|meth|data|attr|exc):`~?\.?([^`]+)`")


def _summary(path: Path, *, paragraph: bool = False) -> str:
    """A module's docstring as Markdown on one line: its first paragraph (``paragraph``) or first sentence."""
    text = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    first = ROLE.sub(r"`\1`", " ".join(text.split("\n\n", 1)[0].split())).replace("``", "`")
    if paragraph:
        return first
    sentence = re.match(r"(.{20,}?[.!?])(?=\s)", first)
    return sentence.group(1) if sentence else first


def packages() -> list[str]:
    """Every package directly under ``surge_dataset/`` (a folder with ``__init__.py``)."""
    return sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))


def _package_section(name: str) -> list[str]:
    folder = PACKAGE / name
    out = [f"### `{name}/`", "", _summary(folder / "__init__.py", paragraph=True), ""]
    rows = []
    for path in sorted(folder.rglob("*.py")):
        relative = path.relative_to(folder)
        if relative.name == "__init__.py" and relative.parent == Path("."):
            continue
        if relative.name == "__init__.py":
            rows.append((f"{relative.parent.as_posix()}/", _summary(path)))
        elif relative.parent == Path(".") or (relative.parent / "__init__.py").exists() and len(relative.parts) == 2:
            rows.append((relative.as_posix(), _summary(path)))
    if rows:
        out += ["| module | what |", "| --- | --- |", *(f"| `{m}` | {_cell(s)} |" for m, s in rows), ""]
    return out


def layout_reference() -> str:
    """The Layout page: the floors, every package of ``surge_dataset`` with its modules, the other folders."""
    out = ["# Layout", "",
           "Generated from the code when the site is built (`docs/hooks.py`): each package's docstring and each "
           "module's first sentence. Where a new metric, setting, command, data source, service client or baseline "
           "goes: [Extending](../architecture.md#where-does-a-new-x-go).", "",
           "## The floors of `surge_dataset`", "",
           "Top to bottom, as pyproject's layers contract has them (`lint-imports` checks it): a package imports "
           "from the floors below its own, never from above and never from another package of its own floor.", "",
           "| floor | packages | why here |", "| --- | --- | --- |"]
    for number, (floor, why, names) in zip(range(len(LAYERS), 0, -1), LAYERS, strict=True):
        out.append(f"| {number} {floor} | {', '.join(f'[`{n}/`](#{n})' for n in names)} | {_cell(why)} |")
    for name, what in OUTSIDE_LAYERS.items():
        out.append(f"| outside the floors | [`{name}/`](#{name}) | {_cell(what)} |")
    out += ["", "`surge_dataset/__init__.py` re-exports the few names most code starts from (`SurgeData`, `Corpus`, "
            "the records, `metric_path`).", ""]
    for number, (floor, _why, names) in zip(range(len(LAYERS), 0, -1), LAYERS, strict=True):
        out += [f"## Floor {number}: {floor}", ""]
        for name in names:
            out += _package_section(name)
    out += ["## Outside the floors", ""]
    for name in OUTSIDE_LAYERS:
        out += _package_section(name)
    out += ["## The repository's other folders", "", "| folder | what |", "| --- | --- |"]
    for folder, what, source in FOLDERS:
        text = " ".join(part for part in (what, source and _summary(ROOT / source, paragraph=True)) if part)
        out.append(f"| `{folder}` | {_cell(text)} |")
    return "\n".join(out) + "\n"


# --- mkdocs events -----------------------------------------------------------------------------------------


def on_config(config: Any) -> Any:
    """Replace the nav's ``metrics/index.md`` entry by a section with every generated metric page."""
    pages = [{"Overview": "metrics/index.md"}, *({metric_title(f): f"metrics/{f.name}.md"} for f in metric_folders())]

    def expand(items: list) -> list:
        out = []
        for item in items:
            if isinstance(item, dict):
                (title, value), = item.items()
                if value == "metrics/index.md":
                    out.append({title: pages})
                    continue
                out.append({title: expand(value) if isinstance(value, list) else value})
            else:
                out.append(item)
        return out

    config["nav"] = expand(config["nav"])
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """A fence's info string may carry a tag after the language (architecture.md's ```` ```python setting ````,
    which tests/test_settings.py finds the block by); Markdown wants the language alone."""
    return FENCE_TAG.sub(r"\1", markdown)


def on_files(files: Files, config: Any) -> Files:
    generated = {"metrics/index.md": metrics_index(), "reference/cli.md": cli_reference(),
                 "reference/layout.md": layout_reference()}
    generated.update({f"metrics/{f.name}.md": metric_page(f) for f in metric_folders()})
    for uri, content in generated.items():
        files.append(File.generated(config, uri, content=content))
    return files
