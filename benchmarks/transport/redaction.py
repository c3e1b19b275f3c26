"""Secrets kept out of what bench shows: reports, logs, errors.

Which settings are secret, and which are connection strings whose password alone is hidden, is declared on
each setting's field (`secret`, `url`); this module applies it, and masks a password in any connection string
an error message quotes.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from benchmarks.config import SETTING_FIELDS, Settings

REDACTED = "***"
SECRET_PARAMETERS = ("password", "sslpassword")  # libpq parameters that hold a secret, in either form
# libpq's keyword/value form: `password = 'with \' quote'` or a bare word
_CONNINFO_SECRET = re.compile(r"(\b(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)", re.IGNORECASE)
_USERINFO_SECRET = re.compile(r"^([^:/?#]*://[^:@/?#]*:)[^/?#]*@")  # up to the last @ of the host part
_QUERY_SECRET = re.compile(r"([?&](?:ssl)?password=)[^&#]*", re.IGNORECASE)
_BARE_USERINFO_SECRET = re.compile(r"^([^:/?#@\s=]*:)[^/?#@\s]*@")  # user:password@host/... with no scheme


def redacted(settings: Settings, names: Iterable[str] | None = None) -> dict[str, Any]:
    """The settings (all, or those named) as they may appear in a report: secrets masked, paths as strings."""
    chosen = SETTING_FIELDS if names is None else dict.fromkeys(names)
    out: dict[str, Any] = {}
    for name, f in SETTING_FIELDS.items():
        if name not in chosen:
            continue
        value = getattr(settings, name)
        if value is not None and f.metadata["url"]:
            value = redact_url(value)
        elif value is not None and f.metadata["secret"]:
            value = REDACTED
        elif isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            value = [_entry(entry) for entry in value]  # the providers: tables, their URLs' passwords masked
        out[name] = str(value) if isinstance(value, Path) else value
    return out


def _entry(entry: Any) -> dict[str, Any]:
    """A declared table (a provider) as a report shows it: its fields, a URL's password masked."""
    return {key: redact_url(value) if key.endswith("url") and isinstance(value, str) else
            list(value) if isinstance(value, tuple) else value for key, value in dataclasses.asdict(entry).items()}


def redact_url(url: str) -> str:
    """Hide a connection string's password; keep user, host and database.

    Takes URLs (userinfo or ?password=) and libpq's keyword/value form (password=...), and never fails:
    it runs on the very strings that are too malformed to use, to say which one is wrong."""
    if "://" not in url:  # libpq's keyword/value form, or a URL typed without its scheme
        return _CONNINFO_SECRET.sub(rf"\g<1>{REDACTED}", _BARE_USERINFO_SECRET.sub(rf"\g<1>{REDACTED}@", url))
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unclosed IPv6 bracket: mask by pattern, show the rest as typed
        return _QUERY_SECRET.sub(rf"\g<1>{REDACTED}", _USERINFO_SECRET.sub(rf"\g<1>{REDACTED}@", url))
    netloc = parts.netloc
    if parts.password is not None:
        netloc = f"{parts.username or ''}:{REDACTED}@{netloc.rsplit('@', 1)[-1]}"
    query = "&".join(
        f"{key}={REDACTED}" if key.lower() in SECRET_PARAMETERS else pair
        for pair in parts.query.split("&") if pair
        for key in [pair.split("=", 1)[0]]
    )
    return urlunsplit(parts._replace(netloc=netloc, query=query))
