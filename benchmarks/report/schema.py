"""report.schema.json, the model's JSON Schema shipped beside it, so a reader outside Python (a CI step, a
dashboard) can check a report.json without bench. A unit test fails when the file and the model disagree;
`make report-schema` (`python -m benchmarks.report.schema`) writes it again."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.report_model import Report

SCHEMA_FILE = Path(__file__).with_name("report.schema.json")
REGENERATE = "make report-schema"


def schema_text() -> str:
    """The schema as the shipped file holds it: sorted keys and indented, so a change diffs line by line."""
    return json.dumps(Report.model_json_schema(), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def main() -> None:
    SCHEMA_FILE.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}")


if __name__ == "__main__":
    main()
