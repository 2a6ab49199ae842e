"""POST /{db}/_compact. CouchDB docs: API Reference › Databases › POST /{db}/_compact."""

from couch import JSON, assert_error, assert_status, body_of, delete_doc, get_doc, put_doc, update_doc


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


def _until(check, timeout=30.0):
    """Polls `check()` until it returns a true value or `timeout` passes (compaction
    is asynchronous: CouchDB answers 202 and compacts in the background)."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def _history_length(db, docid):
    return len(get_doc(db, docid, params={"revs": "true"})["_revisions"]["ids"])


def test_compaction_applies_a_lowered_revs_limit(client, make_db):
    """A document written under revs_limit 1000 keeps 7 revision ids; after
    _revs_limit 3 and a compaction it keeps 3 (couch_bt_engine_compactor stems
    every tree to the database's revs_limit). Deleted documents leave active
    below file afterwards (API Reference › GET /{db} › sizes)."""
    db = make_db(query={"q": "1"})
    rev = put_doc(db, "a", {})["rev"]
    for i in range(6):
        rev = update_doc(db, "a", rev, {"i": i})["rev"]
    for i in range(3):
        gone = put_doc(db, "x%d" % i, {"pad": "x" * 500})["rev"]
        delete_doc(db, "x%d" % i, gone)
    assert _history_length(db, "a") == 7
    assert_status(client.put(db.url("_revs_limit"), data="3", headers=JSON), 200)
    assert_status(client.post(db.url("_compact"), headers=JSON), 202)

    def compacted():
        info = body_of(client.get(db.url()))
        return not info["compact_running"] and _history_length(db, "a") == 3 and info

    info = _until(compacted)
    assert info, "compaction did not stem the document to 3 revisions"
    assert get_doc(db, "a")["i"] == 5
    assert info["sizes"]["active"] < info["sizes"]["file"]
    assert body_of(client.get(db.url("_revs_limit"))) == 3  # the compacted file keeps the setting
