"""What the wheel ships: no test server in the package, the public test doubles used by no product module, and two
import packages (``surge_dataset`` and the baselines' ``surge_baselines``), never a top-level ``baselines``."""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "surge_dataset"
#: The standard library's server modules; a class that derives from theirs (or a module that imports them) serves
#: sockets: that is test code (tests/support/), never the package's.
SERVER_MODULES = ("http.server", "socketserver", "wsgiref.simple_server", "xmlrpc.server")
SERVER_CLASSES = {
    "BaseHTTPRequestHandler", "SimpleHTTPRequestHandler", "CGIHTTPRequestHandler", "HTTPServer", "ThreadingHTTPServer",
    "BaseServer", "TCPServer", "UDPServer", "ThreadingTCPServer", "ThreadingUDPServer", "ThreadingMixIn",
    "ForkingMixIn", "BaseRequestHandler", "StreamRequestHandler", "DatagramRequestHandler", "WSGIServer",
    "WSGIRequestHandler", "SimpleXMLRPCServer",
}


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return []


def http_servers(root: Path) -> list[str]:
    """``file:line what`` of every class under ``root`` that serves HTTP or sockets (one deriving from the standard
    library's servers and handlers, or from such a module-level class of ``root``), and every import of a server
    module (function-level ones too)."""
    trees = {path.relative_to(root.parent): ast.parse(path.read_text(encoding="utf-8"))
             for path in sorted(root.rglob("*.py"))}
    serving, found = set(SERVER_CLASSES), {}
    while True:  # a class deriving from a serving class of ours serves too (to a fixed point)
        before = len(found)
        for where, tree in trees.items():
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    bases = sorted({ast.unparse(base).rsplit(".", 1)[-1] for base in node.bases} & serving)
                    if bases:
                        found[f"{where}:{node.lineno}"] = f"class {node.name}({', '.join(bases)})"
                        if node in tree.body:  # a nested class's name is local: not a base elsewhere
                            serving.add(node.name)
        if len(found) == before:
            break
    imports = [f"{where}:{node.lineno} imports {name}" for where, tree in trees.items() for node in ast.walk(tree)
               for name in _imported(node)
               if name in SERVER_MODULES or name.startswith(tuple(f"{m}." for m in SERVER_MODULES))]
    return sorted([f"{at} {what}" for at, what in found.items()] + imports)


def test_no_class_under_surge_dataset_serves_http() -> None:
    """Test servers live in tests/support/ (not shipped): the package holds none."""
    assert http_servers(PACKAGE) == []


def test_the_server_check_finds_a_server(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "serve.py").write_text(
        "import http.server as hs\n\n"
        "class Handler(hs.BaseHTTPRequestHandler):\n    pass\n\n"
        "def later():\n    from socketserver import TCPServer\n    return TCPServer\n")
    (package / "use.py").write_text("from logging import Handler as Log\nfrom pkg.serve import Handler\n\n"
                                    "def start():\n    class Quiet(Handler):\n        class Log(Log):\n"
                                    "            pass\n\nclass ToConsole(Log):\n    pass\n")
    assert http_servers(package) == ["pkg/serve.py:1 imports http.server",
                                      "pkg/serve.py:3 class Handler(BaseHTTPRequestHandler)",
                                      "pkg/serve.py:7 imports socketserver",
                                      "pkg/serve.py:7 imports socketserver.TCPServer",
                                      "pkg/use.py:5 class Quiet(Handler)"]
    assert any("local_server.py" in line for line in http_servers(REPO_ROOT / "tests" / "support"))


def test_no_product_module_imports_the_public_testing_package() -> None:
    """``surge_dataset.testing`` is for users' tests and examples: nothing else in the package imports it."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_relative_to(PACKAGE / "testing"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            offenders += [f"{path.relative_to(REPO_ROOT)}:{node.lineno}" for name in _imported(node)
                          if name == "surge_dataset.testing" or name.startswith("surge_dataset.testing.")]
    assert offenders == []


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built offline with the installed hatchling (no build isolation)."""
    pytest.importorskip("hatchling", reason="hatchling (in the dev extra) builds the wheel")
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(out)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = out.glob("*.whl")
    return built


def test_the_wheel_installs_surge_dataset_and_surge_baselines_only(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/", 1)[0] for name in names if not name.split("/", 1)[0].endswith(".dist-info")}
    assert top == {"surge_dataset", "surge_baselines"}  # no `baselines/`: that name is another PyPI project's
    assert "surge_baselines/__init__.py" in names and "surge_baselines/rag.py" in names
    assert "surge_dataset/testing/__init__.py" in names  # the public test doubles ship
    shipped = [n for n in names if n.endswith(".py")]
    assert not [n for n in shipped if "/tests/" in n or n.rsplit("/", 1)[-1] in ("local_server.py", "parity.py")]
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    generators = zipfile.ZipFile(wheel).read(entry_points).decode().split("[surge.generators]")[1].split("\n[")[0]
    targets = [line.split("=", 1)[1].strip() for line in generators.strip().splitlines()]
    assert len(targets) == 8 and all(t.startswith("surge_baselines.") for t in targets), targets
    for target in targets:  # every entry point names a module the wheel holds
        module = target.split(":")[0]
        assert f"{module.replace('.', '/')}.py" in names, target
