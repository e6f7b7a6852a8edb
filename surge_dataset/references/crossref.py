"""Crossref (https://www.crossref.org): works whose bibliographic metadata matches the reference's title.

No maintained small client fits (``habanero`` pulls in much for one query), so the request is written here.
Request: ``GET {base}/works?query.bibliographic=<title>&rows=5&select=DOI,title,issued,type``, plus
``mailto=<e-mail>`` for the polite pool ($SURGE_CROSSREF_EMAIL, else $SURGE_BIB_EMAIL). Answer:
``{"status": "ok", "message-type": "work-list", "message": {"items": [{"DOI": ..., "title": [...],
"issued": {"date-parts": [[2017, 6, 12]]}}]}}``; no match = empty ``items``. Titles keep the markup their
publishers deposited (``<i>``, ``<scp>``, ``<sub>``, JATS and MathML, ``&amp;``): :func:`~.markup.plain_title`
makes them text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from surge_dataset.core.http import Request
from surge_dataset.core.vocabulary import CROSSREF
from surge_dataset.references.base import AnswerError, Candidate, arxiv_id_of, clean_query, env_value
from surge_dataset.references.registry import bib_service

__all__ = ["SERVICE", "CrossrefService"]

ROWS = 5


def _date(issued: Any) -> tuple[int | None, str | None]:
    """``{"date-parts": [[2017, 6, 12]]}`` -> (2017, "2017-06-12"); a partial date gives the year only."""
    try:
        parts = [int(p) for p in issued["date-parts"][0] if p is not None]
    except (TypeError, KeyError, IndexError, ValueError):
        return None, None
    if not parts:
        return None, None
    date = f"{parts[0]:04d}-{parts[1]:02d}-{parts[2]:02d}" if len(parts) >= 3 else None
    return parts[0], date


@bib_service
class CrossrefService:
    name = CROSSREF
    default_base_url = "https://api.crossref.org"
    default_rate = 5.0
    package = "requests"

    def request(self, title: str, base_url: str, environ: Mapping[str, str]) -> Request:
        params = {"query.bibliographic": clean_query(title), "rows": ROWS, "select": "DOI,title,issued,type"}
        email = env_value(environ, "SURGE_CROSSREF_EMAIL", "SURGE_BIB_EMAIL")
        if email:
            params["mailto"] = email
        return Request(f"{base_url.rstrip('/')}/works", urlencode(params))

    def parse(self, status: int, body: bytes) -> list[Candidate]:
        if status != 200:
            raise AnswerError(f"HTTP {status}")
        try:
            items = json.loads(body)["message"]["items"]
        except (ValueError, KeyError, TypeError) as exc:
            raise AnswerError(f"not a Crossref work list ({type(exc).__name__})") from None
        found = []
        for item in items or []:
            if not isinstance(item, dict):
                continue
            titles = item.get("title") or []
            year, date = _date(item.get("issued") or item.get("published"))
            doi = item.get("DOI") or None
            found.append(Candidate.from_service(str(titles[0] if titles else ""), id=doi, doi=doi,
                                                arxiv_id=arxiv_id_of(doi), year=year, date=date))
        return found


SERVICE = CrossrefService()
