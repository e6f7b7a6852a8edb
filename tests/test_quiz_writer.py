"""`surge data quiz`: questions spread over the GT sections, checked against the sentence they quote, dropped and
counted when it does not carry them; through a local OpenAI-compatible server; cached, resumable, costed."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from surge_dataset import SurgeData
from surge_dataset.cli import app
from surge_dataset.core.records import Survey
from surge_dataset.data.quiz_sets import read_quiz_file
from surge_dataset.quiz.writer import QUESTION_TOKENS, Ask, check_question, plan
from surge_dataset.testing.quiz import ClozeWriter, quoted
from tests.support.openai_server import ScriptedOpenAIServer

runner = CliRunner()
SECTION = ("Spectral approaches define convolution through the eigendecomposition of the graph Laplacian. Fast "
           "localised filters approximate the spectral response with Chebyshev polynomials of the Laplacian.")
ASK = Ask(0, "Graphs", "Spectral Methods", SECTION, 1)
GOOD = {"question": "What do fast localised filters approximate the spectral response with?",
        "options": ["Chebyshev polynomials", "Fourier features", "random walks", "attention weights"],
        "answer": "A", "evidence": "Fast localised filters approximate the spectral response with Chebyshev "
                                   "polynomials of the Laplacian."}


def _survey(*contents: str) -> Survey:
    nodes = [{"id": 0, "parent_id": None, "title": "root", "content": ""}]
    nodes += [{"id": i, "parent_id": 0, "title": f"S{i}", "content": c} for i, c in enumerate(contents, start=1)]
    return Survey.from_official({"survey_id": 5, "survey_title": "T", "structure": nodes})


def test_questions_are_spread_over_the_sections_with_content():
    survey = _survey("x" * 100, "short", "y" * 150, "z" * 100)  # three sections with >= 100 characters
    # 10 over 3: 3 each, the one left to the first section (evenly spaced: index 0)
    assert [(a.section, a.count) for a in plan(survey, 10)] == [("S1", 4), ("S3", 3), ("S4", 3)]
    # 2 over 3: sections 0 and 1 (i * 3 // 2 for i in 0, 1); the third is not asked
    assert [(a.section, a.count) for a in plan(survey, 2)] == [("S1", 1), ("S3", 1)]
    assert plan(_survey("short"), 10) == []


@pytest.mark.parametrize(("change", "reason"), [
    ({}, None),
    ({"answer": " (a). "}, None),  # the letter read as the writer meant it
    ({"options": ["Chebyshev polynomials", "Fourier features", "random walks"]}, "malformed"),
    ({"answer": "E"}, "malformed"),
    ({"evidence": "Filters use polynomials."}, "evidence_not_in_section"),  # not a sentence of the section
    ({"answer": "B"}, "answer_not_in_evidence"),  # "Fourier features" is not what the quote says
    ({"evidence": "“Fast localised filters approximate the spectral response with Chebyshev polynomials of "
                  "the Laplacian”"}, None),  # typographic quotes around the quote do not matter
])
def test_each_question_is_checked_against_the_sentence_it_quotes(change, reason):
    record, why = check_question({**GOOD, **change}, ASK)
    assert why == reason and (record is None) == (reason is not None)


def _scripted_writer(replies: dict[str, list[str]]):
    """ClozeWriter, except for the sections named in ``replies``: their scripted answers, one per request."""
    writer = ClozeWriter()

    def respond(messages):
        heading = re.search(r'^The section "(.*?)" of the survey', messages[0 if messages[0]["role"] == "user" else 1]
                            ["content"], re.M)
        queue = replies.get(heading.group(1) if heading else "")
        return queue.pop(0) if queue else writer(messages)

    return respond


def test_surge_data_quiz_through_a_local_server_drops_and_counts_then_resumes(sample_dataset, tmp_path):
    data = SurgeData.open(sample_dataset)
    sections = {title: content for title, content in ((n["title"], n["content"]) for n in data.survey(0).structure)}
    not_in_section = {**GOOD, "evidence": "Graphs are small."}
    wrong_answer = {"question": "Where do graphs come from?", "options": ["road maps", "quantum chromodynamics",
                                                                        "poetry", "tax law"],
                    "answer": "B", "evidence": sections["Introduction"].split(". ")[0] + "."}
    # per-survey 3 over survey 0's 11 sections: sections 0, 3 and 7 (i * 11 // 3), one question each
    replies = {"Introduction": ["I cannot write JSON.", json.dumps([wrong_answer, GOOD])],
               "Attention-Based Aggregation": [json.dumps([not_in_section])]}
    out = tmp_path / "quizzes.jsonl"
    args = ["data", "quiz", "--data", str(sample_dataset), "--survey-ids", "0", "--per-survey", "3", "--judge",
            "openai:writer", "--out", str(out), "--cache-dir", str(tmp_path / "cache")]
    with ScriptedOpenAIServer(responder=_scripted_writer(replies)) as server:
        result = runner.invoke(app, [*args, "--base-url", server.base_url])
        assert result.exit_code == 0, result.output
        asked = [quoted(r.messages[0 if r.messages[0]["role"] == "user" else 1]["content"], "Section")
                 for r in server.requests]
        # 3 sections, and one follow-up turn after the unreadable answer (the same conversation, continued)
        assert len(server.requests) == 4 and sorted(set(asked)) == sorted(
            {sections["Introduction"], sections["Attention-Based Aggregation"],
             sections["Molecules and Knowledge Graphs"]})
        follow_up = next(r for r in server.requests if len(r.messages) > 2)
        assert "not a JSON array" in follow_up.messages[-1]["content"]
    manifest = json.loads((tmp_path / "quizzes.manifest.json").read_text())
    assert manifest["questions_asked"] == 3 and manifest["questions"] == 1 and manifest["sections_asked"] == 3
    assert manifest["dropped"] == {"malformed": 0, "evidence_not_in_section": 1, "answer_not_in_evidence": 1,
                                   "duplicate": 0, "surplus": 1, "no_answer": 0}
    assert manifest["by_survey"] == {"0": {"asked": 3, "kept": 1}}
    assert (manifest["generator"], manifest["prompt_version"]) == ("openai:writer", "surge-quiz-writer-1")
    [kept] = read_quiz_file(out).questions
    assert (kept.question_id, kept.section, kept.generator) == ("0-0", "Molecules and Knowledge Graphs", "openai:writer")
    assert manifest["fingerprint"] == read_quiz_file(out).fingerprint
    assert "dropped: evidence_not_in_section 1, answer_not_in_evidence 1, surplus 1" in result.output
    before = out.read_bytes()
    with ScriptedOpenAIServer(responder=lambda m: "never asked") as again:  # every answer is in the cache
        result = runner.invoke(app, [*args, "--base-url", again.base_url])
        assert result.exit_code == 0 and again.requests == [], result.output
    assert out.read_bytes() == before


def test_dry_run_counts_calls_and_tokens_and_sends_nothing(sample_dataset, tmp_path):
    args = ["data", "quiz", "--data", str(sample_dataset), "--split", "test", "--judge", "openai:writer",
            "--out", str(tmp_path / "q.jsonl"), "--cache-dir", str(tmp_path / "cache"), "--dry-run"]
    with ScriptedOpenAIServer() as server:
        result = runner.invoke(app, [*args, "--base-url", server.base_url, "--price-per-1k", "1,2"],
                               env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        assert server.requests == [] and not (tmp_path / "q.jsonl").exists()
    # the test split: surveys 0, 1, 2 with 11 sections of content each, 10 questions each: 10 calls of one question
    # per survey, each with an answer budget of 400 tokens
    row = re.search(r"│\s*([\d,]+)\s*│\s*([\d,]+)\s*│\s*([\d,]+)\s*│\s*([\d,]+)\s*│\s*([\d,]+)\s*│", result.output)
    assert row and row.groups()[:3] == ("30", "0", "30") and row.group(5) == f"{30 * QUESTION_TOKENS:,}"
    assert "30 questions asked" in result.output and "price of the calls to send" in result.output
