"""POST /{db}/_bulk_docs. CouchDB docs: API Reference › Databases › POST
/{db}/_bulk_docs; spec/couchdb.md › Revisions (new_edits=false)."""

import json

from couch import JSON, assert_error, assert_status, body_of, bulk_docs, get_doc, put_doc, rev_gen, sig


def test_create_many(client, db):
    """_bulk_docs: 201 with one {"ok":true,"id","rev"} per doc, in request order."""
    out = bulk_docs(db, [{"_id": "b", "v": 1}, {"_id": "a", "v": 2}])
    assert [o["id"] for o in out] == ["b", "a"]
    assert all(o["ok"] is True and rev_gen(o["rev"]) == 1 for o in out)
    assert get_doc(db, "a")["v"] == 2


def test_generated_ids(client, db):
    """_bulk_docs: docs without _id get a generated id."""
    out = bulk_docs(db, [{"v": 1}, {"v": 2}])
    ids = [o["id"] for o in out]
    assert all(isinstance(i, str) and i for i in ids) and ids[0] != ids[1]
    assert get_doc(db, ids[1])["v"] == 2


def test_update_and_delete(client, db):
    """_bulk_docs: _rev updates, _deleted: true deletes."""
    r = {o["id"]: o["rev"] for o in bulk_docs(db, [{"_id": "a"}, {"_id": "b"}])}
    out = bulk_docs(db, [{"_id": "a", "_rev": r["a"], "v": 2}, {"_id": "b", "_rev": r["b"], "_deleted": True}])
    assert all(o.get("ok") is True and rev_gen(o["rev"]) == 2 for o in out)
    assert get_doc(db, "a")["v"] == 2
    assert_error(client.get(db.url("b")), 404, "not_found", "deleted")


def test_per_doc_conflict(client, db):
    """_bulk_docs: a conflicting doc gets {"id","error":"conflict","reason"} while the
    others are written; the response is still 201."""
    put_doc(db, "exists", {})
    out = bulk_docs(db, [{"_id": "new1"}, {"_id": "exists"}, {"_id": "new2"}])
    assert out[0]["ok"] is True and out[2]["ok"] is True
    assert out[1]["id"] == "exists"
    assert out[1]["error"] == "conflict"
    assert isinstance(out[1]["reason"], str)
    assert "ok" not in out[1]
    get_doc(db, "new2")


def test_duplicate_ids_in_one_request(client, db):
    """_bulk_docs: the same new id twice - one write succeeds, the other conflicts."""
    out = bulk_docs(db, [{"_id": "dup", "v": 1}, {"_id": "dup", "v": 2}])
    assert sorted("ok" in o for o in out) == [False, True]
    assert [o.get("error") for o in out if "ok" not in o] == ["conflict"]


def test_new_edits_false_returns_empty_list(client, db):
    """spec/couchdb.md › Revisions: new_edits=false answers 201 [] when every document
    was stored; the revs are kept as given."""
    docs = [
        {"_id": "a", "_rev": "1-" + sig("a1"), "v": 1},
        {"_id": "b", "_rev": "2-" + sig("b2"), "_revisions": {"start": 2, "ids": [sig("b2"), sig("b1")]}, "v": 2},
    ]
    assert bulk_docs(db, docs, new_edits=False) == []
    assert get_doc(db, "a")["_rev"] == "1-" + sig("a1")
    assert get_doc(db, "b")["_rev"] == "2-" + sig("b2")


def test_new_edits_false_deleted(client, db):
    """new_edits=false: a replicated tombstone makes the doc deleted."""
    assert bulk_docs(db, [{"_id": "a", "_rev": "1-" + sig("a1")}], new_edits=False) == []
    tomb = {"_id": "a", "_rev": "2-" + sig("a2"), "_deleted": True,
            "_revisions": {"start": 2, "ids": [sig("a2"), sig("a1")]}}
    assert bulk_docs(db, [tomb], new_edits=False) == []
    assert_error(client.get(db.url("a")), 404, "not_found", "deleted")


