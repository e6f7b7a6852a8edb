"""A fresh split's provenance end to end: `surge data build` carries its manifest, `SurgeData.window` reads it,
`surge evaluate` records it (outside the resume key) and `surge report` says which dataset and window each row
used -- and, for the official data, that no window is recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surge_dataset.core.errors import InputFileError
from surge_dataset.data.build import build_dataset
from surge_dataset.data.dataset import SurgeData
from surge_dataset.data.render import render_surveys
from surge_dataset.data.validate import SurgeDataError
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
from surge_dataset.report import build_report, dataset_notes, load_results

from .test_fresh_annotate import make_fresh_src
from .test_report import write_results

#: make_fresh_src gives one survey an arxiv_id field, which the build keeps in `extra` with a warning
pytestmark = pytest.mark.filterwarnings("ignore::surge_dataset.data.validate.UnknownFieldsWarning")

WINDOW = {"since": "2025-06-01", "until": "2025-09-30"}
SAMPLE_DATES = ("2019-09-12", "2023-05-17")  # the earliest and latest `date` of examples/sample/surveys.json


def _set_window(src: Path, window: dict) -> None:
    path = src / "fresh_manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**manifest, "window": window}), encoding="utf-8")


def test_build_carries_the_manifest_and_its_window_but_not_into_the_fingerprint(tmp_path):
    src = make_fresh_src(tmp_path / "fresh-src")
    report = build_dataset(src, tmp_path / "fresh")
    assert (tmp_path / "fresh" / "fresh_manifest.json").read_bytes() == (src / "fresh_manifest.json").read_bytes()
    data = SurgeData.open(tmp_path / "fresh")
    assert data.window == WINDOW and data.survey_dates == SAMPLE_DATES
    assert data.meta["fresh"]["window"] == WINDOW and data.meta["fresh"]["categories"] == ["cs.CL", "cs.LG"]
    assert "annotation" not in data.meta["fresh"]  # not annotated yet
    assert any("fresh_manifest.json copied into the dataset (window 2025-06-01 to 2025-09-30)" in n for n in report.notes)
    # the same files without the manifest: the same data, so the same fingerprint (the journal key stays valid)
    (src / "fresh_manifest.json").unlink()
    build_dataset(src, tmp_path / "plain")
    plain = SurgeData.open(tmp_path / "plain")
    assert plain.fingerprint == data.fingerprint and plain.window is None
    assert not (tmp_path / "plain" / "fresh_manifest.json").exists()


def test_the_official_data_has_no_window_only_its_survey_dates(sample_dataset):
    data = SurgeData.open(sample_dataset)
    assert data.window is None and data.survey_dates == SAMPLE_DATES


@pytest.mark.parametrize(("change", "error", "message"), [
    ({"kind": "something-else"}, SurgeDataError, 'lacks "kind": "surge-fresh"'),
    ({"version": 2}, SurgeDataError, "manifest version 2; this surge-bench reads version 1"),
    ({"window": {"until": "2025-09-30"}}, SurgeDataError, "field 'window'"),
    ({"window": "2025"}, SurgeDataError, "field 'window'"),
    (None, InputFileError, "not valid JSON"),
])
def test_a_bad_manifest_stops_the_build_naming_the_file(tmp_path, change, error, message):
    src = make_fresh_src(tmp_path / "fresh-src")
    path = src / "fresh_manifest.json"
    if change is None:
        path.write_text('{"kind": "surge-fresh",', encoding="utf-8")
    else:
        path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), **change}), encoding="utf-8")
    with pytest.raises(error, match="fresh_manifest.json") as raised:
        build_dataset(src, tmp_path / "built")
    assert message in str(raised.value)
    assert not (tmp_path / "built").exists()


def test_evaluate_records_the_window_which_is_not_in_the_resume_key(tmp_path):
    src = make_fresh_src(tmp_path / "fresh-src")
    build_dataset(src, tmp_path / "fresh")
    data = SurgeData.open(tmp_path / "fresh")
    render_surveys(data.surveys(), data.corpus, tmp_path / "passages")
    out = tmp_path / "results.json"
    scored: list[int] = []
    first = evaluate_run(data, tmp_path / "passages", out,
                         EvaluationSession(EvaluationConfig(metrics=["recall"])),
                         on_survey_done=lambda survey_id, done, total: scored.append(survey_id))
    assert sorted(scored) == [0, 1, 2, 41, 42, 43]
    assert first["config"]["data_window"] == WINDOW
    assert first["config"]["data_survey_dates"] == list(SAMPLE_DATES)
    assert first["config"]["data_fingerprint"] == data.fingerprint
    # the same data with another window: the journal still matches, nothing is scored again, the new window shows
    _set_window(src, {"since": "2025-07-01", "until": None})
    build_dataset(src, tmp_path / "fresh", overwrite=True)
    scored.clear()
    again = evaluate_run(SurgeData.open(tmp_path / "fresh"), tmp_path / "passages", out,
                         EvaluationSession(EvaluationConfig(metrics=["recall"])),
                         on_survey_done=lambda survey_id, done, total: scored.append(survey_id))
    assert scored == [] and again["surveys"] == first["surveys"]
    assert again["config"]["data_window"] == {"since": "2025-07-01", "until": None}


def _results(path: Path, system: str, fingerprint: str | None, **recorded) -> Path:
    write_results(path, {"recall": [0.2, 0.4, 0.6]}, system=system)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["config"].pop("data_fingerprint")
    if fingerprint:
        data["config"]["data_fingerprint"] = fingerprint
    data["config"].update(recorded)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_report_names_the_one_dataset_and_window_of_every_row(tmp_path):
    fresh = {"data_window": WINDOW, "data_survey_dates": ["2025-06-03", "2025-09-20"]}
    files = [_results(tmp_path / f"{name}.json", name, "9f8e7d6c5b4a3210", **fresh) for name in ("alpha", "beta")]
    report = build_report(files, tmp_path / "report", resamples=200, formats=())
    note = ("Data: every row used dataset 9f8e7d6c, a fresh split with the date window 2025-06-01 to 2025-09-30; "
            "survey dates in the data: 2025-06-03 to 2025-09-20.")
    md = (tmp_path / "report" / "table.md").read_text(encoding="utf-8")
    assert f"\n{note}\n" in md
    assert md.index("Means over 3 surveys") < md.index(note) < md.index("Brackets:")  # right after what was averaged
    assert note in (tmp_path / "report" / "table.html").read_text(encoding="utf-8")
    assert "dataset 9f8e7d6c, a fresh split" in (tmp_path / "report" / "table.tex").read_text(encoding="utf-8")
    assert [i["config"]["data_window"] for i in report["inputs"]] == [WINDOW, WINDOW]


def test_report_names_each_dataset_with_its_rows_and_says_when_no_window_is_recorded(tmp_path):
    files = [
        _results(tmp_path / "official.json", "official-run", "0123456789abcdef", data_window=None,
                 data_survey_dates=list(SAMPLE_DATES)),
        _results(tmp_path / "fresh.json", "fresh-run", "fedcba9876543210",
                 data_window={"since": "2025-06-01", "until": None}),
        _results(tmp_path / "old.json", "old-run", "0123456789abcdef"),  # written before data_window existed
        _results(tmp_path / "inspect.json", "inspect-run", None, data_window=None),
    ]
    notes = dataset_notes(load_results(files))
    assert notes == [
        "Data: official-run used dataset 01234567, no date window recorded (only fresh splits record one); survey "
        "dates in the data: 2019-09-12 to 2023-05-17.",
        "Data: fresh-run used dataset fedcba98, a fresh split with the date window 2025-06-01 to open.",
        "Data: old-run used dataset 01234567, date window unknown (the results file predates data_window).",
        "Data: inspect-run used a dataset whose fingerprint the results file lacks, no date window recorded (only "
        "fresh splits record one).",
    ]
    build_report(files, tmp_path / "report", resamples=200, formats=())
    md = (tmp_path / "report" / "table.md").read_text(encoding="utf-8")
    assert all(f"\n{note}\n" in md for note in notes)


def test_two_systems_on_the_same_dataset_share_one_note():
    class System:
        def __init__(self, name: str, config: dict) -> None:
            self.name, self.config = name, config

    same = {"data_fingerprint": "aaaabbbbccccdddd", "data_window": None}
    assert dataset_notes([System("a", same), System("b", dict(same))]) == [
        "Data: every row used dataset aaaabbbb, no date window recorded (only fresh splits record "
        "one)."]
    assert len(dataset_notes([System("a", same), System("b", {**same, "data_window": WINDOW})])) == 2

