"""Small HTTP answers client libraries meet, as CouchDB 3.4.3 gives them: chttpd.erl
(`[chttpd] decode_plus_to_space`, default true, applied to paths as to query strings),
chttpd_db.erl (`_bulk_docs` with `all_or_nothing`, `new_edits: false` without a rev,
POST `/{db}/_changes` bodies)."""

import base64
import http.client
import json
from urllib.parse import urlsplit

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


def test_a_member_whose_first_byte_is_underscore_is_special(db):
    """couch_doc:transfer_fields/3 matches `<<"_", _/binary>>`: `_` with a combining accent
    (one character, two code points) is an unknown special member too."""
    r = db.client.post(db.url("_bulk_docs"), data='{"docs":[{"_id":"comb","_\u0301":1,"a":2}]}'.encode(),
                       headers={"Content-Type": "application/json"})
    assert_error(r, 400, "doc_validation", "Bad special document member: _\u0301")
    assert_error(db.client.get(db.url("comb")), 404, "not_found")


def raw_get(base_url, auth, target):
    """GET `target` exactly as written (requests would re-quote a bad `%` escape)."""
    url = urlsplit(base_url)
    conn = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=10)
    token = base64.b64encode(("%s:%s" % auth).encode()).decode()
    conn.request("GET", url.path + target, headers={"Authorization": "Basic " + token})
    response = conn.getresponse()
    status, body = response.status, json.loads(response.read())
    conn.close()
    return status, body


def test_a_bad_percent_escape_is_invalid_url_encoding(db, base_url, admin_auth):
    """mochiweb cannot unquote `%ZZ`: 400 bad_request "invalid_url_encoding", in the
    path or the query string (checked on CouchDB 3.4.3)."""
    for target in ("/" + db.name + "/%ZZ", "/" + db.name + "/_all_docs?limit=%ZZ"):
        status, body = raw_get(base_url, admin_auth, target)
        assert (status, body["error"], body["reason"]) == (400, "bad_request", "invalid_url_encoding")


def test_reads_of_ids_that_cannot_be_stored_are_not_found(db, client):
    """GET and DELETE open the document first (chttpd_db:db_doc_req/3): an id that a
    write refuses (`_nope`) is 404 "missing" there, with or without a rev; a PUT
    of it is 400 illegal_docid. A GET of an attachment name a write refuses is the
    attachment missing."""
    assert_error(client.get(db.url("_nope")), 404, "not_found", "missing")
    assert_error(client.delete(db.url("_nope")), 404, "not_found", "missing")
    assert_error(client.delete(db.url("_nope"), params={"rev": "1-" + "a" * 32}), 404, "not_found", "missing")
    assert_error(client.put(db.url("_nope"), json={}), 400, "illegal_docid")
    put_doc(db, "d")
    assert_error(client.get(db.url("d") + "/_att"), 404, "not_found", "Document is missing attachment")


def test_rev_and_if_match_must_agree(db, client):
    """chttpd_db:extract_header_rev/2: `?rev=` and `If-Match` naming different revs is
    400, for DELETE and for `_local` documents too."""
    rev = put_doc(db, "d")["rev"]
    r = client.delete(db.url("d"), params={"rev": rev}, headers={"If-Match": '"1-' + "b" * 32 + '"'})
    assert_error(r, 400, "bad_request", "Document rev and etag have different values")
    assert_status(client.put(db.url("_local/l"), json={}), 201)
    r = client.delete(db.url("_local/l"), params={"rev": "0-1"}, headers={"If-Match": '"0-5"'})
    assert_error(r, 400, "bad_request", "Document rev and etag have different values")


