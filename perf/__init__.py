"""Performance benchmarks: figures written to BENCHMARKS.md, each against a baseline measured in the same run."""
