"""The base layer: errors, closed vocabularies, settings, records, atomic I/O, defaults, statistics;
every other part of surge_dataset may import it, it imports none of them."""
