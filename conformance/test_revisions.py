"""Revision trees, conflicts and the winner rule. CouchDB docs: Replication ›
Replication and conflict model; API Reference › Databases › _revs_limit;
spec/couchdb.md › Revisions."""

from couch import (
    assert_conflict,
    assert_error,
    assert_status,
    body_of,
    bulk_docs,
    changes,
    delete_doc,
    force_revs,
    get_doc,
    put_doc,
    rev_gen,
    sig,
    update_doc,
)


def test_new_edits_false_creates_conflict(client, db):
    """_bulk_docs new_edits=false merges sibling branches: both leaves stay, one wins,
    the other is in _conflicts (spec/couchdb.md › Revisions)."""
    p = sig("p")
    a, b = "2-" + "a" * 32, "2-" + "b" * 32
    force_revs(db, "d", ["a" * 32, p], {"branch": "a"})
    force_revs(db, "d", ["b" * 32, p], {"branch": "b"})
    doc = get_doc(db, "d", params={"conflicts": "true"})
    assert doc["_rev"] == b and doc["branch"] == "b"
    assert doc["_conflicts"] == [a]


def test_winner_same_generation_greatest_sig(client, db):
    """spec/couchdb.md › Revisions: same generation -> greatest sig wins, regardless of
    insertion order."""
    p = sig("root")
    hi, lo = "f" * 31 + "0", "0" * 31 + "f"
    force_revs(db, "d", [hi, p], {"w": "hi"})
    force_revs(db, "d", [lo, p], {"w": "lo"})
    assert get_doc(db, "d")["_rev"] == "2-" + hi
    force_revs(db, "e", [lo, p], {"w": "lo"})
    force_revs(db, "e", [hi, p], {"w": "hi"})
    assert get_doc(db, "e")["_rev"] == "2-" + hi


def test_winner_higher_generation(client, db):
    """spec/couchdb.md › Revisions: a longer branch beats a greater sig."""
    p = sig("root")
    force_revs(db, "d", ["f" * 32, p], {"w": "short"})
    force_revs(db, "d", ["0" * 32, "1" * 32, p], {"w": "long"})
    doc = get_doc(db, "d", params={"conflicts": "true"})
    assert doc["_rev"] == "3-" + "0" * 32 and doc["w"] == "long"
    assert doc["_conflicts"] == ["2-" + "f" * 32]


def test_winner_prefers_live_leaf(client, db):
    """spec/couchdb.md › Revisions: a live leaf beats a longer deleted one, which shows
    in _deleted_conflicts."""
    p = sig("root")
    force_revs(db, "d", ["1" * 32, p], {"w": "live"})
    force_revs(db, "d", ["f" * 32, "e" * 32, p], {}, deleted=True)
    doc = get_doc(db, "d", params={"conflicts": "true", "deleted_conflicts": "true"})
    assert doc["_rev"] == "2-" + "1" * 32 and doc["w"] == "live"
    assert doc["_deleted_conflicts"] == ["3-" + "f" * 32]
    assert "_conflicts" not in doc


def test_resolve_conflict_by_deleting_loser(client, db):
    """Replication › Conflicts: deleting the losing leaf removes it from _conflicts."""
    p = sig("root")
    force_revs(db, "d", ["a" * 32, p])
    force_revs(db, "d", ["b" * 32, p])
    delete_doc(db, "d", "2-" + "a" * 32)
    doc = get_doc(db, "d", params={"conflicts": "true"})
    assert doc["_rev"] == "2-" + "b" * 32
    assert "_conflicts" not in doc


def test_update_losing_branch(client, db):
    """API Reference › Documents › PUT: any leaf may be updated; updating the loser
    extends its branch (it may then win by generation)."""
    p = sig("root")
    force_revs(db, "d", ["a" * 32, p], {"w": "a"})
    force_revs(db, "d", ["b" * 32, p], {"w": "b"})
    new = update_doc(db, "d", "2-" + "a" * 32, {"w": "a2"})["rev"]
    doc = get_doc(db, "d", params={"conflicts": "true"})
    assert doc["_rev"] == new and doc["w"] == "a2"
    assert doc["_conflicts"] == ["2-" + "b" * 32]


def test_put_non_leaf_rev_conflict(client, db):
    """spec/couchdb.md › Revisions: PUT with a _rev that is not a leaf -> 409."""
    r1 = put_doc(db, "d", {})["rev"]
    update_doc(db, "d", r1)
    assert_conflict(client.put(db.url("d"), json={"_rev": r1}))


