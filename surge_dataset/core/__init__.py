"""The base layer: errors, closed vocabularies (and the ``NAME=VALUE`` and comma-list rules), settings, records,
atomic I/O and reading a user's JSON file, defaults, statistics, the one HTTP client with its one retry policy
(:mod:`.http`), the one on-disk cache (:mod:`.cache`); every other part of surge_dataset may import it, it imports
none of them."""
