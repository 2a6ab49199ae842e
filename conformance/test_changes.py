"""GET/POST /{db}/_changes, normal feed. CouchDB docs: API Reference › Databases ›
/{db}/_changes; spec/couchdb.md › Sequences and _changes.

Seqs are opaque: every `since` is taken from a previous response. Tests that depend on
the order of results use a single-shard database (PUT /{db}?q=1, API Reference ›
Databases › PUT /{db} `q`), since a sharded CouchDB merges shard feeds in no global
order."""

import json

import pytest

from couch import (
    assert_error,
    assert_status,
    body_of,
    changes,
    delete_doc,
    make_conflict,
    put_doc,
    qjson,
    update_doc,
)


@pytest.fixture
def db1(make_db):
    return make_db(query={"q": "1"})


def by_id(body):
    return {r["id"]: r for r in body["results"]}


def test_shape(client, db):
    """_changes: {"results":[{"seq","id","changes":[{"rev"}]}],"last_seq","pending"}."""
    ra = put_doc(db, "a", {})["rev"]
    put_doc(db, "b", {})
    b = changes(db)
    assert set(by_id(b)) == {"a", "b"}
    row = by_id(b)["a"]
    assert row["changes"] == [{"rev": ra}]
    assert "seq" in row and row["seq"] is not None
    assert "deleted" not in row
    assert "last_seq" in b and b["last_seq"] is not None
    assert b["pending"] == 0


def test_empty_db(client, db):
    """_changes on an empty database: no results, a last_seq to start from."""
    b = changes(db)
    assert b["results"] == []
    assert "last_seq" in b


def test_since_from_previous_response(client, db):
    """_changes?since=<last_seq of an earlier response>: only later changes."""
    put_doc(db, "a", {})
    since = changes(db)["last_seq"]
    put_doc(db, "b", {})
    b = changes(db, {"since": since})
    assert [r["id"] for r in b["results"]] == ["b"]
    assert b["last_seq"] != since
    assert changes(db, {"since": b["last_seq"]})["results"] == []


def test_since_now(client, db):
    """_changes?since=now: starts at the current seq (spec/couchdb.md)."""
    put_doc(db, "a", {})
    assert changes(db, {"since": "now"})["results"] == []


def test_one_row_per_doc_latest_rev(client, db):
    """spec/couchdb.md: a document appears once, at its latest change."""
    r1 = put_doc(db, "a", {})["rev"]
    r2 = update_doc(db, "a", r1)["rev"]
    r3 = update_doc(db, "a", r2)["rev"]
    rows = changes(db)["results"]
    assert len(rows) == 1 and rows[0]["changes"] == [{"rev": r3}]


def test_deleted(client, db):
    """_changes: a deleted document's row has "deleted": true."""
    r1 = put_doc(db, "a", {})["rev"]
    r2 = delete_doc(db, "a", r1)["rev"]
    row = changes(db)["results"][0]
    assert row["id"] == "a" and row["deleted"] is True
    assert row["changes"] == [{"rev": r2}]


def test_order_and_seqs(client, db1):
    """_changes (single shard): results in update order."""
    for i in ("c", "a", "b"):
        put_doc(db1, i, {})
    b = changes(db1)
    assert [r["id"] for r in b["results"]] == ["c", "a", "b"]


def test_update_moves_doc_to_end(client, db1):
    """spec/couchdb.md: an updated doc moves to the seq of its latest change."""
    ra = put_doc(db1, "a", {})["rev"]
    put_doc(db1, "b", {})
    update_doc(db1, "a", ra)
    assert [r["id"] for r in changes(db1)["results"]] == ["b", "a"]


def test_limit_and_pending(client, db1):
    """_changes?limit=N: N rows; pending counts the rest; continue from last_seq."""
    for i in ("a", "b", "c"):
        put_doc(db1, i, {})
    b = changes(db1, {"limit": 1})
    assert [r["id"] for r in b["results"]] == ["a"]
    assert b["pending"] == 2
    b2 = changes(db1, {"since": b["last_seq"], "limit": 1})
    assert [r["id"] for r in b2["results"]] == ["b"]
    assert b2["pending"] == 1


