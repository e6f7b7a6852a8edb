"""A paper's landing page -> its title (``surge import``'s link entries that carry no id and no words).

Academic pages (ACL Anthology, OpenReview, NeurIPS proceedings, ACM, Semantic Scholar, PLOS, PubMed Central, arXiv)
carry Google Scholar's ``<meta name="citation_title">``; the title is taken from it, else from
``dc.title`` / ``og:title`` / ``twitter:title``, else from ``<title>``, whose trailing site name is dropped (the
last `` - ``, `` | ``, `` – `` or `` — `` part when its letters are the page's ``og:site_name`` or name its host:
``... - ACL Anthology`` on aclanthology.org, ``... | PLOS One`` on journals.plos.org). Read with the stdlib's
:class:`html.parser.HTMLParser` (character references decoded, no markup left); the bytes are decoded by the
charset a ``Content-Type`` given names, else the page's ``<meta charset>``, else UTF-8.

Only ``http``/``https`` addresses are pages (:func:`page_url`); a link to a PDF is no page.
"""

from __future__ import annotations

import codecs
import re
from html.parser import HTMLParser
from urllib.parse import urlsplit, urlunsplit

__all__ = ["page_title", "page_url", "without_site_name"]

#: Metadata names that hold the work's title, best first (compared lower-cased).
TITLE_META = ("citation_title", "dc.title", "og:title", "twitter:title")
_URL_RE = re.compile(r"https?://[^\s<>\[\]()\"'`]+", re.I)
_SITE_SEPARATOR = re.compile(r"\s+[-|\u2013\u2014]\s+(?=[^-|\u2013\u2014]*$)")
_CHARSET_RE = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.I)


def page_url(text: str) -> str | None:
    """The first ``http(s)`` address in ``text`` that may be a landing page (no PDF), its fragment dropped."""
    for match in _URL_RE.finditer(text):
        parts = urlsplit(match.group(0).rstrip(".,;:!?*_"))
        if parts.netloc and not parts.path.lower().endswith(".pdf"):
            return urlunsplit(parts._replace(fragment=""))
    return None


class _HeadReader(HTMLParser):
    """The page's ``<meta>`` values (first of each name or property), its ``<meta charset>`` and first ``<title>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.charset: str | None = None
        self.title: str | None = None
        self._in_title = False
        self._title_parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "meta":
            values = {k.lower(): v or "" for k, v in attrs}
            if values.get("charset"):
                self.charset = self.charset or values["charset"]
            elif values.get("http-equiv", "").lower() == "content-type":
                found = _CHARSET_RE.search(values.get("content", ""))
                self.charset = self.charset or (found.group(1) if found else None)
            name = (values.get("name") or values.get("property") or "").strip().lower()
            if name and name not in self.meta and values.get("content", "").strip():
                self.meta[name] = values["content"]
        elif tag == "title" and self.title is None:
            self._in_title = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and self._in_title:
            self._in_title = False
            self.title = "".join(self._title_parts)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title_parts.append(data)


def _read(text: str) -> _HeadReader:
    reader = _HeadReader()
    reader.feed(text)
    reader.close()
    return reader


def _decode(body: bytes, content_type: str | None) -> str:
    """The page's text: the answer's charset, else its ``<meta charset>`` (read on an ASCII-safe first pass)."""
    declared = _CHARSET_RE.search(content_type or "")
    charset = declared.group(1) if declared else _read(body[:8192].decode("latin-1")).charset
    try:
        codecs.lookup(charset or "utf-8")
    except LookupError:
        charset = None
    return body.decode(charset or "utf-8", errors="replace")


def without_site_name(title: str, url: str, site_name: str) -> str:
    """``title`` without a trailing `` - Site`` part naming the page's site (module docstring)."""
    parts = _SITE_SEPARATOR.split(title, maxsplit=1)
    if len(parts) != 2 or not parts[0].strip():
        return title
    tail = re.sub(r"[^a-z0-9]", "", parts[1].lower())
    host_words = [w for w in (urlsplit(url).hostname or "").lower().split(".") if w not in {"www", "org", "com", "net",
                                                                                           "cc", "edu", "io"}]
    site = re.sub(r"[^a-z0-9]", "", site_name.lower())
    if tail and (tail == site or any(len(w) >= 3 and (w in tail or tail in w) for w in host_words)):
        return parts[0]
    return title


def page_title(body: bytes, content_type: str | None = None, url: str = "") -> str:
    """The work's title on a landing page (module docstring); ``""`` when the page names none."""
    reader = _read(_decode(body, content_type))
    for name in TITLE_META:
        text = " ".join(reader.meta.get(name, "").split())
        if text:
            return text
    title = " ".join((reader.title or "").split())
    return without_site_name(title, url, reader.meta.get("og:site_name", "")).strip() if title else ""
