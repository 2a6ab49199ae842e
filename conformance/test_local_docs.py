"""_local documents. CouchDB docs: API Reference › Local (non-replicating) Documents;
spec/couchdb.md › Revisions (_local bullets, Checked on CouchDB 3.4.3)."""

import time

from couch import assert_error, assert_status, body_of, changes, put_doc


def test_put_get_first_rev(client, db):
    """Local Documents › PUT /{db}/_local/{docid}: 201, rev "0-1"; GET returns it."""
    r = assert_status(client.put(db.url("_local/cp"), json={"seq": "x"}), 201)
    assert body_of(r) == {"ok": True, "id": "_local/cp", "rev": "0-1"}
    doc = body_of(assert_status(client.get(db.url("_local/cp")), 200))
    assert doc == {"_id": "_local/cp", "_rev": "0-1", "seq": "x"}


def test_rev_increments(client, db):
    """spec/couchdb.md: PUT with the current rev gives 0-(N+1); "0-99" gives "0-100"."""
    put_doc(db, "_local/cp", {})
    assert put_doc(db, "_local/cp", {"_rev": "0-1"})["rev"] == "0-2"
    assert put_doc(db, "_local/cp", {"_rev": "0-99"})["rev"] == "0-100"
    assert body_of(client.get(db.url("_local/cp")))["_rev"] == "0-100"


def test_no_rev_check(client, db):
    """spec/couchdb.md: _local docs have no revision check - PUT without _rev on an
    existing one is accepted (replication checkpoints rely on it)."""
    put_doc(db, "_local/cp", {"v": 1})
    put_doc(db, "_local/cp", {"_rev": "0-1", "v": 2})
    r = client.put(db.url("_local/cp"), json={"v": 3})
    assert_status(r, 201)
    assert body_of(client.get(db.url("_local/cp")))["v"] == 3


def test_revs_true(client, db):
    """spec/couchdb.md › Checked on CouchDB 3.4.3: ?revs=true adds
    _revisions {"start":0,"ids":["1"]}."""
    put_doc(db, "_local/cp", {})
    doc = body_of(client.get(db.url("_local/cp"), params={"revs": "true"}))
    assert doc["_revisions"] == {"start": 0, "ids": ["1"]}


def test_delete(client, db):
    """Local Documents › DELETE /{db}/_local/{docid}: 200 {"ok":true}; then 404."""
    put_doc(db, "_local/cp", {})
    r = assert_status(client.delete(db.url("_local/cp"), params={"rev": "0-1"}), 200)
    assert body_of(r)["ok"] is True
    assert_error(client.get(db.url("_local/cp")), 404, "not_found")


def test_missing(client, db):
    """Local Documents › GET: a missing _local doc -> 404 not_found."""
    assert_error(client.get(db.url("_local/nope")), 404, "not_found")


def test_not_in_all_docs_or_changes(client, db):
    """spec/couchdb.md: _local docs are not in _all_docs or _changes, and do not
    count in doc_count."""
    put_doc(db, "_local/cp", {})
    put_doc(db, "regular", {})
    ids = [row["id"] for row in body_of(client.get(db.url("_all_docs")))["rows"]]
    assert ids == ["regular"]
    assert [c["id"] for c in changes(db)["results"]] == ["regular"]
    assert body_of(client.get(db.url()))["doc_count"] == 1


def test_local_docs_listing(client, db):
    """API Reference › Databases › GET /{db}/_local_docs: rows of id, key and
    value.rev, sorted by id."""
    put_doc(db, "_local/b", {})
    put_doc(db, "_local/a", {})
    put_doc(db, "regular", {})
    b = body_of(assert_status(client.get(db.url("_local_docs")), 200))
    rows = b["rows"]
    assert [r["id"] for r in rows] == ["_local/a", "_local/b"]
    assert rows[0]["key"] == "_local/a"
    assert rows[0]["value"]["rev"] == "0-1"



def test_bulk_docs_writes_local_documents(client, db):
    """_bulk_docs with a _local/ id writes a local document (rev 0-N), which stays out
    of _all_docs and _changes; deleting one that is not there answers rev 0-0."""
    r = client.post(
        db.url("_bulk_docs"),
        json={"docs": [{"_id": "_local/q", "v": 1}, {"_id": "plain"}, {"_id": "_local/gone", "_deleted": True}]},
    )
    assert_status(r, 201)
    rows = body_of(r)
    assert rows[0] == {"ok": True, "id": "_local/q", "rev": "0-1"}
    assert rows[1]["id"] == "plain" and rows[1]["rev"].startswith("1-")
    assert rows[2] == {"ok": True, "id": "_local/gone", "rev": "0-0"}
    assert body_of(client.get(db.url("_local/q"))) == {"_id": "_local/q", "_rev": "0-1", "v": 1}
    assert [row["id"] for row in body_of(client.get(db.url("_all_docs")))["rows"]] == ["plain"]
    assert [c["id"] for c in body_of(client.get(db.url("_changes")))["results"]] == ["plain"]


