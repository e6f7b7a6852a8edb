"""The built-in metrics of ``surge evaluate``: one module each, registered when imported.

``surge_dataset.evaluation.catalogue.registry()`` imports every module of this package; a new file here
is a new metric (docs/architecture.md shows one end to end).
"""
