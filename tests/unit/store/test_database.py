"""Connection strings in both of libpq's forms: accepted, refused in one line, never shown with a password."""

import pytest
import sqlalchemy as sa

from benchmarks.errors import BenchError
from benchmarks.store.database import _driver_url
from benchmarks.transport.redaction import redact_url

SECRET = "s3cretpw"


@pytest.mark.parametrize(("raw", "shown"), [
    (f"host=127.0.0.1 port=1 user=u password={SECRET} dbname=x", "host=127.0.0.1 port=1 user=u password=*** dbname=x"),
    (f"host=h password = '{SECRET} with \\' quote' dbname=x", "host=h password = *** dbname=x"),
    (f"host=h sslpassword={SECRET} passfile=/p", "host=h sslpassword=*** passfile=/p"),
    (f"postgresql://u:{SECRET}@h:5432/db", "postgresql://u:***@h:5432/db"),
    (f"postgresql://h/db?password={SECRET}&sslmode=require", "postgresql://h/db?password=***&sslmode=require"),
    (f"postgres://u:{SECRET}@[::1", "postgres://u:***@[::1"),  # unparsable: masked by pattern
    (f"postgres://u:{SECRET}@x@[::1/db?sslpassword={SECRET}", "postgres://u:***@[::1/db?sslpassword=***"),
    ("postgresql://h/db", "postgresql://h/db"),
    (f"u:{SECRET}@gateway.example/v1", "u:***@gateway.example/v1"),  # a URL typed without its scheme
    ("gateway.example:8080/v1", "gateway.example:8080/v1"),
])
def test_passwords_are_masked_in_both_forms_even_when_malformed(raw, shown):
    assert redact_url(raw) == shown


def test_a_keyword_value_string_becomes_the_same_connection_as_a_url():
    url = sa.engine.make_url(_driver_url(f"host=db.example.com port=6432 user=bench password='{SECRET} x' "
                                         "dbname=bench sslmode=require"))
    engine = sa.create_engine(url)
    _, params = engine.dialect.create_connect_args(url)
    params.pop("context", None)
    assert params == {"host": "db.example.com", "port": "6432", "user": "bench", "password": f"{SECRET} x",
                      "dbname": "bench", "sslmode": "require"}


def test_several_hosts_stay_as_libpq_lists_them():
    url = sa.engine.make_url(_driver_url("host=a,b port=5432,5433 dbname=x"))
    assert (url.query["host"], url.query["port"], url.database) == ("a,b", "5432,5433", "x")


@pytest.mark.parametrize("raw", ["postgres://u:pw@h/db", "postgresql://u:pw@h/db", "postgresql+psycopg://u:pw@h/db"])
def test_url_spellings_pin_psycopg(raw):
    assert _driver_url(raw) == "postgresql+psycopg://u:pw@h/db"


@pytest.mark.parametrize(("raw", "message"), [
    (f"postgres://u:{SECRET}@[::1", "DATABASE_URL postgres://u:***@[::1: not a valid URL (Invalid IPv6 URL)"),
    (f"postgres://u:{SECRET}@h:port/db", "DATABASE_URL postgres://u:***@h:port/db: not a valid URL"),
    (f"mysql://u:{SECRET}@h/db", "DATABASE_URL mysql://u:***@h/db: expected a postgresql:// URL"),
    (f"host=h password={SECRET} stray", "DATABASE_URL host=h password=*** stray: expected a postgresql:// URL"),
])
def test_unusable_strings_are_refused_in_one_line_without_the_password(raw, message):
    with pytest.raises(BenchError) as caught:
        _driver_url(raw)
    assert str(caught.value).startswith(message)
    assert SECRET not in str(caught.value) and "\n" not in str(caught.value)


def test_the_setting_is_named():
    with pytest.raises(BenchError, match="^logs_database_url "):
        _driver_url("postgres://[::1", "logs_database_url")
