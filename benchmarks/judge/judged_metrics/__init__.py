"""Judged metrics: what one is (`declaration.JudgedMetric`), the built-in ones (`builtin/`, one module each,
found by file) and a user's bench.toml rubrics (`rubric`), which become declarations like the built-in ones;
`benchmarks.judge.catalog` collects them all."""
