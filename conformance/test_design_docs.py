"""GET/POST /{db}/_design_docs. CouchDB docs: API Reference › Databases ›
/{db}/_design_docs (the same options as _all_docs, over design documents); shapes
of CouchDB 3.4's chttpd_db:db_req (`?IS_ALL_DOCS`), couch_mrview:get_total_rows/2
(`total_rows` is the design document count), couch_mrview_http:parse_body_and_query/3
(a POST body's options, the query string's over them) and fabric_view_all_docs
(`offset` is `min(total_rows, offset + skip)`)."""

import json
import time

import pytest

from couch import assert_error, assert_status, body_of, bulk_docs, put_doc

IDS = ["a", "b", "c", "_design/x", "_design/y", "_design/z", "zz"]


@pytest.fixture
def ddb(db):
    bulk_docs(db, [{"_id": i} for i in IDS])
    return db


def design(db, params=None, body=None):
    params = {k: (json.dumps(v) if k in ("key", "keys", "startkey", "endkey") else
                  (str(v).lower() if isinstance(v, bool) else v)) for k, v in (params or {}).items()}
    url = db.url("_design_docs")
    r = db.client.get(url, params=params) if body is None else db.client.post(url, params=params, json=body)
    return body_of(assert_status(r, 200))


def ids(answer):
    return [row.get("id", row["key"]) for row in answer["rows"]]


def test_total_rows_counts_design_documents_only(ddb):
    answer = design(ddb)
    assert (answer["total_rows"], answer["offset"], ids(answer)) == (3, 0, ["_design/x", "_design/y", "_design/z"])
    assert design(ddb, {"skip": 1, "limit": 1})["offset"] == 1
    assert design(ddb, {"startkey": "_design/y"})["offset"] == 1
    # Descending, the offset counts the documents after the start too, capped at total_rows.
    assert design(ddb, {"descending": True})["offset"] == 3


def test_ranges_in_both_directions(ddb):
    assert ids(design(ddb, {"startkey": "_design/y"})) == ["_design/y", "_design/z"]
    assert ids(design(ddb, {"descending": True, "startkey": "_design/y"})) == ["_design/y", "_design/x"]
    assert ids(design(ddb, {"endkey": "_design/y", "inclusive_end": False})) == ["_design/x"]
    assert ids(design(ddb, {"descending": True, "endkey": "_design/x", "inclusive_end": False})) == \
        ["_design/z", "_design/y"]
    assert ids(design(ddb, {"key": "_design/x"})) == ["_design/x"]
    outside = design(ddb, {"key": "a"})
    assert (outside["rows"], outside["total_rows"]) == ([], 3)
    assert design(ddb, {"startkey": "a"})["rows"] == []
    assert ids(design(ddb, {"startkey_docid": "_design/y"})) == ["_design/y", "_design/z"]


def test_keys_outside_the_design_range_are_dropped(ddb):
    answer = design(ddb, body={"keys": ["_design/y", "a", "_design/nope", "_design/x"]})
    assert answer["offset"] is None and answer["total_rows"] == 3
    assert ids(answer) == ["_design/y", "_design/nope", "_design/x"]
    assert answer["rows"][1] == {"key": "_design/nope", "error": "not_found"}
    assert ids(design(ddb, {"keys": ["_design/y", "a"]})) == ["_design/y"]


def test_post_body_options_and_query_parameters_beside_them(ddb):
    assert ids(design(ddb, body={"descending": True})) == ["_design/z", "_design/y", "_design/x"]
    answer = design(ddb, {"include_docs": True, "limit": 1}, body={})
    assert ids(answer) == ["_design/x"] and answer["rows"][0]["doc"]["_id"] == "_design/x"
    assert ids(design(ddb, {"limit": 1}, body={"keys": ["_design/y", "_design/x"]})) == ["_design/y"]
    # The query string's options are read over the body's.
    assert ids(design(ddb, {"descending": False}, body={"descending": True})) == \
        ["_design/x", "_design/y", "_design/z"]
    r = ddb.client.post(ddb.url("_design_docs"), params={"keys": '["_design/z"]'}, json={"keys": ["_design/y"]})
    assert_error(r, 400, "query_parse_error", "`keys` is incompatible with `key`, `start_key` and `end_key`")
    assert_error(ddb.client.post(ddb.url("_design_docs"), json={"keys": "x"}), 400, "bad_request")


