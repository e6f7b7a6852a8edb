"""`surge submit` and `load_submission`: a real evaluate run packed, every refusal (packing and reading an
untrusted folder), and the pull request against a local HTTP server that answers huggingface_hub's calls."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
import typer
import typer.main
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.core.errors import OutputFolderError
from surge_dataset.core.vocabulary import OFFICIAL, PAPER
from surge_dataset.data.render import render_surveys
from surge_dataset.evaluation import EvaluationConfig, EvaluationSession, evaluate_run
from surge_dataset.leaderboard.submission import (
    LIMITS,
    MAX_SURVEY_FILE_BYTES,
    Submission,
    SubmissionError,
    load_submission,
    pack_submission,
)
from surge_dataset.leaderboard.submission_hub import open_pull_request

from .conftest import REPO_ROOT

runner = CliRunner()


class ConstantNLI:
    """Every pair is entailment: citation_accuracy runs without a model."""

    label_order = ("contradiction", "entailment", "neutral")

    def logits(self, pairs):
        return np.tile([0.0, 2.0, 1.0], (len(pairs), 1))


@dataclass
class Run:
    data: SurgeData
    passages: Path
    results: Path
    details: Path


def _surge_app() -> typer.Typer:
    """The `surge` app once `submit` is wired into cli.py; until then the same root group with `submit` alone."""
    from surge_dataset.cli import SurgeGroup, app
    from surge_dataset.cli.submit import submit

    if "submit" in typer.main.get_command(app).commands:
        return app
    local = typer.Typer(cls=SurgeGroup, pretty_exceptions_enable=False)
    local.command("submit")(submit)
    local.callback()(lambda: None)
    return local


def _evaluate(data: SurgeData, passages: Path, out: Path, protocol: str = OFFICIAL, details: Path | None = None):
    config = EvaluationConfig(metrics=["recall", "citation_accuracy"], protocol=protocol)
    return evaluate_run(data, passages, out,
                        EvaluationSession(config, nli=ConstantNLI()), details_path=details)


@pytest.fixture(scope="module")
def run(sample_dataset, tmp_path_factory) -> Run:
    """The sample's test surveys rendered as a system's output, each with a `surge generate`-like sidecar that
    records the (absolute) data folder, then scored by `surge evaluate`'s runner with --details."""
    root = tmp_path_factory.mktemp("run")
    data = SurgeData.open(sample_dataset)
    render_surveys(data.surveys("test"), data.corpus, root / "passages")
    for survey in data.surveys("test"):
        sidecar = {"status": "complete", "sidecar_version": 1, "system": "rag", "data": str(sample_dataset),
                   "llm": {"spec": "openai:gpt-4o-mini"}, "options": {"top_k": 10}}
        (root / "passages" / str(survey.survey_id) / "survey.json").write_text(json.dumps(sidecar), encoding="utf-8")
    _evaluate(data, root / "passages", root / "results.json", details=root / "details.jsonl")
    return Run(data, root / "passages", root / "results.json", root / "details.jsonl")


