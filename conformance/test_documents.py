"""Document endpoints. CouchDB docs: API Reference › Documents › /{db}/{docid}."""

import json
import re

from couch import (
    JSON,
    assert_conflict,
    assert_error,
    assert_status,
    body_of,
    delete_doc,
    force_revs,
    get_doc,
    make_conflict,
    put_doc,
    qjson,
    rev_gen,
    rev_sig,
    sig,
    update_doc,
)

REV = re.compile(r"^[0-9]+-[0-9a-f]{32}$")


def test_put_get_roundtrip(client, db):
    """API Reference › Documents › PUT /{db}/{docid}: 201 {"ok","id","rev"} with an
    ETag of the quoted rev and a Location; GET returns the body plus _id and _rev."""
    body = {"a": 1, "s": "é\u2603", "nested": {"b": [1, 2.5, None, True]}}
    r = assert_status(client.put(db.url("doc1"), json=body), 201)
    out = body_of(r)
    assert out["ok"] is True and out["id"] == "doc1"
    assert REV.match(out["rev"]) and rev_gen(out["rev"]) == 1
    assert r.headers["ETag"] == '"%s"' % out["rev"]
    assert r.headers["Location"].endswith("/" + db.name + "/doc1")
    g = assert_status(client.get(db.url("doc1")), 200)
    assert g.headers["ETag"] == '"%s"' % out["rev"]
    doc = body_of(g)
    assert doc == dict(body, _id="doc1", _rev=out["rev"])


def test_head_doc(client, db):
    """API Reference › Documents › HEAD /{db}/{docid}: 200, ETag = quoted rev, no
    body; 404 for a missing doc."""
    rev = put_doc(db, "d", {"x": 1})["rev"]
    r = client.head(db.url("d"))
    assert r.status_code == 200
    assert r.headers["ETag"] == '"%s"' % rev
    assert r.content == b""
    assert client.head(db.url("nope")).status_code == 404


