"""The records of an import: one peer survey before conversion and its reference entries; the constants.

The formats are listed once, as the readers in :data:`.formats.READERS`."""

from __future__ import annotations

from dataclasses import dataclass, field

from surge_dataset.core.errors import SurgeError

#: ``--threshold``: a fuzzy title match needs rapidfuzz ``fuzz.ratio`` (0-100) on processed titles at least this.
DEFAULT_THRESHOLD = 90.0
#: Unresolved titles whose best corpus candidate scores at least threshold - NEAR_MISS are reported with it.
NEAR_MISS = 15.0
STORM_ARTICLES = ("storm_gen_article_polished.txt", "storm_gen_article.txt")
TEXT_SUFFIXES = {".md", ".markdown", ".txt", ""}

# ------------------------------------------------------------------------------------------ records


class SourceNotFoundError(SurgeError, FileNotFoundError):
    """``surge import SOURCE``: no such file or folder, or one the format cannot read (STORM reads a folder)."""


@dataclass(frozen=True)
class RefEntry:
    """One reference of a peer output: the title to resolve and where it came from."""

    title: str
    raw: str
    surname: str = ""  # first author's surname, letters only, lower case (author-year matching)
    year: str = ""  # 4 digits plus an optional letter, e.g. 2020a


@dataclass
class PeerDocument:
    """One peer survey before conversion: Markdown text without its reference list, and the references.

    ``references`` maps a numeric citation key (``"3"``) to its entry; ``author_year`` holds unnumbered
    entries in list order; ``title_citations`` allows ``[Title; Title]`` citations (AutoSurvey drafts);
    ``bibliography`` maps cite keys to entries (a ``.bib`` / ``.bbl`` or a LaTeX source's), of which only the
    cited ones are listed. ``lost`` says what the reader could not keep and why; ``notes`` what else to know.
    """

    key: str  # the folder or file stem that names the survey (a record's position when a file holds several)
    source: str
    title: str | None
    body: str
    references: dict[str, RefEntry] = field(default_factory=dict)
    author_year: list[RefEntry] = field(default_factory=list)
    title_citations: bool = False
    bibliography: dict[str, RefEntry] = field(default_factory=dict)
    bibliography_files: list[str] = field(default_factory=list)
    reference_list: bool = False  # the source has a reference list (a section, a trailing [n] block, a file)
    notes: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)  # other names, tried after key: a SOURCE file's folder
