"""Requests CouchDB 3.4.3 answers where a stricter reading would refuse them: found by
sending the same random requests to CouchDB and Settee. Each case cites the CouchDB
source that decides it (chttpd_db.erl, couch_mrview_util.erl at 3.4.3)."""

import json

import pytest

from couch import assert_error, assert_status, body_of, bulk_docs, put_doc


@pytest.fixture
def ten(db):
    bulk_docs(db, [{"_id": "d%d" % i, "k": [1, i]} for i in range(10)])
    return db


def ids(resp):
    return [row["id"] for row in body_of(assert_status(resp, 200))["rows"]]


@pytest.mark.parametrize("name", ["descending", "include_docs", "conflicts", "attachments", "att_encoding_info"])
def test_changes_flags_other_than_true_are_false(ten, name):
    """chttpd_db:parse_changes_query/1 turns a flag on for the string "true" only:
    `descending=1` or `include_docs=yes` is off, not a 400."""
    plain = body_of(assert_status(ten.client.get(ten.url("_changes")), 200))
    odd = body_of(assert_status(ten.client.get(ten.url("_changes"), params={name: "yes"}), 200))
    # Sorted: a clustered CouchDB merges its shards' changes in no fixed order.
    assert sorted(r["id"] for r in odd["results"]) == sorted(r["id"] for r in plain["results"])
    assert all("doc" not in r for r in odd["results"])


def test_bulk_get_flags_other_than_true_are_false(ten):
    """`_bulk_get?revs=1` reads the documents without `_revisions` (parse_doc_query/1)."""
    r = ten.client.post(ten.url("_bulk_get"), params={"revs": "1", "latest": "x"}, json={"docs": [{"id": "d1"}]})
    doc = body_of(assert_status(r, 200))["results"][0]["docs"][0]["ok"]
    assert doc["_id"] == "d1" and "_revisions" not in doc


def test_all_docs_bounds_that_are_not_strings(ten):
    """`_all_docs` collates raw: numbers, arrays and objects sort before every id, so such
    a start key bounds nothing and such an end key admits no row (200, not 400)."""
    every = ids(ten.client.get(ten.url("_all_docs")))
    assert ids(ten.client.get(ten.url("_all_docs"), params={"startkey": "1"})) == every
    assert ids(ten.client.get(ten.url("_all_docs"), params={"endkey": "[1,5]"})) == []
    assert ids(ten.client.get(ten.url("_all_docs"), params={"key": "1"})) == []
    down = ids(ten.client.get(ten.url("_all_docs"), params={"descending": "true", "endkey": "[1,5]"}))
    assert down == list(reversed(every))
    bounded = ids(ten.client.get(ten.url("_all_docs"), params={"startkey": "{}", "endkey": json.dumps("d3")}))
    assert bounded == ["d0", "d1", "d2", "d3"]


@pytest.mark.parametrize("params", [{"keys": "[]"}, {"keys": "[[1,1],[1,2]]", "group_level": "1"}])
def test_reduce_with_keys_needs_exact_grouping(ten, params):
    """couch_mrview_util:validate_args/1: a reduce view's `keys`, unless exactly one, needs
    `group=true` — an empty list too."""
    put_doc(ten, "_design/v", {"views": {"v": {"map": "function(doc) { emit(doc.k, 1); }", "reduce": "_count"}}})
    r = ten.client.get(ten.url("_design/v", "_view", "v"), params=params)
    assert_error(r, 400, "query_parse_error", "Multi-key fetches for reduce views must use `group=true`")
    grouped = dict(params, group="true")
    grouped.pop("group_level", None)
    assert_status(ten.client.get(ten.url("_design/v", "_view", "v"), params=grouped), 200)


def test_delete_without_rev(ten):
    """DELETE without `rev`: 404 "missing" for no document, 404 "deleted" for a deleted
    one, 409 for a live one (chttpd_db:db_doc_req/3 opens the document first)."""
    assert_error(ten.client.delete(ten.url("nothing")), 404, "not_found", "missing")
    assert_error(ten.client.delete(ten.url("d1")), 409, "conflict")
    rev = body_of(ten.client.get(ten.url("d2")))["_rev"]
    assert_status(ten.client.delete(ten.url("d2"), params={"rev": rev}), 200)
    assert_error(ten.client.delete(ten.url("d2")), 404, "not_found", "deleted")
