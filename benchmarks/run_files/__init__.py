"""A run's files: written whole or not at all (report, items, journal for resuming), read back for
comparisons, indexed for nightly trends, and the environment facts the report's provenance records."""
