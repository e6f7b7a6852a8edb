"""surge human export / import: blind packets on the sample, the filled CSV back into meta-eval, agreement by hand."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from scipy.stats import rankdata
from typer.testing import CliRunner

from surge_dataset.cli import app
from surge_dataset.judging.human_packets import plan_packets
from surge_dataset.judging.human_results import Answers, HumanKey, human_ranks
from surge_dataset.judging.interrater import cohen_kappa, fleiss_kappa, kendalls_w

runner = CliRunner()
#: Each copied system's surveys carry a sentence only the test knows is theirs: it tells which letter is which.
TOKENS = {"AlphaBot": "Marker sentence seven.", "Beta": "Marker sentence eleven."}


@pytest.fixture(scope="module")
def systems(sample_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """GT rendered by `surge data render`, and two systems made by editing copies: AlphaBot names itself in its
    text; Beta keeps the first third of each survey (no reference list: a lower recall)."""
    root = tmp_path_factory.mktemp("human")
    gt = root / "gt"
    assert runner.invoke(app, ["data", "render", "--data", str(sample_dataset), "--out", str(gt)]).exit_code == 0
    shutil.copytree(gt, root / "alpha")
    shutil.copytree(gt, root / "beta")
    for survey in (root / "alpha").glob("*/survey.md"):
        lines = survey.read_text().splitlines()
        survey.write_text("\n".join([lines[0], "", f"Written by AlphaBot. {TOKENS['AlphaBot']}", *lines[1:]]) + "\n")
    for survey in (root / "beta").glob("*/survey.md"):
        lines = survey.read_text().splitlines()
        survey.write_text("\n".join([lines[0], "", TOKENS["Beta"], *lines[1:len(lines) // 3]]) + "\n")
    return {"GT": gt, "AlphaBot": root / "alpha", "Beta": root / "beta"}


def _export(systems: dict[str, Path], data: Path, out: Path, *extra: str) -> dict:
    passages = [arg for name, path in systems.items() for arg in ("--passages", f"{name}={path}")]
    result = runner.invoke(app, ["human", "export", *passages, "--data", str(data), "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return json.loads((out / "key.json").read_text())


def _sections(page: str) -> dict[str, str]:
    parts = re.split(r"^## Survey ([A-Z])$", page, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_packets_name_no_system_and_the_key_maps_back(systems, sample_dataset, tmp_path):
    out = tmp_path / "packets"
    key = _export(systems, sample_dataset, out, "--seed", "3", "--annotators", "2")
    packet = out / "packet"
    assert (out / "key.json").is_file() and not list(packet.rglob("key.json"))
    files = sorted(p for p in packet.iterdir() if p.is_file())
    assert {p.suffix for p in files} == {".md", ".html", ".csv"} and len(key["topics"]) == 6
    for path in files:
        text = path.read_text()
        for name in ("AlphaBot", "alphabot", "Beta", str(systems["GT"]), "alpha/", "beta/"):
            assert name not in text, (path.name, name)
        assert not re.search(r"\bGT\b", text), path.name
    for sid, topic in key["topics"].items():
        sections = _sections((packet / f"{sid}.md").read_text())
        assert set(sections) == set(topic["candidates"]) == {"A", "B", "C"}
        for letter, system in topic["candidates"].items():
            for name, token in TOKENS.items():
                assert (token in sections[letter]) == (name == system), (sid, letter, system)
        assert "<h2>Survey A</h2>" in (packet / f"{sid}.html").read_text()
    rows = list(csv.DictReader((packet / "to-fill.csv").open()))
    assert list(rows[0]) == ["annotator", "survey_id", "candidate", "rank"] and len(rows) == 2 * 6 * 3
    again = runner.invoke(app, ["human", "export", "--passages", f"GT={systems['GT']}", "--passages",
                                f"Beta={systems['Beta']}", "--data", str(sample_dataset), "--out", str(out)])
    assert again.exit_code == 2 and "pass --overwrite" in again.output  # a packet already there is not replaced
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    refused = runner.invoke(app, ["human", "export", "--passages", f"GT={systems['GT']}", "--passages",
                                  f"Beta={systems['Beta']}", "--data", str(sample_dataset), "--out", str(mine),
                                  "--overwrite"])
    assert refused.exit_code == 2 and "surge did not write" in refused.output and (mine / "notes.txt").exists()


def test_the_seed_alone_decides_the_order(systems, sample_dataset):
    from surge_dataset import SurgeData

    titles = {s.survey_id: s.survey_title for s in SurgeData.open(sample_dataset).surveys(None)}

    def orders(seed: int, protocol: str = "pairwise") -> dict:
        key = plan_packets(systems, titles, protocol=protocol, seed=seed)
        return {sid: (t["candidates"], t.get("pairs")) for sid, t in key["topics"].items()}

    assert orders(0) == orders(0) and orders(0) != orders(1)
    one = plan_packets(systems, titles, seed=5, survey_ids=[1])["topics"]["1"]["candidates"]
    assert one == plan_packets(systems, titles, seed=5)["topics"]["1"]["candidates"]  # whatever else is exported
    pairs = plan_packets(systems, titles, protocol="pairwise", against="GT")["topics"]["0"]
    assert len(pairs["pairs"]) == 2 and all("GT" in {pairs["candidates"][x] for x in p} for p in pairs["pairs"])


def _fill(packet: Path, answer) -> Path:
    """The to-fill.csv with its last column filled by ``answer(row, index of the row within its annotator)``."""
    rows = list(csv.DictReader((packet / "to-fill.csv").open()))
    counts: dict[str, int] = {}
    filled = packet.parent / "filled.csv"
    with filled.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            index = counts[row["annotator"]] = counts.get(row["annotator"], -1) + 1
            writer.writerow({**row, list(row)[-1]: answer(row, index)})
    return filled


def test_ranking_answers_import_into_meta_eval(systems, sample_dataset, tmp_path):
    out = tmp_path / "packets"
    key = _export(systems, sample_dataset, out, "--annotators", "2")
    orders = {"1": ["GT", "AlphaBot", "Beta"], "2": ["GT", "Beta", "AlphaBot"]}  # per annotator, best first

    def rank(row, _index):
        return orders[row["annotator"]].index(key["topics"][row["survey_id"]]["candidates"][row["candidate"]]) + 1

    human = tmp_path / "human.csv"
    result = runner.invoke(app, ["human", "import", str(_fill(out / "packet", rank)), "--key", str(out / "key.json"),
                                 "--out", str(human)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    # W of two annotators over 3 candidates, orders 1,2,3 and 1,3,2: R = (2, 5, 5), S = 4 + 1 + 1 = 6,
    # W = 12 * 6 / (2^2 * (27 - 3)) = 0.75 on every topic
    assert result.output.count("0.750") == 7 and "mean W 0.750 over 6 topics" in result.output
    read = list(csv.DictReader(human.open()))
    assert {(r["system"], r["rank"]) for r in read if r["survey_id"] == "0"} == {("GT", "1"), ("AlphaBot", "2.5"),
                                                                                 ("Beta", "2.5")}
    results = []
    for name, folder in systems.items():
        path = tmp_path / f"{name}.json"
        scored = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(folder),
                                     "--metrics", "recall", "--out", str(path)])
        assert scored.exit_code == 0, scored.output
        results.append(f"{name}={path}")
    meta = runner.invoke(app, ["meta-eval", "--human", str(human), *results, "--out", str(tmp_path / "meta.json"),
                               "--resamples", "50"], env={"COLUMNS": "200"})
    assert meta.exit_code == 0, meta.output
    figures = json.loads((tmp_path / "meta.json").read_text())["recall"]
    assert figures["with_gt"]["surveys"] >= 1 and figures["with_gt"]["surveys"] + figures["with_gt"]["skipped"] == 6


def test_pairwise_answers_give_ranks_by_wins_and_cohens_kappa(systems, sample_dataset, tmp_path):
    out = tmp_path / "packets"
    _export(systems, sample_dataset, out, "--protocol", "pairwise", "--annotators", "2", "--surveys", "0,1")
    # 2 topics x 3 pairs = 6 items; observed agreement 4/6, both annotators' marginals (3 better, 2 worse,
    # 1 comparable): chance (9 + 4 + 1) / 36 = 14/36, kappa = (24 - 14) / (36 - 14) = 5/11 = 0.455
    verdicts = {"1": ["better", "better", "worse", "comparable", "worse", "better"],
                "2": ["better", "worse", "worse", "comparable", "better", "better"]}
    filled = _fill(out / "packet", lambda row, index: verdicts[row["annotator"]][index])
    human = tmp_path / "human.csv"
    result = runner.invoke(app, ["human", "import", str(filled), "--key", str(out / "key.json"), "--out", str(human)])
    assert result.exit_code == 0, result.output
    assert "Cohen's kappa between 2 annotators over 6 pairs: 0.455" in result.output
    named = list(csv.DictReader((tmp_path / "human-pairwise.csv").open()))
    assert len(named) == 12 and {r["first"] for r in named} <= {"GT", "AlphaBot", "Beta"}
    for sid in ("0", "1"):  # the ranks follow the wins of the named verdicts
        wins = dict.fromkeys(("GT", "AlphaBot", "Beta"), 0.0)
        for r in named:
            if r["survey_id"] == sid:
                share = {"better": 1.0, "comparable": 0.5, "worse": 0.0}[r["verdict"]]
                wins[r["first"]] += share
                wins[r["second"]] += 1 - share
        ranks = {r["system"]: float(r["rank"]) for r in csv.DictReader(human.open()) if r["survey_id"] == sid}
        by_wins = rankdata([-wins[s] for s in sorted(wins)], method="average")  # most wins first, ties shared
        assert ranks == dict(zip(sorted(wins), by_wins, strict=True))


def test_wins_rule_by_hand():
    key = HumanKey.model_validate({"format": "surge-human-key", "protocol": "pairwise", "topics": {
        "0": {"title": "t", "candidates": {"A": "X", "B": "Y", "C": "Z"}, "pairs": [["A", "B"], ["C", "A"], ["B", "C"]]}}})
    answers = Answers("pairwise", verdicts={("1", 0): {("A", "B"): "better", ("C", "A"): "comparable",
                                                       ("B", "C"): "worse"}})
    # X: 1 (beats Y) + 0.5 (tie with Z) = 1.5; Z: 0.5 + 1 = 1.5; Y: 0 -> X and Z share ranks 1 and 2
    assert human_ranks(key, answers) == {0: {"X": 1.5, "Y": 3.0, "Z": 1.5}}


def test_kendalls_w_by_hand():
    # R = (4, 6, 8, 12), mean 7.5, S = 12.25 + 2.25 + 0.25 + 20.25 = 35; W = 12 * 35 / (9 * 60) = 7/9
    assert kendalls_w([[1, 2, 3, 4], [1, 3, 2, 4], [2, 1, 3, 4]]) == pytest.approx(7 / 9)
    # a tie (1.5, 1.5): R = (3.5, 5.5, 10, 11), S = 16 + 4 + 6.25 + 12.25 = 38.5, T = 2^3 - 2 = 6,
    # W = 12 * 38.5 / (9 * 60 - 3 * 6) = 462 / 522
    assert kendalls_w([[1, 2, 3, 4], [1.5, 1.5, 3, 4], [1, 2, 4, 3]]) == pytest.approx(462 / 522)
    assert kendalls_w([[1, 2, 3]] * 4) == pytest.approx(1.0) and kendalls_w([[1, 2]]) is None


def test_kappas_by_hand():
    labels = ("better", "comparable", "worse")
    # observed 3/4; marginals (2, 1, 1) and (1, 1, 2): chance (2 + 1 + 2) / 16; kappa = (12 - 5) / (16 - 5) = 7/11
    assert cohen_kappa(["better", "better", "worse", "comparable"], ["better", "worse", "worse", "comparable"],
                       labels) == pytest.approx(7 / 11)
    assert cohen_kappa(["worse"] * 3, ["worse"] * 3, labels) is None
    # P_i = 1, 1, 0, 1/3 -> P_bar 7/12; p = (6, 5, 1) / 12 -> P_e = 62/144; kappa = (84 - 62) / (144 - 62) = 11/41
    assert fleiss_kappa([[3, 0, 0], [0, 3, 0], [1, 1, 1], [2, 1, 0]]) == pytest.approx(11 / 41)
    assert fleiss_kappa([[3, 0, 0], [3, 0, 0]]) is None


@pytest.fixture()
def ranking_packet(systems, sample_dataset, tmp_path) -> tuple[Path, Path]:
    out = tmp_path / "packets"
    _export(systems, sample_dataset, out, "--surveys", "0")
    return out / "packet" / "to-fill.csv", out / "key.json"


@pytest.mark.parametrize(("rows", "message"), [
    (["1,0,A,1", "1,0,B,2", "1,0,D,3"], r":4: candidate 'D' is not one of survey 0's \(A, B, C\)"),
    (["1,0,A,1", "1,0,B,2", "1,0,C,3", "1,0,B,2"], r":5: annotator 1 answered survey 0 B already on line 3"),
    (["1,0,A,1", "1,0,B,1", "1,0,C,3"], r":2: annotator 1's ranks of survey 0 \(1, 1, 3\) are not 1 to 3 each once"),
    (["1,0,A,1", "1,0,B,2"], r":2: annotator 1 ranked survey 0 without C"),
    (["1,7,A,1"], r":2: survey 7 is not a topic of the packet \(0\)"),
    (["1,0,A,first"], r":2: rank 'first' is not a whole number"),
])
def test_bad_rows_are_refused_in_one_line_naming_the_row(ranking_packet, tmp_path, rows, message):
    _blank, key = ranking_packet
    filled = tmp_path / "filled.csv"
    filled.write_text("annotator,survey_id,candidate,rank\n" + "\n".join(rows) + "\n")
    result = runner.invoke(app, ["human", "import", str(filled), "--key", str(key), "--out", str(tmp_path / "h.csv")],
                           env={"COLUMNS": "300"})
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert re.search(re.escape(f"error: {filled}") + message, result.output), result.output
    assert not (tmp_path / "h.csv").exists()


def test_bad_headers_keys_and_blank_files_are_refused(ranking_packet, tmp_path):
    blank, key = ranking_packet
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("annotator,survey_id,first,second,verdict\n1,0,A,B,better\n")
    broken = tmp_path / "key.json"
    broken.write_text('{"format": "surge-human-key", "protocol": "triage", "topics": {}}')
    for args, message in (([str(wrong), "--key", str(key)], "the header must name the columns"),
                          ([str(blank), "--key", str(key)], "no answer filled in"),
                          ([str(blank), "--key", str(broken)], "not a key written by `surge human export` (protocol")):
        result = runner.invoke(app, ["human", "import", *args, "--out", str(tmp_path / "h.csv")],
                               env={"COLUMNS": "300"})
        assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1 and message in result.output
