"""`surge import` on real outputs of AutoSurvey, OmniThink and The AI Scientist (tests/fixtures/generated, origin,
licence and hand counts in each system's README): one test per shape they showed. The counts of every fixture
are checked against the hand counts in test_importer_real_outputs.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from surge_dataset import SurgeData
from surge_dataset.importers import import_outputs
from tests.test_importer_real_outputs import GENERATED


@pytest.fixture(scope="module")
def data(sample_dataset) -> SurgeData:
    return SurgeData.open(sample_dataset)


def _source(tmp_path: Path, system: str, survey: str, *suffixes: str) -> Path:
    """SOURCE/0/<the survey's files with these suffixes>."""
    folder = tmp_path / "in" / "0"
    folder.mkdir(parents=True)
    for path in (GENERATED / system / survey).iterdir():
        if path.suffix in suffixes:
            shutil.copy(path, folder / path.name)
    return tmp_path / "in"


def test_superscript_digits_inside_a_name_are_no_citation(data, tmp_path):
    """AutoSurvey's 3D Gaussian Splatting survey names the ``MS³-Conv`` unit: ³ is part of a name, not citation 3
    of its 100-entry list; a superscript closing a word still cites against a numbered list."""
    source = _source(tmp_path, "autosurvey", "3d_gaussian_splatting", ".md")
    assert "The MS³-Conv unit proposed" in (source / "0" / "survey.md").read_text(encoding="utf-8")
    record = import_outputs("markdown", source, data, tmp_path / "out").surveys[0]
    text = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8")
    assert "The MS³-Conv unit proposed" in text and record["citations"] == 243
    (tmp_path / "in2" / "0").mkdir(parents=True)
    (tmp_path / "in2" / "0" / "survey.md").write_text(
        "# Water\n\nH²O-rich ices and the MS³Net model are names; studies¹ agree.\n\n# References\n\n"
        "[1] Weisfeiler-Lehman Meets Graph Neural Networks: Higher-Order Expressivity\n"
        "[2] Cluster-Based Mini-Batch Training for Large Graph Convolutional Networks\n"
        "[3] Graph Attention Networks\n", encoding="utf-8")
    record = import_outputs("markdown", tmp_path / "in2", data, tmp_path / "out2").surveys[0]
    text = (tmp_path / "out2" / "0" / "survey.md").read_text(encoding="utf-8")
    assert "H²O-rich ices and the MS³Net model are names; studies[1] agree." in text
    assert record["citations"] == 1


def test_autosurvey_json_record_reads_its_survey_field(data, tmp_path):
    """AutoSurvey's ``<topic>.json`` is ``{"survey": <the Markdown>, "reference": {"1": "2302.00592v1", ...}}``:
    --format llmxmr reads ``survey`` without --field, to the same survey as the Markdown file."""
    source = _source(tmp_path, "autosurvey", "efficient_llm_serving", ".json")
    record = json.loads((source / "0" / "survey.json").read_text(encoding="utf-8"))
    assert sorted(record) == ["reference", "survey"] and record["reference"]["1"] == "2302.00592v1"
    from_json = import_outputs("llmxmr", source, data, tmp_path / "json").surveys[0]
    markdown = _source(tmp_path / "md", "autosurvey", "efficient_llm_serving", ".md")
    from_markdown = import_outputs("markdown", markdown, data, tmp_path / "md" / "out").surveys[0]
    counts = ("headings", "citations", "references", "citations_without_entry")
    assert [from_json[k] for k in counts] == [from_markdown[k] for k in counts] == [22, 147, 97, 0]
    assert ((tmp_path / "json" / "0" / "survey.md").read_text(encoding="utf-8")
            == (tmp_path / "md" / "out" / "0" / "survey.md").read_text(encoding="utf-8"))


def test_cite_keys_with_an_apostrophe_resolve(data, tmp_path):
    """The AI Scientist takes its BibTeX from Semantic Scholar, whose key for Traoré is ``Traor'e2020SequentialCO``;
    ``\\citep{loshchilov2016sgdr}`` names a key that no .bib or .bbl holds (a citation without entry)."""
    source = _source(tmp_path, "aiscientist", "rl_lr_adaptation", ".tex", ".bib", ".bbl")
    record = import_outputs("latex", source, data, tmp_path / "out").surveys[0]
    text = (tmp_path / "out" / "0" / "survey.md").read_text(encoding="utf-8")
    assert "Traor'e" not in text.split("# References")[0] and "such as Adagrad [" in text
    assert "Sequential convergence of adagrad algorithm for smooth convex optimization" in text
    assert record["keys_without_entry"] == ["loshchilov2016sgdr"]
    # the same key in Markdown, pandoc's and the bare form
    (tmp_path / "md" / "0").mkdir(parents=True)
    shutil.copy(source / "0" / "references.bib", tmp_path / "md" / "0" / "references.bib")
    (tmp_path / "md" / "0" / "survey.md").write_text(
        "# Optimisers\n\nAdagrad [@Traor'e2020SequentialCO] converges [Traor'e2020SequentialCO]; it's [fine'].\n",
        encoding="utf-8")
    record = import_outputs("markdown", tmp_path / "md", data, tmp_path / "out2").surveys[0]
    text = (tmp_path / "out2" / "0" / "survey.md").read_text(encoding="utf-8")
    assert "Adagrad [1] converges [1]; it's [fine']." in text
    assert (record["citations"], record["references"], record["citations_without_entry"]) == (2, 1, 0)


def test_omnithink_article_numbers_each_section_and_lists_nothing(data, tmp_path):
    """OmniThink's article: each section numbers its own sources from [1] and no list follows; sections are
    written under their heading twice, and one stops mid-sentence. Every citation is one without entry, and
    the report's quality notes say why."""
    source = _source(tmp_path, "omnithink", "breast_milk", ".txt")
    record = import_outputs("markdown", source, data, tmp_path / "out").surveys[0]
    assert (record["citations"], record["references"], record["citations_without_entry"]) == (104, 0, 104)
    assert "no reference list in the source: none is written" in record["lost"]
    quality = record["quality"]
    assert "Macronutrients" in quality["citations_restarted"] and len(quality["citations_restarted"]) == 8
    assert "factors influencing composition" in quality["headings_twice"] and len(quality["headings_twice"]) == 10
    assert quality["cut_mid_sentence"] == [{"section": "Bioactive Components",
                                            "ends": "Hormones in breast milk, such"}]
