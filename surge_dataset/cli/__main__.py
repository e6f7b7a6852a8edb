"""``python -m surge_dataset.cli``: the ``surge`` command, for ``accelerate launch -m`` and environments without the
console script."""

from surge_dataset.cli import main

main()
