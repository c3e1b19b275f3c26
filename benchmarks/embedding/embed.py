"""What a judge or a generator holds of an embedder: texts in, their vectors out as the rows of one matrix,
aligned with the texts. An `EmbeddingMemo` is one, and so is a test's table of vectors, so neither the judges
nor the extractive generator need a model, a cache or a database."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Embed = Callable[[Sequence[str]], np.ndarray]