def test_limit_zero_returns_no_rows(client, db1):
    """_changes?limit=0 answers no rows and counts them all as pending: CouchDB 3's
    clustered collector drops every change once its limit is 0 ("Use Pending+1
    because we're ignoring this row in the response", src/fabric/src/
    fabric_view_changes.erl handle_message/3, #collector{limit = 0}); its last_seq
    is still where the feed started. (CouchDB 1.x and PouchDB answered one row.)"""
    for i in ("a", "b"):
        put_doc(db1, i, {})
    b = changes(db1, {"limit": 0})
    assert b["results"] == []
    assert b["pending"] == 2
    assert [r["id"] for r in changes(db1, {"since": b["last_seq"]})["results"]] == ["a", "b"]


def test_descending(client, db1):
    """_changes?descending=true: newest first."""
    for i in ("a", "b", "c"):
        put_doc(db1, i, {})
    assert [r["id"] for r in changes(db1, {"descending": "true"})["results"]] == ["c", "b", "a"]
    b = changes(db1, {"descending": "true", "limit": 1})
    assert [r["id"] for r in b["results"]] == ["c"]


def test_include_docs(client, db):
    """_changes?include_docs=true: each row carries "doc"."""
    rev = put_doc(db, "a", {"v": 1})["rev"]
    row = changes(db, {"include_docs": "true"})["results"][0]
    assert row["doc"] == {"_id": "a", "_rev": rev, "v": 1}
    assert "doc" not in changes(db)["results"][0]


def test_include_docs_deleted(client, db):
    """_changes?include_docs=true: a deleted doc's "doc" is its tombstone."""
    r1 = put_doc(db, "a", {"v": 1})["rev"]
    r2 = delete_doc(db, "a", r1)["rev"]
    doc = changes(db, {"include_docs": "true"})["results"][0]["doc"]
    assert doc["_id"] == "a" and doc["_rev"] == r2 and doc["_deleted"] is True


def test_conflicts(client, db):
    """_changes?include_docs=true&conflicts=true: docs carry _conflicts."""
    winner, loser, _ = make_conflict(db, "c")
    row = changes(db, {"include_docs": "true", "conflicts": "true"})["results"][0]
    assert row["doc"]["_rev"] == winner
    assert row["doc"]["_conflicts"] == [loser]


def test_style_all_docs(client, db):
    """_changes?style=all_docs: "changes" lists every leaf; the default only the
    winner (spec/couchdb.md)."""
    winner, loser, _ = make_conflict(db, "c")
    assert changes(db)["results"][0]["changes"] == [{"rev": winner}]
    revs = [c["rev"] for c in changes(db, {"style": "all_docs"})["results"][0]["changes"]]
    assert sorted(revs) == sorted([winner, loser])


def test_filter_doc_ids_post(client, db):
    """POST _changes?filter=_doc_ids with {"doc_ids":[..]} in the body."""
    for i in ("a", "b", "c"):
        put_doc(db, i, {})
    r = client.post(db.url("_changes"), params={"filter": "_doc_ids"}, json={"doc_ids": ["c", "a"]})
    b = body_of(assert_status(r, 200))
    assert sorted(r["id"] for r in b["results"]) == ["a", "c"]


def test_filter_doc_ids_query(client, db):
    """GET _changes?filter=_doc_ids&doc_ids=["b"] (JSON array in the query)."""
    for i in ("a", "b", "c"):
        put_doc(db, i, {})
    b = changes(db, {"filter": "_doc_ids", "doc_ids": qjson(["b"])})
    assert [r["id"] for r in b["results"]] == ["b"]


