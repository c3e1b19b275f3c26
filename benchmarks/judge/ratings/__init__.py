"""The seed's direct ratings of one answer on a scale and the pairwise A/B/Tie comparison: asked of an LLM
(`rater`), or mapped onto an offline proxy (`offline`)."""
