"""Models by name and weights fingerprint, never by local path, and one way to find a system's
surveys."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
from surge_dataset.models.identity import judge_identity, locate_model, model_identity, weights_fingerprint

runner = CliRunner()
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_WEIGHTS = "sha256:53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _hub_cache(cache: Path, repo_id: str, source: Path, revision: str = "0" * 40) -> Path:
    """A Hub cache as huggingface_hub writes it: blobs named by their sha256, a snapshot of links to them."""
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / revision
    for file in sorted(p for p in source.rglob("*") if p.is_file()):
        blob = repo / "blobs" / _sha256(file)
        blob.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, blob)
        link = snapshot / file.relative_to(source)
        link.parent.mkdir(parents=True, exist_ok=True)
        depth = len(link.relative_to(repo / "snapshots").parts) - 2  # folders inside the snapshot
        link.symlink_to(Path("../" * depth + "../../blobs") / blob.name)
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(revision)
    return snapshot


def test_the_bundled_minilm_is_recorded_under_its_hub_name(minilm_path):
    identity = model_identity(minilm_path)
    assert (identity.name, identity.fingerprint) == (MINILM, MINILM_WEIGHTS)
    assert weights_fingerprint(minilm_path) == f"sha256:{_sha256(minilm_path / 'model.safetensors')}"


def test_a_hub_cache_snapshot_is_its_hub_id_and_unknown_folders_their_name(tiny_nli_path, tmp_path, monkeypatch):
    snapshot = _hub_cache(tmp_path / "hub", "BAAI/bge-large-en-v1.5", tiny_nli_path)
    weights = next(snapshot.glob("*.safetensors"))
    identity = model_identity(snapshot)
    assert identity.name == "BAAI/bge-large-en-v1.5"
    assert identity.fingerprint == f"sha256:{Path(weights.resolve()).name}" == weights_fingerprint(tiny_nli_path)
    copy = shutil.copytree(tiny_nli_path, tmp_path / "models" / "my-nli")
    assert model_identity(copy) == model_identity(tiny_nli_path).__class__("my-nli", identity.fingerprint)
    # the Hub id given as a name: fingerprinted from the cache when it holds the model
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    assert model_identity("BAAI/bge-large-en-v1.5").fingerprint == identity.fingerprint
    found, where = locate_model("BAAI/bge-large-en-v1.5", identity.fingerprint)
    assert found == snapshot and where == "the Hub cache"
    other, why = locate_model("BAAI/bge-large-en-v1.5", "sha256:" + "0" * 64)
    assert other is None and "the Hub cache holds other weights" in why and str(tmp_path) not in why


def test_a_local_judge_is_named_without_its_path(tmp_path):
    gguf = tmp_path / "models" / "judge.Q4.gguf"
    gguf.parent.mkdir()
    gguf.write_bytes(b"GGUF" + b"\0" * 64)
    identity = judge_identity(f"gguf:{gguf}")
    assert identity.name == "gguf:judge.Q4.gguf" and identity.fingerprint == f"sha256:{_sha256(gguf)}"
    assert judge_identity("openai:gpt-4o").fingerprint is None and judge_identity(None) is None


def test_results_name_models_so_that_copies_compare_and_submit(sample_dataset, minilm_path, tmp_path):
    """`--embedding-model "$(surge models path minilm)"` and a copy of that folder elsewhere: one model, one group on
    the leaderboard, no path in either results file, and `surge submit` takes them (docs/submitting.md's example)."""
    data = SurgeData.open(sample_dataset)
    render_surveys(data.surveys("test"), data.corpus, tmp_path / "passages")
    copy = shutil.copytree(minilm_path, tmp_path / "offline" / "minilm")
    for name, folder in (("bundled", minilm_path), ("copied", copy)):
        result = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(tmp_path / "passages"),
                                     "--metrics", "recall,shr", "--embedding-model", str(folder), "--device", "cpu",
                                     "--out", str(tmp_path / "results" / f"{name}.json")])
        assert result.exit_code == 0, result.output
    configs = [json.loads((tmp_path / "results" / f"{n}.json").read_text())["config"] for n in ("bundled", "copied")]
    assert configs[0]["embedding_model"] == configs[1]["embedding_model"] == MINILM
    assert configs[0]["models"]["embedding_model"] == configs[1]["models"]["embedding_model"] == {
        "name": MINILM, "fingerprint": MINILM_WEIGHTS}
    assert configs[0]["passages"] == "../passages"
    assert not any(str(tmp_path) in json.dumps({k: v for k, v in c.items() if k != "data"}) for c in configs)
    # the journal keys of Hub-name runs are unchanged (tests/test_journal_keys.py); the key follows the setting given
    assert EvaluationConfig(metrics=["shr"], device="cuda").key("fp") == "df29e595ecca81e6"

    from surge_dataset.leaderboard import build_space

    summary = build_space([tmp_path / "results" / "bundled.json", tmp_path / "results" / "copied.json"],
                          tmp_path / "space", resamples=200)
    assert summary.groups == 1
    submitted = runner.invoke(app, ["submit", str(tmp_path / "results" / "bundled.json"), "--passages",
                                    str(tmp_path / "passages"), "--data", str(sample_dataset), "--out",
                                    str(tmp_path / "submission")])
    assert submitted.exit_code == 0, submitted.output
    assert "verification: verified" in submitted.output  # recall and SHR re-computed with the bundled MiniLM