def test_pending_after_by_document_filters(client, db1):
    """filter=_doc_ids and filter=_design are read by document, not by walking the
    changes (couch_changes: send_changes_doc_ids / send_changes_design_docs), and their
    `pending` starts from the count of changes since `since` and loses one per row sent:
    every change after `since` not sent, matching or not. Other filters count the
    changes after last_seq (test_limit_and_pending). Read from Apache CouchDB 3.4.3."""
    for i in range(10):
        put_doc(db1, "n%d" % i, {"n": i})
    ids = {"doc_ids": ["n1", "n5", "n7"]}
    one = body_of(client.post(db1.url("_changes"), params={"filter": "_doc_ids", "limit": "1"}, json=ids))
    assert [r["id"] for r in one["results"]] == ["n1"] and one["pending"] == 9
    every = body_of(client.post(db1.url("_changes"), params={"filter": "_doc_ids"}, json=ids))
    assert [r["id"] for r in every["results"]] == ["n1", "n5", "n7"] and every["pending"] == 7
    fourth = changes(db1, {"limit": 4})["last_seq"]
    later = body_of(client.post(db1.url("_changes"), params={"filter": "_doc_ids", "since": fourth}, json=ids))
    assert [r["id"] for r in later["results"]] == ["n5", "n7"] and later["pending"] == 4
    put_doc(db1, "_design/x", {})
    put_doc(db1, "n10", {})
    design = changes(db1, {"filter": "_design"})
    assert [r["id"] for r in design["results"]] == ["_design/x"] and design["pending"] == 11
    selected = body_of(client.post(db1.url("_changes"), params={"filter": "_selector", "limit": "1"},
                                   json={"selector": {"n": {"$gt": 7}}}))
    assert [r["id"] for r in selected["results"]] == ["n8"] and selected["pending"] == 3


def test_missing_db(client, url):
    """_changes on a missing database: 404 not_found."""
    from conftest import random_db_name

    assert_error(client.get(url(random_db_name(), "_changes")), 404, "not_found")


def test_bad_feed(client, db):
    """chttpd_db: an unknown feed type -> 400 bad_request."""
    assert_error(client.get(db.url("_changes"), params={"feed": "bogus"}), 400, "bad_request")


# --- Sequence shape: CouchDB 3 seqs are strings "<n>-<opaque>" ----------------------
# API Reference › Databases › /{db}/_changes ("seq ... opaque string"); fabric's
# `pack_seqs` writes the total count of changes before the dash, which clients read.


def _count(seq):
    assert isinstance(seq, str), seq
    head, dash, rest = seq.partition("-")
    assert dash == "-" and rest, seq
    return int(head)


def test_seqs_are_numbered_strings(client, db1):
    put_doc(db1, "a")
    put_doc(db1, "b")
    out = changes(db1)
    assert [_count(r["seq"]) for r in out["results"]] == [1, 2]
    assert _count(out["last_seq"]) == 2
    info = body_of(client.get(db1.url()))
    assert _count(info["update_seq"]) == 2
    assert isinstance(info["purge_seq"], str)
    out = body_of(client.get(db1.url("_all_docs"), params={"update_seq": "true"}))
    assert _count(out["update_seq"]) == 2


def test_since_takes_any_seq_it_was_given(client, db1):
    """A seq from a result, a last_seq and an update_seq all resume exactly there."""
    put_doc(db1, "a")
    first = changes(db1)["results"][0]["seq"]
    put_doc(db1, "b")
    assert [r["id"] for r in changes(db1, params={"since": first})["results"]] == ["b"]
    update_seq = body_of(client.get(db1.url()))["update_seq"]
    assert changes(db1, params={"since": update_seq})["results"] == []
    last = changes(db1, params={"feed": "longpoll", "since": first})["last_seq"]
    assert _count(last) == 2


def test_continuous_and_eventsource_seqs(client, db1):
    """Continuous lines and eventsource `id:` lines carry the same string seqs; an
    eventsource `Last-Event-ID` resumes after it (the id is sent JSON-quoted)."""
    put_doc(db1, "a")
    put_doc(db1, "b")
    r = client.get(db1.url("_changes"), params={"feed": "continuous", "timeout": "1"})
    lines = [json.loads(line) for line in r.text.splitlines() if line.strip()]
    assert [_count(line["seq"]) for line in lines[:-1]] == [1, 2]
    assert _count(lines[-1]["last_seq"]) == 2
    r = client.get(db1.url("_changes"), params={"feed": "eventsource", "timeout": "1"})
    ids = [line[len("id: "):] for line in r.text.splitlines() if line.startswith("id: ")]
    assert len(ids) == 2 and all(i.startswith('"') and i.endswith('"') for i in ids)
    assert _count(json.loads(ids[0])) == 1
    r = client.get(
        db1.url("_changes"),
        params={"feed": "eventsource", "timeout": "1"},
        headers={"Last-Event-ID": ids[0]},
    )
    data = [json.loads(line[len("data: "):]) for line in r.text.splitlines() if line.startswith("data: ")]
    assert [d["id"] for d in data] == ["b"]
