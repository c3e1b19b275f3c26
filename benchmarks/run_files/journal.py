"""A run in progress on disk, so that no finished item is ever lost.

`run.json` says what the run is (tier, dataset content, settings) and `items.jsonl` gets one line
per finished item, written in one system call and not buffered, so `kill -9` loses at most the
items in flight. `--resume` reads the lines back and the tier does only the rest. Rows keep full
float precision (the report rounds to 6 digits later), so a resumed run computes exactly the
numbers an uninterrupted one would. A line cut short by a kill is dropped and truncated away.

An item is whatever a tier journals on its own: a question, or a part of one (`bench evaluate`
journals each (sample, metric, judge model) apart, so a stop in the middle of a sample keeps its
finished parts). A row's `id` is always the input item's; a part also has `part`, the rest of its key
(`"id": "s05", "part": ["faithfulness", "judge-a"]`), so the journal still reads by sample.

When the run finishes, the report writer replaces `items.jsonl` with the final rows and
`run.json` is removed: a folder with `run.json` and without `report.json` is a stopped run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.errors import BenchError, InputError
from benchmarks.run_files.atomic import atomic_write

MANIFEST = "run.json"
ITEMS = "items.jsonl"
# settings that change how fast a run goes, never what it computes: they may differ between sessions
OPERATIONAL = ("data_dir", "reports_dir", "llm_concurrency", "llm_timeout_s", "llm_max_attempts", "llm_cache",
               "embedding_batch_size", "embedding_timeout_s", "embedding_concurrency", "embedding_max_attempts",
               "retrieval_batch_size", "retrieval_workers")
# an item's key: its id, or for a part of an input item (item id, *part), e.g. (sample id, metric, judge model)
Key = str | tuple[str, ...]


@dataclass(frozen=True)
class RunIdentity:
    """What must be equal for two sessions to be one run."""

    kind: str
    version: str
    data: dict[str, Any]  # the report's dataset block: name, content sha256, counts
    settings: dict[str, Any]  # the tier's (redacted, operational ones left out) and its module's identity()

    @classmethod
    def of(cls, kind: str, version: str, data: dict[str, Any], redacted_settings: dict[str, Any],
           options: dict[str, Any] | None = None) -> RunIdentity:
        settings = {k: v for k, v in {**redacted_settings, **(options or {})}.items() if k not in OPERATIONAL}
        return cls(kind, version, _plain(data), _plain(dict(sorted(settings.items()))))

    def differences(self, other: RunIdentity, named: Mapping[str, str] | None = None) -> list[str]:
        """How `other` (this session) differs from self (the stopped run), one phrase each; a setting given
        on this session's command line is named by its flag (`named`)."""
        found = [f"{what} {mine!r} → {theirs!r}" for what, mine, theirs in (
            ("command", self.kind, other.kind), ("version", self.version, other.version)) if mine != theirs]
        found += _changed("dataset ", self.data, other.data, {})
        found += _changed("", self.settings, other.settings, named or {})
        return found


def _changed(prefix: str, mine: dict[str, Any], theirs: dict[str, Any], named: Mapping[str, str]) -> list[str]:
    return [f"{prefix}{named.get(name, name)} {mine.get(name)!r} → {theirs.get(name)!r}"
            for name in sorted(set(mine) | set(theirs)) if mine.get(name) != theirs.get(name)]


def _plain(value: dict[str, Any]) -> dict[str, Any]:
    """As it reads back from run.json (tuples become lists), so a stopped run compares equal to itself."""
    plain: dict[str, Any] = json.loads(json.dumps(value, default=str))
    return plain