def test_copy_to_a_local_document(client, db):
    """COPY with Destination _local/x makes a local document of the source's body."""
    assert_status(client.put(db.url("src"), json={"v": 7}), 201)
    r = client.request("COPY", db.url("src"), headers={"Destination": "_local/c"})
    assert_status(r, 201)
    assert body_of(r) == {"ok": True, "id": "_local/c", "rev": "0-1"}
    assert body_of(client.get(db.url("_local/c"))) == {"_id": "_local/c", "_rev": "0-1", "v": 7}
    assert [row["id"] for row in body_of(client.get(db.url("_all_docs")))["rows"]] == ["src"]


def test_copy_from_a_local_document(client, db):
    """COPY /{db}/_local/{id} copies the local document's body into an ordinary
    document (chttpd_db copies any doc it can open; checked on CouchDB 3.4.3)."""
    put_doc(db, "_local/src", {"v": 8})
    r = assert_status(client.request("COPY", db.url("_local/src"), headers={"Destination": "dst"}), 201)
    assert body_of(r)["id"] == "dst" and body_of(r)["rev"].startswith("1-")
    doc = body_of(client.get(db.url("dst")))
    assert doc["v"] == 8 and doc["_id"] == "dst"
    assert [row["id"] for row in body_of(client.get(db.url("_all_docs")))["rows"]] == ["dst"]


def test_local_path_errors_for_every_method(client, db):
    """chttpd_db db_req: /{db}/_local is "Invalid _local document id.", and any
    method on /{db}/_local/{id}/{att} is "_local documents do not accept
    attachments." (checked on CouchDB 3.4.3, POST and COPY included)."""
    for method in ("GET", "PUT", "POST", "DELETE", "COPY"):
        r = client.request(method, db.url("_local"), json={})
        assert_error(r, 400, "bad_request", "Invalid _local document id.")
        r = client.request(method, db.url("_local", "x", "att"), data=b"abc", headers={"Content-Type": "text/plain"})
        assert_error(r, 400, "bad_request", "_local documents do not accept attachments.")


def test_encoded_slashes_stay_in_the_local_id(client, db):
    """/{db}/_local%2Fx%2Fatt is the local document "_local/x/att", not an
    attachment (checked on CouchDB 3.4.3)."""
    r = assert_status(client.put(db.url("_local/x/att"), json={"v": 1}), 201)
    assert body_of(r)["id"] == "_local/x/att"
    assert body_of(client.get(db.url("_local/x/att")))["v"] == 1


def test_bare_local_prefix_is_refused(client, db):
    """invalid_docids_test.exs "_local-prefixed ids are illegal" (chttpd_db:db_req/2 on the
    path parts `_local` and `_local/`): `/{db}/_local`, `/{db}/_local/` and
    `/{db}/_local%2F` -> 400 bad_request "Invalid _local document id." for any method."""
    for path in ("_local", "_local/", "_local%2F"):
        for method in ("PUT", "GET", "DELETE"):
            r = client.request(method, db.url() + "/" + path, json={})
            assert_error(r, 400, "bad_request")
            assert body_of(r)["reason"] == "Invalid _local document id."


def test_local_docs_ranges_compare_whole_ids(client, db):
    """local_docs_test.exs (its keys are whole `_local/` ids) and API Reference › Local
    Documents › GET /{db}/_local_docs (startkey, endkey, key, inclusive_end): bounds are
    compared with the whole id, prefix included; "a" sorts after every `_local/` id and
    "A" before them (raw byte order), as CouchDB 3.4.3 answers."""
    for name in ("a", "b", "c"):
        assert_status(client.put(db.url("_local/" + name), json={}), 201)

    def ids(**params):
        r = assert_status(client.get(db.url("_local_docs"), params=params), 200)
        return [row["id"] for row in body_of(r)["rows"]]

    assert ids(startkey='"_local/b"') == ["_local/b", "_local/c"]
    assert ids(key='"_local/a"') == ["_local/a"]
    assert ids(start_key='"_local/b"', end_key='"_local/c"', inclusive_end="false") == ["_local/b"]
    assert ids(endkey='"_local/b"', descending="true") == ["_local/c", "_local/b"]
    assert ids(startkey='"a"') == []
    assert ids(endkey='"a"') == ["_local/a", "_local/b", "_local/c"]
    assert ids(startkey='"A"') == ["_local/a", "_local/b", "_local/c"]


def test_local_docs_update_seq_is_null(client, db):
    """API Reference › Local Documents › GET /{db}/_local_docs (update_seq): with
    `update_seq=true` the answer has `"update_seq": null` (CouchDB 3.4.3; local documents
    have no sequence)."""
    assert_status(client.put(db.url("_local/a"), json={}), 201)
    body = body_of(assert_status(client.get(db.url("_local_docs"), params={"update_seq": "true"}), 200))
    assert "update_seq" in body and body["update_seq"] is None
    assert [row["id"] for row in body["rows"]] == ["_local/a"]


