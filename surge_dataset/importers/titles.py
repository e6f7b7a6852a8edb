"""Reference entry -> the title to resolve: the rule ``surge import`` applies to every entry of a reference list.

1. Clean-up: a list bullet, Markdown link targets (the text stays, ``[[PDF] Title](url)`` too) and bare URLs are
   dropped, Markdown's escaped punctuation (``\\-``, ``\\[``) unescaped, and a trailing access date (``, accessed
   November 8, 2025``) and a leading file type (``[PDF]``) dropped.
2. Emphasis opened or closed next to a space, around words, is tightened: ``*Why Do Detectors Fail *`` (a
   generator that wrote ``?`` as a space) reads as ``*Why Do Detectors Fail*``; ``2 * 3 * 4`` stays. ``*``
   only: ``_`` is left alone (LaTeX subscripts).
3. An entry that opens with an **author list followed by a bare year** (no brackets) is read as if the year
   were bracketed: ``Chen, Y., et al., 2019, Title. Journal`` and ``Yu Chen and Lingfei Wu. 2020. Title. In
   NeurIPS.`` become ``<authors> (<year>). <rest>``. An entry that opens with a Vancouver author list
   (``Smith J, Lee KM, et al. Title. Journal. 2020;5:1-3``) is read as ``<authors> (n.d.). <rest>``.
4. The (rewritten) entry goes to the evaluator's own reader of reference entries (``--protocol paper``,
   ``surge_dataset.survey.paper_parse``): after a bracketed year the title is a leading ``*emphasised*`` span,
   else the first sentence of the rest; otherwise an emphasised or quoted span, ``Authors. Title. Venue,
   year.``, or the whole entry.

What counts as an author list in step 3 (strict, so that a title-only entry such as ``Deep Learning, 2016,
MIT Press`` is left whole): the text before the year splits at ``,``, ``;``, ``&`` and ``and`` into names;
every name is one to five words, each a capitalised word, an initial (``Y.``, ``M.J.``, ``J.-P.``; undotted
``MJ`` only ending a name) or a particle (``van``, ``de`` ...); and the list has a dotted initial, or ``et
al.``, or two or more names each ``Surname INITIALS`` (Vancouver), or, only between full stops (the ACL
style ``Yu Chen and Lingfei Wu. 2020. Title.``), two or more names of two to four capitalised words each. A
Vancouver list without a year needs two such names, or one and ``et al.``. Limits: a title followed by a
comma (``..., 2019, Title, Journal, 12``) runs to the first sentence end, so the venue stays in it; a single
author without initials (``Yu Chen. 2020. Title.``, ``Smith J. Title.``) is not taken for an author list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from surge_dataset.survey import parse_survey
from surge_dataset.survey.paper_parse import MARKDOWN_LINK_RE

_BULLET_RE = re.compile(r"^\s*[-*+\u2022]\s+")
_URL_RE = re.compile(r"<?https?://\S+>?")
_LEADING_SEPARATOR_RE = re.compile(r"^(?:[-\u2013\u2014|:]\s+)+")
#: A Markdown link whose text holds a bracketed word (``[[PDF] Title](url)``) or whose URL holds parentheses
#: (``[Title](https://en.wikipedia.org/wiki/Proof_(x))``): the text stays.
_NESTED_LINK_RE = re.compile(r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])+)\]\(\s*<?(?:[^()\s<>]|\([^()\s]*\))*>?\s*\)")
#: The file type a search engine puts before a result's title (``[PDF] Title``): no part of the title.
_FILE_TYPE_RE = re.compile(r"^\[(?:PDF|HTML|DOCX?|PPTX?|BOOK|CITATION)\]\s*")
#: A Markdown export's escaped punctuation (Gemini Deep Research writes ``Title \- Site``, ``\[2301.07639\]``).
_ESCAPED_RE = re.compile(r"\\([-_.!#()\[\]])")
#: The date a web source was read, which a Gemini Deep Research "Works cited" entry appends to its title.
_ACCESSED_RE = re.compile(r",?\s*accessed(?: on)? (?:[A-Z][a-z]+\.? \d{1,2}|\d{1,2} [A-Z][a-z]+\.?),? \d{4}\s*,?\s*$")
#: ``*Title *``, ``** Title**``: emphasis with white space inside a marker (``*`` only, 1-3 of them).
_LOOSE_EMPHASIS_RE = re.compile(r"(?<![*\w])(\*{1,3})[ \t]*([^*\n]*?[^*\s])[ \t]*\1(?![*\w])")
#: Authors, then a bare year between separators, then the rest: ``Chen, Y., et al., 2019, Title. ...``.
_BARE_YEAR_RE = re.compile(
    r"^(?P<authors>[^()\[\]\d\"\u201c]{2,400}?)\s*(?P<before>[.,]?)\s+(?P<year>(?:19|20)\d{2}[a-z]?)\s*(?P<after>[.,:])\s+"
    r"(?P<rest>\S.*)$"
)
#: A Vancouver author list without a year: up to the first ``. `` after a name's undotted initials.
_VANCOUVER_RE = re.compile(r"^(?P<authors>[^()\[\]\d\"\u201c.]{2,400}?\b(?:[A-Z]{1,3}|et\s+al))\.\s+(?P<rest>[^\s(].*)$")
_ET_AL_RE = re.compile(r"\bet\s+al\b\.?")
_SPLIT_RE = re.compile(r"\s*(?:[,;&]|\band\b)\s*")
_DOTTED_INITIALS_RE = re.compile(r"^(?:[A-Z]\.(?:\s*-?\s*[A-Z]\.)*|[A-Z]\.-[A-Z]\.?)$")
_UNDOTTED_INITIALS_RE = re.compile(r"^[A-Z]{1,3}$")
_PARTICLES = frozenset("van von der den de del della di da dos du la le ter ten bin al y e".split())


def _word_kind(word: str, last: bool) -> str | None:
    """``dotted`` / ``undotted`` (initials), ``name``, ``particle``, or None (not a word of a name)."""
    if _DOTTED_INITIALS_RE.match(word):
        return "dotted"
    if last and _UNDOTTED_INITIALS_RE.match(word):
        return "undotted"
    if word in _PARTICLES:
        return "particle"
    if word[:1].isupper() and re.fullmatch(r"[^\W\d_][^\W\d_'\u2019-]*(?:['\u2019-][^\W\d_]+)*\.?", word):
        return "name"
    return None


def _names(authors: str) -> tuple[list[list[str]], bool] | None:
    """The names of an author list with each word's kind, and whether it has ``et al.``; None if not one."""
    et_al = bool(_ET_AL_RE.search(authors))
    names: list[list[str]] = []
    for chunk in _SPLIT_RE.split(_ET_AL_RE.sub("", authors)):
        words = re.sub(r"(?<=\.)(?=[A-Z])", " ", chunk).split()  # "J.D." and "M. J." alike
        if not words:
            continue
        kinds = [_word_kind(w, i == len(words) - 1) for i, w in enumerate(words)]
        if None in kinds or len(words) > 5 or set(kinds) == {"particle"}:
            return None
        names.append([str(k) for k in kinds])
    return (names, et_al) if names else None


