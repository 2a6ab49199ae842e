"""Revision ids are CouchDB's own: couch_db:new_revid/1 hashes (MD5) the Erlang external
term format of [Deleted, OldStart, OldRev, Body, Atts], so the same edit gives the same
rev on every server. The expected ids are what Apache CouchDB 3.4.3 answered for these
exact requests; client libraries' own tests assert such ids (aiocouch 4.0.1)."""

import base64
import json

from couch import assert_status, body_of


def put(db, docid, body, **params):
    r = db.client.put(db.url(docid), data=json.dumps(body), params=params,
                      headers={"Content-Type": "application/json"})
    return body_of(assert_status(r, 201))["rev"]


def test_new_documents(db):
    assert put(db, "a", {"a": 1}) == "1-23202479633c2b380f79507a776743d5"
    assert put(db, "empty", {}) == "1-967a00dff5e02add41819138abb3284d"
    nested = {"b": "x", "a": [1, 2.5, None, True, {"c": {}}]}
    assert put(db, "nested", nested) == "1-a82c5d0b25f2337cbf03adf901053d0b"
    numbers = {"big": 12345678901234567890, "neg": -5, "i": 300, "f": 1.0, "e": 1e3, "u": "é\u00e9😀"}
    assert put(db, "numbers", numbers) == "1-d2cf08b1e1dd475d6c42fb0ea929a599"
    edges = {"n": -2147483649, "m": 2147483647, "z": -0, "k": "a\"b\\n"}
    assert put(db, "edges", edges) == "1-e53611cb0e0f92ba8993961a7b396a45"


def test_edits_deletes_and_recreation(db):
    first = put(db, "e", {"x": 1})
    assert first == "1-0785e9eb543380151003dc452c3a001a"
    second = put(db, "e", {"_rev": first, "x": 2})
    assert second == "2-8c49edca19d786e747fb5bea32c4cb91"
    third = body_of(assert_status(db.client.delete(db.url("e"), params={"rev": second}), 200))["rev"]
    assert third == "3-fb567087695adb203ba116e130794a84"
    # Written again without a rev: a child of the deleted leaf (couch_db_updater).
    assert put(db, "e", {"again": True}) == "4-52cec257ee9623a576bf77c109a4fd6c"


def test_attachments_count(db):
    doc = {"a": 1, "_attachments": {
        "b.bin": {"content_type": "application/octet-stream", "data": base64.b64encode(b"\x00\x01").decode()},
        "a.txt": {"content_type": "text/plain", "data": base64.b64encode(b"hello world " * 40).decode()}}}
    first = put(db, "att", doc)
    assert first == "1-b1342e6eb9ca0c034b17660f1b7a257a"
    r = db.client.put(db.url("att", "c.txt"), params={"rev": first}, data=b"more", headers={"Content-Type": "text/plain"})
    second = body_of(assert_status(r, 201))["rev"]
    assert second == "2-f01881961f5d3d4f1edac1fc3b84f575"
    third = body_of(assert_status(db.client.delete(db.url("att", "b.bin"), params={"rev": second}), 200))["rev"]
    assert third == "3-0234b3035cb708890a2ee3a7d9988602"
    stubs = body_of(db.client.get(db.url("att")))
    stubs["z"] = 1
    assert put(db, "att", stubs) == "4-a1f91bf22b871886f84d04a2aa25f4fd"


def test_bulk_docs_make_the_same_ids(db):
    r = db.client.post(db.url("_bulk_docs"), json={"docs": [{"_id": "bk", "v": [1, {"q": None}]}]})
    assert body_of(assert_status(r, 201))[0]["rev"] == "1-a97030ec7e4684f53e5ccf9678978ce5"
