"""bench: benchmark a retrieval-augmented generation system tier by tier."""

__version__ = "0.1.0"
