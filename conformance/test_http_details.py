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
