"""``surge leaderboard``: the benchmark's table as a web app that is also a HuggingFace Space.

``surge leaderboard build RESULTS... --passages-root DIR --out space/`` writes a self-contained folder: the
Gradio app (``app.py`` with ``leaderboard_data.py`` and ``leaderboard_viewer.py``, copied from
:mod:`.space`), ``requirements.txt``, a ``README.md`` carrying the Space's YAML header, and ``data/``:
Parquet tables of per-system means with 95 % bootstrap CIs, paired significance, per-survey scores, the
generated surveys, every citation's verdict with its evidence, the cited papers and the GT outlines.
Pushing the folder to a Space repository is all a maintainer does; ``surge leaderboard serve space/``
(or ``python app.py`` in it) runs it locally.

The app needs gradio, pandas, pyarrow, nh3 and markdown-it-py only, never surge-bench: everything that
needs the package (the parser, the corpus, the statistics) happens here, at build time.

One module per job:

* :mod:`.schema`    -- what results files, ``--details`` records and manifests may hold (pydantic), checked first;
* :mod:`.inputs`    -- results files and submission folders, checked, with their surveys and details;
* :mod:`.verify`    -- a system's deterministic metrics re-computed from its surveys: verified / precision /
  mismatch / unverified; :mod:`.rescore_store` keeps each re-computation by what it covered, so a rebuild re-scores
  only what it has not seen;
* :mod:`.published` -- what a row publishes: the re-computed values, each metric's source, its badge; the inputs
  refused at this stage;
* :mod:`.citations` -- ``--details`` records -> one row per citation/reference with its verdict, its
  evidence and where its ``[n]`` stands in the survey's text;
* :mod:`.groups`    -- setting groups (never ranked together), paired tests within a group
  (:mod:`surge_dataset.core.stats`, as ``surge report``);
* :mod:`.build`     -- ``build_space``: all of it into one folder; ``serve_space`` runs it;
* :mod:`.submission`, :mod:`.submission_rules`, :mod:`.submission_hub` -- ``surge submit``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from surge_dataset.leaderboard.build import SPACE_KIND, BuildSummary, build_space, serve_space

__all__ = ["SPACE_KIND", "BuildSummary", "build_space", "serve_space"]


def __getattr__(name: str) -> Any:
    """The builder on first use: ``surge submit`` reads :mod:`.submission` without loading the Space builder."""
    if name in __all__:
        from surge_dataset.leaderboard import build

        return getattr(build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
