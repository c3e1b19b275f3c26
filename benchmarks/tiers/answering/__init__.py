"""The machinery tiers 2 and 3 share: ask the system under test, grade its answers, count every failure
(`grading`), with the cases and plans it works on (`cases`), what it refuses first (`checks`), its numbers
(`summaries`) and what the report says beside them (`report_blocks`)."""
