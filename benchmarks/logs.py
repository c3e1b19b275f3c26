"""Real users' logged questions (the seeds' `question_answer` table), whatever they were read from."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from benchmarks.inputs import InputSet


@dataclass(frozen=True)
class LogEntry:
    """One logged turn. `url` is `confluence_url`, the source shown to the user (the Real-Users
    tier's proxy ground truth); `score` is the user's 1–5 rating; `turn` orders a session's turns."""

    id: str
    question: str
    answer: str | None = None
    url: str | None = None
    score: int | None = None
    session_id: str | None = None
    turn: int | None = None
    created_at: datetime | None = None


@dataclass(frozen=True, kw_only=True)
class LogSet(InputSet):
    """The entries of one log, identified like a dataset so reports compare only like with like. Its format is
    where it came from: "file", "bench-database" or "logs-database"."""

    entries: tuple[LogEntry, ...]

    @property
    def source(self) -> str:
        return self.format

    def counts(self) -> dict[str, object]:
        return {"log_entries": len(self.entries),
                "sessions": len({e.session_id for e in self.entries if e.session_id is not None})}
