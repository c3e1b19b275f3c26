"""The judges: what grades an answer, by concept, each package importing only those listed before it.

- `claims`, `options`, `wording`: what both judges share: a text's sentences and claims read without a model,
  the settings a judged metric reads, bench's own phrases in an explanation.
- `llm/`: the LLM judge's toolkit: prompts by call and language, answer shapes, parsing, one call asked and
  repaired, yes-no questions, the calls several metrics share.
- `offline/`: the offline judge (`--judge offline`): the claim-support test and each metric's proxy built on it.
- `judged_metrics/`: what a judged metric is (`declaration`), the built-in ones (`builtin/`, one module each) and
  a user's bench.toml rubrics (`rubric`).
- `ratings/`: the seed's direct ratings and the pairwise comparison, by an LLM (`rater`) or offline (`offline`).
- `catalog`: every judged metric collected, and what the report says of them (prompt hashes, the offline judge's
  code hash).
"""
