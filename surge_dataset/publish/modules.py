"""The metric modules as ``evaluate`` modules: where they are, installed into ``evaluate``'s cache (offline
``evaluate.load("surge/<name>")``) and published as Hub Spaces (thin huggingface_hub wrappers).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import shutil
import textwrap
from pathlib import Path

from surge_dataset.core.output_folder import folder_kind, write_marker

__all__ = [
    "CARD_EXAMPLE",
    "CARD_INPUTS",
    "evaluate_modules_cache",
    "install_metrics",
    "metric_folders",
    "metric_path",
    "module_examples",
    "module_folders_by_metric",
    "push_metrics",
    "render_card",
    "space_app",
    "space_requirements",
]

def metric_path(name: str) -> str:
    """Folder of the ``evaluate`` module ``name`` (``evaluate.load(metric_path("shr"))`` works anywhere).

    In a checkout the repository's ``metrics/`` folder is used; in an installed wheel the copy shipped
    inside the package (``surge_dataset/_metrics``).
    """
    package = Path(__file__).resolve().parents[1]
    for base in (package / "_metrics", package.parent / "metrics"):
        if (base / name / f"{name}.py").is_file():
            return str(base / name)
    raise FileNotFoundError(f"no SurGE metric named {name!r} (looked in {package / '_metrics'} and "
                            f"{package.parent / 'metrics'})")


def metric_folders() -> dict[str, Path]:
    """Every metric module folder this installation ships (checkout's metrics/ or the packaged copy).

    A folder ``<name>/`` holds ``<name>.py``, the module of the registered metric ``<name>``: folder,
    file, ``evaluate.load("surge/<name>")`` and ``surge evaluate --metrics <name>`` share one name.
    """
    found = {}
    base = Path(metric_path("shr")).parent
    for folder in sorted(base.iterdir()):
        if (folder / f"{folder.name}.py").is_file():
            found[folder.name] = folder
    return found


def module_folders_by_metric() -> dict[str, Path]:
    """Registered metric name -> its ``evaluate`` module folder (the folder of the same name)."""
    return metric_folders()


def space_requirements(folder: Path, requirement: str) -> str:
    """The ``requirements.txt`` a Space gets: ``requirement`` (how the Space installs surge-bench) first,
    then the module's other requirements (comment lines and the bare ``surge-bench`` placeholder dropped).

    surge-bench is not on PyPI, so the bare name cannot be installed by a Space; the caller says how it
    can (a ``surge-bench @ git+https://...`` URL of their copy, or a wheel URL they host).
    """
    if not requirement.strip() or requirement.strip() == "surge-bench":
        raise ValueError("a pip requirement the Space can install is needed, e.g. "
                         "'surge-bench @ git+https://github.com/ORG/surge-bench' (surge-bench is not on PyPI)")
    lines = [requirement.strip()]
    source = folder / "requirements.txt"
    if source.is_file():
        for line in source.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line and not line.startswith("#") and line != "surge-bench":
                lines.append(line)
    return "\n".join(dict.fromkeys(lines)) + "\n"


#: The span of a card that :func:`render_card` fills with the inputs text read off the settings declarations.
CARD_INPUTS = re.compile(r"<!-- surge:inputs -->\n.*?<!-- /surge:inputs -->\n", re.S)


#: The span of a card that :func:`render_card` fills with the examples of the module's docstring.
CARD_EXAMPLE = re.compile(r"<!-- surge:example -->\n.*?<!-- /surge:example -->\n", re.S)


def module_examples(folder: Path) -> str:
    """The doctested examples of the module in ``folder`` (its docstring from the first ``>>>`` on, dedented),
    read without importing it. They live in the module because ``evaluate``'s module checks doctest the module;
    the card shows the same text."""
    path = folder / f"{folder.name}.py"
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False) or ""
    start = docstring.find(">>>")
    if start < 0:
        raise ValueError(f"{path}: the module docstring has no doctested example")
    line_start = docstring.rfind("\n", 0, start) + 1
    return textwrap.dedent(docstring[line_start:]).strip("\n") + "\n"


def render_card(folder: Path) -> str:
    """The module's README as installed and published: the ``surge:inputs`` span replaced by the current
    inputs description (:func:`~surge_dataset.evaluation.compute.inputs_description`), so no card keeps a
    copy of the settings by hand, and the ``surge:example`` span by the module's examples
    (:func:`module_examples`), so the card's example is the one ``evaluate`` doctests."""
    from surge_dataset.evaluation.compute import inputs_description

    text = (folder / "README.md").read_text(encoding="utf-8")
    for span, what in ((CARD_INPUTS, "inputs"), (CARD_EXAMPLE, "example")):
        if not span.search(text):
            raise ValueError(f"{folder / 'README.md'}: no <!-- surge:{what} --> span")
    text = CARD_INPUTS.sub(lambda _: f"```{inputs_description()}```\n", text, count=1)
    return CARD_EXAMPLE.sub(lambda _: f"```python\n{module_examples(folder)}```\n", text, count=1)


def space_app(folder: Path, repo_id: str) -> str:
    """The Space's ``app.py``, loading the module from the Space it is pushed to (not ``surge/<name>``)."""
    return (folder / "app.py").read_text(encoding="utf-8").replace(f'"surge/{folder.name}"', f'"{repo_id}"')


def push_metrics(
    namespace: str, names: list[str] | None = None, *, requirement: str, private: bool = False
) -> list[str]:
    """Create/update one Gradio Space per metric so ``evaluate.load(f"{namespace}/<name>")`` works.

    Each Space gets the module folder and a ``requirements.txt`` from :func:`space_requirements`; by default one
    Space per metric, else the metrics ``names`` lists.
    """
    from huggingface_hub import HfApi

    api = HfApi()
    urls = []
    for name, folder in _chosen_folders(names).items():
        requirements = space_requirements(folder, requirement).encode("utf-8")
        repo_id = f"{namespace}/{name}"
        api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
        api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="space",
                          ignore_patterns=["requirements.txt", "app.py", "README.md", f"{folder.name}.py"])
        api.upload_file(path_or_fileobj=render_card(folder).encode("utf-8"), path_in_repo="README.md",
                        repo_id=repo_id, repo_type="space")
        api.upload_file(path_or_fileobj=(folder / f"{folder.name}.py").read_bytes(), path_in_repo=f"{name}.py",
                        repo_id=repo_id, repo_type="space")
        api.upload_file(path_or_fileobj=requirements, path_in_repo="requirements.txt", repo_id=repo_id,
                        repo_type="space")
        api.upload_file(path_or_fileobj=space_app(folder, repo_id).encode("utf-8"), path_in_repo="app.py",
                        repo_id=repo_id, repo_type="space")
        urls.append(f"https://huggingface.co/spaces/{repo_id}")
    return urls


def evaluate_modules_cache() -> Path:
    """The folder ``evaluate`` keeps loaded modules in (``HF_MODULES_CACHE``, else ``$HF_HOME/modules``).

    Mirrors ``evaluate.config`` without importing ``evaluate`` (about 10 s): the CLI stays fast.
    """
    if os.environ.get("HF_MODULES_CACHE"):
        return Path(os.environ["HF_MODULES_CACHE"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "~/.cache")
    home = os.environ.get("HF_HOME", os.path.join(xdg, "huggingface"))
    return Path(home).expanduser() / "modules"


def _installed_by_us(copy: Path, name: str) -> bool:
    """A cached module copy that ``install_metrics`` wrote (marker, or a local source path), not a Hub download."""
    if folder_kind(copy) == "metric-module":
        return True
    try:
        origin = json.loads((copy / f"{name}.json").read_text(encoding="utf-8"))["original file path"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return not str(origin).startswith(("http://", "https://")) and Path(origin).name == f"{name}.py"


def install_metrics(
    namespace: str = "surge", names: list[str] | None = None, modules_cache: str | os.PathLike[str] | None = None
) -> dict[str, Path]:
    """Place every metric module where ``evaluate`` looks for ``<namespace>/<name>`` when the Hub is unreachable.

    ``evaluate.load("surge/shr")`` first asks the Hub for the Space ``surge/shr``; offline (or when the
    Space does not exist) it falls back to the newest copy cached under
    ``<modules cache>/evaluate_modules/metrics/surge--shr/<64-hex hash>/shr.py``, which is the layout
    written here (with the ``__init__.py`` files that make it importable). The hash is the SHA-256 of the
    module's code, so reinstalling changed code adds a newer copy; stale copies of ours are removed.
    Returns name -> installed file.
    """
    folders = _chosen_folders(names)
    root = Path(modules_cache).expanduser() if modules_cache is not None else evaluate_modules_cache()
    package = root / "evaluate_modules"
    metrics = package / "metrics"
    metrics.mkdir(parents=True, exist_ok=True)
    for folder in (root, package, metrics):
        (folder / "__init__.py").touch(exist_ok=True)
    installed: dict[str, Path] = {}
    for name, source in folders.items():
        code = (source / f"{source.name}.py").read_bytes()
        digest = hashlib.sha256(code).hexdigest()
        home = metrics / f"{namespace}--{name}"
        home.mkdir(exist_ok=True)
        (home / "__init__.py").touch(exist_ok=True)
        for old in home.iterdir():
            if old.is_dir() and len(old.name) == 64 and old.name != digest and _installed_by_us(old, name):
                shutil.rmtree(old)
        target = home / digest
        target.mkdir(exist_ok=True)
        (target / "__init__.py").touch(exist_ok=True)
        module = target / f"{name}.py"
        module.write_bytes(code)  # rewritten even when present: the newest mtime is the copy evaluate picks
        (target / "README.md").write_text(render_card(source), encoding="utf-8")
        if (source / "requirements.txt").is_file():
            shutil.copyfile(source / "requirements.txt", target / "requirements.txt")
        write_marker(target, "metric-module", "surge metrics install")
        (target / f"{name}.json").write_text(
            json.dumps({"original file path": str(source / f"{source.name}.py"), "local file path": str(module)}),
            encoding="utf-8",
        )
        installed[name] = module
    return installed


def _chosen_folders(names: list[str] | None) -> dict[str, Path]:
    """Module name -> the folder of its code, for install or push: ``names``, else every metric. An unknown name is
    an error before anything is written."""
    folders = metric_folders()
    unknown = sorted(set(names or ()) - set(folders))
    if unknown:
        raise FileNotFoundError(f"no SurGE metric named {', '.join(unknown)}; known: {', '.join(folders)}")
    return {name: path for name, path in folders.items() if name in names} if names else folders