def test_copy_to_a_destination_that_does_not_percent_decode(db, client):
    """COPY's Destination is percent-decoded when it can be and taken as written when
    not (`%ZZ` is the id "%ZZ"); errors as CouchDB 3.4.3 gives them."""
    put_doc(db, "src", {"v": 1})
    r = assert_status(client.request("COPY", db.url("src"), headers={"Destination": "%ZZ"}), 201)
    assert body_of(r)["id"] == "%ZZ"
    r = assert_status(client.request("COPY", db.url("src"), headers={"Destination": "a%20b"}), 201)
    assert body_of(r)["id"] == "a b"
    assert_error(client.request("COPY", db.url("src")), 400, "bad_request", "Destination header is mandatory for COPY.")
    assert_error(client.request("COPY", db.url("gone"), headers={"Destination": "x"}), 404, "not_found", "missing")
    assert_error(client.request("COPY", db.url("src"), headers={"Destination": "_bad"}), 400, "illegal_docid")
    assert_error(client.request("COPY", db.url("src"), headers={"Destination": "src"}), 409, "conflict")
    assert_error(client.request("COPY", db.url("src"), headers={"Destination": "t?rev=junk"}), 400, "bad_request",
                 "Invalid rev format")
    assert_error(client.request("COPY", db.url("src"), params={"rev": "junk"}, headers={"Destination": "t"}), 400,
                 "bad_request", "Invalid rev format")
    # If-Match names the source's rev, as ?rev= does.
    r = client.request("COPY", db.url("src"), headers={"Destination": "t2", "If-Match": '"1-' + "c" * 32 + '"'})
    assert_error(r, 404, "not_found", "missing")


def test_local_document_rev_must_be_a_string(db, client):
    """A `_local` document's `_rev` that is not a string: 400 "Invalid rev format"."""
    assert_error(client.put(db.url("_local/l"), json={"_rev": []}), 400, "bad_request", "Invalid rev format")


def test_posted_all_docs_options_come_from_body_and_query(db, client):
    """couch_mrview_http:parse_body_and_query/3: the body's members are options as in
    the query string (include_docs, limit, skip, descending...), and the query string
    wins where both give one; `keys` with skip and limit select from the keys given.
    The same for `_local_docs`."""
    for docid in ("a", "b", "c"):
        put_doc(db, docid, {"n": docid})
    url = db.url("_all_docs")
    rows = body_of(assert_status(client.post(url, json={"keys": ["a", "b", "c"], "limit": 2, "include_docs": True}),
                                 200))["rows"]
    assert [r["id"] for r in rows] == ["a", "b"] and rows[0]["doc"]["n"] == "a"
    rows = body_of(client.post(url, params={"limit": "1"}, json={"keys": ["a", "b", "c"], "limit": 2}))["rows"]
    assert [r["id"] for r in rows] == ["a"]
    rows = body_of(client.post(url, json={"keys": ["a", "b", "c"], "skip": 1, "limit": 1}))["rows"]
    assert [r["id"] for r in rows] == ["b"]
    rows = body_of(client.get(url, params={"keys": '["a","b","c"]', "skip": "1", "limit": "1"}))["rows"]
    assert [r["id"] for r in rows] == ["b"]
    rows = body_of(client.post(url, json={"descending": True, "limit": 1}))["rows"]
    assert [r["id"] for r in rows] == ["c"]
    for name in ("x", "y"):
        assert_status(client.put(db.url("_local/" + name), json={}), 201)
    rows = body_of(client.post(db.url("_local_docs"), json={"keys": ["_local/x", "_local/y"], "limit": 1}))["rows"]
    assert [r["id"] for r in rows] == ["_local/x"]


def test_reads_of_names_that_are_not_utf8_find_nothing(db, base_url, admin_auth):
    """A GET of a database or document name that is not UTF-8 (`%C3%28`) looks it up
    and finds nothing: 404, as CouchDB 3.4.3 answers (a write of it is 400)."""
    status, body = raw_get(base_url, admin_auth, "/%C3%28")
    assert (status, body["error"], body["reason"]) == (404, "not_found", "Database does not exist.")
    status, body = raw_get(base_url, admin_auth, "/" + db.name + "/%C3%28")
    assert (status, body["error"], body["reason"]) == (404, "not_found", "missing")