def test_recreate_after_delete_is_child_of_tombstone(client, db):
    """spec/couchdb.md › Checked on CouchDB 3.4.3: PUT without _rev on a deleted doc
    -> 201 with a child of the tombstone (3-... after 1- and deleted 2-)."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    r2 = delete_doc(db, "d", r1)["rev"]
    assert rev_gen(r2) == 2
    r3 = put_doc(db, "d", {"v": 3})["rev"]
    assert rev_gen(r3) == 3
    doc = get_doc(db, "d", params={"revs": "true"})
    assert doc["_rev"] == r3 and doc["v"] == 3
    assert doc["_revisions"]["start"] == 3
    assert doc["_revisions"]["ids"][1:] == [r2.split("-", 1)[1], r1.split("-", 1)[1]]


def test_put_with_tombstone_rev_conflict(client, db):
    """spec/couchdb.md › Checked on CouchDB 3.4.3: PUT naming the tombstone's own rev
    of an all-deleted document -> 409 conflict."""
    r1 = put_doc(db, "d", {"v": 1})["rev"]
    r2 = delete_doc(db, "d", r1)["rev"]
    assert_conflict(client.put(db.url("d"), json={"_rev": r2, "v": 3}))


def test_new_edits_false_is_idempotent(client, db):
    """spec/couchdb.md › Replication 6: re-sending stored revisions with
    new_edits=false is success (201 []), no new revision is made."""
    rev = force_revs(db, "d", [sig("2"), sig("1")], {"v": 2})
    rev_again = force_revs(db, "d", [sig("2"), sig("1")], {"v": 2})
    assert rev == rev_again
    doc = get_doc(db, "d", params={"conflicts": "true"})
    assert doc["_rev"] == rev and "_conflicts" not in doc


def test_new_edits_false_uppercase_hex_lowercased(client, db):
    """spec/couchdb.md › Checked on CouchDB 3.4.3: uppercase 32-hex suffixes are
    accepted with new_edits=false and stored lowercased."""
    s = sig("upper").upper()
    out = bulk_docs(db, [{"_id": "d", "_rev": "1-" + s, "v": 1}], new_edits=False)
    assert out == []
    assert get_doc(db, "d")["_rev"] == "1-" + s.lower()


def test_non_hex_32_char_rev_rejected(client, db):
    """spec/couchdb.md › Revisions: a 32-character rev suffix must be hex, else 400."""
    r = client.post(
        db.url("_bulk_docs"),
        json={"docs": [{"_id": "d", "_rev": "1-" + "z" * 32}], "new_edits": False},
    )
    assert_error(r, 400, "bad_request")


def test_revs_limit_default_and_set(client, db):
    """API Reference › Databases › GET/PUT /{db}/_revs_limit: default 1000; PUT a
    number -> {"ok":true}; GET returns it."""
    r = assert_status(client.get(db.url("_revs_limit")), 200)
    assert body_of(r) == 1000
    r = assert_status(client.put(db.url("_revs_limit"), data=b"5", headers={"Content-Type": "application/json"}), 200)
    assert body_of(r) == {"ok": True}
    assert body_of(client.get(db.url("_revs_limit"))) == 5


def test_lowered_revs_limit_cuts_revisions_on_read(client, db):
    """rev_stemming_test.exs "revs limit is kept after compaction" (API Reference ›
    Databases › PUT /{db}/_revs_limit; couch_db:make_doc/5 cuts the path it reads):
    after 6 edits and `_revs_limit` 5, `?revs=true` lists 5 ids at once (before any
    write), also in `open_revs` and `_bulk_get`; `_revs_info` keeps all 6 (CouchDB 3.4.3)."""
    rev = put_doc(db, "bar", {"count": 0})["rev"]
    for n in range(1, 6):
        rev = put_doc(db, "bar", {"_rev": rev, "count": n})["rev"]
    assert_status(client.put(db.url("_revs_limit"), data=b"5", headers={"Content-Type": "application/json"}), 200)
    doc = get_doc(db, "bar", params={"revs": "true", "revs_info": "true"})
    assert doc["_revisions"]["start"] == 6 and len(doc["_revisions"]["ids"]) == 5
    assert len(doc["_revs_info"]) == 6
    r = client.get(db.url("bar"), params={"open_revs": "all", "revs": "true"}, headers={"Accept": "application/json"})
    assert len(body_of(assert_status(r, 200))[0]["ok"]["_revisions"]["ids"]) == 5
    doc = get_doc(db, "bar", params={"revs": "true"}, headers={"If-None-Match": "pommes"})
    assert len(doc["_revisions"]["ids"]) == 5
    r = client.post(db.url("_bulk_get"), params={"revs": "true"}, json={"docs": [{"id": "bar", "rev": rev}]})
    assert len(body_of(assert_status(r, 200))["results"][0]["docs"][0]["ok"]["_revisions"]["ids"]) == 5


def test_revisions_member_as_couchdb_reads_it(client, db):
    """conflicts_test.exs / recreate_doc_test.exs neighbourhood (couch_doc:transfer_fields/3;
    API Reference › Documents › PUT, new_edits=false): `_revisions` alone is enough, wins
    over a different `_rev`, and a malformed one is refused in CouchDB 3.4.3's words."""
    new_edits = {"new_edits": "false"}
    r = assert_status(client.put(db.url("a"), params=new_edits,
                                 json={"_revisions": {"start": 2, "ids": ["abc", "def"]}}), 201)
    assert body_of(r)["rev"] == "2-abc"
    r = assert_status(client.put(db.url("b"), params=new_edits,
                                 json={"_rev": "3-abc", "_revisions": {"start": 2, "ids": ["abc"]}}), 201)
    assert body_of(r)["rev"] == "2-abc"
    for revisions, reason in (({"start": "2", "ids": ["a"]}, "_revisions.start isn't an integer."),
                              ({"start": 2}, "_revisions.ids isn't a array."),
                              ({"start": 2, "ids": [1]}, "RevId isn't a string"),
                              ([], "Bad special document member: _revisions")):
        r = client.put(db.url("c"), params=new_edits, json={"_revisions": revisions})
        assert_error(r, 400, "doc_validation")
        assert body_of(r)["reason"] == reason


