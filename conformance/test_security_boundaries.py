"""Security boundaries from outside (issue 46, item 9): what anonymous clients, users and
database admins cannot reach, and the areas an outside review found clean (path
traversal, SQL-looking input, cookies, limits), kept clean. CouchDB docs: Security ›
Authentication Database, Database permissions; API Reference › Server (/_replicate,
/_all_dbs), Configuration API; the answers are CouchDB 3.4.3's (`chttpd_auth_request`:
server endpoints `require_admin`, `/_replicate` `require_authenticated_user`), checked
there. Database-level roles are in test_database_access.py."""

import uuid

import pytest
import requests

from couch import assert_error, assert_status, body_of

PASSWORD = "pw-boundary"


@pytest.fixture
def dbadmin(client, db):
    """A user who is `db`'s only admin (and nothing else), deleted afterwards."""
    name = "dba" + uuid.uuid4().hex[:8]
    body = {"name": name, "password": PASSWORD, "roles": [], "type": "user"}
    assert_status(client.put(client.url("_users", "org.couchdb.user:" + name), json=body), 201)
    assert_status(client.put(db.url("_security"), json={"admins": {"names": [name], "roles": []},
                                                        "members": {"names": [], "roles": ["_admin"]}}), 200)
    session = requests.Session()
    session.auth = (name, PASSWORD)
    yield name, session
    r = client.get(client.url("_users", "org.couchdb.user:" + name))
    if r.status_code == 200:
        client.delete(client.url("_users", "org.couchdb.user:" + name), params={"rev": body_of(r)["_rev"]})


def test_anonymous_reaches_only_the_open_endpoints(anon, client, db):
    for path in ("", "_up", "_uuids", "_session"):
        assert_status(anon.get(client.url(path) if path else client.base + "/"), 200)
    not_admin = "You are not a server admin."
    assert_error(anon.put(client.url("t_anon_" + uuid.uuid4().hex)), 401, "unauthorized", not_admin)
    assert_error(anon.get(client.url("_all_dbs")), 401, "unauthorized", not_admin)
    assert_error(anon.get(client.url("_node", "_local", "_config")), 401, "unauthorized", not_admin)
    assert_error(anon.put(client.url("_node", "_local", "_config", "admins", "intruder"), json="pw"),
                 401, "unauthorized", not_admin)
    assert_error(anon.post(client.url("_replicate"), json={"source": db.name, "target": "x"}),
                 401, "unauthorized", "You are not an authenticated user")
    assert_error(anon.get(db.url()), 401, "unauthorized", "You are not authorized to access this db.")
    assert_status(client.get(client.url("_node", "_local", "_config", "admins", "intruder")), 404)


def test_a_database_admin_stays_in_its_database(client, db, make_db, dbadmin):
    name, session = dbadmin
    other = make_db()
    not_admin = "You are not a server admin."
    assert_error(session.put(client.url("t_dba_" + uuid.uuid4().hex)), 401, "unauthorized", not_admin)
    assert_error(session.delete(db.url()), 401, "unauthorized", not_admin)
    assert_error(session.get(client.url("_all_dbs")), 401, "unauthorized", not_admin)
    assert_error(session.put(client.url("_node", "_local", "_config", "admins", name), json="pw"),
                 401, "unauthorized", not_admin)
    assert_error(session.get(other.url()), 403, "forbidden", "You are not allowed to access this db.")
    # Its own user document is out of reach by default (_users admits admins only), roles included.
    r = session.put(client.url("_users", "org.couchdb.user:" + name),
                    json={"name": name, "password": PASSWORD, "roles": ["_admin"], "type": "user"})
    assert r.status_code in (401, 403)
    assert body_of(client.get(client.url("_users", "org.couchdb.user:" + name)))["roles"] == []
    assert_status(client.get(db.url()), 200)


