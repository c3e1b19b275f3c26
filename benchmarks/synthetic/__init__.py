"""Synthetic corporate-wiki datasets that bench ships, in parallel English and Russian versions.

A language-neutral skeleton fixes every page, section and fact; each language bank only
words them, so the two datasets share ids and relevance judgments and a retrieval result
in one language can be compared with the other. Regenerate with `python -m benchmarks.synthetic`.
"""