def test_new_edits_false_needs_rev(client, db):
    """chttpd_db validate_revs: new_edits=false without _rev -> 400 bad_request."""
    r = client.post(db.url("_bulk_docs"), json={"docs": [{"_id": "a"}], "new_edits": False})
    assert_error(r, 400, "bad_request")


def test_missing_docs_member(client, db):
    """chttpd_db: POST body must include `docs` -> 400 bad_request."""
    assert_error(client.post(db.url("_bulk_docs"), json={}), 400, "bad_request")


def test_docs_not_array(client, db):
    """chttpd_db: `docs` must be an array -> 400 bad_request."""
    assert_error(client.post(db.url("_bulk_docs"), json={"docs": {"a": 1}}), 400, "bad_request")


def test_empty_docs(client, db):
    """_bulk_docs: an empty docs array -> 201 []."""
    assert bulk_docs(db, []) == []


def test_invalid_doc_rejects_request(client, db):
    """couch_doc transfer_fields: a doc with a bad special member fails the whole
    request with 400 doc_validation before anything is written."""
    r = client.post(db.url("_bulk_docs"), json={"docs": [{"_id": "ok1"}, {"_id": "bad", "_foo": 1}]})
    assert_error(r, 400, "doc_validation")
    assert_error(client.get(db.url("ok1")), 404, "not_found")


def test_local_ids_in_bulk_docs_are_local_documents(client, db):
    """CouchDB 3.4.3 does not refuse `_local/` ids in `_bulk_docs` (checked on it): each
    is written as a local document, rev "0-1", and stays out of `_all_docs` and
    `_changes` as local documents do."""
    r = assert_status(client.post(db.url("_bulk_docs"), json={"docs": [{"_id": "_local/a", "v": 1}, {"_id": "n"}]}),
                      201)
    assert body_of(r)[0] == {"ok": True, "id": "_local/a", "rev": "0-1"}
    assert body_of(client.get(db.url("_local/a")))["v"] == 1
    assert [row["id"] for row in body_of(client.get(db.url("_all_docs")))["rows"]] == ["n"]
    assert [row["id"] for row in body_of(client.get(db.url("_changes")))["results"]] == ["n"]


def post_raw(client, db, text):
    """POSTs `text` as written (escapes and white space kept) to _bulk_docs."""
    return client.post(db.url("_bulk_docs"), data=text.encode("utf-8"), headers={"Content-Type": "application/json"})


def test_new_edits_false_bodies_as_sent(client, db):
    """API Reference › Databases › POST /{db}/_bulk_docs with new_edits=false (what a
    replicator sends): each body is stored as the JSON it was sent, escapes, unicode,
    nesting and numbers read as JSON reads them; a key written with an escape is the key
    it decodes to (`"\\u005fid"` is `_id`); `_revisions` may list `ids` before `start`."""
    text = ('{"docs":[{"_id":"a","_rev":"1-' + sig("a1") + '","s":"\\u00e9\\/\\n\\ud83d\\ude00 é",'
            '"n":[1.5,-0,12345678901234567890,7],"o":{"p":[{"q":null}],"t":true}},'
            '{"\\u005fid":"b","_revisions":{"ids":["' + sig("b2") + '","' + sig("b1") + '"],"start":2}, "v" : 1 }],'
            '"new_edits":false}')
    assert body_of(assert_status(post_raw(client, db, text), 201)) == []
    a = get_doc(db, "a")
    assert a["s"] == "é/\n😀 é"
    assert a["n"] == [1.5, 0, 12345678901234567890, 7]
    assert a["o"] == {"p": [{"q": None}], "t": True}
    b = get_doc(db, "b", params={"revs": "true"})
    assert b["_rev"] == "2-" + sig("b2") and b["v"] == 1
    assert b["_revisions"] == {"start": 2, "ids": [sig("b2"), sig("b1")]}


