"""`surge import` on small outputs in each system's own shape (written here, not copied from anyone's files), each
holding the problems a user hit with real outputs:

* a generation run that crashed leaves an empty file: a failure in the report and the exit status, nothing written;
* LLMxMapReduce-V2's own ``output.json`` record carries the topic it was given, not the ground-truth title: the
  folder (or file) name is its survey id, as in the other formats;
* reference entries as generators write them: ``*Title *`` (``?`` written as a space), ``Chen, Y., et al., 2019,
  Title. Journal``, ACL (``Names. 2020. Title.``) and Vancouver (``Zhu L, Liu Z. Title. Journal. 2019;32``) entries;
* written titles the released reference pattern cannot read back, resolved or not;
* citation counts: ``evaluate_counts`` is what ``surge evaluate`` records, checked against the command itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.importers import entry_titles, import_outputs, report_path
from surge_dataset.importers.records import SourceNotFoundError

runner = CliRunner()

SURVEY0 = "Graph Neural Networks: A Survey of Architectures, Expressive Power and Applications"
SURVEY1 = "Retrieval-Augmented Generation for Knowledge-Intensive Language Tasks: A Survey"
SURVEY2 = "Federated Learning: A Survey on Optimisation, Privacy and Systems"
# corpus titles of the shipped sample
WL = "Weisfeiler-Lehman Meets Graph Neural Networks: Higher-Order Expressivity"
SMOOTH = "Measuring and Relieving Over-Smoothing in Deep Graph Convolutional Networks"
CLUSTER = "Cluster-Based Mini-Batch Training for Large Graph Convolutional Networks"
GIN = "How Powerful are Graph Neural Networks?"  # ends in "?": the released reference pattern loses it
LOST = "Lost in the Middle? Position Effects in Long-Context Retrieval-Augmented Models"
DENSE = "Dense Dual-Encoder Passage Retrieval for Open-Domain Question Answering"
KNN = "Nearest-Neighbour Language Models with External Datastores"
INTERLEAVE = "Interleaving Retrieval with Chain-of-Thought Reasoning for Multi-Step Questions"
AVERAGING = "Communication-Efficient Model Averaging for Decentralised Deep Learning"
STALE = "Asynchronous Federated Optimisation with Staleness-Aware Updates"
INVERSION = "Gradient Inversion Attacks Recover Training Images from Federated Updates"
TERNARY = "Sparse Ternary Compression for Communication-Efficient Federated Learning"
VERTICAL = "Vertical Federated Learning for Drug Discovery Partnerships"
# not in the corpus
GARDENS = "Can Quantum Gardens Compute?"
DEEPFAKES = "Why Do Facial Deepfake Detectors Fail"


@pytest.fixture(scope="module")
def data(sample_dataset) -> SurgeData:
    return SurgeData.open(sample_dataset)


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _references(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return text.split("# References\n\n", 1)[1].splitlines()


def _unreadable(record: dict) -> dict[str, bool]:
    return {u["title"]: u["resolved"] for u in record["unreadable_by_official"]}


# ------------------------------------------------------------------------------------------ the fixtures


def autosurvey_example(root: Path) -> Path:
    """AutoSurvey's Markdown as its released examples are: ``# Title``, numbered sections, ``[n]`` citations and a
    ``## References`` list of ``[n] Title`` lines with ``:`` and ``?`` written as spaces. Survey 1 crashed."""
    body = f"""# {SURVEY0}

## 1 Introduction

### 1.1 Background

Message passing networks are bounded by the Weisfeiler-Lehman test [1]. Deep stacks over-smooth [2].

### 1.2 Expressive Power

Injective aggregators reach that bound [3]. Gardens were said to compute [4], and mini-batches scale training [5][1].

## References

[1] Weisfeiler-Lehman Meets Graph Neural Networks  Higher-Order Expressivity

[2] Measuring and Relieving Over-Smoothing in Deep Graph Convolutional Networks

[3] {GIN.replace("?", " ")}

[4] Can Quantum Gardens Compute (A Position Paper)

[5] Cluster-Based Mini-Batch Training for Large Graph Convolutional Networks
"""
    _write(root / "0" / (SURVEY0.replace(":", "_") + "_.md"), body)
    _write(root / "1" / (SURVEY1.replace(":", "_") + "_.md"), b"")  # the run crashed before writing
    return root


