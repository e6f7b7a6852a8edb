"""Build, load, export and bad-input handling of the dataset builder, on small hand-made data."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from datasets import load_dataset

from surge_dataset import Corpus, SurgeData, SurgeDataError
from surge_dataset.data.build import build_dataset
from surge_dataset.data.export import export_dataset
from surge_dataset.data.validate import UnknownFieldsWarning


def _node(i, parent, title, content=""):
    return {"id": i, "parent_id": parent, "title": title, "content": content}


def make_official(folder: Path, *, surveys=None, corpus=None, queries=None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if surveys is None:
        surveys = [
            {
                "survey_id": sid,
                "survey_title": title,
                "authors": ["Ada Lovelace"],
                "year": "2021",
                "date": "2021-05-01T00:00:00",
                "category": "cs.LG",
                "abstract": "An abstract.",
                "structure": [
                    _node(0, None, "root"),
                    _node(1, 0, "Introduction", "Intro text " * 20),
                    _node(2, 0, "Methods"),
                    _node(3, 2, "Graph methods", "Graph text " * 20),
                    _node(4, 3, "Spectral", "Spectral text " * 20),
                ],
                "all_cites": cites,
                "Bertopic_CD": 0.25,
            }
            for sid, title, cites in [
                (0, "A Survey of Graphs", [0, 1]),
                (7, "Retrieval Survey", []),
                (41, "Federated Learning: A Survey", [2, 3]),
            ]
        ]
    if corpus is None:
        corpus = [
            {
                "Title": t,
                "Authors": ["X"],
                "Year": "2020",
                "Date": "2020-01-01",
                "Abstract": f"Abstract {i}.",
                "Category": "cs.LG",
                "doc_id": i,
            }
            for i, t in enumerate(
                [
                    "Graph Neural Networks: A Review",
                    "How Powerful are GNNs?",
                    "FedAvg",
                    "Client/Server FL",
                    "Graph neural networks - a review",
                ]
            )
        ]
    if queries is None:
        queries = [
            {
                "original_id": f"23870233-7f5b-4c1e-9a0e-00000000000{q}",  # a UUID string, as released
                "query_id": q,
                "date": "2021",
                "year": "2021",
                "category": "cs.LG",
                "content": "text",
                "prefix_titles": [["title", title], ["section", "Intro"]],
                "prefix_titles_query": "What?",
                "cites": [0],
                "cite_extract_rate": 1.0,
                "origin_cites_number": 1,
            }
            for q, title in [
                (0, "A Survey of Graphs"),
                (1, "Federated Learning: A Survey"),
                (2, "Unknown survey"),
            ]
        ]
    for name, value in (("surveys", surveys), ("corpus", corpus), ("queries", queries)):
        if value is not False:
            (folder / f"{name}.json").write_text(json.dumps(value), encoding="utf-8")
    return folder


def test_build_load_dataset_configs_and_splits(tmp_path, monkeypatch):
    source = make_official(tmp_path / "src")
    with pytest.warns(UserWarning, match="'unassigned' split"):
        report = build_dataset(source, tmp_path / "surge")
    assert report.counts["surveys"] == {"train": 1, "test": 2}
    assert report.counts["queries"] == {"train": 1, "test": 1, "unassigned": 1}
    assert report.empty_all_cites == [7]
    monkeypatch.chdir(tmp_path)
    surveys = load_dataset("surge")  # default config, no loading script
    assert set(surveys) == {"train", "test"}
    assert sorted(surveys["test"]["survey_id"]) == [0, 7]
    feats = surveys["test"].features
    assert feats["survey_id"].dtype == "int64"
    assert feats["all_cites"].feature.dtype == "int64"
    assert feats["structure"].feature["parent_id"].dtype == "int64"
    corpus = load_dataset("surge", "corpus", split="train")
    assert corpus.num_rows == 5 and corpus.features["doc_id"].dtype == "int64"
    assert set(corpus.column_names) >= {"title", "abstract", "doc_id"}
    queries = load_dataset("surge", "queries")
    assert set(queries) == {"train", "test", "unassigned"}
    assert queries["test"][0]["survey_id"] == 0
    # the authors' queries.json is read as it is: nothing derived, nothing said about derivation
    assert "queries_derived" not in SurgeData.open("surge").meta
    assert "derived" not in (tmp_path / "surge" / "README.md").read_text().replace("survey_id` | int64 | (derived)", "")


def test_the_card_states_each_licence(sample_dataset):
    """The authors' MIT release, CC0 arXiv metadata (paper §3.5), GT section texts under their own licences."""
    import yaml

    card = (sample_dataset / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(card.split("---\n")[1])
    assert front["license"] == "other" and front["license_name"]
    # the fields the Hub's card template asks for: with `license: other`, a link to the licence (a file of the repo)
    licence_file = sample_dataset / front["license_link"]
    assert front["license_link"] == "LICENSE.md" and "CC0 1.0" in licence_file.read_text(encoding="utf-8")
    for info in front["dataset_info"]:
        assert info["dataset_size"] == sum(split["num_bytes"] for split in info["splits"]) > 0
    licence = card.split("## Licence\n", 1)[1].split("\n## ", 1)[0]
    for needle in ("MIT license (paper §3.5", "CC0 1.0", "under the licence each paper's authors chose on arXiv"):
        assert needle in licence, needle
    assert "cc0-1.0" not in card


def test_records_and_tree(tmp_path):
    build_dataset(make_official(tmp_path / "src"), tmp_path / "surge")
    data = SurgeData.open(tmp_path / "surge")
    survey = data.survey(0)
    assert survey.split == "test" and data.survey(41).split == "train"
    tree = survey.tree()
    assert [c.title for c in tree.children] == ["Introduction", "Methods"]
    assert tree.children[1].children[0].children[0].title == "Spectral"
    assert tree.children[1].children[0].children[0].depth == 3
    assert [s.title for s in survey.sections(min_content_chars=100)] == [
        "Introduction",
        "Graph methods",
        "Spectral",
    ]
    assert [q.query_id for q in data.queries("test")] == [0]


def test_corpus_resolution_and_duplicate_rule(tmp_path):
    build_dataset(make_official(tmp_path / "src"), tmp_path / "surge")
    corpus = Corpus.open(tmp_path / "surge")
    assert len(corpus) == 5
    # doc 0 and doc 4 normalise alike: the one LAST in corpus.json (doc 4) wins, as in the released evaluator
    assert corpus.resolve(["graph neural networks: a review"]) == [4]
    assert corpus.resolve_all("GRAPH NEURAL NETWORKS A REVIEW") == [0, 4]
    assert corpus.resolve(["How powerful are GNNs", "client server fl", "Nope", "", None, "123"]) == [
        1,
        3,
        None,
        None,
        None,
        None,
    ]
    papers = corpus.get([2, 99, 0])
    assert papers[0].title == "FedAvg" and papers[1] is None and papers[2].abstract == "Abstract 0."
    assert 3 in corpus and 17 not in corpus


def test_round_trip_is_lossless_with_extra_fields(tmp_path):
    src = make_official(tmp_path / "src")
    surveys = json.loads((src / "surveys.json").read_text())
    surveys[0]["new_top_field"] = {"nested": [1, 2.5, None, "x"]}
    surveys[1]["structure"][2]["level"] = "section"
    surveys[1]["structure"][2]["cites"] = [1, 2]
    (src / "surveys.json").write_text(json.dumps(surveys))
    corpus = json.loads((src / "corpus.json").read_text())
    corpus[3]["Venue"] = "NeurIPS"
    corpus[0]["Abstract"] = None
    (src / "corpus.json").write_text(json.dumps(corpus))
    with pytest.warns(UnknownFieldsWarning) as caught:
        build_dataset(src, tmp_path / "surge")
    messages = " ".join(str(w.message) for w in caught if issubclass(w.category, UnknownFieldsWarning))
    assert "new_top_field" in messages and "structure[].level" in messages and "Venue" in messages
    export_dataset(tmp_path / "surge", tmp_path / "back")
    for name in ("surveys", "corpus", "queries"):
        original = json.loads((src / f"{name}.json").read_text())
        back = json.loads((tmp_path / "back" / f"{name}.json").read_text())
        assert back == original, name
        assert [list(r) for r in back] == [list(r) for r in original], f"{name}: key order"


def test_string_node_ids_round_trip(tmp_path):
    src = make_official(tmp_path / "src")
    surveys = json.loads((src / "surveys.json").read_text())
    for survey in surveys:
        for node in survey["structure"]:
            node["id"] = f"n{node['id']}"
            node["parent_id"] = None if node["parent_id"] is None else f"n{node['parent_id']}"
    (src / "surveys.json").write_text(json.dumps(surveys))
    build_dataset(src, tmp_path / "surge")
    assert SurgeData.open(tmp_path / "surge").survey(0).tree().children[0].id == "n1"
    export_dataset(tmp_path / "surge", tmp_path / "back")
    assert json.loads((tmp_path / "back" / "surveys.json").read_text()) == surveys


def test_real_types_string_ids_int_root_parent_and_uuid_original_id(tmp_path):
    """The released files: string section ids, an integer parent_id on the root, UUID original_id."""
    src = make_official(tmp_path / "src")
    surveys = json.loads((src / "surveys.json").read_text())
    for survey in surveys:
        for node in survey["structure"]:
            node["id"] = str(node["id"])
            node["parent_id"] = -1 if node["parent_id"] is None else str(node["parent_id"])
    (src / "surveys.json").write_text(json.dumps(surveys))
    queries = json.loads((src / "queries.json").read_text())
    queries[2]["original_id"] = 7  # an integer among UUID strings: kept, never rejected
    (src / "queries.json").write_text(json.dumps(queries))
    build_dataset(src, tmp_path / "surge")
    data = SurgeData.open(tmp_path / "surge")
    tree = data.survey(0).tree()
    assert tree.parent_id == -1 and tree.children[0].id == "1" and tree.children[0].parent_id == "0"
    assert {q.original_id for q in data.queries()} == {q["original_id"] for q in queries}
    structure = load_dataset(str(tmp_path / "surge"), "surveys", split="test")[0]["structure"]
    assert structure[0]["parent_id"] == "-1" and structure[1]["parent_id"] == "0"  # the column is string
    original = load_dataset(str(tmp_path / "surge"), "queries", split="test")[0]["original_id"]
    assert original == queries[0]["original_id"]
    export_dataset(tmp_path / "surge", tmp_path / "back")
    for name, value in (("surveys", surveys), ("queries", queries)):
        back = json.loads((tmp_path / "back" / f"{name}.json").read_text())
        assert back == value, name
        assert [list(r) for r in back] == [list(r) for r in value], f"{name}: key order"
    assert [list(n) for n in json.loads((tmp_path / "back" / "surveys.json").read_text())[0]["structure"]] == [
        list(n) for n in surveys[0]["structure"]
    ]


def test_absent_queries_are_derived_from_surveys(tmp_path):
    """No queries.json (the authors' Drive folder has none): the queries config is derived and marked so.

    make_official's surveys have three sections with >= 100 characters (Introduction, Graph methods,
    Spectral) and no per-section cites, so each survey with citations gives 3 queries citing its all_cites;
    survey 7 cites nothing and gives none: 3 in test (survey 0) and 3 in train (survey 41).
    """
    src = make_official(tmp_path / "src", queries=False)
    report = build_dataset(src, tmp_path / "surge")
    assert report.absent == ["queries.json"]
    assert report.counts["queries"] == {"train": 3, "test": 3}
    assert list(report.counts) == ["surveys", "corpus", "queries"]
    assert any("derived from surveys.json" in note for note in report.notes)
    data = SurgeData.open(tmp_path / "surge")
    assert data.configs == ["corpus", "queries", "surveys"]
    derived = data.meta["queries_derived"]
    assert derived["reason"] == "queries.json absent" and derived["queries"] == 6
    assert derived["surveys_by_cites_source"] == {"section": 0, "all_cites": 2, "no_query": 1}
    assert "queries.json" not in data.meta["source_files"]
    card = (tmp_path / "surge" / "README.md").read_text()
    assert "config_name: queries" in card and "Absent from the source folder" in card
    assert "| `queries` (derived) | `test` | 3 |" in card and "## Fields: `queries` (derived" in card
    assert [(q.survey_id, q.query_id, q.original_id, q.cites) for q in data.queries("test")] == [
        (0, 0, 1, [0, 1]), (0, 1, 3, [0, 1]), (0, 2, 4, [0, 1])]
    assert data.queries("train")[0].prefix_titles == [["title", "Federated Learning: A Survey"],
                                                       ["section", "Introduction"]]


def test_no_section_qualifies_no_queries_config(tmp_path):
    src = make_official(tmp_path / "src", queries=False)
    surveys = json.loads((src / "surveys.json").read_text())
    for survey in surveys:
        survey["all_cites"] = []  # no per-section cites either: nothing a query could cite
    (src / "surveys.json").write_text(json.dumps(surveys))
    report = build_dataset(src, tmp_path / "surge")
    assert "queries" not in report.counts and any("no 'queries' config" in note for note in report.notes)
    data = SurgeData.open(tmp_path / "surge")
    assert data.configs == ["corpus", "surveys"] and "queries_derived" not in data.meta


def test_without_surveys_no_queries_can_be_derived(tmp_path):
    src = make_official(tmp_path / "src", surveys=False, queries=False)
    report = build_dataset(src, tmp_path / "surge")
    assert report.absent == ["surveys.json", "queries.json"]
    data = SurgeData.open(tmp_path / "surge")
    assert data.configs == ["corpus"] and "queries_derived" not in data.meta
    card = (tmp_path / "surge" / "README.md").read_text()
    assert "config_name: queries" not in card and "derived" not in card
    with pytest.raises(FileNotFoundError, match="no 'queries' config"):
        data.queries()
    with pytest.raises(SurgeDataError, match="deriving the queries needs surveys.json"):
        build_dataset(src, tmp_path / "again", derive_queries=True)
    assert not (tmp_path / "again").exists()


def _bad(tmp_path, mutate, name="surveys"):
    src = make_official(tmp_path / "src")
    records = json.loads((src / f"{name}.json").read_text())
    mutate(records)
    (src / f"{name}.json").write_text(json.dumps(records))
    out = tmp_path / "surge"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(SurgeDataError) as info:
            build_dataset(src, out)
    assert not out.exists(), "a failed build must leave nothing in --out"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".surge")], "temporary folder left behind"
    return str(info.value)


