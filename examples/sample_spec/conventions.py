"""Conventions shared by the sample's builder and its README: what counts as a long section, survey UUIDs."""

from __future__ import annotations

import uuid

LONG_CONTENT = 100  # protocol.md §4: "sections of GT with content" have at least this many characters


def survey_uuid(survey_id: int) -> str:
    """A stable UUID string per survey: the real queries.json's ``original_id`` is a UUID string."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"surge-sample/survey/{survey_id}"))
