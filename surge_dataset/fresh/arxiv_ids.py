"""arXiv identifiers written in bibliography entries, so a cited paper can be fetched by id, not searched by title.

An id is only read where the entry says it is an arXiv id, never from a bare number (a page range ``1701.1712``,
a year, another publisher's DOI ``10.1145/3292500.3330701`` all look like numbers):

* ``arXiv:2101.12345`` / ``arXiv 2101.12345`` / ``arXiv preprint arXiv:1706.03762v5`` (``:``, spaces or ``~``);
* URLs ``arxiv.org/abs/<id>``, ``arxiv.org/pdf/<id>v2(.pdf)``, ``arxiv.org/html/<id>`` (any scheme and host
  prefix such as ``export.``);
* arXiv's DOIs ``10.48550/arXiv.<id>``;
* DBLP's ``CoRR`` volumes ``abs/1706.03762`` (only in an entry that names CoRR);
* BibTeX ``eprint = {<id>}`` when ``archivePrefix``/``eprinttype`` is arXiv or absent (another archive's
  eprint, e.g. PubMed, is not read), biblatex's ``\\field{eprinttype}{arxiv}`` + ``eprint``, ``\\eprint{<id>}``;
* the same through ``.bbl`` formatting (``\\emph{\\bibinfo{journal}{{arXiv}}} \\textbf{\\bibinfo{volume}{1301.3781}}``,
  ``naturemag``): commands and braces are dropped when the text as written names no id;
* old-style ids ``hep-th/9901001``, ``cs/0112017``, ``math.GT/0309136`` (archive from :data:`OLD_ARCHIVES`), also
  without the ``arXiv:`` prefix: an archive name, a slash and seven digits is specific enough.

The id must have a real arXiv form: new style ``YYMM.NNNN`` (0704 to 1412) or ``YYMM.NNNNN`` (1501 on), month
01-12, year not after the current one, not followed by another digit; old style ``archive[.SUBJECT]/YYMMNNN`` with
YYMM from 9107 to 0703. It is normalised: version suffix dropped (``1706.03762v5`` -> ``1706.03762``), an
old-style subject class dropped (``math.GT/0309136`` -> ``math/0309136``, the form the API answers with).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date

from surge_dataset.references.arxiv_search import split_version

__all__ = ["OLD_ARCHIVES", "bib_fields_arxiv_id", "find_arxiv_id", "normalise_arxiv_id"]

#: arXiv's archives of the old id scheme (before April 2007), https://arxiv.org/help/arxiv_identifier.
OLD_ARCHIVES = frozenset(
    "acc-phys adap-org alg-geom ao-sci astro-ph atom-ph bayes-an chao-dyn chem-ph cmp-lg comp-gas cond-mat cs "
    "dg-ga funct-an gr-qc hep-ex hep-lat hep-ph hep-th math math-ph mtrl-th nlin nucl-ex nucl-th patt-sol physics "
    "plasm-ph q-alg q-bio quant-ph solv-int supr-con".split())

_NEW = r"\d{4}\.\d{4,5}"
_OLD = r"[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z]{2,}(?:-[a-z]+)?)?/\d{7}"
_ID = rf"(?:{_NEW}|{_OLD})(?:v\d+)?(?![\d.]\d)(?!\d)"
_ANY_ID = re.compile(rf"^\s*(?:arxiv\s*:\s*)?({_ID})\s*$", re.IGNORECASE)
#: The contexts that say "this is an arXiv id", strongest first within one entry's text (earliest match wins).
_IN_TEXT = re.compile(
    r"(?:\barxiv(?:\.org)?/(?:abs|pdf|html|e-print|src)/"  # URLs (also export.arxiv.org)
    rf"|\b10\.48550/arxiv\.|\barxiv\s*[:~]?\s*(?:~\s*)?)({_ID})",  # DOI, then arXiv:ID / arXiv ID
    re.IGNORECASE)
_CORR = re.compile(rf"\babs/({_NEW}(?:v\d+)?(?!\d))")
_OLD_BARE = re.compile(rf"(?<![\w./-])({_OLD})(?:v\d+)?(?!\d)")
_EPRINT_COMMAND = re.compile(rf"\\eprint\s*(?:\[\s*arxiv\s*\])?\s*\{{\s*(?:arxiv\s*:\s*)?({_ID})\s*\}}",
                             re.IGNORECASE)


def normalise_arxiv_id(text: str, *, today: date | None = None) -> str | None:
    """``text`` as a normalised arXiv id (module docstring), or None when it is no real arXiv id form."""
    value = split_version(text.strip())[0]
    if "/" in value:
        archive, number = value.split("/", 1)
        archive = archive.split(".", 1)[0].lower()
        if archive not in OLD_ARCHIVES or not re.fullmatch(r"\d{7}", number):
            return None
        year, month = int(number[:2]), int(number[2:4])
        stamp = (1900 + year if year >= 91 else 2000 + year) * 100 + month
        return f"{archive}/{number}" if 1 <= month <= 12 and 199107 <= stamp <= 200703 else None
    match = re.fullmatch(r"(\d{2})(\d{2})\.(\d{4,5})", value)
    if match is None:
        return None
    year, month, digits = int(match.group(1)), int(match.group(2)), len(match.group(3))
    yymm = year * 100 + month
    last_year = (today or date.today()).year % 100
    if not 1 <= month <= 12 or yymm < 704 or year > last_year or digits != (4 if yymm < 1501 else 5):
        return None
    return value


#: Markup between "arXiv" and its id in some styles' ``.bbl`` (``naturemag``: ``\emph{\bibinfo{journal}{{arXiv}}}
#: \textbf{\bibinfo{volume}{1301.3781}}``): the commands and braces are dropped before a second look.
_WRAPPERS = re.compile(r"\\bibinfo\s*\{[^{}]*\}|\\(?:emph|textbf|textit|textrm|textsf|texttt|bf|it|em)(?![A-Za-z@])|[{}]")


def find_arxiv_id(text: str) -> str | None:
    """The first arXiv id ``text`` (one entry's LaTeX or BibTeX text) writes in a context of the module docstring,
    else the first it writes once the formatting commands around its parts are dropped."""
    found = _find_arxiv_id(text)
    if found is None and "\\" in text:
        found = _find_arxiv_id(_WRAPPERS.sub(" ", text))
    return found


def _find_arxiv_id(text: str) -> str | None:
    candidates: list[tuple[int, str]] = []
    for pattern in (_IN_TEXT, _EPRINT_COMMAND, _OLD_BARE):
        candidates += [(m.start(), m.group(1)) for m in pattern.finditer(text)]
    if re.search(r"\bcorr\b", text, re.IGNORECASE):
        candidates += [(m.start(), m.group(1)) for m in _CORR.finditer(text)]
    for _, found in sorted(candidates):
        normalised = normalise_arxiv_id(found)
        if normalised:
            return normalised
    return None


def bib_fields_arxiv_id(fields: Mapping[str, str]) -> str | None:
    """The arXiv id of one BibTeX/biblatex entry's fields (lower-case names -> values): the ``eprint`` field when
    the archive is arXiv or unnamed, else the first id in any field's text (``url``, ``doi``, ``journal``...)."""
    archive = (fields.get("archiveprefix") or fields.get("eprinttype") or "arxiv").strip().lower()
    eprint = _ANY_ID.match(fields.get("eprint", ""))
    if archive == "arxiv" and eprint:
        normalised = normalise_arxiv_id(eprint.group(1))
        if normalised:
            return normalised
    texts = [value for name, value in fields.items() if name not in ("eprint", "title")]
    return find_arxiv_id("\n".join(texts))