def test_truncated_json(tmp_path):
    src = make_official(tmp_path / "src")
    text = (src / "corpus.json").read_text()
    (src / "corpus.json").write_text(text[: len(text) // 2])
    with pytest.raises(
        SurgeDataError, match=r"corpus\.json: invalid or truncated JSON at line 1, column \d+"
    ):
        build_dataset(src, tmp_path / "surge")
    assert not (tmp_path / "surge").exists()


def test_top_level_not_array(tmp_path):
    src = make_official(tmp_path / "src")
    (src / "queries.json").write_text('{"a": 1}')
    with pytest.raises(SurgeDataError, match="queries.json: the top level must be a JSON array"):
        build_dataset(src, tmp_path / "surge")


def test_missing_required_field(tmp_path):
    message = _bad(tmp_path, lambda rs: rs[1].pop("all_cites"))
    assert "surveys.json: record #1 (survey_id=7): field 'all_cites': required field is missing" in message


def test_wrong_type(tmp_path):
    message = _bad(tmp_path, lambda rs: rs[2].__setitem__("doc_id", "2"), name="corpus")
    assert "corpus.json: record #2 (doc_id='2'): field 'doc_id': expected an integer" in message


def test_duplicate_doc_id(tmp_path):
    message = _bad(tmp_path, lambda rs: rs[3].__setitem__("doc_id", 1), name="corpus")
    assert (
        "corpus.json: record #3 (doc_id=1): field 'doc_id': duplicate doc_id 1 (first at record #1)"
        in message
    )


def test_dangling_parent_id(tmp_path):
    message = _bad(tmp_path, lambda rs: rs[2]["structure"][3].__setitem__("parent_id", 99))
    assert "surveys.json: record #2 (survey_id=41): field 'structure[3].parent_id'" in message
    assert "points to no node" in message


def test_missing_root(tmp_path):
    message = _bad(tmp_path, lambda rs: rs[0]["structure"][0].__setitem__("title", "Root node"))
    assert "record #0 (survey_id=0): field 'structure': no node has title 'root'" in message


def test_existing_out_is_kept_unless_overwrite(tmp_path):
    src = make_official(tmp_path / "src")
    build_dataset(src, tmp_path / "surge")
    with pytest.raises(FileExistsError):
        build_dataset(src, tmp_path / "surge")
    build_dataset(src, tmp_path / "surge", overwrite=True)
    assert SurgeData.open(tmp_path / "surge").survey(41).survey_title == "Federated Learning: A Survey"


def test_split_from_data_overrides_default(tmp_path):
    src = make_official(tmp_path / "src")
    surveys = json.loads((src / "surveys.json").read_text())
    for s, split in zip(surveys, ["train", "test", "test"], strict=True):
        s["split"] = split
    (src / "surveys.json").write_text(json.dumps(surveys))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = build_dataset(src, tmp_path / "surge")
    assert report.counts["surveys"] == {"train": 1, "test": 2}
    assert SurgeData.open(tmp_path / "surge").survey(41).split == "test"


def test_cli_build_reports_error_without_traceback(tmp_path):
    from typer.testing import CliRunner

    from surge_dataset.cli import app

    src = make_official(tmp_path / "src")
    (src / "surveys.json").write_text("[{")
    result = CliRunner().invoke(app, ["data", "build", "--source", str(src), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "surveys.json: invalid or truncated JSON" in result.output
    assert "Traceback" not in result.output


# --- the streamed corpus (surge_dataset/data/jsonstream.py) ------------------------------------------


def _many_papers(n: int) -> list[dict]:
    """Papers with what a streaming reader can trip on: escapes, brackets and commas in strings, nulls,
    non-ASCII text, unknown fields (one of them only in the last records)."""
    papers = []
    for i in range(n):
        paper = {"Title": f'Paper {"abcdefghij"[i % 10]}{"klmnop"[i % 6]} [x], {{y}} "q\\" \\\\ é', "Authors": ["X"],
                 "Year": "2020", "Date": "2020-01-01", "Abstract": None if i % 7 == 0 else f"Abstract {i}: ü, ]}}",
                 "Category": "cs.LG", "doc_id": 1000 - i}
        if i % 5 == 1:
            paper["Venue"] = {"name": "NeurIPS", "rank": [1, 2.5, None]}
        if i == n - 2:
            paper["Zeta"] = "late"
        papers.append(paper)
    return papers


def _build_all(src: Path, out: Path) -> tuple[dict[str, bytes], list[str], dict]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = build_dataset(src, out, shard_rows=20)
    files = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    return files, [str(w.message) for w in caught], report.unknown_fields


def test_streamed_corpus_build_equals_the_whole_file_build(tmp_path, monkeypatch):
    from surge_dataset.data import build, jsonstream

    src = make_official(tmp_path / "src", corpus=_many_papers(57))
    monkeypatch.setattr(build, "CHUNK_ROWS", 7)  # shards of 20 written in tables of 7, 7, 6
    monkeypatch.setattr(jsonstream, "BLOCK_BYTES", 100)  # elements cut across blocks everywhere
    read_whole: list[str] = []
    real_read = build.read_json_array

    def read_json_array(path):
        read_whole.append(Path(path).name)
        return real_read(path)

    def refuse(path):
        raise jsonstream.StreamError("forced")

    monkeypatch.setattr(build, "read_json_array", read_json_array)
    streamed = _build_all(src, tmp_path / "streamed")
    assert "corpus.json" not in read_whole  # streamed, not the whole-file fallback
    monkeypatch.setattr(build, "iter_json_array", refuse)  # the whole-file path, as before streaming
    whole = _build_all(src, tmp_path / "whole")
    assert "corpus.json" in read_whole
    assert streamed == whole
    assert [n for n in streamed[0] if n.startswith("corpus/")] == [
        f"corpus/train-0000{i}-of-00003.parquet" for i in range(3)
    ]
    assert streamed[2]["corpus"] == ["Venue", "Zeta"]
    corpus = Corpus.open(tmp_path / "streamed")
    assert len(corpus) == 57 and corpus.get([1000])[0].abstract is None and corpus.get([999])[0].abstract.endswith("]}")


def test_streamed_corpus_errors_are_those_of_the_whole_file(tmp_path, monkeypatch):
    from surge_dataset.data import build, jsonstream

    monkeypatch.setattr(build, "CHUNK_ROWS", 7)
    monkeypatch.setattr(jsonstream, "BLOCK_BYTES", 100)
    papers = _many_papers(40)
    papers[30]["doc_id"] = papers[2]["doc_id"]  # a duplicate in another table than its first
    message = _bad(tmp_path / "a", lambda rs: rs.__setitem__(slice(None), papers), name="corpus")
    assert "corpus.json: record #30 (doc_id=998): field 'doc_id': duplicate doc_id 998 (first at record #2)" in message

    papers = _many_papers(40)
    papers[3]["Year"] = 2020  # a bad record early, then a JSON error late: the JSON error is reported
    src = make_official(tmp_path / "b" / "src", corpus=papers)
    text = (src / "corpus.json").read_text()
    (src / "corpus.json").write_text(text[:-40] + "}, oops]")
    with pytest.raises(SurgeDataError, match=r"corpus\.json: invalid or truncated JSON at line 1, column \d+"):
        build_dataset(src, tmp_path / "b" / "surge")

    papers = _many_papers(40)
    papers[33]["Year"] = 2020  # a bad record after a duplicate: the record check comes first, as before
    papers[30]["doc_id"] = papers[2]["doc_id"]
    message = _bad(tmp_path / "c", lambda rs: rs.__setitem__(slice(None), papers), name="corpus")
    assert "corpus.json: record #33 (doc_id=967): field 'Year': expected a string, found int 2020" in message