def test_batch_write_of_a_local_document(client, db):
    """batch_save_test.exs ("batch put") on a `_local/` id (API Reference › Documents ›
    PUT, batch=ok): 202 `{"ok": true, "id": ...}` without a rev, and the write lands."""
    r = assert_status(client.put(db.url("_local/b"), params={"batch": "ok"}, json={"a": 1}), 202)
    assert body_of(r) == {"ok": True, "id": "_local/b"}
    deadline = time.monotonic() + 10
    while client.get(db.url("_local/b")).status_code != 200:
        assert time.monotonic() < deadline, "batched local write never landed"
        time.sleep(0.05)
    assert body_of(client.get(db.url("_local/b")))["a"] == 1


def test_local_docs_queries(client, db):
    """API Reference › Local Documents (and Databases › POST /{db}/_all_docs/queries, which
    `_local_docs/queries` mirrors in CouchDB 3.4.3): one `_local_docs` answer per query in
    `results`; a body without `queries` -> 400 bad_request."""
    for name in ("a", "b"):
        assert_status(client.put(db.url("_local/" + name), json={}), 201)
    r = client.post(db.url("_local_docs", "queries"),
                    json={"queries": [{"limit": 1}, {"keys": ["_local/b", "_local/z"]}, {"update_seq": True}]})
    results = body_of(assert_status(r, 200))["results"]
    assert [row["id"] for row in results[0]["rows"]] == ["_local/a"]
    assert results[1]["rows"][0]["id"] == "_local/b"
    assert results[1]["rows"][1] == {"key": "_local/z", "error": "not_found"}
    assert "update_seq" in results[2] and results[2]["update_seq"] is None
    r = client.post(db.url("_local_docs", "queries"), json={})
    assert_error(r, 400, "bad_request")
    assert body_of(r)["reason"] == "POST body must include `queries` parameter."


def test_local_revs_that_do_not_parse(client, db):
    """API Reference › Local Documents › GET/PUT /{db}/_local/{docid} (couch_doc:parse_rev/1),
    as CouchDB 3.4.3 answers: no revision of a local document opens by `?rev=` (404
    missing; 400 "Invalid rev format" when it does not parse), and a `_rev` that does not
    parse as `N-...` is 400 "Invalid rev format", nothing written."""
    assert_status(client.put(db.url("_local/a"), json={}), 201)
    assert_error(client.get(db.url("_local/a"), params={"rev": "0-1"}), 404, "not_found")
    r = client.get(db.url("_local/a"), params={"rev": "bad"})
    assert_error(r, 400, "bad_request")
    assert body_of(r)["reason"] == "Invalid rev format"
    for rev in ("bad", "", "abc-1", "-1"):
        r = client.put(db.url("_local/n"), json={"_rev": rev})
        assert_error(r, 400, "bad_request")
        assert body_of(r)["reason"] == "Invalid rev format"
    assert_error(client.get(db.url("_local/n")), 404, "not_found")


def test_local_writes_answer_with_location_and_etag(client, db):
    """API Reference › Local Documents › PUT /{db}/_local/{docid} (and Documents › POST
    /{db}), as CouchDB 3.4.3 answers: a PUT has a Location (the id's slash encoded) and
    an ETag, the one a GET of the document then sends; a POST has a Location."""
    r = assert_status(client.put(db.url("_local/a"), json={"v": 1}), 201)
    assert r.headers.get("Location", "").endswith("/%s/_local%%2Fa" % db.name)
    tag = r.headers.get("ETag")
    assert tag and client.get(db.url("_local/a")).headers.get("ETag") == tag
    r = assert_status(client.post(db.url(), json={"_id": "_local/p"}), 201)
    assert r.headers.get("Location", "").endswith("/%s/_local%%2Fp" % db.name)


def test_local_deleting_writes(client, db):
    """API Reference › Local Documents › PUT (and Documents › POST /{db}) with
    `"_deleted": true`, as CouchDB 3.4.3 answers (chttpd_db:update_doc/4): a PUT is 200,
    a POST 201, rev "0-0", also when the document is not there; a DELETE of a missing
    one is 404."""
    assert_status(client.put(db.url("_local/a"), json={"v": 1}), 201)
    r = assert_status(client.put(db.url("_local/a"), json={"_deleted": True}), 200)
    assert body_of(r) == {"ok": True, "id": "_local/a", "rev": "0-0"}
    assert_error(client.get(db.url("_local/a")), 404, "not_found")
    assert body_of(assert_status(client.put(db.url("_local/miss"), json={"_deleted": True}), 200))["rev"] == "0-0"
    assert_status(client.post(db.url(), json={"_id": "_local/miss2", "_deleted": True}), 201)
    assert_error(client.delete(db.url("_local/miss3")), 404, "not_found")
