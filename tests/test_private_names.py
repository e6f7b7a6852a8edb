"""Private names stay private: no module of the package imports another module's ``_name`` (or reaches for it as
``module._name``), and a private module (``_judged.py``) is imported only from its own package. A module that needs
another's helper takes a public name, so what a module keeps to itself can change without breaking others."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "surge_dataset"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str | None:
    if not node.level:
        return node.module
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _violations(path: Path, text: str | None = None) -> list[str]:
    module = _module_of(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text, str(path))
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(node, module, path.name == "__init__.py")
            if not source or not source.startswith("surge_dataset"):
                continue
            found += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: imports {a.name} from {source}"
                      for a in node.names if _private(a.name)]
            private_parts = [p for p in source.split(".") if _private(p)]
            if private_parts and not (source.rsplit(".", 1)[0] == package or source.startswith(package + ".")):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: imports the private module {source} "
                             "from outside its package")
            modules.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            modules.update(a.asname or a.name.split(".")[0] for a in node.names if a.name.startswith("surge_dataset"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name) \
                and node.value.id in modules and node.value.id not in ("self", "cls"):
            found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: reads {node.value.id}.{node.attr}")
    return found


def test_no_module_takes_another_modules_private_name():
    violations = [v for path in sorted(PACKAGE.rglob("*.py")) for v in _violations(path)]
    assert not violations, "private names taken across modules (give them a public name):\n" + "\n".join(violations)


def test_the_scan_sees_what_it_must():
    """The scan itself: a private name imported, a module's private attribute read, a private module from outside."""
    sample = ("from surge_dataset.report.constants import _hidden\nfrom surge_dataset.report import tables\n"
              "from surge_dataset.evaluation.metrics._judged import Judged\nfrom .constants import ok, _also\n"
              "x = tables._notes\n")
    found = _violations(PACKAGE / "report" / "sample.py", sample)
    assert len(found) == 4 and "_hidden" in found[0] and "private module" in found[1]
    assert "_also from surge_dataset.report.constants" in found[2] and "tables._notes" in found[3]
