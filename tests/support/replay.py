"""A local server on 127.0.0.1 that replays real recorded answers of OpenAlex, Semantic Scholar, arXiv and Crossref.

The answers are files under ``tests/fixtures/services/<service>/`` (origins and licences in the README there); the
index (``index.json``) maps a request to one of them and does nothing else: for each service a list of rules
``{"path": ..., "match": {param: value}, "status": ..., "answer": <file>}``, tried in order, the first whose path
equals the request's and whose every ``match`` parameter equals the request's (URL-decoded, first value) answers;
an empty ``match`` is the service's answer to every other request (a recorded miss). No title is compared here:
the code under test does all the matching. A request no rule takes gets a 404 ``no recorded answer`` and is kept
in :attr:`ReplayServer.unmatched`, so a test can insist that every request it caused was a recorded one.

Services live under path prefixes, as on ``tests.support.bib_server.BibServer``: ``/openalex``, ``/s2``,
``/arxiv``, ``/crossref`` (``base_url_options()`` gives the ``bib_base_url`` values); saved landing pages under
``/pages`` (the index's ``pages`` list, rules of the same form; :meth:`ReplayServer.page` is a page's address). Extra rules (a fault: 429
with ``Retry-After``, 500, a refused query, a redirect) are given by the test and tried first; those are the only
hand-written answers (a rule may give its ``body`` as text instead of an ``answer`` file).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.support.bib_server import NO_SERVICE, PREFIXES, ServicesServer  # the scripted stand-in's paths
from tests.support.local_server import QuietHandler, send_answer

__all__ = ["FIXTURES", "PAGES", "PREFIXES", "ReplayServer", "Served"]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "services"
_TYPES = {".json": "application/json", ".xml": "application/atom+xml; charset=utf-8", ".html": "text/html"}
#: The path prefix of the saved landing pages, and their rules' name in the index.
PAGES = "pages"


@dataclass(frozen=True)
class Served:
    """One request and the file that answered it (``None``: no rule took it)."""

    service: str
    path: str
    params: dict[str, str]
    status: int
    answer: str | None


def path_of(raw_path: str) -> str:
    return urlsplit(raw_path).path


class ReplayServer(ServicesServer):
    """``with ReplayServer() as server: compute(..., bib_base_url=server.base_url_options())``."""

    def __init__(self, index: str | Path = FIXTURES / "index.json",
                 extra_rules: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> None:
        self.root = Path(index).parent
        recorded = json.loads(Path(index).read_text(encoding="utf-8"))
        rules = {**recorded["rules"], PAGES: recorded.get(PAGES, [])}
        self.rules = {service: [*(extra_rules or {}).get(service, ()), *rules.get(service, ())]
                      for service in [*PREFIXES, PAGES]}
        self.served: list[Served] = []
        self._lock = threading.Lock()
        super().__init__()

    @property
    def unmatched(self) -> list[Served]:
        with self._lock:
            return [s for s in self.served if s.answer is None]

    def answers(self, service: str | None = None) -> list[str]:
        """The files served (of one service), in order."""
        with self._lock:
            return [s.answer for s in self.served if s.answer and (service is None or s.service == service)]

    def page(self, path: str) -> str:
        """The address of a saved page served at ``path`` (``/abs/1706.03762``)."""
        return f"{self.address}/{PAGES}{path}"

    def _answer(self, service: str, path: str, params: dict[str, str]) -> tuple[int, bytes, dict[str, str], str | None]:
        for rule in self.rules[service]:
            if rule["path"] == path and all(params.get(k) == v for k, v in rule["match"].items()):
                name = rule.get("answer")
                suffix = Path(name).suffix if name else ".html"
                headers = {"Content-Type": _TYPES.get(suffix, "application/octet-stream"), **rule.get("headers", {})}
                body = (self.root / name).read_bytes() if name else rule.get("body", "").encode()
                return int(rule["status"]), body, headers, name or f"({rule['status']} written by the test)"
        body = json.dumps({"error": f"no recorded answer for {service} {path}?{params}"}).encode()
        return 404, body, {"Content-Type": "application/json"}, None

    def start(self) -> ReplayServer:
        owner = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802 - stdlib naming
                service, path, all_params = owner.route(self.path)
                if service is None and self.path.startswith(f"/{PAGES}/"):
                    service, path = PAGES, path_of(self.path)[len(PAGES) + 1:]
                if service is None:
                    send_answer(self, *NO_SERVICE)
                    return
                params = {k: v[0] for k, v in all_params.items()}
                status, body, headers, answer = owner._answer(service, path, params)
                with owner._lock:
                    owner.served.append(Served(service, path, params, status, answer))
                send_answer(self, status, body, headers)

        return self._serve(Handler, "replay-server")
