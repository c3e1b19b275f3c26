"""bench's release: in every report, in every resumed run's identity, and in the package metadata; and the
report's layout version, which `bench compare` checks and `bench --version` names."""

__version__ = "0.1.0"
# 2: items carry `scores` (item_record); this bench cannot compare reports of schema 1
# 3: every block closed; prompt hashes only in provenance.judge; notes under fixed names (report_model.upgrade
#    reads version 2)
REPORT_SCHEMA_VERSION = 3
