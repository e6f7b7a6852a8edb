"""Reading a generated survey (Markdown) into a heading tree, a reference list and citation instances.

Two protocols, because the published SurGE numbers and the SurGE paper disagree on how a survey is read
(``docs/protocol.md`` §2-§4):

``official``
    Reproduces the authors' released evaluator, quirks included, so that scores computed with it are
    comparable with the published Table 4 (:mod:`.official_parse`; the function-by-function mirror of
    the released code is :mod:`surge_dataset.protocols.official`).
``paper``
    Follows the paper's text, robustly (:mod:`.paper_parse`).

Parsing never raises on odd input: every oddity becomes a :class:`Diagnostic`. Modules, by job:

* :mod:`.decode`       bytes -> text -> lines (encodings, byte-order mark, newlines);
* :mod:`.model`        ``SurveyNode``, ``Reference``, ``Citation``, ``GeneratedSurvey``, ``Diagnostic``;
* :mod:`.headings`     which headings each protocol counts (skip rules), the one references-section rule and the
                       Markdown heading rule;
* :mod:`.tree`         the heading-tree builder both parsers share;
* :mod:`.citations`    what a numeric citation is for ``paper`` and ``surge import`` (not in math, code, links);
* :mod:`.official_parse` / :mod:`.paper_parse`  the two readings;
* :mod:`.diagnostics`  the diagnostics both parsers add;
* :mod:`.parse`        :func:`parse_survey`, the entry point.
"""

from __future__ import annotations

from surge_dataset.core.vocabulary import PROTOCOLS
from surge_dataset.survey.citations import CITATION_GROUP_RE, CitationGroup, citation_groups
from surge_dataset.survey.decode import decode_survey_bytes, read_survey_file
from surge_dataset.survey.headings import ATX_HEADING_RE, is_references_label, is_references_title
from surge_dataset.survey.model import Citation, Diagnostic, GeneratedSurvey, Reference, SurveyNode
from surge_dataset.survey.official_parse import (
    OFFICIAL_CITATION_RE,
    OFFICIAL_HEADING_RE,
    OFFICIAL_REFERENCE_RE,
    official_reference,
)
from surge_dataset.survey.paper_parse import MAX_CITATION_RANGE, PAPER_REFERENCE_RE
from surge_dataset.survey.parse import parse_survey

__all__ = [
    "ATX_HEADING_RE",
    "CITATION_GROUP_RE",
    "MAX_CITATION_RANGE",
    "OFFICIAL_CITATION_RE",
    "OFFICIAL_HEADING_RE",
    "OFFICIAL_REFERENCE_RE",
    "PAPER_REFERENCE_RE",
    "PROTOCOLS",
    "Citation",
    "CitationGroup",
    "Diagnostic",
    "GeneratedSurvey",
    "Reference",
    "SurveyNode",
    "citation_groups",
    "decode_survey_bytes",
    "is_references_label",
    "is_references_title",
    "official_reference",
    "parse_survey",
    "read_survey_file",
]
