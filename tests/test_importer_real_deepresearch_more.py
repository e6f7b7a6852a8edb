"""`surge import --format storm` on real runs: a Co-STORM run folder (its ``report.md`` and the ``instance_dump.json``
whose ``knowledge_base.info_uuid_to_info_dict`` numbers the sources) and a STORM run folder (its articles and the
``url_to_info.json`` whose ``url_to_unified_index`` numbers the sources). tests/fixtures/generated/deepresearch/README.md
gives their origin, the licence and how the counts below were made by reading the files.

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
from surge_dataset.importers.links import LinkOptions
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


STORM_RUN = RUN.parent / "storm_agent_automl"
#: git's blob ids of the STORM run's files at the commit the README names.
STORM_BLOBS = {"storm_gen_article_polished.txt": "093f2c289adf8c0f6abea51efacf4c42acd0ef45",
               "storm_gen_article.txt": "e74af3060f63a385422414e1629373086eaf9f08",
               "url_to_info.json": "3fa211799eb60e4f517a53266164be38c36a1a07"}
#: headings, citations, distinct cited numbers, references, citations without an entry, counted by hand: the
#: polished article (with STORM's ``# summary`` lead) and the draft article (without it), over the same sources.
STORM_HAND = {"storm_gen_article_polished.txt": (41, 93, 28, 28, 0), "storm_gen_article.txt": (40, 93, 28, 28, 0)}


def _storm_folder(root: Path, article: str) -> Path:
    """SOURCE/0/{ARTICLE, url_to_info.json}: the run folder with one of its two articles, named by a survey id."""
    folder = root / "in" / "0"
    folder.mkdir(parents=True)
    for name in (article, "url_to_info.json"):
        shutil.copyfile(STORM_RUN / name, folder / name)
    return root / "in"


def test_the_storm_fixture_holds_the_bytes_of_the_named_commit():
    assert {name: _blob_id((STORM_RUN / name).read_bytes()) for name in STORM_BLOBS} == STORM_BLOBS


@pytest.mark.parametrize("article", sorted(STORM_HAND))
def test_storm_import_equals_hand_counts_and_evaluate_counts(article, data, sample_dataset, tmp_path):
    report = import_outputs("storm", _storm_folder(tmp_path, article), data, tmp_path / "out",
                            links=LinkOptions(lookup=False, cache_dir=False))
    assert report.skipped == []
    record = report.surveys[0]
    written = parse_survey(Path(record["output"]).read_text(encoding="utf-8"), protocol="paper")
    counted = (record["headings"], record["citations"], len({c.number for c in written.citations}),
               record["references"], record["citations_without_entry"])
    assert counted == STORM_HAND[article]
    done = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(tmp_path / "out"),
                               "--metrics", "recall", "--protocol", "paper", "--out", str(tmp_path / "r.json")])
    assert done.exit_code == 0, done.output
    counts = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["surveys"]["0"]["counts"]
    hand = STORM_HAND[article]
    assert (counts["headings"], counts["citations"], counts["references"],
            counts["citations_of_missing_numbers"]) == (hand[0], hand[1], hand[3], hand[4])


def test_storm_sources_are_titled_from_url_to_info_in_its_numbering(data, tmp_path):
    """Each ``url_to_unified_index`` number is the reference of that number, titled as ``url_to_info`` titles its
    page: a title that opens with a bracket (``[2410.02958] AutoML-Agent ...``) or holds one (``['25]``) stays one
    entry. The run writes three sections' headings twice, which the report's quality notes name."""
    report = import_outputs("storm", _storm_folder(tmp_path, "storm_gen_article_polished.txt"), data,
                            tmp_path / "out", links=LinkOptions(lookup=False, cache_dir=False))
    info = json.loads((STORM_RUN / "url_to_info.json").read_text(encoding="utf-8"))
    by_number = {number: info["url_to_info"][url]["title"] for url, number in info["url_to_unified_index"].items()}
    listed = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8").split("# References")[1]
    assert [line for line in listed.splitlines() if line] == [f"[{n}] {by_number[n]}" for n in range(1, 29)]
    assert by_number[8].startswith("[2410.02958] ") and by_number[19].endswith("['25]")
    assert report.surveys[0]["quality"]["headings_twice"] == [
        "decision-making risks", "hyperparameter optimization", "multi-stage verification"]
