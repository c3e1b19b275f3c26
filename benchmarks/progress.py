"""A run's progress as tiers and services drive it: rich's `Progress` on a terminal, `console.ProgressLines`
(timestamped lines) elsewhere, the runner choosing which (`runner.progress_bar`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rich.progress import TaskID


class Bars(Protocol):
    """The part of rich's `Progress` bench uses, which `ProgressLines` writes as lines."""

    def add_task(self, description: str, *, total: float | None = ..., completed: int = ..., **fields: Any
                 ) -> TaskID: ...

    def advance(self, task_id: TaskID, advance: float = ...) -> None: ...

    def update(self, task_id: TaskID, *, total: float | None = ..., completed: float | None = ...,
               advance: float | None = ..., description: str | None = ..., **fields: Any) -> None: ...

    def remove_task(self, task_id: TaskID) -> None: ...
