"""Random JSON shapes at the readers of results, details and submission manifests (Hypothesis): the
leaderboard build refuses with one line (a :class:`SurgeError` without a line break) or writes a Space the app
reads -- never a traceback."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surge_dataset.core.errors import SurgeError
from surge_dataset.leaderboard import build_space
from surge_dataset.leaderboard.space import leaderboard_data

from .test_submission import packed, run  # noqa: F401 - the fixtures, shared

FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

#: Any JSON value: scalars of every kind (NaN, huge and negative numbers, long and odd strings), nested.
scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=30)
           | st.sampled_from(["0", "1", "../x", "/etc/passwd", "x [/bold] y", "http://2130706433/", "", "a" * 300]))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=12) | st.sampled_from(["0", "1", "2", "recall", "counts"]),
                                             inner, max_size=4), max_leaves=20)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in a JSON value (where a mutation can go)."""
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out += _paths(child, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn, template: Any) -> Any:
    """``template`` with one to three places replaced by random JSON (or, now and then, random JSON whole)."""
    if draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    value = copy.deepcopy(template)
    for _ in range(draw(st.integers(1, 3))):
        places = _paths(value)
        place = draw(st.sampled_from(places))
        if not place:
            return draw(json_values)
        parent = value
        for part in place[:-1]:
            parent = parent[part]
        if draw(st.booleans()) or not isinstance(parent, dict):
            parent[place[-1]] = draw(json_values)
        else:
            del parent[place[-1]]
    return value


def _build_or_refuse(inputs: list[Path], **kw: Any) -> None:
    out = Path(tempfile.mkdtemp(prefix="surge-fuzz-")) / "space"
    try:
        build_space(inputs, out, resamples=100, **kw)
    except SurgeError as exc:
        assert "\n" not in str(exc).strip(), str(exc)
        return
    finally:
        if not out.exists():
            shutil.rmtree(out.parent, ignore_errors=True)
    try:  # a valid Space: the app reads it and shows its table, every system's pages
        board = leaderboard_data.Board(out / "data")
        board.table({}, ci=True, published=True)
        for name in board.names:
            board.system_scores(name)
            for metric in board.metrics:
                board.worst(name, metric)
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, allow_nan=True), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def results_template(run) -> dict:  # noqa: F811
    return json.loads(run.results.read_text(encoding="utf-8"))


@FUZZ
@given(data=st.data())
def test_random_results_are_refused_in_one_line_or_built(results_template, tmp_path, data):
    value = data.draw(mutated(results_template))
    _build_or_refuse([_write(tmp_path / "fuzzed.json", value)])


@FUZZ
@given(data=st.data())
def test_random_details_are_refused_in_one_line_or_built(run, tmp_path, data):  # noqa: F811
    lines = [json.loads(line) for line in run.details.read_text(encoding="utf-8").splitlines()[:6]]
    fuzzed = [data.draw(mutated(line)) for line in lines[:3]] + lines[3:]
    details = tmp_path / "fuzzed.details.jsonl"
    details.write_text("\n".join(json.dumps(x, allow_nan=True) for x in fuzzed) + "\n", encoding="utf-8")
    _build_or_refuse([run.results], details=[f"results={details}"], passages_root=run.passages.parent)


@FUZZ
@given(data=st.data())
def test_random_manifests_are_refused_in_one_line_or_built(packed, tmp_path, data):  # noqa: F811
    folder = tmp_path / "submission"
    if not folder.exists():
        shutil.copytree(packed, folder)
    manifest = json.loads((packed / "submission.json").read_text(encoding="utf-8"))
    fuzzed = data.draw(mutated(manifest))
    if data.draw(st.booleans()) and isinstance(fuzzed, dict) and isinstance(fuzzed.get("files"), list):
        for entry in fuzzed["files"]:  # half the time the forger reseals the checksums: the content checks decide
            if isinstance(entry, dict) and isinstance(entry.get("path"), str) and not Path(entry["path"]).is_absolute() \
                    and ".." not in entry["path"] and (folder / entry["path"]).is_file():
                content = (folder / entry["path"]).read_bytes()
                entry["size"], entry["sha256"] = len(content), hashlib.sha256(content).hexdigest()
    _write(folder / "submission.json", fuzzed)
    _build_or_refuse([folder])