def test_update_seq(ddb):
    """Seqs are opaque (a cluster encodes them per request): the same JSON type as db info's."""
    answer = design(ddb, {"update_seq": True})
    assert type(answer["update_seq"]) is type(ddb.client.get(ddb.url()).json()["update_seq"])
    assert list(answer)[:3] == ["total_rows", "offset", "update_seq"]


def test_all_docs_post_reads_body_options(ddb):
    r = ddb.client.post(ddb.url("_all_docs"), params={"limit": 2}, json={"descending": True})
    assert [row["id"] for row in body_of(assert_status(r, 200))["rows"]] == ["zz", "c"]


def test_view_compaction_shrinks_the_index_file(db):
    """POST /{db}/_compact/{ddoc} (API Reference › Databases › /db/_compact/design-doc):
    202, then once the index of a view that lost half its rows is compacted, its design
    document's `_info` `sizes.file` is smaller; the rows stay the same."""
    put_doc(db, "_design/c", {"views": {"v": {"map": "function(doc) { emit(doc.k, doc.pad); }"}}})
    docs = [{"_id": "d%03d" % i, "k": i, "pad": "x" * 200} for i in range(300)]
    for doc, result in zip(docs, bulk_docs(db, docs)):
        doc["_rev"] = result["rev"]
    assert_status(db.client.get(db.url("_design/c", "_view", "v"), params={"limit": 1}), 200)
    bulk_docs(db, [dict(doc, _deleted=True) for doc in docs[::2]])
    assert_status(db.client.get(db.url("_design/c", "_view", "v"), params={"limit": 1}), 200)
    info = db.url("_design/c", "_info")
    before = body_of(assert_status(db.client.get(info), 200))["view_index"]["sizes"]
    assert_status(db.client.post(db.url("_compact", "c"), json={}), 202)
    deadline = time.monotonic() + 20
    while True:
        after = body_of(assert_status(db.client.get(info), 200))["view_index"]
        if not after["compact_running"] and after["sizes"]["file"] < before["file"]:
            break
        assert time.monotonic() < deadline, (before, after)
        time.sleep(0.1)
    assert after["sizes"]["external"] > 0 and 0 < after["sizes"]["active"] <= after["sizes"]["file"]
    rows = body_of(assert_status(db.client.get(db.url("_design/c", "_view", "v")), 200))["rows"]
    assert [row["key"] for row in rows] == list(range(1, 300, 2))


@pytest.mark.parametrize("path", ["_all_docs", "_design_docs"])
def test_queries_and_map_only_options(ddb, path):
    """POST .../queries answers each query with the query string's options over it
    (chttpd_db:multi_all_docs_view); `reduce`, grouping, `stale` and `update` are checked
    as for a view without reduce (couch_mrview_http:parse_params)."""
    r = ddb.client.post(ddb.url(path, "queries"), params={"descending": "true"},
                        json={"queries": [{"limit": 1}, {"keys": ["_design/x", "nope"]}]})
    results = body_of(assert_status(r, 200))["results"]
    assert len(results) == 2
    assert [row["id"] for row in results[0]["rows"]] == (["zz"] if path == "_all_docs" else ["_design/z"])
    assert results[1]["offset"] is None
    assert [row.get("id", row["key"]) for row in results[1]["rows"]] == \
        (["nope", "_design/x"] if path == "_all_docs" else ["_design/x"])
    empty = ddb.client.post(ddb.url(path, "queries"), json={"queries": []})
    assert body_of(assert_status(empty, 200)) == {"results": []}
    assert_error(ddb.client.post(ddb.url(path, "queries"), json={"q": []}), 400, "bad_request",
                 "POST body must include `queries` parameter.")
    for params, reason in [({"stale": "maybe"}, "Invalid value for `stale`."),
                           ({"update": "maybe"}, "Invalid value for `update`."),
                           ({"reduce": "true"}, "Reduce is invalid for map-only views."),
                           ({"group": "true"}, "Invalid use of grouping on a map view.")]:
        assert_error(ddb.client.get(ddb.url(path), params=params), 400, "query_parse_error", reason)