@pytest.fixture(scope="module")
def packed(run, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("packed") / "submission"
    pack_submission(run.results, run.passages, out, data=run.data, details=run.details)
    return out


def _copy_run(run: Run, tmp_path: Path) -> Run:
    shutil.copytree(run.passages, tmp_path / "passages")
    shutil.copy(run.results, tmp_path / "results.json")
    shutil.copy(run.details, tmp_path / "details.jsonl")
    return Run(run.data, tmp_path / "passages", tmp_path / "results.json", tmp_path / "details.jsonl")


def _edit_json(path: Path, edit) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    edit(value)
    path.write_text(json.dumps(value), encoding="utf-8")


def _pack(run: Run, tmp_path: Path, **kw) -> Submission:
    return pack_submission(run.results, run.passages, tmp_path / "submission", data=run.data, **kw)


def _copy_submission(packed: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "downloaded"
    shutil.copytree(packed, folder)
    return folder


def _reseal(folder: Path) -> None:
    """Rewrite the manifest's sizes and checksums to match the files: a forger's manifest, so only the
    content checks can refuse what follows."""
    def edit(manifest):
        for entry in manifest["files"]:
            content = folder.joinpath(*entry["path"].split("/")).read_bytes()
            entry["size"], entry["sha256"] = len(content), hashlib.sha256(content).hexdigest()

    _edit_json(folder / "submission.json", edit)


# --------------------------------------------------------------------------------------------- packing


def test_submit_packs_the_documented_layout_and_reads_it_back(run, tmp_path):
    out = tmp_path / "submission"
    result = runner.invoke(_surge_app(), ["submit", str(run.results), "--passages", str(run.passages), "--out", str(out),
                                          "--details", str(run.details), "--data", str(run.data.path)])
    assert result.exit_code == 0, result.output
    assert f"{out}: submission 'rag': 3 surveys, 9 files" in result.output  # name from the sidecars
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert files == ["details.jsonl", "passages/0/survey.json", "passages/0/survey.md", "passages/1/survey.json",
                     "passages/1/survey.md", "passages/2/survey.json", "passages/2/survey.md", "results.json",
                     "submission.json"]
    manifest = json.loads((out / "submission.json").read_text(encoding="utf-8"))
    assert manifest["name"] == "rag" and manifest["protocol"] == OFFICIAL and manifest["surveys"] == [0, 1, 2]
    assert manifest["data_fingerprint"] == run.data.fingerprint and manifest["surge_bench"]
    assert {"surge-bench", "torch", "python"} <= set(manifest["versions"]) and manifest["created"].endswith("+00:00")
    for entry in manifest["files"]:
        content = (out / entry["path"]).read_bytes()
        assert (len(content), hashlib.sha256(content).hexdigest()) == (entry["size"], entry["sha256"])
    # the surveys and details as evaluated, byte for byte; local paths kept as their last part only
    assert (out / "passages/1/survey.md").read_bytes() == (run.passages / "1/survey.md").read_bytes()
    assert (out / "details.jsonl").read_bytes() == run.details.read_bytes()
    original, packed_results = json.loads(run.results.read_text()), json.loads((out / "results.json").read_text())
    assert packed_results["config"]["passages"] == "passages" and packed_results["config"]["data"] == "surge"
    assert packed_results["surveys"] == original["surveys"] and packed_results["average"] == original["average"]
    assert json.loads((out / "passages/0/survey.json").read_text())["data"] == "surge"
    assert "passages/0/survey.json: data" in manifest["relocated"] and "results.json: config.data" in manifest["relocated"]
    assert not any(str(run.passages.parent) in p.read_text(encoding="utf-8") for p in out.rglob("*") if p.is_file())

    submission = load_submission(out, data=run.data)
    assert submission.name == "rag" and submission.results == out / "results.json"
    assert submission.passages == out / "passages" and submission.details == out / "details.jsonl"
    assert submission.manifest == manifest and submission.survey_ids == [0, 1, 2]


def test_name_option_and_no_details(run, tmp_path):
    submission = _pack(run, tmp_path, name="RAG (GPT-4o mini)")
    assert submission.name == "RAG (GPT-4o mini)" and submission.details is None
    with pytest.raises(SubmissionError, match="--name 'bad/name': a system name is 1-64 letters"):
        pack_submission(run.results, run.passages, tmp_path / "other", data=run.data, name="bad/name")


def test_paper_protocol_is_refused(run, tmp_path):
    paper = tmp_path / "paper.json"
    _evaluate(run.data, run.passages, paper, protocol=PAPER)
    with pytest.raises(SubmissionError, match=rf"{paper}: scored with the 'paper' protocol; the leaderboard ranks "
                                              r"the official protocol only"):
        pack_submission(paper, run.passages, tmp_path / "submission", data=run.data)
    assert not (tmp_path / "submission").exists()


def test_a_missing_test_survey_is_named(run, tmp_path):
    copy = _copy_run(run, tmp_path)
    shutil.rmtree(copy.passages / "2")
    _evaluate(run.data, copy.passages, copy.results)  # the real run: survey 2 is simply not scored
    with pytest.raises(SubmissionError, match=r"results.json: 1 of the 3 test surveys are not scored: 2; the "
                                              r"leaderboard ranks the full test split"):
        _pack(copy, tmp_path)


def test_a_survey_left_out_by_a_filter_says_why(run, tmp_path):
    copy = _copy_run(run, tmp_path)

    def exclude_one(results):
        del results["surveys"]["1"]
        results["excluded"] = [{"survey_id": 1, "reason": "fewer than 30 citations"}]

    _edit_json(copy.results, exclude_one)
    with pytest.raises(SubmissionError, match=r"not scored: 1 \(excluded: fewer than 30 citations\)"):
        _pack(copy, tmp_path)


def test_a_failed_survey_is_refused(run, tmp_path):
    copy = _copy_run(run, tmp_path)
    _edit_json(copy.results, lambda r: r["failures"].append({"survey_id": 2, "path": "x", "error": "no file"}))
    with pytest.raises(SubmissionError, match=r"1 survey folder\(s\) could not be evaluated \(2: no file\)"):
        _pack(copy, tmp_path)


def test_another_data_fingerprint_is_refused(run, tmp_path):
    copy = _copy_run(run, tmp_path)
    _edit_json(copy.results, lambda r: r["config"].update(data_fingerprint="0123456789abcdef"))
    with pytest.raises(SubmissionError, match=rf"scored on data '0123456789abcdef', not on --data {run.data.path} "
                                              rf"\('{run.data.fingerprint}'\)"):
        _pack(copy, tmp_path)


def test_an_api_key_in_a_sidecar_is_refused_and_not_printed(run, tmp_path):
    copy = _copy_run(run, tmp_path)
    key = "sk-proj-" + "A1b2C3d4" * 5
    _edit_json(copy.passages / "1" / "survey.json", lambda s: s["llm"].update(api_key=key))
    with pytest.raises(SubmissionError, match=r"passages/1/survey.json: holds an API key \(sk-...\), sk-p\.\.\. "
                                              r"\(48 characters\); a submission must not carry credentials") as raised:
        _pack(copy, tmp_path)
    assert key not in str(raised.value)


@pytest.mark.parametrize("where, text", [
    ("passages/0/survey.md", "\nAuthorization: Bearer abcdef0123456789abcdef\n"),
    ("passages/2/survey.md", "\nhf_" + "x" * 34 + "\n"),
    ("details.jsonl", '{"survey_id": 0, "note": "MY_SERVICE_TOKEN"}\n'),
])
def test_other_credentials_are_refused(run, tmp_path, monkeypatch, where, text):
    copy = _copy_run(run, tmp_path)
    monkeypatch.setenv("MY_SERVICE_TOKEN", "s3cr3t-value-0042")
    with open(tmp_path / where, "a", encoding="utf-8") as handle:
        handle.write(text.replace("MY_SERVICE_TOKEN", "s3cr3t-value-0042"))
    with pytest.raises(SubmissionError, match=rf"{where}: holds (a bearer token|a Hugging Face token|the value of the "
                                              "environment variable MY_SERVICE_TOKEN)"):
        _pack(copy, tmp_path, details=copy.details)


def test_an_absolute_path_in_the_config_is_refused(run, tmp_path):
    copy = _copy_run(run, tmp_path)
    _edit_json(copy.results, lambda r: r["config"].update(nli_model="/home/alice/models/nli-deberta"))
    with pytest.raises(SubmissionError, match=r"results.json: config.nli_model is an absolute path "
                                              r"\('/home/alice/models/nli-deberta'\); a submission must not reveal"):
        _pack(copy, tmp_path)


@pytest.mark.parametrize("where, key, value", [
    ("passages/0/survey.json", "options.cache", "C:\\Users\\bob\\cache"),
    ("passages/1/survey.json", "llm.spec", "gguf:/models/qwen2.5-14b-q4.gguf"),
    ("results.json", "judge.base_url", "file:///srv/judge"),
    ("details.jsonl", "line 2.note", "see /home/bob/notes.txt"),
])
def test_an_absolute_path_in_details_a_sidecar_or_the_results_is_refused(run, tmp_path, where, key, value):
    copy = _copy_run(run, tmp_path)
    target = tmp_path / where
    if where == "details.jsonl":
        lines = target.read_text(encoding="utf-8").splitlines()
        lines[1] = json.dumps({**json.loads(lines[1]), "note": value})
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        section, field = key.split(".")
        _edit_json(target, lambda record: record.setdefault(section, {}).update({field: value}))
    with pytest.raises(SubmissionError, match=rf"{where}: {re.escape(key)} is an absolute path"):
        _pack(copy, tmp_path, details=copy.details)


def test_the_docs_document_every_limit():
    section = (REPO_ROOT / "docs" / "submitting.md").read_text(encoding="utf-8")  # moved from the README
    for name, value in LIMITS.items():
        shown = f"{value // 2**20} MiB" if name.endswith("_BYTES") else f"{value:,}"
        assert re.search(rf"^\| `{name}`.* \| {shown} \|$", section, re.M), name


def test_an_oversized_file_is_refused(run, tmp_path):
    copy = _copy_run(run, tmp_path)
    with open(copy.passages / "0" / "survey.md", "a", encoding="utf-8") as handle:
        handle.write("x" * MAX_SURVEY_FILE_BYTES)
    with pytest.raises(SubmissionError, match=r"passages/0/survey.md: 4.0 MiB, over the 4.0 MiB limit for a survey "
                                              r"folder's file \(MAX_SURVEY_FILE_BYTES\)"):
        _pack(copy, tmp_path)


def test_non_utf8_text_is_refused(run, tmp_path):
    copy = _copy_run(run, tmp_path)
    with open(copy.passages / "2" / "survey.md", "ab") as handle:
        handle.write("\nCaf\u00e9 au lait\n".encode("latin-1"))
    with pytest.raises(SubmissionError, match=r"passages/2/survey.md: not UTF-8 text \(byte \d+: invalid continuation "
                                              r"byte\); a submission holds UTF-8 text only"):
        _pack(copy, tmp_path)


def test_a_symlink_in_the_passages_is_refused(run, tmp_path):
    copy = _copy_run(run, tmp_path)
    (tmp_path / "elsewhere.md").write_text("# Intro\n", encoding="utf-8")
    (copy.passages / "1" / "survey.md").unlink()
    (copy.passages / "1" / "survey.md").symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(SubmissionError, match=r"passages/1/survey.md: a symbolic link"):
        _pack(copy, tmp_path)


def test_out_never_writes_over_inputs_or_other_files(run, tmp_path):
    with pytest.raises(OutputFolderError, match="is inside --passages"):
        pack_submission(run.results, run.passages, run.passages / "submission", data=run.data)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep", encoding="utf-8")
    with pytest.raises(OutputFolderError, match="holds files that surge did not write"):
        pack_submission(run.results, run.passages, tmp_path / "mine", data=run.data, overwrite=True)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"
    _pack(run, tmp_path)
    with pytest.raises(OutputFolderError, match=r"already exists \(a submission packed by `surge submit`\); pass --overwrite"):
        _pack(run, tmp_path)
    assert _pack(run, tmp_path, overwrite=True, name="again").name == "again"


def test_the_cli_prints_one_line_and_exits_2(run, tmp_path):
    paper = tmp_path / "paper.json"
    _evaluate(run.data, run.passages, paper, protocol=PAPER)
    result = runner.invoke(_surge_app(), ["submit", str(paper), "--passages", str(run.passages), "--out",
                                          str(tmp_path / "s"), "--data", str(run.data.path)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "'paper' protocol" in lines[0]


# --------------------------------------------------------------------------------- reading (untrusted)


def test_a_path_outside_the_folder_in_the_manifest_is_refused(packed, tmp_path):
    for path, why in (("../outside.txt", "a path outside the submission folder"),
                      ("passages/0/../../../etc/passwd", "a path outside the submission folder"),
                      ("/etc/passwd", "an absolute path outside the submission folder")):
        folder = _copy_submission(packed, tmp_path / path.replace("/", "_"))
        _edit_json(folder / "submission.json",
                   lambda m, p=path: m["files"].append({"path": p, "size": 1, "sha256": "0" * 64}))
        with pytest.raises(SubmissionError, match=rf"submission.json: lists '{path}', {why}"):
            load_submission(folder)


def test_symlinks_in_a_submission_are_refused(packed, tmp_path):
    folder = _copy_submission(packed, tmp_path)
    outside = tmp_path / "secret.md"
    shutil.copy(folder / "passages/0/survey.md", outside)  # same bytes: the checksum alone would pass
    (folder / "passages/0/survey.md").unlink()
    (folder / "passages/0/survey.md").symlink_to(outside)
    with pytest.raises(SubmissionError, match=r"passages/0/survey.md: a symbolic link; a submission holds plain files"):
        load_submission(folder)
    folder = _copy_submission(packed, tmp_path / "dir")
    shutil.move(folder / "passages" / "2", tmp_path / "two")
    (folder / "passages" / "2").symlink_to(tmp_path / "two", target_is_directory=True)
    with pytest.raises(SubmissionError, match=r"passages/2: a symbolic link"):
        load_submission(folder)


def test_a_tampered_file_fails_its_checksum(packed, tmp_path):
    folder = _copy_submission(packed, tmp_path)
    survey = folder / "passages/1/survey.md"
    survey.write_text(survey.read_text(encoding="utf-8").replace("Introduction", "Introductiom", 1), encoding="utf-8")
    with pytest.raises(SubmissionError, match=r"passages/1/survey.md: its sha256 differs from submission.json's: the "
                                              r"file was changed after packing"):
        load_submission(folder)


def test_an_unlisted_file_is_refused(packed, tmp_path):
    folder = _copy_submission(packed, tmp_path)
    (folder / "passages/0/payload.html").write_text("<script>alert(1)</script>", encoding="utf-8")
    with pytest.raises(SubmissionError, match=r"passages/0/payload.html: not listed in submission.json"):
        load_submission(folder)


@pytest.mark.parametrize("case", ["non_utf8", "oversized", "api_key", "absolute_path", "paper"])
def test_a_forged_manifest_does_not_get_content_past_the_checks(packed, tmp_path, case):
    """The checksums match (the forger rewrote them): the content checks refuse on their own."""
    folder = _copy_submission(packed, tmp_path)
    survey = folder / "passages/2/survey.md"
    if case == "non_utf8":
        survey.write_bytes(survey.read_bytes() + b"\n\xff\xfe\n")
    elif case == "oversized":
        survey.write_bytes(survey.read_bytes() + b"x" * MAX_SURVEY_FILE_BYTES)
    elif case == "api_key":
        survey.write_bytes(survey.read_bytes() + b"\nsk-" + b"Z9" * 12 + b"\n")
    elif case == "absolute_path":
        _edit_json(folder / "results.json", lambda r: r["config"].update(embedding_model="/Users/bob/minilm"))
    else:
        _edit_json(folder / "results.json", lambda r: r["config"].update(protocol=PAPER))
    _reseal(folder)
    expected = {"non_utf8": r"passages/2/survey.md: not UTF-8 text", "oversized": r"passages/2/survey.md: .* over the",
                "api_key": r"passages/2/survey.md: holds an API key", "paper": r"'paper' protocol",
                "absolute_path": r"results.json: config.embedding_model is an absolute path"}[case]
    with pytest.raises(SubmissionError, match=expected):
        load_submission(folder)


def test_reading_checks_the_dataset_when_given(packed, run, tmp_path):
    folder = _copy_submission(packed, tmp_path)

    def drop_survey_2(results):
        del results["surveys"]["2"]

    _edit_json(folder / "results.json", drop_survey_2)
    _edit_json(folder / "submission.json", lambda m: m.update(surveys=[0, 1], files=[
        f for f in m["files"] if not f["path"].startswith("passages/2/")]))
    shutil.rmtree(folder / "passages" / "2")
    (folder / "details.jsonl").write_text("", encoding="utf-8")
    _reseal(folder)
    assert load_submission(folder).survey_ids == [0, 1]  # consistent in itself
    with pytest.raises(SubmissionError, match=r"1 of the 3 test surveys are not scored: 2"):
        load_submission(folder, data=run.data)


def test_not_a_submission_folder(tmp_path):
    with pytest.raises(SubmissionError, match="no submission.json, so not a submission folder"):
        load_submission(tmp_path)
    (tmp_path / "submission.json").write_text('{"format": "surge-submission", "format_version": 9}', encoding="utf-8")
    with pytest.raises(SubmissionError, match="format_version 9; this surge-bench reads 1"):
        load_submission(tmp_path)


# --------------------------------------------------------------------------------------- pull request


class _HubHandler(BaseHTTPRequestHandler):
    """Answers the Hub API calls huggingface_hub makes for `create_commit(..., create_pr=True)` on dataset
    org/submissions: repo info, preupload (every file 'regular', sent inline) and the commit; anything else
    404 RepoNotFound, as the Hub answers for a repository it does not have."""

    repo = "org/submissions"
    sha = "c" * 40

    def log_message(self, *args):  # quiet
        pass

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while size := int(self.rfile.readline().strip() or b"0", 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            self.rfile.readline()
            return b"".join(chunks)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _answer(self, status: int, value: dict, headers: dict | None = None) -> None:
        payload = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, header in (headers or {}).items():
            self.send_header(name, header)
        self.end_headers()
        self.wfile.write(payload)

    def _handle(self, method: str) -> None:
        url = urlsplit(self.path)
        body = self._body() if method == "POST" else b""
        self.server.calls.append({"method": method, "path": url.path, "query": parse_qs(url.query),
                                  "authorization": self.headers.get("Authorization"), "body": body})
        base = f"/api/datasets/{self.repo}"
        if method == "GET" and url.path in (base, f"{base}/revision/main"):
            self._answer(200, {"id": self.repo, "sha": self.sha, "private": False, "siblings": []})
        elif method == "POST" and url.path == f"{base}/preupload/main":
            files = json.loads(body)["files"]
            self._answer(200, {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False,
                                          "oid": None} for f in files]})
        elif method == "POST" and url.path == f"{base}/commit/main":
            host = f"http://{self.headers['Host']}"
            self._answer(200, {"commitUrl": f"{host}/datasets/{self.repo}/commit/{'d' * 40}", "commitOid": "d" * 40,
                               "pullRequestUrl": f"{host}/datasets/{self.repo}/discussions/7"})
        else:
            self._answer(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})

    def do_GET(self):  # noqa: N802 - http.server's names
        self._handle("GET")

    def do_POST(self):  # noqa: N802
        self._handle("POST")


@pytest.fixture
def local_hub():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _HubHandler)
    server.calls = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _hub_env(endpoint: str, token: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "TRANSFORMERS_OFFLINE")}
    env.update(HF_ENDPOINT=endpoint, HF_HUB_OFFLINE="0", HF_HUB_DISABLE_TELEMETRY="1", NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost",
               HF_HOME=str(Path(env.get("SURGE_CACHE", "/tmp")) / "hf-home"))
    if token:
        env["HF_TOKEN"] = token
    return env


