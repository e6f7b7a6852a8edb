"""`surge evaluate` under `accelerate launch`: the NLI and encoder work split between processes, the
result the same JSON as one process, a run killed on one process resumed by the same command."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from surge_dataset.data.dataset import SurgeData
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation.parallel import ModelShare
from surge_dataset.models.cache import length_sorted_chunks

from .processes import accelerate_launch, subprocess_env

#: Model-backed metrics of every kind that is split (NLI: citation accuracy and ALCE's staged NLI; encoder:
#: SHR and SIM), plus recall, which needs no model.
METRICS = "recall,citation_accuracy,alce,shr,sim"


# ------------------------------------------------------------------------------------------ the chunk rule


def test_length_sorted_chunks_is_a_stable_longest_first_cut() -> None:
    items = ["bb", "a", "cccc", "dd", "e", "ffff"]
    # lengths 2,1,4,2,1,4 -> longest first, ties in input order: cccc ffff bb dd a e
    assert length_sorted_chunks(items, len, 4) == [["cccc", "ffff", "bb", "dd"], ["a", "e"]]
    assert length_sorted_chunks([], len, 3) == []
    with pytest.raises(ValueError, match="chunk_size"):
        length_sorted_chunks(items, len, 0)


@pytest.mark.parametrize("processes", [2, 3, 5])
def test_a_process_share_is_batched_by_the_backend_exactly_as_one_process_batches_it(processes: int) -> None:
    """Why the split changes no number: the chunks dealt to one process, concatenated and handed to the
    backend (which sorts and cuts again), come back as the same chunks -- the same model batches."""
    rng = random.Random(7)
    items = [("x" * rng.randrange(1, 40), "y" * rng.randrange(1, 40)) for _ in range(503)]
    length = lambda pair: len(pair[0]) + len(pair[1])  # noqa: E731 - NLIScorer.item_length
    chunks = length_sorted_chunks(items, length, 16)
    for index in range(processes):
        mine = [chunk for i, chunk in enumerate(chunks) if i % processes == index]
        flat = [item for chunk in mine for item in chunk]
        assert length_sorted_chunks(flat, length, 16) == mine


def test_share_line_names_the_process_and_what_it_computed() -> None:
    share = ModelShare(1, nli_pairs=184, encoder_texts=96, chunks=9, seconds=3.21, of={"nli": 408, "encoder": 219})
    assert share.line(2) == ("[process 1/2] model work: 184 of 408 NLI pairs, 96 of 219 encoder texts in 9 chunks, "
                             "3.2 s")


# ------------------------------------------------------------------------------------------ real launches


def _evaluate(processes: int, args: list[str], out: Path, cache: Path, *, script: list[str] | None = None
              ) -> subprocess.CompletedProcess[str]:
    command = accelerate_launch(processes, [*(script or ["-m", "surge_dataset.cli"]), "evaluate", *args, "--out",
                                            str(out)])
    return subprocess.run(command, env=subprocess_env(cache), capture_output=True, text=True, timeout=400)


def _without_config(path: Path) -> dict:
    results = json.loads(path.read_text(encoding="utf-8"))
    results.pop("config")
    return results


@pytest.fixture(scope="module")
def passages(sample_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every sample survey rendered as a generated survey, and a damaged copy of that folder."""
    data = SurgeData.open(sample_dataset)
    root = tmp_path_factory.mktemp("parallel")
    render_surveys(data.surveys(), data.corpus, root / "clean")
    damaged = root / "damaged"
    render_surveys(data.surveys(), data.corpus, damaged)
    (damaged / "0" / "survey.md").write_bytes(b"")  # empty
    text = (damaged / "1" / "survey.md").read_text(encoding="utf-8")
    (damaged / "1" / "survey.md").write_bytes(b"\xef\xbb\xbf" + text.replace("[2]", "[99]").encode())  # BOM, bad cite
    (damaged / "2" / "survey.md").write_bytes(text.encode("utf-8")[: len(text) // 2] + b"\xff\xfe broken")  # cut, not UTF-8
    (damaged / "42" / "notes.md").write_text("# Second file\n", encoding="utf-8")  # two .md files
    (damaged / "not-an-id").mkdir()
    (damaged / "999").mkdir()  # no such survey, no file
    return {"clean": root / "clean", "damaged": damaged}


@pytest.fixture(scope="module")
def model_args(sample_dataset: Path, tiny_nli_path: Path, minilm_path: Path) -> list[str]:
    # --batch-size 2: chunks of 32 inputs, so the sample's few hundred NLI pairs make chunks for both processes
    return ["--data", str(sample_dataset), "--metrics", METRICS, "--nli-model", str(tiny_nli_path),
            "--embedding-model", str(minilm_path), "--batch-size", "2"]


@pytest.fixture(scope="module")
def one_process(passages: dict[str, Path], model_args: list[str], tmp_path_factory: pytest.TempPathFactory
                ) -> dict[str, tuple[int, Path, str]]:
    """Each folder evaluated by one process (a plain `surge evaluate`): exit status, results, details."""
    runs = {}
    for folder, path in passages.items():
        root = tmp_path_factory.mktemp(f"one-{folder}")
        args = [*model_args, "--passages", str(path), "--details", str(root / "details.jsonl")]
        one = _evaluate(1, args, root / "one.json", root / "cache")
        assert one.returncode in (0, 1), one.stderr[-3000:]  # 1: surveys that could not be read
        runs[folder] = (one.returncode, root / "one.json", (root / "details.jsonl").read_text(encoding="utf-8"))
    return runs


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["clean", "damaged"])
def test_two_processes_give_the_json_of_one(folder: str, passages: dict[str, Path], model_args: list[str],
                                            one_process: dict[str, tuple[int, Path, str]], tmp_path: Path) -> None:
    status, one, details_one = one_process[folder]
    assert status == (1 if folder == "damaged" else 0)
    args = [*model_args, "--passages", str(passages[folder]), "--details", str(tmp_path / "details.jsonl")]
    two = _evaluate(2, args, tmp_path / "two.json", tmp_path / "cache-two")
    assert two.returncode == status, two.stderr[-3000:]

    assert _without_config(tmp_path / "two.json") == _without_config(one)
    assert (tmp_path / "details.jsonl").read_text(encoding="utf-8") == details_one  # written by the main process
    config = json.loads((tmp_path / "two.json").read_text(encoding="utf-8"))["config"]
    assert config["num_processes"] == 2
    assert json.loads(one.read_text(encoding="utf-8"))["config"]["num_processes"] == 1
    work = config["model_work"]
    assert [w["process"] for w in work] == [0, 1]
    for kind, field in (("nli", "nli_pairs"), ("encoder", "encoder_texts")):
        total = work[0]["of"][kind]
        assert total == work[1]["of"][kind] > 0  # both processes saw the whole run's inputs
        assert work[0][field] + work[1][field] == total and work[0][field] > 0 and work[1][field] > 0
    # one voice: the table once, each process's share once, printed by the main process
    assert two.stdout.count("(official protocol)") == 1  # the table's title (its "mean" rows: one or two)
    for index in (0, 1):
        assert f"[process {index}/2] model work:" in two.stderr
    journal = (tmp_path / "two.json.journal.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(journal) == len({json.loads(line)["survey_id"] for line in journal})  # each survey scored once


_KILLER = """
import os, signal, sys
from surge_dataset.models import nli

compute, calls = nli.NLIScorer._compute, []

def dies_on_second_chunk(self, pairs):  # process 1 dies in the middle of its NLI share
    calls.append(len(pairs))
    if os.environ.get("RANK") == "1" and len(calls) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return compute(self, pairs)

nli.NLIScorer._compute = dies_on_second_chunk
from surge_dataset.cli import main
sys.argv = ["surge", *sys.argv[1:]]
main()
"""


@pytest.mark.slow
def test_a_run_killed_on_one_process_resumes_with_the_same_command(
        passages: dict[str, Path], model_args: list[str], one_process: dict[str, tuple[int, Path, str]],
        tmp_path: Path) -> None:
    args = [*model_args, "--passages", str(passages["clean"])]
    killer = tmp_path / "killer.py"
    killer.write_text(_KILLER, encoding="utf-8")
    cache, out = tmp_path / "cache-two", tmp_path / "two.json"
    killed = _evaluate(2, args, out, cache, script=[str(killer)])
    assert killed.returncode != 0 and not out.exists(), killed.stderr[-3000:]
    assert (cache / "nli.sqlite").is_file()  # the finished chunks are kept
    resumed = _evaluate(2, args, out, cache)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert _without_config(out) == _without_config(one_process["clean"][1])



_OTHER_FOLDER_ON_RANK_1 = """
import os, sys
argv = sys.argv[1:]
if os.environ.get("RANK") == "1":  # this "machine" sees another passage folder
    argv[argv.index("--passages") + 1] = os.environ["OTHER_PASSAGES"]
from surge_dataset.cli import main
sys.argv = ["surge", *argv]
main()
"""


def test_processes_that_see_other_surveys_stop_with_an_error_not_a_hang(
        passages: dict[str, Path], model_args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "other.py"
    script.write_text(_OTHER_FOLDER_ON_RANK_1, encoding="utf-8")
    other = tmp_path / "other"
    (other / "0").mkdir(parents=True)
    (other / "0" / "survey.md").write_text((passages["clean"] / "0" / "survey.md").read_text(encoding="utf-8"))
    monkeypatch.setenv("OTHER_PASSAGES", str(other))  # subprocess_env copies os.environ into the launch
    run = _evaluate(2, [*model_args, "--passages", str(passages["clean"])], tmp_path / "r.json", tmp_path / "cache",
                    script=[str(script)])
    assert run.returncode != 0 and not (tmp_path / "r.json").exists()
    assert "processes 1 of 2 see other surveys to score than process 0" in " ".join(run.stderr.split())
