"""Small HTTP answers client libraries meet, as CouchDB 3.4.3 gives them: chttpd.erl
(`[chttpd] decode_plus_to_space`, default true, applied to paths as to query strings),
chttpd_db.erl (`_bulk_docs` with `all_or_nothing`, `new_edits: false` without a rev,
POST `/{db}/_changes` bodies)."""

import pytest

from couch import assert_error, assert_status, body_of, bulk_docs, put_doc


def test_plus_in_a_document_path_is_a_space(db):
    """With decode_plus_to_space (CouchDB 3.4's default) `+` in the path decodes to a space."""
    r = db.client.put(db.client.base + "/" + db.name + "/c+d", json={"x": 1})
    assert body_of(assert_status(r, 201))["id"] == "c d"
    assert body_of(assert_status(db.client.get(db.url("c d")), 200))["x"] == 1
    r = db.client.get(db.client.base + "/" + db.name + "/c%2Bd")
    assert_error(r, 404, "not_found")


def test_all_or_nothing_is_not_implemented(db):
    """`"all_or_nothing": true` answers 417 with a not_implemented row per document (its
    rev, or "0-" for a new one), and writes nothing."""
    r = db.client.post(db.url("_bulk_docs"), json={"all_or_nothing": True, "docs": [
        {"_id": "a", "n": 1}, {"_id": "b", "_rev": "1-abc"}]})
    rows = body_of(assert_status(r, 417))
    assert rows == [
        {"id": "a", "rev": "0-", "error": "not_implemented", "reason": "all_or_nothing is not supported"},
        {"id": "b", "rev": "1-abc", "error": "not_implemented", "reason": "all_or_nothing is not supported"}]
    assert_error(db.client.get(db.url("a")), 404, "not_found")


def test_new_edits_false_needs_a_rev(db):
    r = db.client.post(db.url("_bulk_docs"), json={"new_edits": False, "docs": [{"_id": "a"}]})
    assert_error(r, 400, "bad_request", "When `new_edits: false`, the document needs `_rev` or `_revisions` specified")


@pytest.mark.parametrize("body, headers, status, error, reason", [
    ("[1]", {"Content-Type": "application/json"}, 400, "bad_request", "Request body must be a JSON object"),
    ("not json", {"Content-Type": "application/json"}, 400, "bad_request", "invalid UTF-8 JSON"),
    ("{}", {"Content-Type": "text/plain"}, 415, "bad_content_type", "Content-Type must be application/json"),
])
def test_changes_post_bodies(db, body, headers, status, error, reason):
    """POST `/{db}/_changes` checks its body as chttpd_db:handle_changes_req/2 does."""
    r = db.client.post(db.url("_changes"), data=body, headers=headers)
    assert_error(r, status, error, reason)


def test_changes_post_with_an_empty_body_is_an_empty_object(db):
    bulk_docs(db, [{"_id": "a"}])
    r = db.client.post(db.url("_changes"), data=b"", headers={"Content-Type": "application/json"})
    assert [row["id"] for row in body_of(assert_status(r, 200))["results"]] == ["a"]


@pytest.mark.parametrize("w, status", [("1", 201), ("3", 202)])
def test_write_quorum_above_the_copies_is_accepted(db, client, w, status):
    """`w` above the copies the database keeps (n) answers 202 Accepted, `"accepted": true`
    on `_bulk_docs` rows (fabric_doc_update). The database here is made with `n=1`, as a
    single node keeps one copy."""
    name = db.name + "_n1"
    assert_status(client.put(client.url(name), params={"n": "1"}), (201, 202))
    try:
        r = client.put(client.url(name, "a"), params={"w": w}, json={})
        assert_status(r, status)
        r = client.post(client.url(name, "_bulk_docs"), params={"w": w}, json={"docs": [{"_id": "b"}]})
        rows = body_of(assert_status(r, 201 if status == 201 else 202))
        assert rows[0]["ok"] is True and rows[0].get("accepted", False) == (status == 202)
        rev = body_of(client.get(client.url(name, "a")))["_rev"]
        assert_status(client.delete(client.url(name, "a"), params={"rev": rev, "w": w}), 200 if status == 201 else 202)
    finally:
        client.delete(client.url(name))


