"""RAGAS's own Faithfulness, run in a separate virtualenv on the same server and samples as bench's judges."""
