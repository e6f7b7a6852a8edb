"""The released evaluator's API as named functions: :mod:`.official` mirrors the authors' released evaluator
function by function, each calling the package's single definition of its rule (``surge_dataset.survey``,
``surge_dataset.scoring``, ``surge_dataset.core.records``); nothing in the package imports it. ``surge evaluate
--protocol official`` runs those same rules through the metrics, not through this module.
"""
