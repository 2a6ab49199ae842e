"""GET/PUT /{db}/_security. CouchDB docs: API Reference › Databases ›
/{db}/_security; Security › Database permissions (anonymous users are 401)."""

from couch import assert_error, assert_status, body_of, skip_if_couchdb_defect

SEC = {
    "admins": {"names": ["boss"], "roles": ["ops"]},
    "members": {"names": ["alice", "bob"], "roles": ["staff"]},
}
OPEN = {"admins": {"names": [], "roles": []}, "members": {"names": [], "roles": []}}


def test_get_default_shape(client, db):
    """GET _security: a JSON object; admins/members, when present, are objects."""
    b = body_of(assert_status(client.get(db.url("_security")), 200))
    assert isinstance(b, dict)
    for k in ("admins", "members"):
        if k in b:
            assert isinstance(b[k], dict)


def test_put_then_get(client, db):
    """PUT _security -> 200 {"ok":true}; GET returns what was stored."""
    r = assert_status(client.put(db.url("_security"), json=SEC), 200)
    assert body_of(r) == {"ok": True}
    got = body_of(client.get(db.url("_security")))
    assert got["admins"] == SEC["admins"]
    assert got["members"] == SEC["members"]


def test_members_lock_out_anonymous(client, anon, db):
    """Security › Database permissions: with members set, an anonymous request gets
    401 unauthorized; with empty admins and members the db is public."""
    assert_status(client.put(db.url("_security"), json=OPEN), 200)
    assert_status(anon.get(anon.url(db.name)), 200)
    assert_status(client.put(db.url("_security"), json=SEC), 200)
    assert_error(anon.get(anon.url(db.name)), 401, "unauthorized")
    assert_error(anon.get(anon.url(db.name, "_all_docs")), 401, "unauthorized")


def test_anonymous_cannot_set_security(client, anon, db):
    """_security: only admins may change it; anonymous -> 401 unauthorized."""
    assert_status(client.put(db.url("_security"), json=OPEN), 200)
    r = anon.put(anon.url(db.name, "_security"), json=SEC)
    # CouchDB 3.4.3 answers 500 {"error":"error","reason":"no_majority"} here (and to a
    # member who is not an admin): its security-object update fails its quorum check
    # for a non-admin writer instead of answering 401/403 (mem3/fabric_db_meta).
    skip_if_couchdb_defect(client, r, 500, "error", "PUT _security by a non-admin answers 500 no_majority")
    assert_error(r, 401, "unauthorized")
    assert body_of(client.get(db.url("_security")))["members"] == OPEN["members"]


def test_security_method_not_allowed(client, db):
    """chttpd_db: _security allows PUT,GET -> DELETE is 405 method_not_allowed."""
    assert_error(client.delete(db.url("_security")), 405, "method_not_allowed")
