"""Reading what users give bench: datasets, evaluation samples, rated and show/no-show items, real-user logs,
templates and the files bench ships. Each reader checks every record and fails in one line naming the file,
line and field, before any costly work."""
