"""The two readings of SurGE, each as named functions: :mod:`.official` mirrors the authors' released
evaluator function by function; :mod:`.paper` names the paper's reading the same way.

Both only call the package's single definition of each rule (``surge_dataset.survey``,
``surge_dataset.scoring``, ``surge_dataset.core.records``); nothing in the core imports this package.
"""