def _vancouver(name: list[str]) -> bool:
    return name[-1] == "undotted" and "name" in name[:-1] and "dotted" not in name


def _full_name(name: list[str]) -> bool:
    return 2 <= sum(k == "name" for k in name) <= 4 and set(name) <= {"name", "particle"}


def _is_author_list(authors: str, *, year: bool, acl: bool = False) -> bool:
    """Whether ``authors`` is an author list by the module's rule (``year``: a bare year follows it; ``acl``:
    between full stops, ``Names. 2020. Title``, the one place full names without initials count)."""
    found = _names(authors)
    if found is None:
        return False
    names, et_al = found
    vancouver = all(_vancouver(n) for n in names) and (len(names) >= 2 or (et_al and len(names) == 1))
    if not year:
        return vancouver
    dotted = any("dotted" in n for n in names)
    return dotted or et_al or vancouver or (acl and len(names) >= 2 and all(_full_name(n) for n in names))


def _bracketed_year_shape(entry: str) -> str:
    """``entry`` with a bare year after its author list bracketed (step 3 of the module's rule)."""
    bare = _BARE_YEAR_RE.match(entry)
    if bare and re.search(r"[^\W\d_]", bare.group("rest")) and _is_author_list(
            bare.group("authors"), year=True, acl=bare.group("before") == bare.group("after") == "."):
        return f"{bare.group('authors').rstrip(' ,')} ({bare.group('year')}). {bare.group('rest')}"
    vancouver = _VANCOUVER_RE.match(entry)
    if vancouver and _is_author_list(vancouver.group("authors"), year=False):
        return f"{vancouver.group('authors')}. (n.d.). {vancouver.group('rest')}"
    return entry


def _tighten(match: re.Match[str]) -> str:
    """``*Title *`` -> ``*Title*``; a span without a word (``2 * 3 * 4``) is no emphasis and stays."""
    marker, inner = match.group(1), match.group(2)
    return f"{marker}{inner}{marker}" if re.search(r"[^\W\d_]{2}", inner) else match.group(0)


def clean_entry(entry: str) -> str:
    """Steps 1-3 of the module's rule: the entry as the evaluator's reader should see it."""
    text = _NESTED_LINK_RE.sub(r"\1", _BULLET_RE.sub("", entry))
    text = _URL_RE.sub("", MARKDOWN_LINK_RE.sub(r"\1", text)).strip()
    text = _FILE_TYPE_RE.sub("", _ACCESSED_RE.sub("", _ESCAPED_RE.sub(r"\1", text)).strip())
    # "[1] https://x - Title - Site" (DeepResearch Bench submissions): the separator the URL leaves opens no title
    text = _LEADING_SEPARATOR_RE.sub("", text)
    text = _LOOSE_EMPHASIS_RE.sub(_tighten, text)
    return _bracketed_year_shape(text)


def entry_titles(entries: Sequence[str]) -> list[str]:
    """The title of each reference entry, by the module's rule (step 4 reads them all in one pass)."""
    if not entries:
        return []
    cleaned = [clean_entry(e) for e in entries]
    text = "# References\n\n" + "\n".join(f"[{i}] {e}" for i, e in enumerate(cleaned, 1)) + "\n"
    parsed = parse_survey(text, protocol="paper").references
    return [parsed[i].title if i in parsed else cleaned[i - 1] for i in range(1, len(cleaned) + 1)]
