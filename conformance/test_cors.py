"""CORS. CouchDB docs: Configuration › CORS ([chttpd] enable_cors, [cors] origins, credentials,
methods, headers, max_age); the answers are CouchDB 3.4.3's `chttpd_cors` (checked on a live
one). Each test turns CORS on over the config API and deletes what it set afterwards (the keys
are unset on a stock server), so the server is left as found."""

import pytest

from couch import assert_status, body_of

APP = "http://app.example"


@pytest.fixture
def cors(client):
    """CORS on for APP and another origin; `cors(key, value)` sets more. Undone afterwards."""
    touched = []

    def setting(section, key, value):
        url = client.url("_node", "_local", "_config", section, key)
        assert_status(client.put(url, data='"%s"' % value), 200)
        touched.append(url)

    setting("chttpd", "enable_cors", "true")
    setting("cors", "origins", APP + ", https://other.example")
    yield lambda key, value: setting("cors", key, value)
    for url in touched:
        client.delete(url)


def preflight(anon, url, origin=APP, method="PUT", headers=None):
    h = {"Origin": origin, "Access-Control-Request-Method": method}
    if headers is not None:
        h["Access-Control-Request-Headers"] = headers
    return anon.request("OPTIONS", url, headers=h)


def test_a_preflight_is_answered_204_without_credentials(cors, anon, db):
    """chttpd_cors:handle_preflight_request: 204 before any authentication, echoing the
    origin and the requested headers, with the allowed methods and max age."""
    r = assert_status(preflight(anon, db.url("doc"), headers="Content-Type, Authorization"), 204)
    assert r.headers["Access-Control-Allow-Origin"] == APP
    assert r.headers["Access-Control-Allow-Headers"] == "Content-Type, Authorization"
    assert r.headers["Access-Control-Allow-Methods"] == "CONNECT, COPY, DELETE, GET, HEAD, OPTIONS, POST, PUT, TRACE"
    assert r.headers["Access-Control-Max-Age"] == "600"
    assert "Access-Control-Allow-Credentials" not in r.headers
    assert r.content == b""


def test_preflights_outside_the_policy_get_no_cors_answer(cors, anon, db):
    """An origin not listed (origins match case-sensitively), a header not allowed or a
    method not allowed: not a preflight, so the OPTIONS is handled as any request and
    carries no Access-Control-Allow-Methods."""
    for r in (preflight(anon, db.url("doc"), origin="http://evil.example"),
              preflight(anon, db.url("doc"), origin="http://APP.example"),
              preflight(anon, db.url("doc"), headers="X-Not-Allowed")):
        assert r.status_code != 204
        assert "Access-Control-Allow-Methods" not in r.headers


def test_responses_carry_cors_headers_for_an_allowed_origin(cors, client, anon):
    """chttpd_cors:headers: Access-Control-Allow-Origin is the origin, and
    Access-Control-Expose-Headers lists content-type, the simple headers the response
    has, then CouchDB's own headers; on errors too. Other origins get none."""
    r = assert_status(client.get(client.url("_uuids"), headers={"Origin": APP}), 200)
    assert r.headers["Access-Control-Allow-Origin"] == APP
    exposed = [h.strip() for h in r.headers["Access-Control-Expose-Headers"].split(",")]
    assert exposed[0] == "content-type"
    assert {"cache-control", "expires", "pragma"} <= set(exposed)
    for name in ("accept-ranges", "etag", "server", "x-couch-request-id", "x-couch-update-newrev", "x-couchdb-body-time"):
        assert name in exposed
    missing = anon.get(client.url("no_such_db_for_cors"), headers={"Origin": APP})
    assert missing.status_code in (401, 404) and missing.headers["Access-Control-Allow-Origin"] == APP
    other = client.get(client.url(), headers={"Origin": "http://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    plain = client.get(client.url())
    assert "Access-Control-Allow-Origin" not in plain.headers


def test_credentials_are_allowed_when_configured(cors, client, anon, db):
    """[cors] credentials = true: Access-Control-Allow-Credentials: true on preflights and
    responses (for a listed origin, never for `*`)."""
    cors("credentials", "true")
    r = assert_status(preflight(anon, db.url("doc"), method="GET"), 204)
    assert r.headers["Access-Control-Allow-Credentials"] == "true"
    assert r.headers["Access-Control-Allow-Headers"] == ""
    r = assert_status(client.get(client.url(), headers={"Origin": APP}), 200)
    assert r.headers["Access-Control-Allow-Credentials"] == "true"


def test_any_origin_with_a_star(cors, client):
    """[cors] origins = *: any origin is echoed back."""
    cors("origins", "*")
    r = assert_status(client.get(client.url(), headers={"Origin": "http://anywhere.example"}), 200)
    assert r.headers["Access-Control-Allow-Origin"] == "http://anywhere.example"


def test_cors_off_means_no_headers(client, anon, db):
    """enable_cors false (the default): no CORS answer at all."""
    r = preflight(anon, db.url("doc"))
    assert r.status_code != 204 and "Access-Control-Allow-Origin" not in r.headers
    assert "Access-Control-Allow-Origin" not in client.get(client.url(), headers={"Origin": APP}).headers
