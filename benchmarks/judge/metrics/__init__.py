"""The built-in judged metrics, one module each: everything a metric is, in one place.

A module declares its metric's judge calls (each a template under `benchmarks/prompts/<lang>/` with
the variables it renders, its token budget and the pydantic answer shape that both validates the
answer and gives the JSON schema sent as `response_format`), the coroutine with which the LLM judge
scores it (`score(judge, sample, model, trace)`, built on the toolkit of `benchmarks.judge.llm_judge`),
and `METRIC`, its `JudgedMetric` declaration: what it reads, how many calls it makes, its offline proxy
(`benchmarks.judge.offline`) or why it has none. Its formula is a pure function of
`benchmarks.metrics.judged`, which the offline proxies feed too. `benchmarks.judge.catalog` lists the
modules, so adding a metric is a module here, its templates, its formula and its line in that list.
"""