def storm_run(root: Path) -> Path:
    """STORM's run folders: ``<topic>/storm_gen_article_polished.txt`` (lead text before the first heading, as
    STORM writes it) and ``url_to_info.json``. The second topic's run crashed and left an empty article."""
    folder = root / SURVEY1.replace(" ", "_")
    _write(folder / "storm_gen_article_polished.txt",
           "Retrieval-augmented generation grounds a language model in retrieved text [1].\n\n# Retrieval\n\n"
           "Dense retrievers encode questions and passages apart [2]. Long contexts lose the middle [3].\n\n"
           "# Open questions\n\nSome ask whether gardens compute [4], and reasoning interleaves retrieval [5][2].\n")
    _write(folder / "storm_gen_article.txt", "the unpolished draft [9]\n")
    sources = {f"https://example.org/{i}": title for i, title in enumerate([KNN, DENSE, LOST, GARDENS, INTERLEAVE], 1)}
    _write(folder / "url_to_info.json", json.dumps({
        "url_to_unified_index": {url: i for i, url in enumerate(sources, 1)},
        "url_to_info": {url: {"url": url, "description": "", "snippets": ["..."], "title": title, "meta": {}}
                        for url, title in sources.items()},
    }))
    crashed = root / SURVEY2.replace(" ", "_")
    _write(crashed / "storm_gen_article_polished.txt", b"")
    _write(crashed / "url_to_info.json", json.dumps({"url_to_unified_index": {}, "url_to_info": {}}))
    return root


def llmxmr_record(title: str, content: str, papers: list[str]) -> dict:
    """One survey as LLMxMapReduce-V2's pipeline saves it (``Survey.to_dict``): ``title`` is the topic it was
    given, ``papers`` are numbered in order, ``ref_str`` lists them as ``[n] title url``."""
    listed = [{"title": t, "url": f"https://arxiv.org/abs/{i}", "abstract": "...", "txt": "...",
               "bibkey": t.lower().replace(" ", "_")} for i, t in enumerate(papers, 1)]
    return {"title": title, "cost_time": "00:41:07", "block_cycle_count": 1, "block_avg_score": [7.5],
            "self_refine_score": [], "skeleton_batch_size": 3, "digest_batch_size": 3, "conv_layer": 6,
            "receptive_field": 3, "top_k": 6, "result_num": 10, "best_of": 3, "refine_count": 3, "cite_ratio": 0.9,
            "outline": "# outline", "outline_suggestion": "", "outline_eval_score": [], "outline_eval_detail": [],
            "content": content,
            "ref_str": "## References\n" + "".join(f"[{i}] {p['title']} {p['url']}\n\n" for i, p in enumerate(listed, 1)),
            "digests": [], "papers": listed, "origin_content": "", "origin_outline": ""}


def llmxmr_outputs(root: Path) -> Path:
    """LLMxMapReduce-V2 outputs: ``1/output.json`` (one record whose ``title`` is the topic as typed, which no
    ground-truth title matches), ``0.jsonl``, a crashed ``2/output.json`` (0 bytes) and a record whose
    ``content`` is empty (``3/output.json``)."""
    one = llmxmr_record("retrieval augmented generation", "# RAG: Grounding Language Models in Retrieval\n\n"
                        "## 1 Introduction\n\nDense retrieval [1,3] helps, though the middle is lost [2].\n",
                        [DENSE, LOST, GARDENS])
    _write(root / "1" / "output.json", json.dumps(one, ensure_ascii=False) + "\n")
    zero = llmxmr_record("graph neural networks", "# GNNs\n\n## Expressivity\n\nBounded [2] and reached [1].\n",
                         [GIN, WL])
    _write(root / "0.jsonl", json.dumps(zero) + "\n")
    _write(root / "2" / "output.json", b"")
    _write(root / "3" / "output.json", json.dumps(llmxmr_record("federated learning", "", [AVERAGING])) + "\n")
    return root


