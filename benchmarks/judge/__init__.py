"""The LLM judge: prompts, output parsing and the metrics' call orchestration."""
