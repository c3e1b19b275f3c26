"""The system under test of tiers 2 and 3: one interface, four adapters (see `base`)."""
