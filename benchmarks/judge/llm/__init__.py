"""The LLM judge's toolkit: prompts by call and language (`prompts`), the JSON each answer must take (`shapes`)
and its reading (`parsing`), one call asked and repaired once (`asking`), and the judge the judged metrics score
with (`judge`)."""
