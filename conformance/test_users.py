"""The _users database and user authentication. CouchDB docs: Security ›
Authentication Database (user documents, password hashing) and API Reference ›
Server › Authentication; the validation messages are CouchDB 3.4.3's `_auth`
design document (couch_js_functions.hrl), checked on CouchDB 3.4.3."""

import uuid

import pytest
import requests

from couch import assert_error, assert_status, body_of


@pytest.fixture
def user(client):
    """A fresh user name with password "pw-<name>", its document deleted after the test."""
    name = "u" + uuid.uuid4().hex[:12]
    yield name
    doc_id = "org.couchdb.user:" + name
    r = client.get(client.url("_users", doc_id))
    if r.status_code == 200:
        client.delete(client.url("_users", doc_id), params={"rev": body_of(r)["_rev"]})


def put_user(client, name, roles=(), password=None):
    body = {"name": name, "password": password or "pw-" + name, "roles": list(roles), "type": "user"}
    return assert_status(client.put(client.url("_users", "org.couchdb.user:" + name), json=body), 201)


def test_password_is_hashed_never_stored(client, user):
    """A `password` becomes pbkdf2 fields (sha256, 600000 iterations in 3.4)."""
    put_user(client, user)
    doc = body_of(client.get(client.url("_users", "org.couchdb.user:" + user)))
    assert "password" not in doc
    assert doc["password_scheme"] == "pbkdf2" and doc["pbkdf2_prf"] == "sha256"
    assert doc["iterations"] == 600000 and len(doc["salt"]) == 32 and len(doc["derived_key"]) == 64


def test_a_user_logs_in_with_basic_and_a_cookie(client, base_url, user):
    """GET /_session shows the user's name and roles; POST /_session gives a cookie."""
    put_user(client, user, roles=["reader"])
    r = requests.get(base_url + "/_session", auth=(user, "pw-" + user))
    assert body_of(assert_status(r, 200))["userCtx"] == {"name": user, "roles": ["reader"]}
    login = requests.post(base_url + "/_session", data={"name": user, "password": "pw-" + user})
    assert body_of(assert_status(login, 200)) == {"ok": True, "name": user, "roles": ["reader"]}
    cookie = login.cookies.get("AuthSession")
    assert cookie
    r = requests.get(base_url + "/_session", cookies={"AuthSession": cookie})
    assert body_of(r)["userCtx"]["name"] == user


def test_wrong_passwords_and_unknown_users(base_url, user, client):
    put_user(client, user)
    for name, password in ((user, "wrong"), ("nobody-" + user, "x")):
        r = requests.get(base_url + "/_session", auth=(name, password))
        assert_error(r, 401, "unauthorized", "Name or password is incorrect.")
        r = requests.post(base_url + "/_session", data={"name": name, "password": password})
        assert_error(r, 401, "unauthorized", "Name or password is incorrect.")


def test_a_new_password_logs_in(client, base_url, user):
    """After an admin sets a new password, it works and the old one does not. (Settee
    also ends the old cookies; CouchDB 3.4.3 still honours them for a while, so that
    is tested in Settee's own suite, not here.)"""
    put_user(client, user)
    doc = body_of(client.get(client.url("_users", "org.couchdb.user:" + user)))
    doc["password"] = "changed"
    assert_status(client.put(client.url("_users", "org.couchdb.user:" + user), json=doc), 201)
    assert body_of(requests.get(base_url + "/_session", auth=(user, "changed")))["userCtx"]["name"] == user
    assert requests.get(base_url + "/_session", auth=(user, "pw-" + user)).status_code == 401


