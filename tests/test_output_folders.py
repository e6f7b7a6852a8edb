"""No command ever deletes or overwrites a user's files.

Each command that writes a folder refuses, with exit 2 and one line naming a *different* folder:
``--out`` equal to, inside or containing its input; an existing folder of files surge did not write
(with or without ``--overwrite``); a folder of ours of another kind. Only its own kind of output is
replaced, and only with ``--overwrite`` (resumable writers add to theirs).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.core.errors import OutputFolderError
from surge_dataset.core.output_folder import MARKER, folder_kind

from .conftest import SAMPLE_DIR

runner = CliRunner()
RAW_FILES = ("surveys.json", "corpus.json", "queries.json")


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def raw_copy(tmp_path: Path) -> Path:
    """A user's folder of official JSON files (the sample), as in a fresh clone's examples/sample."""
    folder = tmp_path / "sample"
    folder.mkdir()
    for name in RAW_FILES:
        shutil.copyfile(SAMPLE_DIR / name, folder / name)
    return folder


def _refused(result, *must_say: str) -> str:
    """Exit 2, one line on stderr, no traceback, and the given words in it."""
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    text = result.output.strip()
    assert "Traceback" not in text and "\x1b[" not in text
    assert text.startswith("error:") and len(text.splitlines()) == 1, text
    for words in must_say:
        assert words in text, text
    return text


@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
def test_build_into_its_own_source_is_refused_and_the_files_survive(raw_copy, overwrite):
    before = _snapshot(raw_copy)
    result = runner.invoke(app, ["data", "build", "--source", str(raw_copy), "--out", str(raw_copy), *overwrite])
    text = _refused(result, "--source", "choose a different folder")
    assert f"--out {raw_copy}-built" in text  # the hint names another folder, never the source again
    assert _snapshot(raw_copy) == before
    # the hint works as given
    result = runner.invoke(app, ["data", "build", "--source", str(raw_copy), "--out", f"{raw_copy}-built"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("where", ["inside", "contains"])
def test_build_inside_or_around_its_source_is_refused(raw_copy, tmp_path, where):
    out = raw_copy / "built" if where == "inside" else tmp_path
    before = _snapshot(raw_copy)
    result = runner.invoke(app, ["data", "build", "--source", str(raw_copy), "--out", str(out), "--overwrite"])
    _refused(result, where if where == "contains" else "is inside")
    assert _snapshot(raw_copy) == before


def test_a_folder_of_someone_elses_files_is_never_replaced(raw_copy, tmp_path):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    for command in (
        ["data", "build", "--source", str(raw_copy), "--out", str(theirs), "--overwrite"],
        ["data", "build", "--source", str(raw_copy), "--out", str(theirs)],
    ):
        _refused(runner.invoke(app, command), "surge did not write", "'notes.txt'", "even with --overwrite")
    assert (theirs / "notes.txt").read_text() == "mine"


def test_a_built_dataset_is_replaced_only_with_overwrite(raw_copy, tmp_path):
    out = tmp_path / "built"
    assert runner.invoke(app, ["data", "build", "--source", str(raw_copy), "--out", str(out)]).exit_code == 0
    _refused(runner.invoke(app, ["data", "build", "--source", str(raw_copy), "--out", str(out)]), "--overwrite")
    result = runner.invoke(app, ["data", "build", "--source", str(raw_copy), "--out", str(out), "--overwrite"])
    assert result.exit_code == 0, result.output
    assert folder_kind(out) == "dataset"


def test_an_index_never_replaces_a_dataset(sample_dataset, tmp_path):
    data = tmp_path / "surge"
    shutil.copytree(sample_dataset, data)
    before = _snapshot(data)
    result = runner.invoke(app, ["index", "bm25", "--data", str(data), "--out", str(data), "--overwrite"])
    _refused(result, "--data")
    other = tmp_path / "other-dataset"
    shutil.copytree(sample_dataset, other)
    result = runner.invoke(app, ["index", "bm25", "--data", str(data), "--out", str(other), "--overwrite"])
    _refused(result, "a built SurGE dataset, not a retrieval index")
    assert _snapshot(data) == before and folder_kind(other) == "dataset"
    index = tmp_path / "bm25"
    assert runner.invoke(app, ["index", "bm25", "--data", str(data), "--out", str(index)]).exit_code == 0
    assert runner.invoke(app, ["index", "bm25", "--data", str(data), "--out", str(index), "--overwrite"]).exit_code == 0


def test_dense_encoding_refuses_someone_elses_folder(sample_dataset, tmp_path):
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.retrieval.encoding import encode_corpus

    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "embeddings.npy").write_bytes(b"not ours")
    with pytest.raises(OutputFolderError, match="surge did not write"):
        encode_corpus(tmp_path / "no-model", SurgeData.open(sample_dataset), theirs, overwrite=True)
    assert (theirs / "embeddings.npy").read_bytes() == b"not ours"


def test_export_render_and_retrieval_export_never_write_over_raw_files(sample_dataset, raw_copy, tmp_path):
    before = _snapshot(raw_copy)
    for command in (
        ["data", "export", "--data", str(sample_dataset), "--out", str(raw_copy)],
        ["data", "render", "--data", str(sample_dataset), "--out", str(raw_copy)],
        ["data", "export-retrieval", "--data", str(sample_dataset), "--out", str(raw_copy), "--overwrite"],
        ["data", "export", "--data", str(sample_dataset), "--out", str(sample_dataset / "index")],
    ):
        _refused(runner.invoke(app, command))
    assert _snapshot(raw_copy) == before
    # their own earlier output is written again (a rerun of `make demo`)
    rendered = tmp_path / "rendered"
    for _ in range(2):
        result = runner.invoke(app, ["data", "render", "--data", str(sample_dataset), "--out", str(rendered),
                                     "--survey-ids", "0"])
        assert result.exit_code == 0, result.output
    assert (rendered / "0" / "survey.md").is_file() and folder_kind(rendered) == "rendered-surveys"
    exported = tmp_path / "exported"
    for _ in range(2):
        assert runner.invoke(app, ["data", "export", "--data", str(sample_dataset), "--out", str(exported)]).exit_code == 0


def test_render_never_overwrites_a_users_generated_surveys(sample_dataset, tmp_path):
    outputs = tmp_path / "my-system"
    (outputs / "0").mkdir(parents=True)
    (outputs / "0" / "survey.md").write_text("# my survey\n")
    _refused(runner.invoke(app, ["data", "render", "--data", str(sample_dataset), "--out", str(outputs)]))
    assert (outputs / "0" / "survey.md").read_text() == "# my survey\n"


def test_import_refuses_other_files_even_with_overwrite(sample_dataset, tmp_path):
    source = tmp_path / "peer"
    (source / "0").mkdir(parents=True)
    (source / "0" / "survey.md").write_text("# A survey\n\n## Intro\n\nText [1].\n\n## References\n\n[1] X\n")
    theirs = tmp_path / "theirs"
    (theirs / "0").mkdir(parents=True)
    (theirs / "0" / "survey.md").write_text("keep me")
    base = ["import", str(source), "--format", "markdown", "--data", str(sample_dataset)]
    _refused(runner.invoke(app, [*base, "--out", str(theirs), "--overwrite"]), "surge did not write")
    assert (theirs / "0" / "survey.md").read_text() == "keep me"
    _refused(runner.invoke(app, [*base, "--out", str(source), "--overwrite"]), "SOURCE")
    mine = tmp_path / "imported"
    runner.invoke(app, [*base, "--out", str(mine)])
    assert folder_kind(mine) == "imported-surveys"
    _refused(runner.invoke(app, [*base, "--out", str(mine)]), "--overwrite")


def test_generate_refuses_a_folder_of_other_files_but_resumes_its_own(sample_dataset, tmp_path):
    from surge_dataset.data.dataset import SurgeData
    from surge_dataset.generation.run import generate_surveys

    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "paper.tex").write_text("keep")
    with pytest.raises(OutputFolderError, match="surge did not write"):
        generate_surveys(SurgeData.open(sample_dataset), object(), None, theirs, [0])


def test_metrics_install_removes_only_its_own_stale_copies(tmp_path):
    from surge_dataset.publish.modules import install_metrics

    cache = tmp_path / "modules"
    home = cache / "evaluate_modules" / "metrics" / "surge--shr"
    ours, hubs = home / ("a" * 64), home / ("b" * 64)
    for copy, origin in ((ours, "/somewhere/metrics/shr/shr.py"), (hubs, "https://huggingface.co/spaces/surge/shr/shr.py")):
        copy.mkdir(parents=True)
        (copy / "shr.py").write_text("# old")
        (copy / "shr.json").write_text(json.dumps({"original file path": origin}))
    install_metrics("surge", ["shr"], cache)
    assert not ours.exists() and hubs.is_dir()
    installed = [p for p in home.iterdir() if p.is_dir() and p != hubs]
    assert len(installed) == 1 and (installed[0] / MARKER).is_file()


def test_evaluate_on_the_raw_folder_hints_at_a_different_folder(raw_copy, tmp_path):
    result = runner.invoke(app, ["evaluate", "--data", str(raw_copy), "--passages", str(tmp_path), "--metrics", "recall"])
    text = _refused(result, "official JSON files", f"--source {raw_copy} --out {raw_copy}-built")
    assert f"--out {raw_copy} " not in text + " "


def test_a_marker_being_written_by_another_process_is_not_someone_elses_file(tmp_path):
    """Two `surge generate` processes on one --out: the second may look while the first writes its marker."""
    from surge_dataset.core.io import atomic_path
    from surge_dataset.core.output_folder import check_output_folder

    out = tmp_path / "rag"
    out.mkdir()
    with atomic_path(out / MARKER) as tmp:  # the marker's temporary file, mid-write
        tmp.write_text("{")
        assert check_output_folder(out, "generated-surveys", adds_to_existing=True) is False
    (out / MARKER).unlink()
    (out / f".{MARKER}.k2j4h1.tmp").write_text("{")  # one left by a killed process
    assert check_output_folder(out, "generated-surveys", adds_to_existing=True) is False
    (out / ".git").mkdir()  # but a hidden folder of the user's is theirs
    with pytest.raises(OutputFolderError, match="'.git'"):
        check_output_folder(out, "generated-surveys", adds_to_existing=True)
