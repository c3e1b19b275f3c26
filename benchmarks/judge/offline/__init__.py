"""The offline judge (`--judge offline`): the claim-support test built from the sample's own words and an
embedder (`support`), and each judged metric's proxy on it (`proxies`); no LLM."""
