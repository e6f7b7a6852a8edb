"""Judges that survive their own retirement: system-vs-system arenas and agreement between judges.

* :mod:`.arena`     -- ``surge arena``: pairs of two systems' surveys on one topic, judged in both orders,
                       a Bradley-Terry fit with bootstrap intervals over surveys;
* :mod:`.bt`        -- the Bradley-Terry fit itself (``choix``);
* :mod:`.agreement` -- ``surge judge-agreement`` and ``surge meta-eval``'s agreement figures: Kendall's tau and
                       Spearman's rho between system rankings (bootstrap CIs over surveys), Krippendorff's
                       alpha per survey, mean absolute difference, systems whose rank changes;
* :mod:`.rescore`   -- scoring a finished run again with another judge (cost first).
* :mod:`.human_packets`, :mod:`.human_results` -- ``surge human``: blind packets of the systems' surveys for
                       annotators, and their filled CSV back as ``surge meta-eval``'s human ranks;
* :mod:`.interrater` -- agreement between annotators: Kendall's W, Cohen's and Fleiss' kappa.

The pairwise questions themselves (prompt, verdict parsing, both orders) live in
:mod:`surge_dataset.scoring.pairwise`, shared with the ``pairwise_gt`` metric. ``choix`` and ``krippendorff``
come with the ``judging`` extra and are imported only when used.
"""

from __future__ import annotations

from surge_dataset.core.errors import SurgeError

__all__ = ["JudgingError", "need"]


class JudgingError(SurgeError, ValueError):
    """Inputs an arena or an agreement cannot use (the message names the file or system and what to do)."""


def need(module: str) -> object:
    """Import an optional dependency of the ``judging`` extra, or say how to install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise JudgingError(f"{module} is needed here: pip install 'surge-bench[judging]'") from None
