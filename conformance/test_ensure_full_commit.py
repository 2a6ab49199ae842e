"""POST /{db}/_ensure_full_commit. CouchDB docs: API Reference › Databases › POST
/{db}/_ensure_full_commit; spec/couchdb.md › Database info and commits; transcripts
(CouchDB 3.4.3's replicator sends it with Content-Type: application/json and an
empty body)."""

from couch import JSON, assert_error, assert_status, body_of


def test_ensure_full_commit(client, db):
    """201 {"ok":true,"instance_start_time":X} with X as in GET /{db}."""
    r = client.post(db.url("_ensure_full_commit"), headers=JSON)
    b = body_of(assert_status(r, 201))
    assert b["ok"] is True
    info = body_of(client.get(db.url()))
    assert b["instance_start_time"] == info["instance_start_time"]
    assert isinstance(b["instance_start_time"], str)


def test_ensure_full_commit_stable(client, db):
    """spec/couchdb.md: instance_start_time must not change between calls (the
    replicator fails a job when it does)."""
    a = body_of(client.post(db.url("_ensure_full_commit"), headers=JSON))
    b = body_of(client.post(db.url("_ensure_full_commit"), headers=JSON))
    assert a["instance_start_time"] == b["instance_start_time"]


def test_ensure_full_commit_missing_db(client, url):
    """chttpd_db: a missing database -> 404 not_found."""
    from conftest import random_db_name

    r = client.post(url(random_db_name(), "_ensure_full_commit"), headers=JSON)
    assert_error(r, 404, "not_found")


def test_ensure_full_commit_get_not_allowed(client, db):
    """chttpd_db: only POST -> 405 method_not_allowed."""
    assert_error(client.get(db.url("_ensure_full_commit")), 405, "method_not_allowed")
