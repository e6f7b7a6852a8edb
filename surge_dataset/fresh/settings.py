"""The settings of ``surge data fresh`` (:class:`FreshOptions`), apart from the pipeline: the CLI reads the options
off these declarations at start-up, so every ``surge`` command would otherwise load the pipeline, its LaTeX readers
and the reference resolver (:mod:`.pipeline` runs them).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from surge_dataset.core.errors import SettingError
from surge_dataset.core.settings import setting
from surge_dataset.core.vocabulary import CITATION_SOURCES, OPENALEX, check_choice, parse_list

__all__ = ["DEFAULT_CATEGORIES", "DEFAULT_THRESHOLD", "FreshOptions"]

DEFAULT_CATEGORIES = "cs.AI,cs.CL,cs.CV,cs.IR,cs.LG"
#: ``--match-threshold``: why 90, in :mod:`.resolve`.
DEFAULT_THRESHOLD = 90.0


@dataclass
class FreshOptions:
    """The settings of ``surge data fresh`` (each one a CLI option, read off its declaration)."""

    since: str = setting(help="First submission day of the window, YYYY-MM-DD (e.g. 2025-06-01).")
    until: str | None = setting(None, help="Last submission day, YYYY-MM-DD (default: open, searched up to today).")
    categories: str = setting(DEFAULT_CATEGORIES, help="arXiv categories, comma-separated.")
    min_citations: int = setting(0, help="Keep candidates cited at least this often (the paper: 20; a recent "
                                         "survey has had no time to be cited, so 0 by default).")
    citations_from: str = setting(OPENALEX, choices=CITATION_SOURCES, help="Where citation counts come from.")
    min_extract_rate: float = setting(0.5, help="Drop a survey when fewer of its cited keys resolve to arXiv "
                                                "papers (resolved / cited keys).")
    match_threshold: float = setting(DEFAULT_THRESHOLD, help="Fuzzy title match (0-100) accepted when no arXiv "
                                                             "title matches exactly.")
    topic_papers: int = setting(20, help="Topic-related papers searched per kept survey (0: none).")
    random_sample: int = setting(0, help="Random papers of the categories added to the corpus.")
    seed: int = setting(0, help="Seed of the random sample.")
    base_corpus: Path | None = setting(None, help="Append to this corpus (a folder with corpus.json, or a built "
                                                  "dataset such as ./surge): its doc ids are kept.")
    cache_dir: Path | None = setting(None, help="Downloads and look-ups cache (default OUT/cache).")
    rate: float = setting(3.0, help="Seconds between two requests to one host (arXiv's terms: 3).")
    bib_base_url: list[str] = setting(
        default_factory=list, metavar="HOST=URL", cli_type=list[str],
        help="Another base URL (repeatable): arxiv= the API (/api/query), arxiv-src= the e-prints (default: the "
             "API's links; {id} is replaced by <id>v<N>, else /src/<id>v<N> is appended), openalex=, "
             "semanticscholar=.")
    timeout: float = setting(30.0, help="Seconds per request before it is retried.")
    max_retries: int = setting(4, help="Retries of a failed request (429, 5xx, network errors).")
    concurrency: int = setting(4, help="Downloads and title look-ups in flight (each host keeps --rate).")

    def __post_init__(self) -> None:
        from surge_dataset.fresh.candidates import date_window
        from surge_dataset.fresh.sources import host_urls

        check_choice("citations_from", self.citations_from, CITATION_SOURCES)
        date_window(self.since, self.until)
        if not parse_list(self.categories):
            raise SettingError("--categories needs at least one arXiv category, e.g. cs.CL")
        if self.min_citations < 0 or self.topic_papers < 0 or self.random_sample < 0 or self.concurrency < 1:
            raise SettingError("--min-citations, --topic-papers and --random-sample are at least 0, --concurrency "
                               "at least 1")
        if not 0 <= self.min_extract_rate <= 1 or not 0 < self.match_threshold <= 100:
            raise SettingError(f"--min-extract-rate is in [0, 1] (not {self.min_extract_rate}) and "
                               f"--match-threshold in (0, 100] (not {self.match_threshold})")
        host_urls(self.bib_base_url)

    def to_json(self) -> dict[str, Any]:
        from surge_dataset.core.http import redact_url
        from surge_dataset.core.vocabulary import parse_assignments

        data = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self).items()}
        urls = parse_assignments(self.bib_base_url, "--bib-base-url", shape="HOST=URL")
        data["bib_base_url"] = [f"{host}={redact_url(url)}" for host, url in urls.items()]
        return data