#: The `surge` app in a fresh interpreter (huggingface_hub reads HF_ENDPOINT and HF_HUB_OFFLINE at import).
_SURGE = """
import sys, typer, typer.main
from surge_dataset.cli import SurgeGroup, app
from surge_dataset.cli.submit import submit
if "submit" not in typer.main.get_command(app).commands:
    app = typer.Typer(cls=SurgeGroup, pretty_exceptions_enable=False)
    app.command("submit")(submit)
    app.callback()(lambda: None)
app(sys.argv[1:], prog_name="surge")
"""


def test_repo_opens_a_pull_request_on_the_hub(run, tmp_path, local_hub):
    endpoint = f"http://127.0.0.1:{local_hub.server_address[1]}"
    token = "hf_" + "T" * 34  # a fake token: only the local server sees it
    out = tmp_path / "submission"
    result = subprocess.run(
        [sys.executable, "-c", _SURGE, "submit", str(run.results), "--passages", str(run.passages), "--out", str(out),
         "--details", str(run.details), "--data", str(run.data.path), "--repo", "org/submissions"],
        cwd=REPO_ROOT, env=_hub_env(endpoint, token), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"pull request: {endpoint}/datasets/org/submissions/discussions/7" in result.stdout

    calls = local_hub.calls
    assert [(c["method"], c["path"].rsplit("/", 1)[-1]) for c in calls] == [
        ("GET", "submissions"), ("POST", "main"), ("POST", "main")]
    assert all(c["authorization"] == f"Bearer {token}" for c in calls)
    preupload, commit = calls[1], calls[2]
    assert preupload["path"].endswith("/preupload/main") and preupload["query"] == {"create_pr": ["1"]}
    assert commit["path"] == "/api/datasets/org/submissions/commit/main" and commit["query"] == {"create_pr": ["1"]}
    lines = [json.loads(line) for line in commit["body"].splitlines() if line.strip()]
    assert lines[0]["key"] == "header" and lines[0]["value"]["summary"] == "Submission: rag"
    assert run.data.fingerprint in lines[0]["value"]["description"]
    sent = {item["value"]["path"]: base64.b64decode(item["value"]["content"]) for item in lines[1:]
            if item["key"] == "file"}
    expected = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert sorted(sent) == [f"submissions/rag/{rel}" for rel in expected]
    assert all(sent[f"submissions/rag/{rel}"] == (out / rel).read_bytes() for rel in expected)


def test_repo_without_a_token_is_refused_before_writing(run, tmp_path, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HUGGING_FACE_HUB_TOKEN", raising=False)
    result = runner.invoke(_surge_app(), ["submit", str(run.results), "--passages", str(run.passages), "--out",
                                          str(tmp_path / "s"), "--data", str(run.data.path), "--repo", "org/subs"])
    assert result.exit_code == 2 and "needs a Hugging Face token with write access in the environment" in result.output
    assert not (tmp_path / "s").exists()


def test_without_the_hub_a_one_line_error(packed, local_hub, monkeypatch):
    """Offline mode (as in these tests), a Hub that cannot be reached, a repository it does not have."""
    from huggingface_hub import constants

    monkeypatch.setenv("HF_TOKEN", "hf_" + "T" * 34)
    messages = []
    with pytest.raises(SubmissionError, match=r"--repo org/submissions: HF_HUB_OFFLINE is set, so the Hub is not "
                                              rf"contacted; unset it; the submission folder {re.escape(str(packed))} "
                                              r"is ready") as raised:
        open_pull_request(packed, "org/submissions")
    messages.append(str(raised.value))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{port}")
    # what went wrong in words, not the HTTP library's exception class
    with pytest.raises(SubmissionError, match=rf"cannot reach the Hub at http://127.0.0.1:{port} \((?!\w*Error)") as raised:
        open_pull_request(packed, "org/submissions")
    messages.append(str(raised.value))
    monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{local_hub.server_address[1]}")
    with pytest.raises(SubmissionError, match=r"--repo org/other: no dataset repository org/other at http://127") as raised:
        open_pull_request(packed, "org/other")
    messages.append(str(raised.value))
    assert not any("\n" in message for message in messages)
    assert [c["path"] for c in local_hub.calls] == ["/api/datasets/org/other"]  # nothing sent before the repo is known
    with pytest.raises(SubmissionError, match=r"--repo 'not a repo': expected ORG/NAME"):
        open_pull_request(packed, "not a repo")
