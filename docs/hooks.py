"""MkDocs hook (mkdocs.yml ``hooks:``): the pages generated from the code when the site is built.

* ``metrics/index.md`` and ``metrics/<name>.md``: one page per metric card ``metrics/<name>/README.md``, its YAML
  front matter stripped and its ``<!-- surge:inputs -->`` span filled by :func:`surge_dataset.publish.modules.render_card`,
  exactly as ``surge metrics install`` and ``surge metrics push`` publish it. The nav's ``metrics/index.md``
  entry becomes a section holding every card, so a new metric folder gets a page without editing mkdocs.yml.
* ``reference/cli.md``: every command and option of the ``surge`` typer app, walked from the click command
  tree (``typer.main.get_command``) that ``surge --help`` prints from. Duck-typed: typer vendors its own click.

Nothing is written into ``docs/``: the pages exist only in the build.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
METRICS = ROOT / "metrics"
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
    generated = {"metrics/index.md": metrics_index(), "reference/cli.md": cli_reference()}
    generated.update({f"metrics/{f.name}.md": metric_page(f) for f in metric_folders()})
    for uri, content in generated.items():
        files.append(File.generated(config, uri, content=content))
    return files
