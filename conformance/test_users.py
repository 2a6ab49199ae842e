"""The _users database and user authentication. CouchDB docs: Security ›
Authentication Database (user documents, password hashing) and API Reference ›
Server › Authentication; the validation messages are CouchDB 3.4.3's `_auth`
design document (couch_js_functions.hrl), checked on CouchDB 3.4.3."""

import uuid

import pytest
import requests

from couch import assert_error, assert_status, body_of, skip_if_couchdb_defect


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


AUTH_DDOC_REV = "1-328d326d97fea853158eef1e1bfbc8b2"


def test_users_holds_couchdbs_auth_design_document(client):
    """_users has `_design/_auth` with CouchDB's own validate_doc_update: clients wait
    for it before adding users. Written by `chttpd_auth_cache:ensure_auth_ddoc_exists/2`
    from `couch_auth_cache:auth_design_doc/1` (couch_js_functions.hrl); its revision in
    CouchDB 3.4.3 is AUTH_DDOC_REV."""
    doc = body_of(assert_status(client.get(client.url("_users", "_design/_auth")), 200))
    assert doc["_rev"] == AUTH_DDOC_REV
    assert sorted(doc) == ["_id", "_rev", "language", "validate_doc_update"] and doc["language"] == "javascript"
    source = doc["validate_doc_update"]
    assert source.startswith("\n    function(newDoc, oldDoc, userCtx, secObj) {\n")
    assert "throw({forbidden : 'doc.type must be user'});" in source


@pytest.mark.parametrize("password, shown", [(123, "123"), (True, "true"), ([1, 2], "[1,2]")])
def test_a_password_that_is_not_a_string_is_refused(client, user, password, shown):
    """couch_passwords:pbkdf2/4 hashes binaries only: 403 "Password value of '...' is
    invalid." (Erlang's ~p of the value); nothing is stored."""
    doc_id = "org.couchdb.user:" + user
    body = {"name": user, "password": password, "roles": [], "type": "user"}
    assert_error(client.put(client.url("_users", doc_id), json=body), 403, "forbidden",
                 "Password value of '%s' is invalid." % shown)
    assert client.get(client.url("_users", doc_id)).status_code == 404


def test_a_name_that_is_not_a_string_must_still_match_the_id(client, user):
    """The _auth function compares the id with 'org.couchdb.user:' + newDoc.name before
    it reads the name as a string: 403 for an id that does not match."""
    body = {"name": 7, "roles": [], "type": "user"}
    r = client.put(client.url("_users", "org.couchdb.user:" + user), json=body)
    assert_error(r, 403, "forbidden", "Doc ID must be of the form org.couchdb.user:name")


def test_session_names_the_user_in_name_or_username(base_url, client, user):
    """couch_httpd_auth:extract_username/1: `username` stands for `name`; neither is 400
    "request body must contain a username"; two that differ are 400."""
    put_user(client, user)
    r = requests.post(base_url + "/_session", json={"username": user, "password": "pw-" + user})
    assert body_of(assert_status(r, 200))["name"] == user
    r = requests.post(base_url + "/_session", json={"password": "x"})
    assert_error(r, 400, "bad_request", "request body must contain a username")
    r = requests.post(base_url + "/_session", data={"name": user, "username": "x" + user, "password": "x"})
    assert_error(r, 400, "bad_request", "request body contains different usernames")


def test_readers_stand_for_members_when_there_are_none(base_url, client, make_db, user):
    """`readers`, CouchDB 1.0's name for members, is read when `members` is absent
    (couch_db:get_members/1): it admits its names and locks others out; beside
    `members` it counts for nothing."""
    put_user(client, user)
    db = make_db()
    as_user = (user, "pw-" + user)
    assert_status(client.put(db.url("_security"), json={"readers": {"names": [user], "roles": []}}), 200)
    assert_status(requests.get(base_url + "/" + db.name, auth=as_user), 200)
    assert_error(requests.get(base_url + "/" + db.name), 401, "unauthorized")
    sec = {"readers": {"names": [user], "roles": []}, "members": {"names": ["x" + user], "roles": []}}
    assert_status(client.put(db.url("_security"), json=sec), 200)
    assert_error(requests.get(base_url + "/" + db.name, auth=as_user), 403, "forbidden")


@pytest.mark.parametrize("sec", [
    {"admins": {"names": [1]}}, {"members": {"roles": [True]}}, {"members": {"names": "bob"}},
    {"admins": []}, {"readers": {"names": [None]}},
])
def test_security_names_and_roles_must_be_strings(client, make_db, sec):
    """couch_db:validate_security_object/1 refuses names and roles that are not lists of
    strings (in admins, and members or readers); the stored object stays. CouchDB 3.4.3
    answers 500 no_majority (its shards refuse the write); Settee 400 bad_request."""
    db = make_db()
    before = body_of(client.get(db.url("_security")))
    r = client.put(db.url("_security"), json=sec)
    skip_if_couchdb_defect(client, r, 500, "error", "a refused _security object is 500 no_majority")
    assert_error(r, 400, "bad_request")
    assert body_of(client.get(db.url("_security"))) == before
