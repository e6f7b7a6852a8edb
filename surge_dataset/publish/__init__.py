"""The Hub publishing of the metrics: each metric as an ``evaluate`` module (the folders of ``metrics/``, shipped
in the wheel as ``surge_dataset/_metrics``), installed into ``evaluate``'s modules cache (``surge metrics
install``) or pushed as a Hub Space (``surge metrics push``), its card's inputs text filled from the settings."""

from __future__ import annotations

from surge_dataset.publish.modules import (
    install_metrics,
    metric_folders,
    metric_path,
    module_folders_by_metric,
    push_metrics,
    render_card,
)

__all__ = ["install_metrics", "metric_folders", "metric_path", "module_folders_by_metric", "push_metrics",
           "render_card"]