# --- Revision order: couch_doc:parse_revid, couch_doc:to_doc_info_path ---------------
# CouchDB stores a 32-hex-digit rev id as its 16 bytes and any other as its raw bytes,
# and orders revisions by those: 0xcb... outranks "conflict..." ('c' is 0x63).

HEX = "cb7879c05fc741b5a3537a1c73f603c2"


def test_hex_rev_outranks_text_rev(client, db):
    """The winner compares stored forms, not text: 1-cb78... beats 1-conflict0097."""
    force_revs(db, "d", ["conflict0097"], {"v": "text"})
    force_revs(db, "d", [HEX], {"v": "hex"})
    doc = get_doc(db, "d", params={"conflicts": "true"})
    assert doc["_rev"] == "1-" + HEX and doc["v"] == "hex"
    assert doc["_conflicts"] == ["1-conflict0097"]
    row = body_of(client.get(db.url("_all_docs")))["rows"][0]
    assert row["value"]["rev"] == "1-" + HEX


def test_rev_order_in_changes_and_open_revs(client, db):
    """_changes style=all_docs lists the winner first, then the rest in winner order;
    open_revs=all answers the leaves sorted by stored form."""
    for sig in ("zz", HEX, "conflict0097", "0" * 32):
        force_revs(db, "d", [sig])
    order = ["1-" + HEX, "1-zz", "1-conflict0097", "1-" + "0" * 32]
    ch = changes(db, params={"style": "all_docs"})["results"][0]
    assert [c["rev"] for c in ch["changes"]] == order
    r = client.get(db.url("d"), params={"open_revs": "all"})
    revs = [entry["ok"]["_rev"] for entry in body_of(r)]
    assert revs == sorted(order, key=lambda rev: order.index(rev), reverse=True)


def test_prefix_rev_sorts_first(client, db):
    """A rev id that is a prefix of another sorts before it (Erlang binary order)."""
    force_revs(db, "d", ["abc"])
    force_revs(db, "d", ["ab"])
    assert get_doc(db, "d")["_rev"] == "1-abc"


def test_32_char_non_hex_rev_is_invalid(client, db):
    """A 32-character rev id that is not hex: 400 "Invalid rev format", nothing stored."""
    bad = "1-" + "g" * 32
    r = client.post(
        db.url("_bulk_docs"),
        json={"new_edits": False, "docs": [{"_id": "d", "_rev": bad}]},
    )
    assert_error(r, 400, "bad_request", "Invalid rev format")
    assert_status(client.get(db.url("d")), 404)


def test_upper_case_hex_rev_is_stored_lower_case(client, db):
    """An upper-case 32-hex rev id decodes to the same bytes: stored and shown lower-case."""
    force_revs(db, "d", [HEX.upper()])
    assert get_doc(db, "d")["_rev"] == "1-" + HEX