def test_reshard_on_one_node(client, anon):
    """`/_reshard` (API Reference › Server › /_reshard): server admins only; the state
    stops and runs again; a job that does not exist is 404."""
    assert_error(anon.get(anon.url("_reshard")), 401, "unauthorized")
    summary = body_of(assert_status(client.get(client.url("_reshard")), 200))
    assert summary["state"] == "running" and summary["state_reason"] is None
    assert set(summary) == {"state", "state_reason", "completed", "failed", "running", "stopped", "total"}
    jobs = body_of(assert_status(client.get(client.url("_reshard", "jobs")), 200))
    assert set(jobs) == {"total_rows", "offset", "jobs"}
    assert_error(client.get(client.url("_reshard", "jobs", "nonesuch")), 404, "not_found", "missing")
    assert_error(client.put(client.url("_reshard", "state"), json={"state": "paused"}), 400, "bad_request")
    try:
        assert_status(client.put(client.url("_reshard", "state"), json={"state": "stopped"}), 200)
        assert body_of(client.get(client.url("_reshard", "state")))["state"] == "stopped"
    finally:
        assert_status(client.put(client.url("_reshard", "state"), json={"state": "running"}), 200)
    assert body_of(client.get(client.url("_reshard", "state"))) == {"state": "running", "reason": None}


def test_attachment_write_at_a_rev_the_document_lacks(db):
    """An attachment PUT or DELETE naming a rev the document does not have (or of a
    document that does not exist): 409 `not_found` "missing_rev"; a stale rev it has is
    an ordinary 409 conflict (chttpd_db:db_attachment_req/3 opens the document at the rev)."""
    first = put_doc(db, "a", {})["rev"]
    put_doc(db, "a", {"_rev": first, "n": 1})
    text = {"Content-Type": "text/plain"}
    for path in (("a", "x.txt"), ("nothing", "x.txt")):
        r = db.client.put(db.url(*path), params={"rev": "1-abc"}, data=b"hi", headers=text)
        assert_error(r, 409, "not_found", "missing_rev")
    assert_error(db.client.delete(db.url("a", "x.txt"), params={"rev": "1-abc"}), 409, "not_found", "missing_rev")
    r = db.client.put(db.url("a", "x.txt"), params={"rev": first}, data=b"hi", headers=text)
    assert_error(r, 409, "conflict")


def test_documents_listed_with_bodies_carry_attachment_stubs(db):
    """`_all_docs?include_docs=true` and `_find` return each document as a GET does, with
    its `_attachments` stubs (couch_doc:to_json_obj/2; mango_doc)."""
    put_doc(db, "a", {"n": 1, "_attachments": {"x.txt": {"content_type": "text/plain", "data": "aGk="}}})
    put_doc(db, "b", {"n": 2})
    stub = body_of(db.client.get(db.url("a")))["_attachments"]
    assert stub["x.txt"]["stub"] is True and stub["x.txt"]["length"] == 2
    rows = body_of(assert_status(db.client.get(db.url("_all_docs"), params={"include_docs": "true"}), 200))["rows"]
    docs = {row["id"]: row["doc"] for row in rows}
    assert docs["a"]["_attachments"] == stub
    assert "_attachments" not in docs["b"]
    found = body_of(assert_status(db.client.post(db.url("_find"), json={"selector": {"n": {"$gt": 0}}}), 200))["docs"]
    assert {d["_id"]: d.get("_attachments") for d in found} == {"a": stub, "b": None}
    r = db.client.post(db.url("_find"), json={"selector": {"n": 1}, "fields": ["_id", "_attachments"]})
    assert body_of(assert_status(r, 200))["docs"] == [{"_id": "a", "_attachments": stub}]
