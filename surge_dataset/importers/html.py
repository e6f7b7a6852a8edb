"""``surge import --format html``: a report saved as an HTML page, turned into Markdown with markdownify (MIT, the
optional extra ``html``) and then read as ``--format markdown`` reads a file.

What the conversion keeps, so that the Markdown reader sees the report as its writer meant it:

* the page's ``<article>`` when it has exactly one, else its ``<main>``, else its ``<body>`` (a saved page's menus
  and footers are no part of the report); ``<script>``, ``<style>``, ``<noscript>`` and ``<template>`` are dropped;
* ``<h1>`` .. ``<h6>`` as ``#`` .. ``######`` headings;
* links as Markdown links, so a cited number keeps the forms the citation reader knows: ``<a href="URL">[3]</a>``
  becomes ``[[3]](URL)``; a number that links inside the page (``<a href="#ref-3">3</a>``, a jump to its entry)
  is the number itself, ``3`` (``[3]`` when the page bracketed it);
* ``<sup>`` as ``<sup>..</sup>`` (``<sup><a href="#ref-1">1</a></sup>`` is ``<sup>1</sup>``);
* lists as ``-`` / ``1.`` lists, so an ``<ol>`` under a References heading is the numbered reference list.

The page's encoding is the one it declares (``<meta charset>``), else what its bytes say (Beautiful Soup's rule).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import SurgeError
from surge_dataset.importers.markdown import read_markdown
from surge_dataset.importers.records import PeerDocument

__all__ = ["HTML_SUFFIXES", "MissingHtmlConverterError", "html_markdown", "read_html_documents"]

HTML_SUFFIXES = (".html", ".htm", ".xhtml")
#: The text of a link that is a citation number: ``3``, ``[3]``, ``1, 2``, ``[1-3]``.
_NUMBER_TEXT_RE = re.compile(r"\[?\s*\d{1,4}(?:\s*[-\u2013,;]\s*\d{1,4})*\s*\]?")
_DROPPED = ("script", "style", "noscript", "template")


class MissingHtmlConverterError(SurgeError, RuntimeError):
    """``--format html`` without markdownify installed: the CLI prints the one line and exits 2."""


def _converter() -> Any:
    try:
        from markdownify import MarkdownConverter
    except ImportError as exc:
        raise MissingHtmlConverterError("--format html needs markdownify: pip install 'surge-bench[html]'") from exc

    class ReportConverter(MarkdownConverter):  # type: ignore[misc, valid-type]
        """markdownify's converter, with a number that jumps to its entry in the page written as the number."""

        def convert_a(self, el: Any, text: str, parent_tags: set[str]) -> str:
            href = (el.get("href") or "").strip()
            if href.startswith("#") and _NUMBER_TEXT_RE.fullmatch(text.strip()):
                return text.strip()
            return str(super().convert_a(el, text, parent_tags))

    return ReportConverter(heading_style="ATX", bullets="-", sup_symbol="<sup>", sub_symbol="<sub>")


def html_markdown(page: bytes | str) -> str:
    """The Markdown of an HTML page: its report part converted by the module's rule."""
    converter = _converter()  # first: without the extra, bs4 (markdownify's dependency) may be absent too
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, "html.parser")
    for tag in soup.find_all(_DROPPED):
        tag.decompose()
    articles = soup.find_all("article")
    part = articles[0] if len(articles) == 1 else (soup.find("main") or soup.find("body") or soup)
    markdown = converter.convert_soup(part)
    return re.sub(r"\n{3,}", "\n\n", markdown).strip() + "\n"


def _pages(root: Path) -> tuple[list[tuple[str, Path]], list[tuple[str, str]]]:
    """((name, page) for ``root`` itself, ``root/<name>.html`` and ``root/<name>/<one .html>``, (folder, why it is
    skipped) for a folder holding none or several)."""
    if root.is_file():
        return [(root.stem, root)], []
    found: list[tuple[str, Path]] = []
    skipped: list[tuple[str, str]] = []
    for path in sorted(p for p in root.iterdir() if not p.name.startswith(".")):
        if path.is_file() and path.suffix.lower() in HTML_SUFFIXES:
            found.append((path.stem, path))
        elif path.is_dir():
            pages = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in HTML_SUFFIXES)
            if len(pages) == 1:
                found.append((path.name, pages[0]))
            else:
                skipped.append((str(path), f"{len(pages)} HTML files: cannot tell which is the report" if pages
                                else "no .html or .htm file"))
    return found, skipped


def read_html_documents(root: Path) -> Iterator[PeerDocument | tuple[str, str]]:
    """Each HTML report under ``root`` (see :func:`_pages`), read as Markdown and named by its file or folder."""
    found, skipped = _pages(root)
    yield from skipped
    for name, path in found:
        try:
            markdown = html_markdown(path.read_bytes())
        except RecursionError:  # markdownify recurses per element: unclosed tags nest hundreds deep in html.parser
            yield str(path), ("an HTML page nested too deeply for markdownify (hundreds of elements inside each "
                              "other, as unclosed tags make them): save it as Markdown or text and import that")
            continue
        if not markdown.strip():
            yield str(path), "an HTML page without text: nothing to import, not written"
            continue
        doc = read_markdown(markdown, name, str(path))
        doc.notes.append("read from an HTML page, converted to Markdown with markdownify")
        if root.is_file():
            doc.aliases.append(root.resolve().parent.name)
        yield doc
