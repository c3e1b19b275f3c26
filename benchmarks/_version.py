"""bench's release: in every report, in every resumed run's identity, and in the package metadata."""

__version__ = "0.1.0"