def surveyforge_output(root: Path) -> Path:
    """SurveyForge's Markdown (AutoSurvey's format), named by its title, with the reference styles its model
    writes: comma-separated author-year, ACL, Vancouver and APA with ``*Title *``. An empty draft beside it."""
    _write(root / (SURVEY2.replace(":", "_") + ".md"), f"""# {SURVEY2}

## 1 Introduction

Clients train locally and a server averages their models [1]. Staleness-aware updates handle slow clients [2].

## 2 Privacy and Communication

Gradients leak training images [3], compression cuts communication [4][1], and vertical splits pool features [5].

## References

[1] McMahan, H. B., et al., 2017, Communication-Efficient Model Averaging for Decentralised Deep Learning. In Proceedings of AISTATS, pp. 1273-1282.

[2] Xie, C., Koyejo, S., and Gupta, I., 2019, Asynchronous Federated Optimisation with Staleness-Aware Updates. arXiv preprint arXiv:1903.03934.

[3] Zhu L, Liu Z, Han S. Gradient Inversion Attacks Recover Training Images from Federated Updates. Adv Neural Inf Process Syst. 2019;32:14747-56.

[4] Sattler, F., Wiedemann, S., Müller, K.-R., & Samek, W. (2019). *Sparse Ternary Compression for Communication-Efficient Federated Learning *. IEEE TNNLS.

[5] Yang Liu, Tianjian Chen, and Qiang Yang. 2020. Vertical Federated Learning for Drug Discovery Partnerships. In Proceedings of KDD.
""")
    _write(root / "draft.md", "\n   \n")
    return root


def markdown_survey(root: Path) -> Path:
    """Plain Markdown with an unnumbered author-year list (no blank lines between entries) and ``(Name et al.,
    year)`` citations; survey 1's file is empty."""
    _write(root / "0" / "survey.md", f"""# {SURVEY0}

## Expressivity

Message passing is bounded (Morris et al., 2019), and injective aggregators reach the bound (Xu et al., 2019).
Hamilton and Ying (2018) sampled clusters.

## Depth

Deep stacks over-smooth (Chen, 2020), and deepfake detectors fail (Le et al., 2022).

## References

Morris, C., et al., 2019, Weisfeiler-Lehman Meets Graph Neural Networks: Higher-Order Expressivity. In AAAI, 4602-4609.
Xu, K., Hu, W., Leskovec, J., & Jegelka, S., 2019, How Powerful are Graph Neural Networks? ICLR.
Hamilton, W. and Ying, R., 2018: Cluster-Based Mini-Batch Training for Large Graph Convolutional Networks. KDD.
Chen, D. (2020). *Measuring and Relieving Over-Smoothing in Deep Graph Convolutional Networks *. AAAI.
Le, B., et al. (2022). *Why Do Facial Deepfake Detectors Fail *. In WDC.
""")
    _write(root / "1" / "survey.md", b"")
    return root


# ------------------------------------------------------------------------------------------ per format


def test_autosurvey_example(data, tmp_path):
    report = import_outputs("autosurvey", autosurvey_example(tmp_path / "in"), data, tmp_path / "out")
    assert [s["survey_id"] for s in report.surveys] == [0]
    [skipped] = report.skipped
    assert skipped["source"].endswith("_.md") and skipped["reason"].startswith("empty file (0 bytes)")
    assert not (tmp_path / "out" / "1").exists()  # nothing written for the crashed run
    record = report.surveys[0]
    assert (record["references"], record["resolved_exact"], record["unresolved"]) == (5, 4, 1)
    assert _references(tmp_path / "out" / "0" / "survey.md") == [
        f"[1] {WL}", f"[2] {SMOOTH}", f"[3] {GIN}", "[4] Can Quantum Gardens Compute (A Position Paper)",
        f"[5] {CLUSTER}"]
    # the resolved GIN (its "?") and the unresolved (...) title: both cut by the released pattern
    assert _unreadable(record) == {GIN: True, "Can Quantum Gardens Compute (A Position Paper)": False}
    assert record["citations"] == record["evaluate_counts"]["paper"]["citations"] == 6
    # official also counts the [n] opening each of the 5 reference lines
    assert record["evaluate_counts"]["official"]["citations"] == 6 + 5
    assert record["evaluate_counts"]["official"]["resolved"] == 3  # GIN's line reads as no corpus title


