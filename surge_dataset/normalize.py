"""Old spelling of :mod:`surge_dataset.normalise`, kept so existing imports keep working."""

from __future__ import annotations

from .normalise import normalise_title

__all__ = ["normalise_title"]