class RunJournal:
    """Appends finished items to a run folder's items.jsonl; holds the rows an earlier session finished."""

    def __init__(self, directory: Path, manifest: dict[str, Any], restored: dict[Key, dict[str, Any]],
                 created: tuple[Path, ...] = ()):
        self.directory = directory
        self.manifest = manifest
        self.restored = restored
        self.appended = 0
        self._created = created  # folders this run made, deepest first: discard removes them again
        self._file = open(directory / ITEMS, "ab", buffering=0)

    @property
    def items_path(self) -> Path:
        return self.directory / ITEMS

    @property
    def finished(self) -> int:
        return len(self.restored) + self.appended

    @classmethod
    def start(cls, directory: Path, identity: RunIdentity, *, run_id: str, started_at: str,
              point_latest: bool) -> RunJournal:
        created = tuple(folder for folder in (directory, *directory.parents) if not folder.exists())
        directory.mkdir(parents=True, exist_ok=True)
        (directory / ITEMS).write_bytes(b"")
        manifest = {"identity": asdict(identity), "run_id": run_id, "started_at": started_at,
                    "point_latest": point_latest}
        atomic_write(directory / MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
        return cls(directory, manifest, {}, created)

    @classmethod
    def resume(cls, directory: Path, identity: RunIdentity, named: Mapping[str, str] | None = None) -> RunJournal:
        manifest_path = directory / MANIFEST
        if not manifest_path.is_file():
            if (directory / "report.json").is_file():
                raise BenchError(f"{directory} holds a finished run (report.json): nothing to resume")
            raise BenchError(f"{directory} is not a stopped bench run: it has no {MANIFEST}")
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            stopped = RunIdentity(**manifest["identity"])
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(manifest_path, f"not a run manifest bench wrote ({exc})") from None
        differences = stopped.differences(identity, named)
        if differences:
            raise BenchError(f"cannot resume {directory}: this session differs from the stopped run: "
                             f"{'; '.join(differences)}. Run it with the stopped run's options, or start a new run")
        return cls(directory, manifest, _read_items(directory / ITEMS))

    def append(self, key: Key, row: dict[str, Any]) -> None:
        line = json.dumps({**_key_fields(key), **row}, ensure_ascii=False, allow_nan=False) + "\n"
        self._file.write(line.encode("utf-8"))
        self.appended += 1

    def close(self) -> None:
        self._file.close()

    def finish(self) -> None:
        """The run's report is written: the folder is a finished run now."""
        (self.directory / MANIFEST).unlink(missing_ok=True)

    def discard(self) -> None:
        """Nothing finished and the run stopped before its first item: leave no empty run folder behind, nor
        the dataset and tier folders made for it."""
        self.close()
        for name in (MANIFEST, ITEMS):
            (self.directory / name).unlink(missing_ok=True)
        for folder in self._created:
            try:
                folder.rmdir()
            except OSError:
                return  # not empty: another run's files live there


def shown(key: Key) -> str:
    """An item's key as a message names it: a part's fields joined, not a Python tuple."""
    return key if isinstance(key, str) else " / ".join(key)


def _key_fields(key: Key) -> dict[str, Any]:
    """A key as a row's leading fields: `id`, and for a part of an input item its `part`."""
    if isinstance(key, str):
        return {"id": key}
    item, *part = key
    return {"id": item, "part": part}


def _key(row: dict[str, Any]) -> Key:
    """The key a row was appended under (`_key_fields` read back)."""
    if "part" not in row:
        return str(row["id"])
    return (str(row["id"]), *(str(field) for field in row["part"]))


def _read_items(path: Path) -> dict[Key, dict[str, Any]]:
    """The finished rows by key; a last line without its newline (cut by a kill) is dropped from the file."""
    if not path.is_file():
        return {}
    data = path.read_bytes()
    complete = data.rfind(b"\n") + 1
    if complete < len(data):
        os.truncate(path, complete)
    rows: dict[Key, dict[str, Any]] = {}
    for number, line in enumerate(data[:complete].decode("utf-8").splitlines(), start=1):
        try:
            row = json.loads(line)
            rows[_key(row)] = row
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(path, f"not an item row bench wrote ({exc})", line=number) from None
    return rows
