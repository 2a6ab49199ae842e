"""Fixtures for the black-box CouchDB conformance suite.

The server URL (admin credentials in its userinfo) comes from ``--url`` or the
``SETTEE_URL`` environment variable. Every test that needs a database gets a fresh,
randomly named one from the ``db`` fixture, deleted afterwards (STYLE rule 31,
after CouchDB's own ``test/elixir`` suite and its ``@tag :with_db``).
"""

import os
import uuid
from urllib.parse import urlsplit, urlunsplit, unquote

import pytest
import requests

import couch
from couch import Client, quote_part


def pytest_addoption(parser):
    parser.addoption(
        "--url",
        action="store",
        default=os.environ.get("SETTEE_URL"),
        help="server base URL with admin credentials, e.g. http://admin:pw@127.0.0.1:5984 "
        "(default: $SETTEE_URL)",
    )
    parser.addoption(
        "--no-skip",
        action="store_true",
        help="fail where a test would skip because the server lacks an optional setup "
        "(e.g. CouchDB's _global_changes database); for servers that have it all",
    )


def pytest_configure(config):
    # Read by tests that skip on a missing optional setup (`couch.skip_unless_strict`).
    couch.STRICT = config.getoption("--no-skip")


def _split_url(raw):
    parts = urlsplit(raw)
    auth = None
    if parts.username is not None:
        auth = (unquote(parts.username), unquote(parts.password or ""))
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = "[" + host + "]"
    netloc = host + (":%d" % parts.port if parts.port else "")
    base = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
    return base, auth


@pytest.fixture(scope="session")
def base_url(pytestconfig):
    raw = pytestconfig.getoption("--url")
    if not raw:
        pytest.exit("no server URL: pass --url or set SETTEE_URL", returncode=2)
    base, _ = _split_url(raw)
    return base


@pytest.fixture(scope="session")
def admin_auth(pytestconfig):
    _, auth = _split_url(pytestconfig.getoption("--url"))
    return auth


def _session(auth):
    s = requests.Session()
    s.auth = auth
    # Ask for JSON explicitly: CouchDB answers some endpoints (open_revs, _bulk_get,
    # ?attachments=true) with multipart bodies when the client accepts */*.
    s.headers["Accept"] = "application/json"
    return s


@pytest.fixture(scope="session")
def client(base_url, admin_auth):
    """A Client (requests.Session wrapper) authenticated as the server admin."""
    s = _session(admin_auth)
    yield Client(base_url, s)
    s.close()


@pytest.fixture(scope="session")
def anon(base_url):
    """A Client with no credentials at all."""
    s = _session(None)
    yield Client(base_url, s)
    s.close()


@pytest.fixture
def url(base_url):
    """url("db", "doc") -> absolute URL; each part is percent-encoded."""

    def make(*parts):
        return base_url + "/" + "/".join(quote_part(p) for p in parts)

    return make


def random_db_name(prefix="t_"):
    return prefix + uuid.uuid4().hex


class DbHandle:
    """A database created for one test. ``db.name``; ``db.url(*parts)``."""

    def __init__(self, client, name):
        self.client = client
        self.name = name

    def url(self, *parts):
        return self.client.url(self.name, *parts)

    def __str__(self):
        return self.name


def _create_db(client, name, query=None):
    r = client.put(client.url(name), params=query)
    assert r.status_code in (201, 202), "could not create db %s: %s %s" % (
        name,
        r.status_code,
        r.text,
    )
    return DbHandle(client, name)


@pytest.fixture
def db(client):
    """A fresh database t_<hex>, deleted after the test."""
    handle = _create_db(client, random_db_name())
    yield handle
    client.delete(client.url(handle.name))


@pytest.fixture
def make_db(client):
    """Factory for extra databases (deleted after the test): make_db(query=None)."""
    made = []

    def make(query=None, name=None):
        h = _create_db(client, name or random_db_name(), query)
        made.append(h.name)
        return h

    yield make
    for name in made:
        client.delete(client.url(name))
