"""POST /{db}/_bulk_get. CouchDB docs: API Reference › Databases › POST
/{db}/_bulk_get; spec/couchdb.md › Replication protocol 5."""

from couch import assert_error, assert_status, body_of, make_conflict, put_doc, rev_sig, sig, update_doc


def bulk_get(client, db, docs, params=None):
    r = client.post(db.url("_bulk_get"), json={"docs": docs}, params=params)
    return body_of(assert_status(r, 200))


def test_by_id_and_rev(client, db):
    """_bulk_get: {"results":[{"id", "docs":[{"ok": doc}]}]} in request order."""
    ra = put_doc(db, "a", {"v": "a"})["rev"]
    rb = put_doc(db, "b", {"v": "b"})["rev"]
    out = bulk_get(client, db, [{"id": "b", "rev": rb}, {"id": "a", "rev": ra}])
    assert set(out) == {"results"}
    res = out["results"]
    assert [x["id"] for x in res] == ["b", "a"]
    assert res[0]["docs"] == [{"ok": {"_id": "b", "_rev": rb, "v": "b"}}]
    assert res[1]["docs"] == [{"ok": {"_id": "a", "_rev": ra, "v": "a"}}]


def test_old_rev(client, db):
    """_bulk_get: a non-leaf rev is returned as stored (before compaction)."""
    r1 = put_doc(db, "a", {"v": 1})["rev"]
    update_doc(db, "a", r1, {"v": 2})
    res = bulk_get(client, db, [{"id": "a", "rev": r1}])["results"]
    assert res[0]["docs"][0]["ok"]["v"] == 1


def test_without_rev_returns_all_leaves(client, db):
    """_bulk_get: without a rev every leaf (open_revs=all) is returned."""
    winner, loser, _ = make_conflict(db, "c")
    res = bulk_get(client, db, [{"id": "c"}])["results"]
    revs = sorted(d["ok"]["_rev"] for d in res[0]["docs"])
    assert revs == sorted([winner, loser])


def test_missing_doc(client, db):
    """_bulk_get: an unknown id gives an error entry
    {"error":{"id","rev":"undefined","error":"not_found","reason":"missing"}}."""
    res = bulk_get(client, db, [{"id": "nope"}])["results"]
    assert res[0]["id"] == "nope"
    err = res[0]["docs"][0]["error"]
    assert err["id"] == "nope"
    assert err["error"] == "not_found"
    assert err["rev"] == "undefined"
    assert err["reason"] == "missing"


def test_missing_rev(client, db):
    """_bulk_get: an unknown rev of a known doc gives an error entry naming that rev."""
    put_doc(db, "a", {})
    missing = "1-" + sig("missing")
    res = bulk_get(client, db, [{"id": "a", "rev": missing}])["results"]
    err = res[0]["docs"][0]["error"]
    assert err["id"] == "a" and err["rev"] == missing and err["error"] == "not_found"


def test_revs(client, db):
    """_bulk_get?revs=true: docs carry _revisions."""
    r1 = put_doc(db, "a", {})["rev"]
    r2 = update_doc(db, "a", r1)["rev"]
    res = bulk_get(client, db, [{"id": "a", "rev": r2}], params={"revs": "true"})["results"]
    assert res[0]["docs"][0]["ok"]["_revisions"] == {"start": 2, "ids": [rev_sig(r2), rev_sig(r1)]}


def test_latest(client, db):
    """_bulk_get?latest=true: an ancestor rev answers the leaf below it (what CouchDB's
    replicator sends: ?latest=true&revs=true)."""
    r1 = put_doc(db, "a", {"v": 1})["rev"]
    r2 = update_doc(db, "a", r1, {"v": 2})["rev"]
    res = bulk_get(client, db, [{"id": "a", "rev": r1}], params={"latest": "true", "revs": "true"})["results"]
    doc = res[0]["docs"][0]["ok"]
    assert doc["_rev"] == r2 and doc["v"] == 2


def test_deleted_leaf(client, db):
    """_bulk_get: a tombstone rev is returned with _deleted: true."""
    r1 = put_doc(db, "a", {})["rev"]
    r2 = body_of(client.delete(db.url("a"), params={"rev": r1}))["rev"]
    res = bulk_get(client, db, [{"id": "a", "rev": r2}])["results"]
    doc = res[0]["docs"][0]["ok"]
    assert doc["_rev"] == r2 and doc["_deleted"] is True


def test_missing_docs_member(client, db):
    """chttpd_db: a body without `docs` -> 400 bad_request."""
    assert_error(client.post(db.url("_bulk_get"), json={}), 400, "bad_request")


def test_get_not_allowed(client, db):
    """chttpd_db: only POST -> GET /{db}/_bulk_get is 405 method_not_allowed."""
    assert_error(client.get(db.url("_bulk_get")), 405, "method_not_allowed")


def test_items_without_an_id_or_with_a_bad_rev(client, db):
    """chttpd_db bulk_get: an item without `id` is `document id missed` (rev null);
    a `rev` that is no revision is 400 "Invalid rev format" for that item, naming it
    (checked on CouchDB 3.4.3)."""
    put_doc(db, "m", {})
    r = assert_status(client.post(db.url("_bulk_get"), json={"docs": [{"rev": "1-abc"}, {"id": "m", "rev": "junk"}]}),
                      200)
    first, second = [row["docs"][0]["error"] for row in body_of(r)["results"]]
    assert first == {"id": None, "rev": None, "error": "bad_request", "reason": "document id missed"}
    assert second == {"id": "m", "rev": "junk", "error": "bad_request", "reason": "Invalid rev format"}
