"""Database endpoints. CouchDB docs: API Reference › Databases › /{db}."""

import uuid

import pytest

from conftest import random_db_name
from couch import assert_error, assert_status, body_of, delete_doc, put_doc


def test_create_get_delete(client):
    """API Reference › Databases › PUT /{db} 201 {"ok":true}; GET 200; DELETE 200
    {"ok":true}; GET after delete 404 not_found."""
    name = random_db_name()
    try:
        r = assert_status(client.put(client.url(name)), 201)
        assert body_of(r) == {"ok": True}
        assert_status(client.get(client.url(name)), 200)
        r = assert_status(client.delete(client.url(name)), 200)
        assert body_of(r) == {"ok": True}
        assert_error(client.get(client.url(name)), 404, "not_found")
    finally:
        client.delete(client.url(name))


def test_create_existing_is_412(client, db):
    """API Reference › Databases › PUT /{db}: 412 file_exists if it already exists."""
    assert_error(client.put(db.url()), 412, "file_exists")


@pytest.mark.parametrize(
    "name",
    ["T_UPPER", "9starts_with_digit", "t_bad!char", "t_bad.char", "t_space here"],
)
def test_illegal_names(client, name):
    """API Reference › Databases › PUT /{db}: names must match
    ^[a-z][a-z0-9_$()+/-]*$, else 400 illegal_database_name (spec/couchdb.md)."""
    name = name + uuid.uuid4().hex[:8]
    try:
        assert_error(client.put(client.url(name)), 400, "illegal_database_name")
    finally:
        client.delete(client.url(name))


def test_legal_special_characters(client):
    """API Reference › Databases › PUT /{db}: $ ( ) + - / and _ are allowed (the slash
    percent-encoded in the URL)."""
    name = random_db_name() + "$()+-/x"
    try:
        assert_status(client.put(client.url(name)), 201)
        info = body_of(assert_status(client.get(client.url(name)), 200))
        assert info["db_name"] == name
    finally:
        client.delete(client.url(name))


def test_missing_db(client):
    """API Reference › Databases › GET/DELETE /{db}: 404 not_found for a missing db;
    HEAD 404 without a body."""
    name = random_db_name()
    assert_error(client.get(client.url(name)), 404, "not_found")
    assert_error(client.delete(client.url(name)), 404, "not_found")
    r = client.head(client.url(name))
    assert r.status_code == 404
    assert r.content == b""


def test_missing_db_sub_resource(client):
    """API Reference › Databases: endpoints under a missing db answer 404 not_found."""
    name = random_db_name()
    assert_error(client.get(client.url(name, "_all_docs")), 404, "not_found")
    assert_error(client.get(client.url(name, "somedoc")), 404, "not_found")


def test_head_db(client, db):
    """API Reference › Databases › HEAD /{db}: 200, no body."""
    r = client.head(db.url())
    assert r.status_code == 200
    assert r.content == b""


def test_info_fields(client, db):
    """API Reference › Databases › GET /{db}: db_name, doc_count, doc_del_count,
    update_seq, purge_seq, sizes{file,active,external}, compact_running and
    instance_start_time as a string (spec/couchdb.md › Database info)."""
    info = body_of(assert_status(client.get(db.url()), 200))
    assert info["db_name"] == db.name
    assert info["doc_count"] == 0
    assert info["doc_del_count"] == 0
    assert "update_seq" in info and info["update_seq"] is not None
    assert "purge_seq" in info
    for k in ("file", "active", "external"):
        assert isinstance(info["sizes"][k], int), info["sizes"]
    assert isinstance(info["instance_start_time"], str)
    assert info["compact_running"] is False


def test_info_counts_follow_writes(client, db):
    """API Reference › Databases › GET /{db}: doc_count counts live docs,
    doc_del_count deleted ones; update_seq changes on a write."""
    seq0 = body_of(client.get(db.url()))["update_seq"]
    a = put_doc(db, "a", {"x": 1})
    put_doc(db, "b", {"x": 2})
    info = body_of(client.get(db.url()))
    assert (info["doc_count"], info["doc_del_count"]) == (2, 0)
    assert info["update_seq"] != seq0
    delete_doc(db, "a", a["rev"])
    info = body_of(client.get(db.url()))
    assert (info["doc_count"], info["doc_del_count"]) == (1, 1)


def test_post_creates_doc_with_generated_id(client, db):
    """API Reference › Databases › POST /{db}: 201 {"ok","id","rev"} with a generated
    id and a Location header pointing at the new document."""
    r = assert_status(client.post(db.url(), json={"hello": "world"}), 201)
    b = body_of(r)
    assert b["ok"] is True
    assert isinstance(b["id"], str) and b["id"]
    assert b["rev"].startswith("1-")
    assert r.headers["Location"].endswith("/" + db.name + "/" + b["id"])
    doc = body_of(client.get(db.url(b["id"])))
    assert doc["hello"] == "world" and doc["_rev"] == b["rev"]


def test_post_with_id(client, db):
    """API Reference › Databases › POST /{db}: an _id in the body is used."""
    r = assert_status(client.post(db.url(), json={"_id": "given", "v": 1}), 201)
    assert body_of(r)["id"] == "given"
    assert body_of(client.get(db.url("given")))["v"] == 1


def test_post_needs_json_content_type(client, db):
    """chttpd_db db_req POST /{db}: validate_ctype application/json -> 415
    bad_content_type (API Reference › Databases › POST /{db})."""
    r = client.post(db.url(), data=b'{"a":1}', headers={"Content-Type": "text/plain"})
    assert_error(r, 415, "bad_content_type")


def test_post_existing_id_conflict(client, db):
    """API Reference › Databases › POST /{db}: an existing _id without _rev is 409."""
    put_doc(db, "x", {})
    assert_error(client.post(db.url(), json={"_id": "x"}), 409, "conflict")


def test_unauthenticated_create_is_401(client, anon):
    """API Reference › Databases › PUT /{db}: creating a database needs a server
    admin; anonymous -> 401 unauthorized."""
    name = random_db_name()
    try:
        assert_error(anon.put(anon.url(name)), 401, "unauthorized")
        assert client.get(client.url(name)).status_code == 404
    finally:
        client.delete(client.url(name))


def test_unauthenticated_delete_is_401(client, anon, db):
    """API Reference › Databases › DELETE /{db}: needs a server admin -> 401."""
    assert_error(anon.delete(anon.url(db.name)), 401, "unauthorized")
    assert_status(client.get(db.url()), 200)


def test_delete_db_with_rev_is_400(client, db):
    """chttpd_db handle_request: DELETE /{db}?rev=.. is refused with 400 bad_request
    (a doc id was probably forgotten) and the db survives."""
    r = client.delete(db.url(), params={"rev": "1-abc"})
    assert_error(r, 400, "bad_request")
    assert_status(client.get(db.url()), 200)