@pytest.mark.parametrize("doc_id", ["../../etc/passwd", "..\\..\\x", "a/../../b", "%2e%2e"])
def test_traversal_looking_ids_are_just_ids(client, db, doc_id):
    """A document id and an attachment name are keys, never paths."""
    rev = body_of(assert_status(client.put(db.url(doc_id), json={"v": doc_id}), 201))["rev"]
    assert body_of(client.get(db.url(doc_id)))["v"] == doc_id
    att = client.put(db.url(doc_id) + "/..%2F..%2Fsecret", params={"rev": rev}, data=b"bytes",
                     headers={"Content-Type": "text/plain"})
    assert_status(att, 201)
    assert client.get(db.url(doc_id) + "/..%2F..%2Fsecret").content == b"bytes"
    ids = [row["id"] for row in body_of(client.get(db.url("_all_docs")))["rows"]]
    assert ids == [doc_id]


def test_traversal_out_of_the_server_finds_nothing(client, anon):
    for path in ("/_utils/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/_utils/..%2F..%2F..%2Fetc%2Fpasswd",
                 "/..%2F..%2Fetc%2Fpasswd"):
        r = anon.session.get(client.base + path)
        assert r.status_code in (400, 401, 404), path
        assert b"root:" not in r.content
    assert_error(client.put(client.url("..%2Fescape")), 400, "illegal_database_name")


SQL_LIKE = ["' OR '1'='1", "x'); DROP TABLE docs; --", '"; DELETE FROM revs; --', "\\'; --"]


def test_sql_looking_input_is_data(client, db):
    docs = [{"_id": text, "text": text, "n": i} for i, text in enumerate(SQL_LIKE)]
    rows = body_of(client.post(db.url("_bulk_docs"), json={"docs": docs}))
    assert all(row.get("ok") for row in rows), rows
    assert body_of(client.get(db.url()))["doc_count"] == len(SQL_LIKE)
    for text in SQL_LIKE:
        assert body_of(client.get(db.url(text)))["text"] == text
    keys = body_of(client.post(db.url("_all_docs"), json={"keys": [SQL_LIKE[0]]}))["rows"]
    assert [row["id"] for row in keys] == [SQL_LIKE[0]]
    found = body_of(client.post(db.url("_find"), json={"selector": {"text": SQL_LIKE[1]}}))["docs"]
    assert [doc["_id"] for doc in found] == [SQL_LIKE[1]]
    field = body_of(client.post(db.url("_find"), json={"selector": {SQL_LIKE[2]: {"$exists": True}}}))["docs"]
    assert field == []


def test_forged_and_tampered_cookies_are_anonymous(base_url, admin_auth):
    name, password = admin_auth
    login = requests.post(base_url + "/_session", data={"name": name, "password": password})
    assert "httponly" in login.headers["Set-Cookie"].lower()
    cookie = login.cookies["AuthSession"]
    tampered = cookie[:-2] + ("AA" if cookie[-2:] != "AA" else "BB")
    for value in (tampered, "YWRtaW46NjAwMDAwMDA6AAAA"):
        r = requests.get(base_url + "/_session", cookies={"AuthSession": value})
        assert body_of(assert_status(r, 200))["userCtx"]["name"] is None
        assert requests.get(base_url + "/_all_dbs", cookies={"AuthSession": value}).status_code == 401
    # Not base64 of name:time:hmac at all: CouchDB answers 400 "Malformed AuthSession cookie...".
    for path in ("/_session", "/_all_dbs"):
        r = requests.get(base_url + path, cookies={"AuthSession": name})
        assert r.status_code in (400, 401) or body_of(r)["userCtx"]["name"] is None


def test_a_document_over_the_size_limit_changes_nothing(client, db):
    """CouchDB 3.4.3's default [couchdb] max_document_size is 8000000 bytes."""
    big = {"_id": "big", "blob": "x" * 8_100_000}
    assert_error(client.put(db.url("big"), json=big), 413, "document_too_large")
    assert_status(client.get(db.url("big")), 404)
