"""`surge import --format storm` on a real Co-STORM run folder: its ``report.md`` and the ``instance_dump.json`` whose
``knowledge_base.info_uuid_to_info_dict`` numbers the sources (tests/fixtures/generated/deepresearch/README.md gives
the origin, the licence and how the counts below were made by reading the files).

The dump is stored gzipped (the same bytes: its git blob id is checked below) because it is 0.6 MB; each test
unpacks it into the run folder it imports, so the importer reads the file exactly as Co-STORM wrote it."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.importers import import_outputs
from surge_dataset.survey import parse_survey

runner = CliRunner()
RUN = Path(__file__).parent / "fixtures" / "generated" / "deepresearch" / "costorm_lifelong_ai_agents"
#: git's blob ids of the two files at the commit the README names: the copies here are those bytes.
REPORT_BLOB = "2e2d90cce99a784c9744d21d0feba5efaba8e6a6"
DUMP_BLOB = "8f05927077bf51401405a7d0b91b41ecfed0e683"
#: headings, citations, distinct cited numbers, references, citations without an entry: counted by hand.
HAND = (20, 83, 65, 80, 0)


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _dump_bytes() -> bytes:
    return gzip.decompress((RUN / "instance_dump.json.gz").read_bytes())


def _run_folder(root: Path, name: str = "0") -> Path:
    """SOURCE/<name>/{report.md, instance_dump.json}: the run folder as Co-STORM left it."""
    folder = root / "in" / name
    folder.mkdir(parents=True)
    shutil.copyfile(RUN / "report.md", folder / "report.md")
    (folder / "instance_dump.json").write_bytes(_dump_bytes())
    return root / "in"


@pytest.fixture(scope="module")
def data(sample_dataset) -> SurgeData:
    return SurgeData.open(sample_dataset)


def test_the_fixture_holds_the_bytes_of_the_named_commit():
    assert _blob_id((RUN / "report.md").read_bytes()) == REPORT_BLOB
    assert _blob_id(_dump_bytes()) == DUMP_BLOB


def test_import_report_equals_hand_counts_and_evaluate_counts(data, sample_dataset, tmp_path, monkeypatch):
    monkeypatch.setenv("SURGE_OFFLINE", "1")
    report = import_outputs("storm", _run_folder(tmp_path), data, tmp_path / "out")
    assert report.skipped == []
    record = report.surveys[0]
    written = parse_survey(Path(record["output"]).read_text(encoding="utf-8"), protocol="paper")
    counted = (record["headings"], record["citations"], len({c.number for c in written.citations}),
               record["references"], record["citations_without_entry"])
    assert counted == HAND
    done = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(tmp_path / "out"),
                               "--metrics", "recall", "--protocol", "paper", "--out", str(tmp_path / "r.json")])
    assert done.exit_code == 0, done.output
    counts = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["surveys"]["0"]["counts"]
    assert (counts["headings"], counts["citations"], counts["references"],
            counts["citations_of_missing_numbers"]) == (HAND[0], HAND[1], HAND[3], HAND[4])


def test_costorm_sources_are_numbered_by_the_knowledge_base_not_by_url(data, tmp_path):
    """The knowledge base files one URL under several numbers (a snippet each: 80 numbers, 60 URLs); the article
    cites the numbers, so each number keeps its own entry, titled as the dump titles it, and the uncited ones stay
    listed. The written survey renumbers by first citation: the article's first marks, ``[2][4]``, become [1][2]."""
    import_outputs("storm", _run_folder(tmp_path), data, tmp_path / "out")
    text = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8")
    infos = json.loads(_dump_bytes())["knowledge_base"]["info_uuid_to_info_dict"]
    assert len(infos) == 80 and len({info["url"] for info in infos.values()}) == 60
    assert infos["1"]["url"] == infos["71"]["url"]  # one page, two numbers
    body, listed = text.split("# References")
    assert "theories effectively[1][2]. They can automate" in body
    assert f"\n[1] {infos['2']['title']}\n" in listed and f"\n[2] {infos['4']['title']}\n" in listed
    entries = [line for line in listed.splitlines() if line.startswith("[")]
    assert len(entries) == 80
    same_title = [n for n, info in infos.items() if info["title"] == infos["1"]["title"]]
    assert len(same_title) == 3 and sum(line.endswith(infos["1"]["title"]) for line in entries) == 3
    cited = sorted({c.number for c in parse_survey(text, protocol="paper").citations})
    article = {c.number for c in parse_survey((RUN / "report.md").read_text(encoding="utf-8"), protocol="paper").citations}
    assert set(range(1, 72)) - article == {19, 23, 44, 61, 65, 67} and max(article) == 71
    assert cited == list(range(1, len(article) + 1))
