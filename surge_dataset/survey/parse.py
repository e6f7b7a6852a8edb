"""``parse_survey``: text or bytes -> :class:`~.model.GeneratedSurvey` under one of the two protocols."""

from __future__ import annotations

import dataclasses

from surge_dataset.core.diagnostics import Diagnostic, diagnostic
from surge_dataset.core.vocabulary import OFFICIAL, PROTOCOLS
from surge_dataset.survey.decode import decode_survey_bytes, normalise_newlines, split_lines
from surge_dataset.survey.diagnostics import DiagnosticLog
from surge_dataset.survey.model import GeneratedSurvey
from surge_dataset.survey.official_parse import parse_official
from surge_dataset.survey.paper_parse import parse_paper


def parse_survey(text: str | bytes, protocol: str = "official") -> GeneratedSurvey:
    """Parse a generated survey under ``protocol`` (``official`` or ``paper``); never raises on odd text."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; expected one of {', '.join(PROTOCOLS)}")
    diagnostics: list[Diagnostic] = []
    if isinstance(text, (bytes, bytearray)):
        text, diagnostics = decode_survey_bytes(bytes(text))
    elif not isinstance(text, str):
        raise TypeError(f"parse_survey expects str or bytes, not {type(text).__name__}")
    text = normalise_newlines(text, keep_bom=protocol == OFFICIAL)
    if text.startswith("\ufeff") and protocol == OFFICIAL:
        diagnostics.append(
            diagnostic("byte_order_mark", "the file starts with a byte-order mark, kept as the released "
                       "evaluator keeps it (a heading on the first line is then not read as a heading)", 1)
        )
    lines = split_lines(text)
    if not text.strip():
        diagnostics.append(diagnostic("empty_file", "the survey is empty or only white space"))
    log = DiagnosticLog(diagnostics)
    parsed = parse_official(lines, log) if protocol == OFFICIAL else parse_paper(lines, log)
    return dataclasses.replace(parsed, diagnostics=log.finish())