def test_update_needs_current_rev(client, db):
    """API Reference › Documents › PUT /{db}/{docid}: updating needs the current rev:
    none -> 409 conflict, stale -> 409 conflict (spec/couchdb.md › Revisions)."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    r2 = update_doc(db, "d", r1, {"v": 2})["rev"]
    assert rev_gen(r2) == 2
    assert_conflict(client.put(db.url("d"), json={"v": 3}))
    assert_conflict(client.put(db.url("d"), json={"_rev": r1, "v": 3}))
    assert get_doc(db, "d")["v"] == 2


def test_conflict_reason(client, db):
    """spec/couchdb.md › Revisions: 409 {"error":"conflict","reason":"Document update
    conflict."}."""
    put_doc(db, "d", {})
    assert_error(client.put(db.url("d"), json={}), 409, "conflict", "Document update conflict.")


def test_rev_in_query_string(client, db):
    """API Reference › Documents › PUT /{db}/{docid}: ?rev= may carry the rev."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    r = assert_status(client.put(db.url("d"), params={"rev": r1}, json={"v": 2}), 201)
    assert rev_gen(body_of(r)["rev"]) == 2


def test_rev_query_and_body_disagree(client, db):
    """chttpd_db couch_doc_from_req: body _rev and ?rev= differ -> 400 bad_request."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    r2 = update_doc(db, "d", r1, {"v": 2})["rev"]
    r = client.put(db.url("d"), params={"rev": r1}, json={"_rev": r2, "v": 3})
    assert_error(r, 400, "bad_request")


def test_delete_and_reasons(client, db):
    """API Reference › Documents › DELETE /{db}/{docid}?rev=: 200 {"ok","id","rev"};
    then GET is 404 reason "deleted", a never-written id 404 reason "missing"
    (spec/couchdb.md › Revisions)."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    r = assert_status(client.delete(db.url("d"), params={"rev": r1}), 200)
    out = body_of(r)
    assert out["ok"] is True and out["id"] == "d" and rev_gen(out["rev"]) == 2
    assert_error(client.get(db.url("d")), 404, "not_found", "deleted")
    assert_error(client.get(db.url("never")), 404, "not_found", "missing")


def test_get_tombstone_by_rev(client, db):
    """API Reference › Documents › GET ?rev=: a deleted revision can be read by rev and
    shows _deleted: true."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    r2 = delete_doc(db, "d", r1)["rev"]
    doc = get_doc(db, "d", params={"rev": r2})
    assert doc["_id"] == "d" and doc["_rev"] == r2 and doc["_deleted"] is True


def test_delete_via_put_deleted_flag(client, db):
    """API Reference › Documents › PUT with "_deleted": true deletes (200, like DELETE:
    chttpd_db update_doc answers ok=200 for deletions)."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    r = assert_status(client.put(db.url("d"), json={"_rev": r1, "_deleted": True}), 200)
    assert body_of(r)["ok"] is True
    assert_error(client.get(db.url("d")), 404, "not_found", "deleted")


def test_delete_conflicts(client, db):
    """API Reference › Documents › DELETE: no rev or a stale rev -> 409 conflict;
    a missing document -> 404 not_found."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    update_doc(db, "d", r1, {"v": 2})
    assert_conflict(client.delete(db.url("d")))
    assert_conflict(client.delete(db.url("d"), params={"rev": r1}))
    assert_error(client.delete(db.url("nope"), params={"rev": r1}), 404, "not_found")


def test_get_old_rev(client, db):
    """API Reference › Documents › GET ?rev=: an earlier revision's body is readable
    until compaction (spec/couchdb.md › Attachments, last bullets)."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    r2 = update_doc(db, "d", r1, {"v": 2})["rev"]
    assert get_doc(db, "d", params={"rev": r1}) == {"_id": "d", "_rev": r1, "v": 1}
    assert get_doc(db, "d", params={"rev": r2})["v"] == 2
    r = client.get(db.url("d"), params={"rev": "9-" + sig("nope")})
    assert_error(r, 404, "not_found")


def test_revs(client, db):
    """API Reference › Documents › GET ?revs=true: _revisions {start, ids newest
    first} (spec/couchdb.md › Revisions)."""
    r1 = put_doc(db, "d", {})["rev"]
    r2 = update_doc(db, "d", r1)["rev"]
    r3 = update_doc(db, "d", r2)["rev"]
    doc = get_doc(db, "d", params={"revs": "true"})
    assert doc["_revisions"] == {"start": 3, "ids": [rev_sig(r3), rev_sig(r2), rev_sig(r1)]}
    assert "_revisions" not in get_doc(db, "d")


def test_revs_info(client, db):
    """API Reference › Documents › GET ?revs_info=true: _revs_info newest first with
    status available."""
    r1 = put_doc(db, "d", {})["rev"]
    r2 = update_doc(db, "d", r1)["rev"]
    doc = get_doc(db, "d", params={"revs_info": "true"})
    assert doc["_revs_info"] == [
        {"rev": r2, "status": "available"},
        {"rev": r1, "status": "available"},
    ]


def test_revs_info_missing_ancestors(client, db):
    """spec/couchdb.md › Revisions: with new_edits=false missing ancestors are stored
    bodiless; _revs_info shows them as "missing"."""
    leaf = force_revs(db, "d", [sig("3"), sig("2"), sig("1")], {"v": 3})
    doc = get_doc(db, "d", params={"revs_info": "true"})
    assert doc["_revs_info"][0] == {"rev": leaf, "status": "available"}
    assert [i["status"] for i in doc["_revs_info"][1:]] == ["missing", "missing"]
    assert [i["rev"] for i in doc["_revs_info"]] == ["3-" + sig("3"), "2-" + sig("2"), "1-" + sig("1")]


def test_conflicts_param(client, db):
    """API Reference › Documents › GET ?conflicts=true: _conflicts lists the other
    live leaves; absent without the parameter."""
    winner, loser, _ = make_conflict(db, "d")
    doc = get_doc(db, "d", params={"conflicts": "true"})
    assert doc["_rev"] == winner
    assert doc["_conflicts"] == [loser]
    assert "_conflicts" not in get_doc(db, "d")


def test_deleted_conflicts_param(client, db):
    """API Reference › Documents › GET ?deleted_conflicts=true: deleted leaves other
    than the winner."""
    winner, loser, _ = make_conflict(db, "d")
    dl = delete_doc(db, "d", loser)["rev"]
    doc = get_doc(db, "d", params={"deleted_conflicts": "true", "conflicts": "true"})
    assert doc["_rev"] == winner
    assert doc["_deleted_conflicts"] == [dl]
    assert "_conflicts" not in doc


def test_open_revs_all(client, db):
    """API Reference › Documents › GET ?open_revs=all with Accept: application/json:
    a JSON array with one {"ok": doc} per leaf, by generation and then rev id
    (fabric_doc_open_revs.erl tree_format_replies: lists:sort of {ok, #doc{}})."""
    winner, loser, _ = make_conflict(db, "d")
    r = assert_status(
        client.get(db.url("d"), params={"open_revs": "all"}, headers={"Accept": "application/json"}),
        200,
    )
    got = body_of(r)
    assert isinstance(got, list) and len(got) == 2
    assert all(set(e) == {"ok"} for e in got)
    assert [e["ok"]["_rev"] for e in got] == [loser, winner]
    assert all(e["ok"]["_id"] == "d" for e in got)


def test_open_revs_list_with_missing(client, db):
    """API Reference › Documents › GET ?open_revs=[..]: {"ok": doc} for known revs and
    {"missing": rev} for unknown ones; found ones first, each group by generation and
    then rev id, not in request order (fabric_doc_open_revs.erl dict_format_replies, an
    orddict; its eunit case check_revs_done_on_agreement expects [bar1, foo1, bazNF]
    for the revs [foo, bar, baz])."""
    winner, loser, _ = make_conflict(db, "d")
    low, high = "1-" + sig("not-there"), "3-" + sig("not-there")
    r = client.get(
        db.url("d"),
        params={"open_revs": qjson([high, winner, low, loser])},
        headers={"Accept": "application/json"},
    )
    got = body_of(assert_status(r, 200))
    assert [e.get("ok", {}).get("_rev") or e["missing"] for e in got] == [loser, winner, low, high]
    assert set(got[0]) == {"ok"} and set(got[2]) == {"missing"}


def test_open_revs_all_missing_doc(client, db):
    """chttpd_db db_doc_req GET: open_revs=all on a doc that never existed -> 404."""
    r = client.get(db.url("nope"), params={"open_revs": "all"}, headers={"Accept": "application/json"})
    assert_error(r, 404, "not_found")


def test_open_revs_latest(client, db):
    """API Reference › Documents › GET ?latest=true: open_revs=[old] answers the leaf
    that descends from it."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    r2 = update_doc(db, "d", r1, {"v": 2})["rev"]
    r = client.get(
        db.url("d"),
        params={"open_revs": qjson([r1]), "latest": "true"},
        headers={"Accept": "application/json"},
    )
    got = body_of(assert_status(r, 200))
    assert len(got) == 1 and got[0]["ok"]["_rev"] == r2 and got[0]["ok"]["v"] == 2


def test_open_revs_with_revs(client, db):
    """API Reference › Documents › GET ?open_revs=..&revs=true: each doc carries
    _revisions (what replicators ask for)."""
    r1 = put_doc(db, "d", {})["rev"]
    r2 = update_doc(db, "d", r1)["rev"]
    r = client.get(
        db.url("d"),
        params={"open_revs": qjson([r2]), "revs": "true"},
        headers={"Accept": "application/json"},
    )
    got = body_of(assert_status(r, 200))
    assert got[0]["ok"]["_revisions"] == {"start": 2, "ids": [rev_sig(r2), rev_sig(r1)]}


def test_local_seq(client, db):
    """API Reference › Documents › GET ?local_seq=true: adds _local_seq (opaque)."""
    put_doc(db, "d", {})
    doc = get_doc(db, "d", params={"local_seq": "true"})
    assert "_local_seq" in doc and doc["_local_seq"] is not None
    assert "_local_seq" not in get_doc(db, "d")


def test_meta(client, db):
    """API Reference › Documents › GET ?meta=true: same as revs_info + conflicts +
    deleted_conflicts."""
    winner, loser, _ = make_conflict(db, "d")
    doc = get_doc(db, "d", params={"meta": "true"})
    assert doc["_rev"] == winner
    assert doc["_revs_info"][0] == {"rev": winner, "status": "available"}
    assert doc["_conflicts"] == [loser]


def test_etag_if_none_match(client, db):
    """API Reference › Documents › GET: If-None-Match with the current ETag -> 304;
    after an update the old ETag gets 200 again."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    etag = client.get(db.url("d")).headers["ETag"]
    r = client.get(db.url("d"), headers={"If-None-Match": etag})
    assert r.status_code == 304
    assert r.content == b""
    update_doc(db, "d", r1, {"v": 2})
    r = client.get(db.url("d"), headers={"If-None-Match": etag})
    assert r.status_code == 200 and body_of(r)["v"] == 2


def test_if_match_put(client, db):
    """API Reference › Documents › PUT: the If-Match header may carry the rev."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    r = client.put(db.url("d"), json={"v": 2}, headers={"If-Match": '"%s"' % r1})
    assert rev_gen(body_of(assert_status(r, 201))["rev"]) == 2
    r = client.put(db.url("d"), json={"v": 3}, headers={"If-Match": '"%s"' % r1})
    assert_conflict(r)


def test_if_match_delete(client, db):
    """API Reference › Documents › DELETE: If-Match instead of ?rev=."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    r = client.delete(db.url("d"), headers={"If-Match": r1})
    assert body_of(assert_status(r, 200))["ok"] is True
    assert_error(client.get(db.url("d")), 404, "not_found", "deleted")


def test_put_new_edits_false(client, db):
    """API Reference › Documents › PUT ?new_edits=false: the given _rev is stored as
    is (spec/couchdb.md › Revisions)."""
    rev = "3-" + sig("x3")
    body = {"_rev": rev, "_revisions": {"start": 3, "ids": [sig("x3"), sig("x2"), sig("x1")]}, "v": 1}
    r = client.put(db.url("d"), params={"new_edits": "false"}, json=body)
    assert_status(r, 201)
    doc = get_doc(db, "d", params={"revs": "true"})
    assert doc["_rev"] == rev and doc["v"] == 1
    assert doc["_revisions"]["ids"] == [sig("x3"), sig("x2"), sig("x1")]


def test_copy(client, db):
    """API Reference › Documents › COPY /{db}/{docid}: Destination header -> 201
    {"ok","id","rev"}; the copy has the source's body."""
    put_doc(db, "src", {"v": 1})
    r = client.request("COPY", db.url("src"), headers={"Destination": "dst"})
    out = body_of(assert_status(r, 201))
    assert out["id"] == "dst" and rev_gen(out["rev"]) == 1
    doc = get_doc(db, "dst")
    assert doc["v"] == 1 and doc["_rev"] == out["rev"]


def test_copy_onto_existing(client, db):
    """API Reference › Documents › COPY: an existing destination needs ?rev= in the
    Destination header, else 409 conflict."""
    put_doc(db, "src", {"v": "src"})
    dr = put_doc(db, "dst", {"v": "old"})["rev"]
    r = client.request("COPY", db.url("src"), headers={"Destination": "dst"})
    assert_conflict(r)
    r = client.request("COPY", db.url("src"), headers={"Destination": "dst?rev=" + dr})
    out = body_of(assert_status(r, 201))
    assert rev_gen(out["rev"]) == 2
    assert get_doc(db, "dst")["v"] == "src"


def test_copy_specific_source_rev(client, db):
    """API Reference › Documents › COPY ?rev=: copies that source revision."""
    r1 = put_doc(db, "src", {"v": 1})["rev"]
    update_doc(db, "src", r1, {"v": 2})
    r = client.request("COPY", db.url("src"), params={"rev": r1}, headers={"Destination": "dst"})
    assert_status(r, 201)
    assert get_doc(db, "dst")["v"] == 1


def test_copy_to_absolute_url_is_refused(client, db):
    """copy_doc_test.exs "Copy doc tests" (chttpd_db:parse_copy_destination_header/1;
    API Reference › Documents › COPY): a Destination starting `http://` -> 400
    "Destination URL must be relative.", and nothing is written."""
    put_doc(db, "src", {"v": 1})
    r = client.request("COPY", db.url("src"),
                       headers={"Destination": "http://localhost:5984/%s/dst" % db.name})
    assert_error(r, 400, "bad_request")
    assert body_of(r)["reason"] == "Destination URL must be relative."
    assert_status(client.get(db.url("dst")), 404)


def test_copy_destination_details(client, db):
    """copy_doc_test.exs neighbourhood (chttpd_db:parse_copy_destination_header/1; API
    Reference › Documents › COPY), as CouchDB 3.4.3 answers: an empty Destination is an
    empty id (400 illegal_docid); the text after `=` is the rev whatever the key is
    (`?foo=bar` -> 400 "Invalid rev format"); a copy to `_local/` answers with an ETag
    and a Location (the id's slash encoded)."""
    put_doc(db, "src", {"v": 1})
    r = client.request("COPY", db.url("src"), headers={"Destination": ""})
    assert_error(r, 400, "illegal_docid")
    assert body_of(r)["reason"] == "Document id must not be empty"
    r = client.request("COPY", db.url("src"), headers={"Destination": "x?foo=bar"})
    assert_error(r, 400, "bad_request")
    assert body_of(r)["reason"] == "Invalid rev format"
    r = assert_status(client.request("COPY", db.url("src"), headers={"Destination": "_local/y"}), 201)
    assert r.headers.get("ETag") == '"0-1"'
    assert r.headers.get("Location", "").endswith("/%s/_local%%2Fy" % db.name)


def test_copy_missing_source(client, db):
    """API Reference › Documents › COPY: a missing source -> 404 not_found."""
    r = client.request("COPY", db.url("nope"), headers={"Destination": "dst"})
    assert_error(r, 404, "not_found")


def test_design_doc_is_a_doc(client, db):
    """API Reference › Design Documents › PUT /{db}/_design/{ddoc}: stored and read
    like any document, listed in _all_docs."""
    out = put_doc(db, "_design/app", {"views": {}, "x": 1})
    doc = get_doc(db, "_design/app")
    assert doc["_id"] == "_design/app" and doc["_rev"] == out["rev"] and doc["x"] == 1
    ids = [row["id"] for row in body_of(client.get(db.url("_all_docs")))["rows"]]
    assert "_design/app" in ids
    delete_doc(db, "_design/app", out["rev"])
    assert_error(client.get(db.url("_design/app")), 404, "not_found", "deleted")


def test_bad_special_member(client, db):
    """spec/couchdb.md › Revisions: unknown top-level _ field -> 400 doc_validation
    "Bad special document member: _foo"."""
    r = client.put(db.url("d"), json={"_foo": 1})
    assert_error(r, 400, "doc_validation", "Bad special document member: _foo")


def test_replication_state_members_are_kept_in_the_body(client, db):
    """couch_doc:transfer_fields keeps _access and the replicator's _replication_*
    members in the body (a _replicator document copied from another server carries
    them); checked on CouchDB 3.4.3."""
    body = {"_replication_state": "completed", "_replication_state_time": "2026-11-24T20:02:49Z",
            "_replication_state_reason": "x", "_replication_id": "abc", "_replication_stats": {"docs_read": 1},
            "_access": ["alice"], "v": 1}
    assert_status(client.put(db.url("kept"), json=body), 201)
    doc = body_of(client.get(db.url("kept")))
    for key, value in body.items():
        assert doc[key] == value
    assert_error(client.get(db.url("d")), 404, "not_found")


def test_reserved_docid_put(client, db):
    """spec/couchdb.md › Revisions: ids starting with _ (not _design/, _local/) ->
    400 illegal_docid."""
    r = client.put(db.url("_foo"), json={})
    assert_error(r, 400, "illegal_docid", "Only reserved document ids may start with underscore.")


def test_reserved_docid_post(client, db):
    """API Reference › Databases › POST /{db}: _id "_foo" -> 400 illegal_docid."""
    assert_error(client.post(db.url(), json={"_id": "_foo"}), 400, "illegal_docid")


def test_invalid_json_body(client, db):
    """API Reference › Documents › PUT: a body that is not JSON -> 400 bad_request."""
    r = client.put(db.url("d"), data=b'{"a": ', headers=JSON)
    assert_error(r, 400, "bad_request")


def test_body_not_object(client, db):
    """couch_doc from_json_obj: a JSON body that is not an object -> 400 bad_request
    "Document must be a JSON object"."""
    for body in (b"[]", b'"str"', b"42"):
        r = client.put(db.url("d"), data=body, headers=JSON)
        assert_error(r, 400, "bad_request")


def test_invalid_rev_format(client, db):
    """couch_doc parse_rev: a malformed rev -> 400 bad_request "Invalid rev format"."""
    put_doc(db, "d", {})
    assert_error(client.get(db.url("d"), params={"rev": "abc"}), 400, "bad_request")
    assert_error(client.put(db.url("d"), json={"_rev": "abc"}), 400, "bad_request")
    assert_error(client.put(db.url("d"), json={"_rev": "x-" + sig("a")}), 400, "bad_request")


def test_doc_id_with_slash_and_unicode(client, db):
    """API Reference › Documents: any UTF-8 id is allowed; '/' is percent-encoded."""
    for docid in ("a/b", "ünïcødé ☃", "with space", "plus+sign"):
        put_doc(db, docid, {"id": docid})
        assert get_doc(db, docid)["_id"] == docid


def test_deleting_a_deleted_document_without_its_rev_conflicts(client, db):
    """A deletion with no rev over a deleted document is 409 (PUT and `_bulk_docs`),
    where a live body with no rev recreates it (checked on CouchDB 3.4.3)."""
    assert_status(client.put(db.url("c"), json={"_deleted": True}), 200)  # a deletion's status
    assert_error(client.put(db.url("c"), json={"_deleted": True}), 409, "conflict")
    r = client.post(db.url("_bulk_docs"), json={"docs": [{"_id": "c", "_deleted": True}]})
    assert body_of(assert_status(r, 201))[0]["error"] == "conflict"
    assert body_of(assert_status(client.put(db.url("c"), json={"v": 1}), 201))["rev"].startswith("2-")


def _pairs(resp):
    """The response's JSON with every object as its list of (key, value) pairs, in order."""
    return json.loads(resp.text, object_pairs_hook=lambda pairs: [list(p) for p in pairs])


# A key written twice in one object: CouchDB decodes bodies with couch_util:json_decode/2,
# `jiffy:decode(V, [dedupe_keys | Opts])` (src/couch/src/couch_util.erl), and jiffy's
# dedupe_keys keeps the last value seen, where it was last written.
def test_dup_keys_put_keeps_last_value_at_its_last_place(client, db):
    """PUT: `{"v":1,"w":0,"v":2}` is stored as `{"w":0,"v":2}`; nested objects too."""
    r = client.put(db.url("d"), data='{"v":1,"w":0,"v":2,"o":{"a":1,"b":2,"a":3}}', headers=JSON)
    assert_status(r, 201)
    got = _pairs(client.get(db.url("d")))
    assert [p for p in got if not p[0].startswith("_")] == [
        ["w", 0], ["v", 2], ["o", [["b", 2], ["a", 3]]]]


def test_dup_keys_post_keeps_last_id(client, db):
    """POST /{db}: the last `_id` names the document."""
    r = client.post(db.url(), data='{"_id":"a","x":1,"_id":"b"}', headers=JSON)
    assert_status(r, 201)
    assert body_of(r)["id"] == "b"
    assert_status(client.get(db.url("a")), 404)
    assert _pairs(client.get(db.url("b")))[2:] == [["x", 1]]
