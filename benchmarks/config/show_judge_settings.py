"""judge-pipeline: the production show/no-show judge under test, asked through the LLM or over HTTP."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from benchmarks.config.declare import setting


@dataclass(frozen=True)
class ShowJudgeSettings:
    show_judge_via: Literal["llm", "http"] = setting(
        "llm", "judge-pipeline: llm sends the prompt to the configured LLM; http sends each item to your own judge "
        "service (show_judge_http_url, show_judge_http_request, show_judge_http_response_path)."
    )
    show_judge_template: Path | None = setting(
        None, "judge-pipeline: your production judge's prompt, with {question}, {context} and {answer} "
        "placeholders (literal braces doubled). Default: bench's prompt in the language setting."
    )
    show_judge_model: str | None = setting(
        None, "judge-pipeline: the production judge's model (default: judge_model, else llm_model)."
    )
    show_judge_http_url: str | None = setting(
        None, "judge-pipeline --via http: URL of your production show/no-show judge.", url=True
    )
    show_judge_http_request: str = setting(
        '{"question": "{question}", "context": "{context}", "answer": "{answer}"}',
        "judge-pipeline --via http: JSON body template with {question}, {context}, {answer} and {item_id}.",
    )
    show_judge_http_response_path: str = setting(
        "decision", "judge-pipeline --via http: dotted path of the judge's reply (Yes/No text) in the response JSON."
    )
    show_judge_http_api_key: str | None = setting(
        None, "judge-pipeline --via http: bearer token sent as Authorization (environment only).", secret=True
    )
