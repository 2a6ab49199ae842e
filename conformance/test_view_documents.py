"""What a view's map function sees, and the documents a view answer carries.
CouchDB docs: Guide to Views › Joins With Views (linked documents), API Reference ›
Design Documents › Views (`include_docs`, `conflicts`, `update_seq`), Design Documents ›
View Functions and Design Documents › Options (`local_seq`, `include_design`); shapes of
CouchDB 3.4's couch_index_updater:update/3 (documents opened with `[conflicts,
deleted_conflicts]`, `local_seq` on request, design documents skipped unless
`include_design`) and couch_query_servers:map_doc_raw/2 (`couch_doc:to_json_obj(Doc, [])`:
attachment stubs with `content_type`, `revpos`, `digest`, `length`, `stub`)."""

import pytest

from couch import assert_status, body_of, force_revs, make_conflict, put_doc, sig

SEEN = ("function(doc) { emit(doc._id, {conflicts: doc._conflicts || null,"
        " deleted: doc._deleted_conflicts || null, atts: doc._attachments || null,"
        " local_seq: typeof doc._local_seq}); }")


def view_rows(db, ddoc, name, params=None):
    r = db.client.get(db.url("_design/" + ddoc, "_view", name), params=params)
    return body_of(assert_status(r, 200))


def values(answer):
    return {row["id"]: row["value"] for row in answer["rows"]}


def test_map_sees_conflicts_deleted_conflicts_and_attachment_stubs(db):
    winner, loser, parent = make_conflict(db, "c")
    # A third branch, deleted: a deleted conflict of the winner.
    gone = force_revs(db, "c", [sig("c/2c-deleted"), parent.split("-")[1]], {}, deleted=True)
    put_doc(db, "att", {"_attachments": {"x.txt": {"content_type": "text/plain", "data": "aGVsbG8="}}})
    put_doc(db, "plain", {})
    put_doc(db, "_design/d", {"views": {"seen": {"map": SEEN}}})
    seen = values(view_rows(db, "d", "seen"))
    assert set(seen) == {"c", "att", "plain"}  # design documents are not mapped
    assert seen["c"]["conflicts"] == [loser]
    assert seen["c"]["deleted"] == [gone]
    stub = seen["att"]["atts"]["x.txt"]
    assert stub == {"content_type": "text/plain", "revpos": 1, "digest": "md5-iMaiC8wqiFlD2NjLTemvCQ==",
                    "length": 5, "stub": True}
    assert seen["plain"] == {"conflicts": None, "deleted": None, "atts": None, "local_seq": "undefined"}


def test_local_seq_and_include_design_options(db):
    put_doc(db, "a", {})
    put_doc(db, "_design/o", {"options": {"local_seq": True, "include_design": True},
                              "views": {"v": {"map": "function(doc) { emit(doc._id, typeof doc._local_seq); }"}}})
    put_doc(db, "_design/plain", {"views": {"v": {"map": "function(doc) { emit(doc._id, typeof doc._local_seq); }"}}})
    assert values(view_rows(db, "o", "v")) == {"_design/o": "number", "_design/plain": "number", "a": "number"}
    assert values(view_rows(db, "plain", "v")) == {"a": "undefined"}


def test_include_docs_with_conflicts_and_linked_documents(db):
    winner, loser, _ = make_conflict(db, "target")
    put_doc(db, "link", {"to": "target"})
    put_doc(db, "_design/d", {"views": {
        "self": {"map": "function(doc) { if (doc._id == 'target') emit(doc._id, null); }"},
        "link": {"map": "function(doc) { if (doc.to) emit(doc._id, {_id: doc.to}); }"}}})
    own = view_rows(db, "d", "self", {"include_docs": "true", "conflicts": "true"})["rows"][0]["doc"]
    assert (own["_rev"], own["_conflicts"]) == (winner, [loser])
    assert "_conflicts" not in view_rows(db, "d", "self", {"include_docs": "true"})["rows"][0]["doc"]
    # A linked document comes as a plain read of its winner: CouchDB 3.4.3 adds no `_conflicts` there.
    linked = view_rows(db, "d", "link", {"include_docs": "true", "conflicts": "true"})["rows"][0]
    assert (linked["id"], linked["doc"]["_id"], linked["doc"]["_rev"]) == ("link", "target", winner)
    assert "_conflicts" not in linked["doc"]


def test_update_seq_in_view_answers(db):
    put_doc(db, "a", {})
    put_doc(db, "_design/d", {"views": {"v": {"map": "function(doc) { emit(doc._id, null); }"}}})
    answer = view_rows(db, "d", "v", {"update_seq": "true"})
    assert list(answer) == ["total_rows", "offset", "update_seq", "rows"]
    info = body_of(assert_status(db.client.get(db.url()), 200))
    assert type(answer["update_seq"]) is type(info["update_seq"])
    assert "update_seq" not in view_rows(db, "d", "v")


def test_include_docs_carries_attachment_stubs(db):
    """A view's documents, its own and linked ones, come with their attachments' stubs,
    as a single GET shows them (CouchDB 3.4.3)."""
    put_doc(db, "att", {"_attachments": {"x.txt": {"content_type": "text/plain", "data": "aGVsbG8="}}})
    put_doc(db, "link", {"to": "att"})
    put_doc(db, "_design/d", {"views": {"v": {"map": "function(doc) { emit(doc._id, doc.to ? {_id: doc.to} : null); }"}}})
    stub = {"content_type": "text/plain", "revpos": 1, "digest": "md5-iMaiC8wqiFlD2NjLTemvCQ==", "length": 5,
            "stub": True}
    answer = view_rows(db, "d", "v", {"include_docs": "true"})
    assert [row["doc"]["_id"] for row in answer["rows"]] == ["att", "att"]
    for row in answer["rows"]:
        assert row["doc"]["_attachments"] == {"x.txt": stub}


def test_include_docs_attachments_inline_and_linked_revisions(db):
    """`attachments=true` and `att_encoding_info=true` shape a view's own documents as a
    GET does; a linked value's `_rev` names the revision to join (Guide to Views › Joins
    With Views: `{"_id": ..., "_rev": ...}`)."""
    put_doc(db, "att", {"v": 1, "_attachments": {"x.txt": {"content_type": "text/plain", "data": "aGVsbG8="}}})
    put_doc(db, "old", {"v": 1})
    old_rev = db.client.get(db.url("old")).json()["_rev"]
    put_doc(db, "old", {"v": 2, "_rev": old_rev})
    put_doc(db, "link", {"to": "old", "rev": old_rev})
    put_doc(db, "_design/d", {"views": {
        "own": {"map": "function(doc) { if (doc._attachments) emit(doc._id, null); }"},
        "link": {"map": "function(doc) { if (doc.to) emit(doc._id, {_id: doc.to, _rev: doc.rev}); }"}}})
    inline = view_rows(db, "d", "own", {"include_docs": "true", "attachments": "true"})["rows"][0]["doc"]
    assert inline["_attachments"]["x.txt"]["data"] == "aGVsbG8="
    assert "stub" not in inline["_attachments"]["x.txt"]
    encoded = view_rows(db, "d", "own", {"include_docs": "true", "att_encoding_info": "true"})["rows"][0]["doc"]
    head = db.client.get(db.url("att"), params={"att_encoding_info": "true"}).json()["_attachments"]["x.txt"]
    assert encoded["_attachments"]["x.txt"] == head
    linked = view_rows(db, "d", "link", {"include_docs": "true"})["rows"][0]["doc"]
    assert (linked["_id"], linked["_rev"], linked["v"]) == ("old", old_rev, 1)