def test_storm_run(data, tmp_path):
    report = import_outputs("storm", storm_run(tmp_path / "in"), data, tmp_path / "out")
    assert [s["survey_id"] for s in report.surveys] == [1]
    [skipped] = report.skipped
    assert skipped["source"].endswith("storm_gen_article_polished.txt") and "empty file (0 bytes)" in skipped["reason"]
    record = report.surveys[0]
    assert (record["resolved_exact"], record["unresolved"]) == (4, 1)
    assert _references(tmp_path / "out" / "1" / "survey.md") == [
        f"[1] {KNN}", f"[2] {DENSE}", f"[3] {LOST}", f"[4] {GARDENS}", f"[5] {INTERLEAVE}"]
    assert _unreadable(record) == {LOST: True, GARDENS: False}
    assert record["citations"] == record["evaluate_counts"]["paper"]["citations"] == 6
    # official skips the lead text before the first heading ([1]) and counts the 5 reference lines
    assert record["evaluate_counts"]["official"]["citations"] == 6 - 1 + 5


def test_storm_run_with_unreadable_sources_is_a_failure_not_a_crash(data, tmp_path):
    source = storm_run(tmp_path / "in")
    _write(source / SURVEY1.replace(" ", "_") / "url_to_info.json", '{"url_to_unified_index": {"u": 1}, "url_')
    report = import_outputs("storm", source, data, tmp_path / "out")
    assert report.surveys == [] and len(report.skipped) == 2
    assert any("url_to_info.json is not JSON" in s["reason"] for s in report.skipped)
    with pytest.raises(SourceNotFoundError, match="reads a run folder"):
        import_outputs("storm", source / SURVEY1.replace(" ", "_") / "url_to_info.json", data, tmp_path / "o2")


def test_llmxmr_outputs_named_by_folder_or_file(data, tmp_path):
    source = llmxmr_outputs(tmp_path / "in")
    report = import_outputs("llmxmr", source, data, tmp_path / "out")
    assert [(s["survey_id"], s["matched_by"]) for s in report.surveys] == [
        (0, "name '0' is the survey id"), (1, "name '1' is the survey id")]
    reasons = {Path(s["source"].split("#")[0]).parent.name: s["reason"] for s in report.skipped}
    assert reasons["2"].startswith("empty file (0 bytes)") and "'content' is empty" in reasons["3"]
    one = (tmp_path / "out" / "1" / "survey.md").read_text(encoding="utf-8")
    assert "Dense retrieval [1][2] helps, though the middle is lost [3]." in one
    assert _references(tmp_path / "out" / "1" / "survey.md") == [f"[1] {DENSE}", f"[2] {GARDENS}", f"[3] {LOST}"]
    assert _unreadable(report.surveys[1]) == {GARDENS: False, LOST: True}
    counts = report.surveys[1]["evaluate_counts"]
    assert report.surveys[1]["citations"] == counts["paper"]["citations"] == 3 and counts["official"]["citations"] == 3 + 3
    # the authors' file given alone: its folder names the survey
    alone = import_outputs("llmxmr", source / "1" / "output.json", data, tmp_path / "alone")
    assert [s["survey_id"] for s in alone.surveys] == [1] and not alone.skipped
    # several records in one file are still named by their titles (a topic no GT title matches is skipped)
    _write(tmp_path / "many" / "runs.jsonl", "".join(
        json.dumps(llmxmr_record(t, "# T\n\nText [1].\n", [WL])) + "\n" for t in (SURVEY0, "retrieval augmented")))
    many = import_outputs("llmxmr", tmp_path / "many", data, tmp_path / "many_out")
    assert [s["survey_id"] for s in many.surveys] == [0] and "name its folder or file" in many.skipped[0]["reason"]


