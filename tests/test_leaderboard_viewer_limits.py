"""The leaderboard app with what a builder may or may not write: the new status fields (badges, ranked, per-cell
sources, refused submissions and duplicates) and their absence; a viewer that never fails on missing data (no
``--data``, a paper without title or abstract, a doc id with no paper); and bounded work per survey (rows stored
per survey, citations shown per page).

The Spaces are built by ``build_space`` from the inputs of tests/test_leaderboard.py; the new fields are written
into a copy of a built Space's ``data/`` (as the builder will write them) so that this file tests the app alone.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from surge_dataset.leaderboard import build_space
from surge_dataset.leaderboard.citations import MAX_ROWS_PER_SURVEY, citation_rows

from .test_leaderboard import EVIL_NAME, RESAMPLES, leaderboard_inputs, space  # noqa: F401 - the fixtures, shared

PAYLOAD = '<img src=x onerror="alert(1)"> [link](javascript:alert(2)) http://2130706433/x **bold** | pipe'


def _read(folder: Path, name: str):
    return pq.read_table(folder / "data" / f"{name}.parquet").to_pandas()


def _rewrite(folder: Path, name: str, frame) -> None:
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), folder / "data" / f"{name}.parquet")


def _app():
    from surge_dataset.leaderboard.space import app

    return app


@pytest.fixture(scope="module")
def statused(space, tmp_path_factory) -> Path:  # noqa: F811 - the fixture imported above
    """The shared Space with the columns and keys the new builder writes: gt verified, degraded re-computed on
    another device (precision), paper unverified, evil a mismatch; evil's and gt's judged-like cells self-reported;
    refused submissions and duplicates carrying markup."""
    out = tmp_path_factory.mktemp("statused") / "space"
    shutil.copytree(space, out)
    systems = _read(out, "systems")
    status = {"gt": "verified", "degraded": "precision", "paper": "unverified", EVIL_NAME: "mismatch"}
    badges = {"verified": "✓ verified", "precision": "≈ precision", "unverified": "unverified",
              "mismatch": "✗ mismatch"}
    systems["status"] = systems["system"].map(status)
    systems["ranked"] = systems["status"] != "mismatch"
    systems["badge"] = systems["status"].map(badges)
    systems["verified_groups"] = "objective: verified · judged: self-reported"
    systems["first_difference"] = [f"Recall, survey 0: {0.0123:.4f} submitted, 0.4200 re-computed"
                                   if s == "mismatch" else None for s in systems["status"]]
    _rewrite(out, "systems", systems)
    means = _read(out, "means")
    means["source"] = ["self-reported" if (s == "gt" and m == "sent_acc") or s == "paper" else "recomputed"
                       for s, m in zip(means["system"], means["metric"], strict=True)]
    _rewrite(out, "means", means)
    meta = json.loads((out / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    meta["refused"] = [{"file": "sub-1/results.json", "system": PAYLOAD, "reason": f"bad score {PAYLOAD}"}]
    meta["duplicates"] = [{"file": "sub-2/results.json", "system": "copycat", "duplicate_of": "gt", "differs": False}]
    (out / "data" / "leaderboard.json").write_text(json.dumps(meta), encoding="utf-8")
    return out


# ------------------------------------------------------------------------------ the table

def test_ranked_rows_come_in_status_blocks_and_a_mismatch_is_never_ranked(statused):
    board = _app().lbdata.Board(statused / "data")
    frame, note = board.table({}, ci=True, published=True)
    evaluated = frame[~frame["System"].str.endswith("†")]
    assert list(evaluated["System"]) == ["gt", "degraded", "paper"]  # verified, precision, unverified
    assert list(evaluated["Status"]) == ["✓ verified", "≈ precision", "unverified"]
    assert EVIL_NAME not in set(frame["System"])
    # the main metrics right after who, badge and group; provenance details after the scores and CIs
    assert list(frame.columns[:4]) == ["System", "Status", "Group", "Recall"]
    assert list(frame.columns[-3:]) == ["Surveys", "Data", "Checked"]
    assert frame.columns.get_loc("Sent-Acc") < frame.columns.get_loc("Recall 95% CI")
    assert "✗ mismatch" in note and "‡" in note and "≈ precision" in note
    mismatch = board.mismatches({})
    assert list(mismatch["System"]) == [EVIL_NAME]
    assert mismatch["First difference"][0] == "Recall, survey 0: 0.0123 submitted, 0.4200 re-computed"
    assert board.mismatches({"verification": "verified"}).empty
    # a row of one status block stays in it whichever filter picks it
    assert list(board.table({"verification": "mismatch"})[0]["System"]) == []


def test_a_self_reported_score_is_marked_in_its_own_cell(statused):
    board = _app().lbdata.Board(statused / "data")
    frame, _ = board.table({}, ci=False)
    styled = board.styled(frame)
    cells = {(frame.at[i, "System"], column): styled._display_funcs[(i, frame.columns.get_loc(column))](frame.at[i, column])
             for i in frame.index for column in ("Recall", "Sent-Acc")}
    assert cells[("gt", "Sent-Acc")].endswith(" ‡") and not cells[("gt", "Recall")].endswith("‡")
    assert not cells[("degraded", "Sent-Acc")].endswith("‡")
    assert cells[("paper", "Recall")].endswith(" ‡")
    # the values themselves are untouched numbers (sorting stays numeric), each in its own row
    assert frame.loc[frame["System"] == "gt", "Sent-Acc"].dtype.kind == "f"
    italic = {cell for cell, css in styled._compute().ctx.items() if ("font-style", "italic") in css}
    assert italic == {(frame.index[frame["System"] == "gt"][0], frame.columns.get_loc("Sent-Acc")),
                      (frame.index[frame["System"] == "paper"][0], frame.columns.get_loc("Recall"))}
    grey = board.styled(board.mismatches({}), grey=True).to_html()
    assert "color: #8a8a8a" in grey


def test_the_refused_page_shows_submitters_text_as_text(statused):
    board = _app().lbdata.Board(statused / "data")
    shown = _app()._refused_markdown(board)
    assert not re.search(r"(?<!\\)[<>\[\]()*|]", shown.replace("| ", "").replace(" |", "").replace("|\n", "\n"))
    assert "\\<img src=x onerror=\"alert\\(1\\)\"\\>" in shown and "\\| pipe" in shown
    rows = [line for line in shown.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 4  # two headers, one refused row, one duplicate: the pipe in a name splits no cell
    assert all(line.count(" | ") == rows[0].count(" | ") for line in rows[:2])
    assert "| sub\\-2/results\\.json | copycat | gt | no |" in shown
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark").enable("table").render(shown)
    assert "<img" not in rendered and "<a " not in rendered and "<strong>bold" not in rendered


@pytest.fixture(scope="module")
def older_space(space, tmp_path_factory) -> Path:  # noqa: F811
    """The Space as a builder before status, ranked, badge, verified_groups, first_difference, source, refused and
    duplicates wrote it: the same folder with those columns and keys removed."""
    import shutil

    import pyarrow.parquet as pq

    out = tmp_path_factory.mktemp("older") / "space"
    shutil.copytree(space, out)
    for name, columns in (("systems", ["status", "ranked", "badge", "verified_groups", "first_difference"]),
                          ("means", ["source"])):
        table = pq.read_table(out / "data" / f"{name}.parquet")
        pq.write_table(table.drop_columns([c for c in columns if c in table.column_names]),
                       out / "data" / f"{name}.parquet")
    meta = json.loads((out / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    for key in ("refused", "duplicates"):
        meta.pop(key, None)
    (out / "data" / "leaderboard.json").write_text(json.dumps(meta), encoding="utf-8")
    return out


def test_a_space_of_an_older_builder_still_works(older_space):
    """No status, ranked, badge, verified_groups, first_difference, source, refused or duplicates: defaults."""
    app = _app()
    board = app.lbdata.Board(older_space / "data")
    frame, _ = board.table({})
    assert list(frame["System"]) == ["paper", "gt", "degraded"]  # verified first; the mismatch apart
    assert list(frame["Status"]) == ["✓ verified", "unverified", "unverified"]
    assert list(board.mismatches({})["System"]) == [EVIL_NAME]
    assert board.mismatches({})["First difference"][0] == "mismatch: Recall, survey 0"
    assert board.source[("paper", "recall")] == "recomputed" and board.source[("gt", "recall")] == "self-reported"
    assert "No submission was refused" in app._refused_markdown(board)
    assert type(app.build_app(older_space / "data")).__name__ == "Blocks"


def test_the_app_builds_with_the_new_fields(statused):
    demo = _app().build_app(statused / "data")
    labels = [getattr(b, "label", None) for b in demo.blocks.values()]
    assert "Refused (2)" in labels
    ids = {getattr(b, "elem_id", None) for b in demo.blocks.values()}
    assert {"mismatch-table", "refused", "viewer-page"} <= ids


# ------------------------------------------------------------------------------ the viewer never fails

@pytest.fixture(scope="module")
def no_data_space(leaderboard_inputs, tmp_path_factory) -> Path:  # noqa: F811
    out = tmp_path_factory.mktemp("no-data") / "space"
    i = leaderboard_inputs
    build_space([i["gt"], i["paper"]], out, passages_root=i["passages"], data=None, resamples=RESAMPLES)
    return out


def test_a_space_built_without_data_renders_every_survey(no_data_space):
    app = _app()
    board = app.lbdata.Board(no_data_space / "data")
    papers = _read(no_data_space, "papers")
    assert papers["abstract"].isna().all()  # titles from the reference lists only: the crash of the NaN abstract
    for system in board.names:
        for survey_id in board.survey_ids(system):
            header, body, evidence, outline = app._survey_view(board, system, survey_id)
            assert "No GT outline" in outline and "No ground-truth outline in this Space" in header
            if system == "gt":
                assert "sg-cite sg-" in body and len(evidence) > 0
                assert "have no paper in this Space" in header and "(no title or abstract in this Space)" in body
    body = app._survey_view(board, "gt", "0")[1]
    assert ">nan<" not in body and "nan</span>" not in body and "Rule: nan" not in body


def test_a_paper_without_title_or_abstract_and_an_unknown_doc_id_render(space, tmp_path):  # noqa: F811
    app = _app()
    copy = tmp_path / "space"
    shutil.copytree(space, copy)
    board = app.lbdata.Board(space / "data")
    cited = [int(d) for d in board.survey("gt", "0")["citations"]["doc_id"].dropna().unique()]
    untitled, no_abstract, gone = cited[:3]
    papers = _read(copy, "papers")
    papers.loc[papers["doc_id"] == untitled, "title"] = None
    papers.loc[papers["doc_id"] == no_abstract, "abstract"] = None
    _rewrite(copy, "papers", papers[papers["doc_id"] != gone])
    board = app.lbdata.Board(copy / "data")
    header, body, evidence, outline = app._survey_view(board, "gt", "0")
    assert f"doc id {untitled} (no title in this Space)" in body
    assert f"doc id {gone} (no title or abstract in this Space)" in body
    assert "(no abstract in this Space)" in body
    assert "have no paper in this Space" in header and "have no title" in header and "have no abstract" in header
    assert f"doc id {gone}: no title in this Space" in set(evidence["Cited paper"])
    assert "Ground-truth outline" in outline


def test_viewer_functions_tolerate_missing_values():
    from surge_dataset.leaderboard.space import leaderboard_viewer as viewer

    nan = float("nan")
    row = {"start": 2, "end": 3, "number": 1, "verdict": "supported", "doc_id": nan, "entailment": nan,
           "score": nan, "rule": nan}
    html = viewer.render_survey("A [1].", [row, {**row, "doc_id": 5, "start": nan, "end": nan}],
                                {5: {"title": nan, "abstract": nan}})
    assert "sg-cite" in html and "Rule: –" in html
    assert "<b>x</b>" not in viewer.evidence({"number": 1, "verdict": "supported", "doc_id": 7},
                                             {"title": "<b>x</b>", "abstract": None})
    assert "No GT outline" in viewer.outline_html([(nan, nan), (1, "Intro")], None)


# ------------------------------------------------------------------------------ bounded work

def _record(number: int) -> dict:
    return {"kind": "citation", "survey_id": 0, "number": number, "heading": "H", "sentence": f"Claim [{number}]",
            "doc_id": number if number % 3 else None, "sent_score": (number % 3) / 2, "sent_why": "nli"}


def test_rows_per_survey_are_capped_and_the_verdict_counts_stay_exact():
    from surge_dataset.leaderboard.citations import COLUMNS, verdict

    records = [_record(n % 7 + 1) for n in range(MAX_ROWS_PER_SURVEY + 123)]
    text = " ".join(f"Claim [{r['number']}]." for r in records)
    columns: dict[str, list] = {name: [] for name in COLUMNS}
    assert citation_rows(columns, "s", "0", records, text, "official") == len(records)
    assert len(columns["seq"]) == MAX_ROWS_PER_SURVEY
    counts = json.loads(columns["verdict_counts"][0])
    assert sum(counts.values()) == len(records) and set(columns["verdict_counts"][1:]) == {None}
    expected: dict[str, int] = {}
    for record in records:
        expected[verdict(record)] = expected.get(verdict(record), 0) + 1
    assert counts == expected
    # the rows kept are placed as they are in the whole survey
    whole: dict[str, list] = {name: [] for name in COLUMNS}
    citation_rows(whole, "s", "0", records, text, "official", limit=len(records))
    assert whole["start"][:MAX_ROWS_PER_SURVEY] == columns["start"]


def test_the_viewer_shows_one_page_of_citations_at_a_time(leaderboard_inputs, tmp_path):  # noqa: F811
    """A survey with more citations than a page: the header says which are shown, of how many (and how many the
    Space keeps), each page colours and lists its own; the HTML stays bounded."""
    from surge_dataset.leaderboard.space.leaderboard_data import VIEW_ROWS

    app = _app()
    i = leaderboard_inputs
    extra = VIEW_ROWS * 2 + 40
    big = _big_space(i, tmp_path, extra, limit_rows=VIEW_ROWS * 2)
    board = app.lbdata.Board(big / "data")
    info = board.survey("big", "0")
    assert len(info["citations"]) == VIEW_ROWS * 2 and info["total"] > VIEW_ROWS * 2
    assert [p[1] for p in board.pages(info)] == [0, 1]
    header, body, evidence, _ = app._survey_view(board, "big", "0", 0)
    assert f"Showing citations 1–{VIEW_ROWS} of {VIEW_ROWS * 2}" in header
    assert f"keeps the first {VIEW_ROWS * 2} of the survey's {info['total']:,} rows" in header
    assert len(evidence) == VIEW_ROWS and body.count('class="sg-cite ') <= VIEW_ROWS
    header2, body2, evidence2, _ = app._survey_view(board, "big", "0", 1)
    assert f"Showing citations {VIEW_ROWS + 1}–{VIEW_ROWS * 2}" in header2 and list(evidence2["#"])[0] == VIEW_ROWS
    assert body2 != body and "sg-cite sg-" in body2
    assert app._survey_view(board, "big", "0", 99)[0] == header  # a page that is not there: the first one
    assert sum(map(len, (header, body, evidence.to_csv()))) < 1_000_000


def test_a_long_survey_renders_the_part_around_the_page(leaderboard_inputs, tmp_path, monkeypatch):  # noqa: F811
    """A survey longer than TEXT_WINDOW: each page renders the part of the text from its first citation, with the
    page's citations that stand in it coloured at the right places, and says which part it shows."""
    from surge_dataset.leaderboard.space import leaderboard_data

    app = _app()
    big = _big_space(leaderboard_inputs, tmp_path, leaderboard_data.VIEW_ROWS * 2 + 40)
    board = app.lbdata.Board(big / "data")
    info = board.survey("big", "0")
    monkeypatch.setattr(leaderboard_data, "TEXT_WINDOW", len(info["text"]) // 4)
    for page in (0, 1, 2):
        start, end = board.text_window(info, page)
        assert 0 < end - start <= len(info["text"]) // 4 and (start == 0) == (page == 0)
        header, body, evidence, _ = app._survey_view(board, "big", "0", page)
        assert f"showing characters {start + 1:,}–{end:,} of {len(info['text']):,}" in header
        cites = re.findall(r'class="sg-cite [^"]+" tabindex="0" role="button">(\d+)<', body)
        rows = board.page_rows(info, page)
        inside = rows[(rows["start"] >= start) & (rows["end"] <= end)]
        assert cites and len(cites) <= len(inside)  # a marker may carry several rows
        assert set(cites) <= {str(n) for n in inside["number"]}


def _big_space(i: dict, tmp_path: Path, extra: int, *, limit_rows: int | None = None, data=None) -> Path:
    """A Space of one system, "big", whose survey 0 has ``extra`` more citations (each of [1]) than the GT's."""
    passages = tmp_path / "passages"
    shutil.copytree(i["passages"] / "gt", passages / "big")
    survey = passages / "big" / "0" / "survey.md"
    text = survey.read_text(encoding="utf-8")
    claims = "\n\n".join(f"Claim number {k} about this topic [1]." for k in range(extra))
    survey.write_text(text.replace("\n# References", "\n## Many claims\n\n" + claims + "\n\n# References", 1),
                      encoding="utf-8")
    results = json.loads(i["gt"].read_text(encoding="utf-8"))
    results["config"]["system"] = "big"
    (tmp_path / "big.json").write_text(json.dumps(results), encoding="utf-8")
    lines = i["gt"].with_name("gt.details.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    template = next(r for r in records if r["survey_id"] == 0 and r.get("kind") == "citation" and r["number"] == 1)
    last = max(k for k, r in enumerate(records)  # before the reference list's own [n] (official counts them too)
               if r["survey_id"] == 0 and r.get("kind") == "citation" and r.get("heading") != "References")
    added = [{**template, "sentence": f"Claim number {k} about this topic [1].", "heading": "Many claims"}
             for k in range(extra)]
    records[last + 1:last + 1] = added
    (tmp_path / "big.details.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "space"
    if limit_rows is None:
        build_space([tmp_path / "big.json"], out, passages_root=passages, data=data, resamples=RESAMPLES)
    else:
        import surge_dataset.leaderboard.citations as citations

        keep = citations.citation_rows.__kwdefaults__["limit"]
        citations.citation_rows.__kwdefaults__["limit"] = limit_rows
        try:
            build_space([tmp_path / "big.json"], out, passages_root=passages, data=data, resamples=RESAMPLES)
        finally:
            citations.citation_rows.__kwdefaults__["limit"] = keep
    return out


def test_the_details_limit_is_documented_with_its_reason():
    from surge_dataset.leaderboard.submission_rules import MAX_DETAILS_BYTES

    docs = (Path(__file__).parent.parent / "docs" / "submitting.md").read_text(encoding="utf-8")
    assert re.search(rf"^\| `MAX_DETAILS_BYTES`.* \| {MAX_DETAILS_BYTES // 2**20} MiB \|$", docs, re.M)
