"""The survey viewer's HTML: a submitted survey's Markdown, sanitised, with every citation coloured by its verdict.

Submissions are untrusted. The Markdown is rendered (markdown-it-py) and then cleaned by nh3 (the Rust
``ammonia`` sanitiser) with an allow-list: text formatting, lists, tables, code and links with http(s) or
mailto targets only. So no ``<script>``/``<style>``, no event-handler or ``style`` attribute, no
``javascript:``/``data:`` or relative link, no image, iframe, object, form or SVG survives. The citation
markers are put in as private-use placeholders *before* rendering and replaced by our own spans (every
untrusted string in them escaped) *after* cleaning; a second nh3 pass, allowing only our classes, checks
the result again. Hovering over a citation, or clicking it (it takes the focus), shows its evidence.

Part of the Space: it imports neither gradio nor surge-bench.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

OPEN, CLOSE = "\ue000", "\ue001"
_PLACEHOLDER = re.compile(f"{OPEN}(\\d+){CLOSE}")
TAGS = {"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code", "em",
        "strong", "b", "i", "u", "s", "del", "sub", "sup", "small", "mark", "table", "thead", "tbody", "tr", "th",
        "td", "a", "span"}
ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}
#: verdict -> CSS class; the order is also "worst first" for a marker that carries several citations.
VERDICT_CLASSES = {
    "missing number": "sg-missing", "unresolved reference": "sg-unresolved", "not supported": "sg-not-supported",
    "partly supported": "sg-partly", "not scored": "sg-not-scored", "supported": "sg-supported",
}
COLOURS = {"sg-supported": "#b7e4b7", "sg-partly": "#fbe29a", "sg-not-supported": "#f5b5b5",
           "sg-unresolved": "#d3c4ef", "sg-missing": "#ff8f8f", "sg-not-scored": "#cfe0f1"}
OUR_CLASSES = {"sg-cite", "sg-ev", "sg-ev-head", "sg-ev-title", "sg-ev-abs", "sg-ev-line", *COLOURS}
ABSTRACT_CHARS = 700

CSS = ("<style>.sg-survey{line-height:1.55}.sg-cite{position:relative;border-radius:3px;padding:0 2px;cursor:pointer;"
       "font-weight:600;color:#111}.sg-cite .sg-ev{display:none;position:absolute;z-index:60;left:0;top:1.5em;"
       "width:30em;max-width:75vw;background:#fff;color:#111;border:1px solid #777;border-radius:6px;padding:8px;"
       "font-weight:400;font-size:.85em;line-height:1.35;box-shadow:0 4px 14px rgba(0,0,0,.3);white-space:normal}"
       ".sg-cite:hover .sg-ev,.sg-cite:focus .sg-ev{display:block}.sg-ev-head,.sg-ev-title,.sg-ev-abs,.sg-ev-line"
       "{display:block;margin-top:3px}.sg-ev-head{font-weight:700}.sg-ev-title{font-style:italic}.sg-ev-abs"
       "{color:#444}.sg-missing{outline:1px dashed #a00}"
       + "".join(f".{c}{{background:{colour}}}" for c, colour in COLOURS.items()) + "</style>")


def render_markdown(text: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough").render(text)


def sanitise(markup: str, *, ours: bool = False) -> str:
    """Untrusted HTML -> HTML with the allow-list above; ``ours``: also our citation spans and their classes."""
    import nh3

    attributes = {**ATTRIBUTES, "span": {"tabindex", "role"}} if ours else ATTRIBUTES
    classes = {"span": OUR_CLASSES} if ours else None
    return nh3.clean(markup, tags=TAGS, attributes=attributes, url_schemes=URL_SCHEMES, allowed_classes=classes,
                     url_relative="deny", link_rel="noopener noreferrer nofollow", strip_comments=True,
                     clean_content_tags={"script", "style"})


def _number(value: Any, digits: int = 3) -> str:
    try:
        return "–" if value is None or value != value else f"{float(value):.{digits}f}"
    except (TypeError, ValueError):
        return "–"


def text_or_none(value: Any) -> str | None:
    """A text field as read back from Parquet: pandas 3 gives a missing string as NaN (a float), so a missing title,
    abstract or rule must not be taken for text (``len(nan)`` was the viewer's crash)."""
    return value if isinstance(value, str) and value else None


def doc_or_none(value: Any) -> int | None:
    """A doc id (int) or None for a missing one (None or NaN)."""
    try:
        return None if value is None or value != value else int(value)
    except (TypeError, ValueError):
        return None


def evidence(row: Mapping[str, Any], paper: Mapping[str, Any] | None) -> str:
    """One citation's evidence as spans (our markup; every value escaped); says what is missing: a doc id with no
    paper in this Space, a paper without a title or an abstract."""
    e = html.escape
    title = text_or_none((paper or {}).get("title"))
    abstract = text_or_none((paper or {}).get("abstract")) or ""
    if len(abstract) > ABSTRACT_CHARS:
        abstract = abstract[:ABSTRACT_CHARS] + "…"
    doc = doc_or_none(row.get("doc_id"))
    parts = [f'<span class="sg-ev-head">[{e(str(row.get("number")))}] {e(str(row.get("verdict")))}</span>']
    if title:
        parts.append(f'<span class="sg-ev-title">{e(title)}</span>')
    elif doc is not None:
        what = "no title" if paper else "no title or abstract"
        parts.append(f'<span class="sg-ev-line">doc id {doc} ({what} in this Space)</span>')
    if abstract:
        parts.append(f'<span class="sg-ev-abs">{e(abstract)}</span>')
    elif paper and title:
        parts.append('<span class="sg-ev-line">(no abstract in this Space)</span>')
    if row.get("entailment") is not None and row.get("entailment") == row.get("entailment"):
        parts.append(f'<span class="sg-ev-line">NLI entailment probability {_number(row.get("entailment"))}; '
                     f'score {_number(row.get("score"), 1)}</span>')
    parts.append(f'<span class="sg-ev-line">Rule: {e(text_or_none(row.get("rule")) or "–")}</span>')
    return "".join(parts)


def _marker(digits: str, rows: Sequence[Mapping[str, Any]], papers: Mapping[int, Mapping[str, Any]]) -> str:
    worst = min((list(VERDICT_CLASSES).index(r["verdict"]) for r in rows if r.get("verdict") in VERDICT_CLASSES),
                default=len(VERDICT_CLASSES) - 2)
    css = list(VERDICT_CLASSES.values())[worst]
    body = "".join(evidence(r, papers.get(doc) if (doc := doc_or_none(r.get("doc_id"))) is not None else None)
                   for r in rows)
    return (f'<span class="sg-cite {css}" tabindex="0" role="button">{html.escape(digits)}'
            f'<span class="sg-ev">{body}</span></span>')


def render_survey(text: str, rows: Iterable[Mapping[str, Any]] = (),
                  papers: Mapping[int, Mapping[str, Any]] | None = None) -> str:
    """The survey as sanitised HTML; ``rows`` (citations.parquet records) colour the markers they place."""
    text = text.replace(OPEN, "\ufffd").replace(CLOSE, "\ufffd")  # same length: the offsets stay right
    spans: dict[tuple[int, int], list[Mapping[str, Any]]] = {}
    for row in rows:
        start, end = row.get("start"), row.get("end")
        if start is not None and end is not None and start == start and end == end and 0 <= start < end <= len(text):
            spans.setdefault((int(start), int(end)), []).append(row)
    markers, pieces, last = [], [], len(text)
    for (start, end), group in sorted(spans.items(), reverse=True):
        if end > last:  # overlapping spans cannot be told apart: the later one is left uncoloured
            continue
        markers.append((text[start:end], group))
        pieces.append(text[end:last])
        pieces.append(f"{OPEN}{len(markers) - 1}{CLOSE}")
        last = start
    pieces.append(text[:last])
    cleaned = sanitise(render_markdown(_entries_apart("".join(reversed(pieces)))))
    filled = _PLACEHOLDER.sub(lambda m: _marker(*markers[int(m.group(1))], papers or {}), cleaned)
    filled = filled.replace(OPEN, "").replace(CLOSE, "")
    return CSS + '<div class="sg-survey">' + sanitise(filled, ours=True) + "</div>"


#: A line that starts a reference-list entry, ``[12] ...`` (its number may already be a marker's placeholder).
_ENTRY_LINE = re.compile(f"\n(?=\\[(?:\\d+|{OPEN}\\d+{CLOSE})\\])")


def _entries_apart(markdown: str) -> str:
    """Each reference-list entry its own paragraph: in Markdown, lines ``[1] A`` and ``[2] B`` one under the other
    are one paragraph, so the list would read as one run-on line (a blank line is put before each entry)."""
    return _ENTRY_LINE.sub("\n\n", markdown)


def legend() -> str:
    chips = "".join(f'<span class="sg-cite {c}" style="margin-right:8px">{html.escape(v)}</span>'
                    for v, c in reversed(VERDICT_CLASSES.items()))
    return CSS + f'<div class="sg-legend">{chips}</div>'


def _normalised(title: str) -> str:
    """The released evaluator's title key: the ASCII letters only, lower-cased."""
    return re.sub(r"[^A-Za-z]", "", title).lower()


def outline_html(generated: Sequence[tuple[int, str]] | None, gt: Sequence[tuple[int, str]] | None) -> str:
    """The generated outline beside the GT outline; ✓ marks GT headings the survey has (same title key)."""
    mine = {_normalised(t) for _, t in generated or [] if text_or_none(t)}

    def items(outline: Sequence[tuple[int, str]], mark: bool) -> str:
        lines = []
        for level, raw in outline:
            title = text_or_none(raw) or "(untitled heading)"
            tick = " ✓" if mark and _normalised(title) in mine else ""
            depth = doc_or_none(level) or 1
            lines.append(f'<li style="margin-left:{max(0, depth - 1) * 1.2:.1f}em">{html.escape(title)}{tick}</li>')
        return "<ul style='list-style:none;padding-left:0'>" + "".join(lines) + "</ul>"

    left = items(generated, False) if generated else "<p>No generated outline (no survey text in this Space).</p>"
    right = items(gt, True) if gt else "<p>No GT outline (the Space was built without the dataset of this system's " \
                                       "data fingerprint).</p>"
    return ('<div style="display:flex;gap:2em"><div style="flex:1"><h4>Generated outline</h4>' + left +
            '</div><div style="flex:1"><h4>Ground-truth outline</h4>' + right +
            "<p><small>✓ a generated heading has the same title key (letters a–z); SHR's soft embedding matches "
            "are not recorded in results files.</small></p></div></div>")
