"""POST /{db}/_compact. CouchDB docs: API Reference › Databases › POST /{db}/_compact."""

from couch import JSON, assert_error, assert_status, body_of, put_doc


def test_compact_accepted(client, db):
    """_compact with Content-Type: application/json -> 202 {"ok":true}."""
    put_doc(db, "a", {})
    r = client.post(db.url("_compact"), headers=JSON)
    assert_status(r, 202)
    assert body_of(r) == {"ok": True}


def test_compact_needs_json_content_type(client, db):
    """_compact without the JSON Content-Type -> 415 bad_content_type."""
    r = client.post(db.url("_compact"))
    assert_error(r, 415, "bad_content_type")
    r = client.post(db.url("_compact"), data=b"x", headers={"Content-Type": "text/plain"})
    assert_error(r, 415, "bad_content_type")


def test_compact_get_not_allowed(client, db):
    """chttpd_db handle_compact_req: only POST -> 405 method_not_allowed."""
    assert_error(client.get(db.url("_compact")), 405, "method_not_allowed")


def test_compact_missing_db(client, url):
    """_compact on a missing database -> 404 not_found."""
    from conftest import random_db_name

    assert_error(client.post(url(random_db_name(), "_compact"), headers=JSON), 404, "not_found")
