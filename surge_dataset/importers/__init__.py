"""``surge import``: other systems' survey outputs -> the evaluator's layout, references resolved to the corpus.

Peer systems write surveys in their own shapes; ``surge evaluate`` reads ``OUT/<survey_id>/<file>.md``
with ``#`` headings, ``[n]`` citations and a reference list of ``[n] <title>`` lines. Readers per format:

``markdown``
    Any Markdown survey: ``DIR/<name>/<one file>`` (the released layout) or ``DIR/<name>.md``. The
    reference list is a References / Bibliography section (a heading or a bare ``References:`` line),
    else the trailing block of ``[n]`` lines. Citations are numeric (``[3]``, ``[1, 2]``, ``[1-3]``,
    ``[1; 2]``, ``[^3]``) when the entries are numbered, author-year (``(Smith et al., 2020; Lee, 2019)``,
    ``Smith and Lee (2020)``) when they are not; author-year citations are matched to entries by first
    author's surname and year (``2020a``/``2020b`` by suffix, else in list order). Each entry's title is
    read by the rule in :mod:`.titles`. Citations by bibliography key (``[key]``, ``[@key]``, ``\\cite{a,b}``)
    resolve through the ``.bib`` / ``.bbl`` beside the survey or ``--bib`` (:mod:`.keys`).
``latex``
    A ``.tex`` file, a folder holding a LaTeX source, or a folder of them, read by the fresh split's LaTeX
    reader (:mod:`.latex`): sections as headings, ``\\cite`` keys where they stood, its bibliography.
``autosurvey`` / ``surveyforge``
    AutoSurvey's Markdown (SurveyForge writes AutoSurvey's format): as ``markdown``, and when there is no
    numbered reference list, bracketed paper titles ``[Title A; Title B]`` (AutoSurvey's draft before its
    numbering step) are citations of those titles.
``storm``
    ``DIR/<topic>/storm_gen_article_polished.txt`` (else ``storm_gen_article.txt``) with ``[1]``-style
    citations, and ``url_to_info.json`` beside it: ``url_to_unified_index`` gives each source's number,
    ``url_to_info[url].title`` its title. The topic is the folder name (``_`` for spaces).
``llmxmr``
    LLMxMapReduce-V2's output (JSON lines, one survey per line, or one JSON record / list, whatever the
    file's suffix): ``title``, ``content`` (Markdown, citations ``[1,3]``) and ``papers`` (citation n =
    ``papers[n-1]``), else the ``ref_str`` list. The report may stand under ``article`` (DeepResearch Bench) or
    ``report`` instead, or under the key ``--field`` names. A file holding one record (the authors' ``output.json``)
    is named by where it is, like the other formats: ``DIR/<name>/<file>.json`` or ``DIR/<name>.jsonl``.
``inspect``
    Logs of the Inspect task ``surge/survey`` (:mod:`surge_dataset.inspect`): a ``.eval``/``.json`` log or a
    folder of them, one survey per sample, keyed by its survey id; the model, prompt version and Inspect
    version are recorded. One log also gives ``<OUT>.results.json``, its scores as a ``surge report`` input.

Every survey is matched to a ground-truth survey by its name when that is a survey id (the folder or file
under SOURCE; a SOURCE file: its stem, then its folder's name), else by title (its own, then its name;
normalised exactly, then fuzzily). An empty input (0 bytes, only
white space, an empty ``content``), an empty survey (no text under any heading, what a failed run leaves) and a
source of which nothing is kept are failures, not surveys: they are reported with the inputs that could not be
read, and the command exits 1. Numeric citations are read by the evaluator's ``paper`` rule
(:mod:`surge_dataset.survey.citations`: never in math, code or link targets, never citing 0). Every reference title resolves by the evaluator's exact rule
(``Corpus.resolve``: letters a-z, lower-cased), then by rapidfuzz ``fuzz.ratio`` on
``rapidfuzz.utils.default_process`` titles at or above ``threshold`` (default 90, recorded). A resolved
reference is written as the corpus spells its title (so a fuzzy match resolves in ``surge evaluate``
too); an unresolved one keeps its own title (and scores as not in the corpus). The report lists every
fuzzy match, every unresolved reference with its nearest corpus title, every written title the released
reference pattern cannot read back (resolved or not), what was lost and why, and what ``surge evaluate``
counts in each written file under each protocol, beside the importer's own count (the report's ``counting``
says why they differ). No References section is written for a survey without an entry.

Deep-research citation forms (linked numbers ``[[3]](url)``, source chips ``([Title](url))``, ``<sup>``, Unicode and
flattened superscripts) are read by :mod:`.marks`; an entry that is only an address gets its title by arXiv id or DOI,
else its own words, else its landing page (:mod:`.pages`), else keeps its URL (:mod:`.links`).

One module per job: :mod:`.records` (the records and formats), :mod:`.markdown` (reading a Markdown
survey and its reference list), :mod:`.titles` (a reference entry's title), :mod:`.keys` (citations by
bibliography key and the bibliography), :mod:`.latex` (LaTeX sources), :mod:`.formats` (the readers
per source format), :mod:`.resolution` (reference titles -> corpus papers, peer surveys -> ground-truth
surveys), :mod:`.convert` (citations renumbered, the evaluator's Markdown written) and :mod:`.report` (the
import and its report). The public names are re-exported here.
"""

from __future__ import annotations

from surge_dataset.importers.convert import convert_document
from surge_dataset.importers.formats import FORMATS, READERS, read_documents
from surge_dataset.importers.markdown import read_markdown
from surge_dataset.importers.records import DEFAULT_THRESHOLD, PeerDocument, RefEntry, SourceNotFoundError
from surge_dataset.importers.records import NEAR_MISS as NEAR_MISS
from surge_dataset.importers.records import STORM_ARTICLES as STORM_ARTICLES
from surge_dataset.importers.records import TEXT_SUFFIXES as TEXT_SUFFIXES
from surge_dataset.importers.report import ImportReport, import_outputs, report_path
from surge_dataset.importers.resolution import TitleMatcher
from surge_dataset.importers.titles import entry_titles

__all__ = [
    "DEFAULT_THRESHOLD",
    "FORMATS",
    "ImportReport",
    "READERS",
    "PeerDocument",
    "RefEntry",
    "SourceNotFoundError",
    "TitleMatcher",
    "convert_document",
    "entry_titles",
    "import_outputs",
    "read_documents",
    "read_markdown",
    "report_path",
]