def test_llmxmr_json_lines_under_a_json_suffix_and_a_byte_order_mark(data, tmp_path):
    """The pipeline appends JSON lines to whatever file it is given; a BOM must not break either reading."""
    records = [llmxmr_record(SURVEY0, "# A\n\nText [1].\n", [WL]), llmxmr_record(SURVEY1, "# B\n\nText [1].\n", [DENSE])]
    _write(tmp_path / "in" / "output.json", "\ufeff" + "".join(json.dumps(r) + "\n" for r in records))
    report = import_outputs("llmxmr", tmp_path / "in", data, tmp_path / "out")
    assert [s["survey_id"] for s in report.surveys] == [0, 1] and not report.skipped
    assert not (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8").startswith("\ufeff")


def test_surveyforge_output(data, tmp_path):
    report = import_outputs("surveyforge", surveyforge_output(tmp_path / "in"), data, tmp_path / "out")
    assert [s["survey_id"] for s in report.surveys] == [2]
    [skipped] = report.skipped
    assert skipped["source"].endswith("draft.md") and skipped["reason"].startswith("no text (5 bytes of white space)")
    record = report.surveys[0]
    assert (record["references"], record["resolved_exact"], record["resolved_fuzzy"]) == (5, 5, 0)
    assert _references(tmp_path / "out" / "2" / "survey.md") == [
        f"[1] {AVERAGING}", f"[2] {STALE}", f"[3] {INVERSION}", f"[4] {TERNARY}", f"[5] {VERTICAL}"]
    assert record["unreadable_by_official"] == []
    assert record["citations"] == record["evaluate_counts"]["paper"]["citations"] == 6


def test_markdown_author_year_survey(data, tmp_path):
    report = import_outputs("markdown", markdown_survey(tmp_path / "in"), data, tmp_path / "out")
    assert [s["survey_id"] for s in report.surveys] == [0]
    assert report.skipped[0]["reason"].startswith("empty file (0 bytes)")
    record = report.surveys[0]
    out = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8")
    assert "Message passing is bounded [1], and injective aggregators reach the bound [2].\nHamilton and Ying [3]" in out
    assert _references(tmp_path / "out" / "0" / "survey.md") == [
        f"[1] {WL}", f"[2] {GIN}", f"[3] {CLUSTER}", f"[4] {SMOOTH}", f"[5] {DEEPFAKES}"]
    assert (record["resolved_exact"], record["unresolved"], record["unmatched_citation_count"]) == (4, 1, 0)
    assert _unreadable(record) == {GIN: True}
    assert record["citations"] == record["evaluate_counts"]["paper"]["citations"] == 5


# ------------------------------------------------------------------------------------------ titles


@pytest.mark.parametrize(("entry", "title"), [
    # closing emphasis after a space (AutoSurvey / the SurGE ID baseline write "?" as a space)
    ("Binh Le,Shahroz Tariq,Simon Woo. (n.d.). *Why Do Facial Deepfake Detectors Fail *", DEEPFAKES),
    ("*The cloud paradigm  Are you tuned for the lyrics *", "The cloud paradigm  Are you tuned for the lyrics"),
    ("** Bold Title With Spaces **. Venue, 2020.", "Bold Title With Spaces"),
    # comma-separated author-year
    ("Chen, Y., et al., 2019, Learning graph structure for traffic. Journal of Things, 12(3), 1-10.",
     "Learning graph structure for traffic"),
    ("Chen, Y., Wu, L., and Zaki, M. J., 2020, Iterative deep graph learning for graph neural networks. NeurIPS.",
     "Iterative deep graph learning for graph neural networks"),
    ("Vaswani et al., 2017, Attention is all you need. NeurIPS.", "Attention is all you need"),
    ("van der Maaten, L., & Hinton, G., 2008, Visualizing data using t-SNE. JMLR, 9, 2579-2605.",
     "Visualizing data using t-SNE"),
    ("Kim, T.-K., 2021: *An emphasised title*. CVPR.", "An emphasised title"),
    ("Růžička, V., D'Aronco, S., & Schindler, K., 2022, Deep active learning in remote sensing. arXiv.",
     "Deep active learning in remote sensing"),
    ("Vaswani, A., Shazeer, N., et al. 2017. Is attention all you need? In NeurIPS.", "Is attention all you need?"),
    # ACL (full names between full stops) and Vancouver
    ("Yu Chen, Lingfei Wu, and Mohammed Zaki. 2020. Iterative deep graph learning. In NeurIPS.",
     "Iterative deep graph learning"),
    ("Chen Y, Wu L, Zaki MJ. 2020. Iterative deep graph learning. NeurIPS.", "Iterative deep graph learning"),
    ("Smith J, Lee KM, et al. A title about graphs. Nature. 2020;5:1-3.", "A title about graphs"),
    # styles read as before
    ("Smith, J., & Lee, K. (2020). A title about graphs. In Proceedings of X.", "A title about graphs"),
    ("J. Smith and K. Lee, \"A title about graphs,\" in Proc. X, 2020.", "A title about graphs"),
    ("Zhi Zhou,Xu Chen. (n.d.). *Edge Intelligence  Paving the Last Mile*", "Edge Intelligence  Paving the Last Mile"),
    ("[A linked title](https://arxiv.org/abs/1) https://arxiv.org/abs/1", "A linked title"),
    # title-only entries stay whole: no author list before the year
    ("Deep Learning, 2016, MIT Press.", "Deep Learning, 2016, MIT Press"),
    ("Graph Attention Networks. ICLR 2018.", "Graph Attention Networks"),
    ("Explainable AI. Journal of AI 2020.", "Explainable AI"),
    ("Neural Networks and Deep Learning, 2015, a textbook.", "Neural Networks and Deep Learning, 2015, a textbook"),
    ("Attention Is All You Need", "Attention Is All You Need"),
    ("Smith, J. (2020). Learning 2 * 2 * 2 convolutions. Venue.", "Learning 2 * 2 * 2 convolutions"),
    ("Learning in 2020, a retrospective. Venue.", "Learning in 2020, a retrospective. Venue"),  # as before
])
def test_reference_entry_titles(entry, title):
    assert entry_titles([entry]) == [title]


# ------------------------------------------------------------------------------------------ the command


def test_cli_reports_an_empty_input_as_a_failure(sample_dataset, tmp_path):
    source = autosurvey_example(tmp_path / "in")
    out = tmp_path / "out"
    done = runner.invoke(app, ["import", str(source), "--format", "autosurvey", "--data", str(sample_dataset),
                               "--out", str(out)], env={"COLUMNS": "200"})
    assert done.exit_code == 1, done.output
    assert "skipped:" in done.output and "empty file (0 bytes)" in done.output
    assert "11 / 6" in done.output  # evaluate reads (official / paper)
    saved = json.loads(report_path(out).read_text(encoding="utf-8"))
    assert saved["totals"]["skipped"] == 1 and saved["totals"]["evaluate_counts"]["paper"]["citations"] == 6
    assert "reference line" in saved["counting"]["evaluate_counts"]
    done = runner.invoke(app, ["import", str(tmp_path / "nowhere"), "--format", "storm", "--data",
                               str(sample_dataset), "--out", str(tmp_path / "o2")])
    assert done.exit_code == 2 and "no such file or folder" in done.output


@pytest.mark.parametrize("protocol", ["official", "paper"])
def test_evaluate_counts_are_what_surge_evaluate_counts(data, sample_dataset, tmp_path, protocol):
    out = tmp_path / "out"
    report = import_outputs("storm", storm_run(tmp_path / "in"), data, out)
    results = tmp_path / "r.json"
    done = runner.invoke(app, ["evaluate", "--data", str(sample_dataset), "--passages", str(out),
                               "--metrics", "recall", "--protocol", protocol, "--out", str(results)])
    assert done.exit_code == 0, done.output
    counted = json.loads(results.read_text())["surveys"]["1"]["counts"]
    expected = report.surveys[0]["evaluate_counts"][protocol]
    assert {k: counted[k] for k in expected} == expected