def test_new_edits_false_refusal_writes_nothing(client, db):
    """couch_doc:transfer_fields/3: in a new_edits=false batch a `_deleted` that is not a
    boolean, or an unknown `_` member, refuses the whole request with 400 doc_validation
    "Bad special document member: _<name>"; a non-string `_id` is 400 illegal_docid
    (couch_doc:validate_docid/1). The documents before it are not stored."""
    ok = {"_id": "ok", "_rev": "1-" + sig("ok")}
    cases = [({"_id": "x", "_rev": "1-" + sig("x"), "_deleted": "yes"}, "doc_validation",
              "Bad special document member: _deleted"),
             ({"_id": "x", "_rev": "1-" + sig("x"), "_foo": 1}, "doc_validation", "Bad special document member: _foo"),
             ({"_id": 1, "_rev": "1-" + sig("x")}, "illegal_docid", "Document id must be a string")]
    for bad, error, reason in cases:
        r = client.post(db.url("_bulk_docs"), json={"docs": [ok, bad], "new_edits": False})
        assert_error(r, 400, error, reason)
    assert_error(client.get(db.url("ok")), 404, "not_found")


def test_new_edits_false_text_not_json_writes_nothing(client, db):
    """chttpd:json_body/1: a body that is not JSON is 400 bad_request however well formed
    the documents before the fault are, and none of them is stored."""
    for tail in ('],"new_edits":false,}', '],"new_edits":false}x', '],"new_edits":false'):
        r = post_raw(client, db, '{"docs":[{"_id":"a","_rev":"1-' + sig("a") + '"}' + tail)
        assert_error(r, 400, "bad_request")
    assert_error(client.get(db.url("a")), 404, "not_found")


# A key written twice in one object: CouchDB decodes the request with couch_util:json_decode/2,
# `jiffy:decode(V, [dedupe_keys | Opts])` (src/couch/src/couch_util.erl): the last value wins,
# kept where it was last written.
def test_dup_keys_replicated_doc_keeps_last_id_rev_and_value(client, db):
    """new_edits=false: `_id`, `_rev` and body members written twice take their last values."""
    body = '{"docs":[{"_id":"a","_id":"b","_rev":"1-abc","_rev":"1-def","v":1,"w":0,"v":2}],"new_edits":false}'
    r = client.post(db.url("_bulk_docs"), data=body, headers=JSON)
    assert_status(r, 201)
    assert body_of(r) == []
    assert_status(client.get(db.url("a")), 404)
    got = json.loads(client.get(db.url("b")).text, object_pairs_hook=lambda pairs: [list(p) for p in pairs])
    assert got == [["_id", "b"], ["_rev", "1-def"], ["w", 0], ["v", 2]]


def test_dup_keys_last_new_edits_wins(client, db):
    """`{"new_edits":true,"new_edits":false,...}` is a new_edits=false request: the rev is kept."""
    body = '{"new_edits":true,"docs":[{"_id":"d","_rev":"1-abc","o":{"k":1,"k":[2]}}],"new_edits":false}'
    r = client.post(db.url("_bulk_docs"), data=body, headers=JSON)
    assert_status(r, 201)
    assert body_of(r) == []
    got = json.loads(client.get(db.url("d")).text, object_pairs_hook=lambda pairs: [list(p) for p in pairs])
    assert got == [["_id", "d"], ["_rev", "1-abc"], ["o", [["k", [2]]]]]


def test_dup_keys_new_edits_true_docs(client, db):
    """new_edits=true: the last `docs` array is the one written, its documents deduplicated."""
    body = '{"docs":[{"_id":"x"}],"docs":[{"_id":"y","n":1,"n":2}]}'
    r = client.post(db.url("_bulk_docs"), data=body, headers=JSON)
    assert_status(r, 201)
    assert [o["id"] for o in body_of(r)] == ["y"]
    assert_status(client.get(db.url("x")), 404)
    assert json.loads(client.get(db.url("y")).text, object_pairs_hook=lambda pairs: [list(p) for p in pairs])[2:] == [["n", 2]]