@pytest.mark.parametrize("doc_id, body, reason", [
    ("org.couchdb.user:{n}", {"name": "{n}", "roles": [], "type": "admin"}, "doc.type must be user"),
    ("org.couchdb.user:{n}", {"roles": [], "type": "user"}, "doc.name is required"),
    ("org.couchdb.user:{n}", {"name": "{n}", "type": "user"}, "doc.roles must exist"),
    ("org.couchdb.user:{n}", {"name": "{n}", "roles": "x", "type": "user"}, "doc.roles must be an array"),
    ("org.couchdb.user:{n}", {"name": "{n}", "roles": [1], "type": "user"}, "doc.roles can only contain strings"),
    ("org.couchdb.user:other{n}", {"name": "{n}", "roles": [], "type": "user"},
     "Doc ID must be of the form org.couchdb.user:name"),
    ("org.couchdb.user:{n}", {"name": "{n}", "roles": [], "type": "user", "password_scheme": "md5"},
     "Password scheme `md5` not supported."),
    ("org.couchdb.user:{n}", {"name": "{n}", "roles": ["_admin"], "type": "user"},
     "No system roles (starting with underscore) in users db."),
    ("org.couchdb.user:_{n}", {"name": "_{n}", "roles": [], "type": "user"}, "Username may not start with underscore."),
    ("org.couchdb.user:a:{n}", {"name": "a:{n}", "roles": [], "type": "user"},
     "Character `:` is not allowed in usernames."),
])
def test_user_documents_are_validated(client, user, doc_id, body, reason):
    """_auth's validate_doc_update: 403 forbidden with CouchDB's words; nothing stored."""
    doc_id = doc_id.format(n=user)
    body = {k: (v.format(n=user) if isinstance(v, str) else v) for k, v in body.items()}
    assert_error(client.put(client.url("_users", doc_id), json=body), 403, "forbidden", reason)
    assert client.get(client.url("_users", doc_id)).status_code == 404


def test_users_is_for_admins_by_default(base_url, client, user):
    """_users' default security is admin-only: a user cannot read it, even their own document."""
    put_user(client, user)
    r = requests.get(base_url + "/_users/org.couchdb.user:" + user, auth=(user, "pw-" + user))
    assert_error(r, 403, "forbidden", "You are not allowed to access this db.")


def test_users_security_is_fixed(client):
    """[couchdb] users_db_security_editable = false (CouchDB 3's default)."""
    r = client.put(client.url("_users", "_security"), json={"admins": {"names": [], "roles": []},
                                                             "members": {"names": [], "roles": []}})
    assert_error(r, 403, "forbidden", "You can't edit the security object of the user database.")


def test_malformed_basic_credentials(base_url):
    """A Basic value that is not base64 is 400; one without a colon is anonymous
    (couch_httpd_auth:basic_name_pw), never an error of the server."""
    r = requests.get(base_url + "/_session", headers={"Authorization": "Basic !!!"})
    assert_error(r, 400, "bad_request", "Authorization header has invalid base64 value")
    r = requests.get(base_url + "/_session", headers={"Authorization": "Basic Zm9v"})
    assert body_of(assert_status(r, 200))["userCtx"]["name"] is None


def test_session_cookies_are_persistent(client, base_url, user):
    """allow_persistent_cookies (true in 3.4): the cookie has Max-Age = [chttpd_auth] timeout."""
    put_user(client, user)
    login = requests.post(base_url + "/_session", data={"name": user, "password": "pw-" + user})
    header = login.headers["Set-Cookie"]
    assert header.startswith("AuthSession=") and "Max-Age=" in header and "Expires=" in header
    assert "Path=/" in header and "HttpOnly" in header


def test_find_in_replicator_needs_a_server_admin(base_url, client, user):
    """POST /_replicator/_find by a user: 403 "You are not allowed to access this db."
    (CouchDB 3.4.3; its documents may carry others' credentials), where an admin queries."""
    put_user(client, user)
    r = requests.post(base_url + "/_replicator/_find", json={"selector": {}}, auth=(user, "pw-" + user))
    assert_error(r, 403, "forbidden", "You are not allowed to access this db.")
    assert_status(client.post(client.url("_replicator", "_find"), json={"selector": {"_id": "none"}}), 200)