def test_old_results_naming_a_local_folder_are_renamed_when_submitted(sample_dataset, minilm_path, tmp_path):
    """Results written before models were recorded by name hold the folder: `surge submit` records it by name."""
    data = SurgeData.open(sample_dataset)
    render_surveys(data.surveys("test"), data.corpus, tmp_path / "passages")
    config = EvaluationConfig(metrics=["recall"], embedding_model=str(minilm_path))
    results = evaluate_run(data, tmp_path / "passages", tmp_path / "old.json", EvaluationSession(config))
    results["config"].update(embedding_model=str(minilm_path), passages=str(tmp_path / "passages"))
    results["config"].pop("models")
    (tmp_path / "old.json").write_text(json.dumps(results), encoding="utf-8")
    from surge_dataset.leaderboard.submission import pack_submission

    submission = pack_submission(tmp_path / "old.json", tmp_path / "passages", tmp_path / "sub", data=data)
    packed = json.loads(submission.results.read_text(encoding="utf-8"))["config"]
    assert packed["embedding_model"] == MINILM and packed["models"]["embedding_model"]["fingerprint"] == MINILM_WEIGHTS
    assert "results.json: config.embedding_model" in submission.manifest["relocated"]


# ------------------------------------------------------------------------------ 33.5 one way to find the surveys


@pytest.fixture
def run_from_elsewhere(sample_dataset, tmp_path, monkeypatch) -> tuple[Path, list[Path]]:
    """Two systems evaluated from ``project/`` with relative paths (as a user types them); then the shell moves on."""
    project = tmp_path / "project"
    data = SurgeData.open(sample_dataset)
    monkeypatch.chdir(tmp_path)
    for name in ("a", "b"):
        render_surveys(data.surveys("test"), data.corpus, project / "outputs" / name)
    for survey in (project / "outputs" / "b").glob("*/survey.md"):  # two systems: other survey files
        survey.write_text(survey.read_text(encoding="utf-8") + "\nSystem b's last line.\n", encoding="utf-8")
    monkeypatch.chdir(project)
    paths = []
    for name in ("a", "b"):
        evaluate_run(data, Path("outputs") / name, Path("results") / f"{name}.json",
                     EvaluationSession(EvaluationConfig(metrics=["recall"])))
        paths.append(project / "results" / f"{name}.json")
    monkeypatch.chdir(tmp_path)
    return project, paths


def test_the_arena_finds_recorded_surveys_from_another_folder(run_from_elsewhere):
    from surge_dataset.judging.arena import load_systems

    project, paths = run_from_elsewhere
    assert json.loads(paths[0].read_text())["config"]["passages"] == "../outputs/a"
    systems = load_systems(paths)
    assert [s.name for s in systems] == ["a", "b"]
    assert systems[0].surveys[0].resolve() == (project / "outputs" / "a" / "0" / "survey.md").resolve()


def test_the_leaderboard_follows_the_recorded_folder_as_the_arena_does(run_from_elsewhere, tmp_path):
    """The same rule, confined: below --passages-root (or, without one, below the results file's folder)."""
    import pyarrow.parquet as pq

    from surge_dataset.leaderboard import build_space

    project, paths = run_from_elsewhere
    summary = build_space(paths, tmp_path / "space", passages_root=project, resamples=200)
    assert not any("no generated surveys" in w for w in summary.warnings)
    surveys = pq.read_table(tmp_path / "space" / "data" / "surveys.parquet").to_pandas()
    assert sorted(surveys["system"].unique()) == ["a", "b"] and len(surveys) == 6
    alone = build_space(paths, tmp_path / "alone", resamples=200)  # outputs/ is not below results/: not followed
    assert any("a: its recorded passages folder 'a' is outside the results file's folder (pass --passages-root DIR"
               in w for w in alone.warnings)
