"""POST /{db}/_explain as clients read it, and `use_index` as CouchDB 3.4.3 parses it.

CouchDB docs: API Reference › Databases › /{db}/_explain (the `selector`, `opts`,
`limit`, `skip`, `fields`, `index`, `mrargs` and `covering` members) and › /{db}/_find
› Selector Syntax. The shapes encode CouchDB 3.4's mango_selector:normalize/1 (the
selector `_explain` shows), mango_cursor_view:explain/1 (`mrargs`, `covering`),
mango_idx_view:end_key/1 and mango_opts:validate_use_index/1; every case was run
against Apache CouchDB 3.4.3."""

import pytest

from couch import assert_error, assert_status, body_of, bulk_docs


def explain(db, body, status=200):
    return body_of(assert_status(db.client.post(db.url("_explain"), json=body), status))


@pytest.fixture
def indexed(db):
    bulk_docs(db, [{"_id": "d", "a": 1, "name": "x", "b": {"c": 2}}])
    for ddoc, fields in (("ia", ["a"]), ("ian", ["a", "name"]), ("ibc", ["b.c"])):
        r = db.client.post(db.url("_index"), json={"index": {"fields": fields}, "ddoc": ddoc, "name": ddoc})
        assert_status(r, 200)
    return db


NORMALIZED = [
    # A bare value is $eq; several members are an explicit $and (norm_ops).
    ({"a": 1}, {"a": {"$eq": 1}}),
    ({"a": None}, {"a": {"$eq": None}}),
    ({"a": [1, 2]}, {"a": {"$eq": [1, 2]}}),
    ({"a": 1, "name": "x"}, {"$and": [{"a": {"$eq": 1}}, {"name": {"$eq": "x"}}]}),
    ({"$and": [{"a": 1}, {"name": "x"}]}, {"$and": [{"a": {"$eq": 1}}, {"name": {"$eq": "x"}}]}),
    ({"a": {"$gt": 0, "$lt": 5}}, {"$and": [{"a": {"$gt": 0}}, {"a": {"$lt": 5}}]}),
    ({"$or": [{"a": 1}, {"name": "x"}]}, {"$or": [{"a": {"$eq": 1}}, {"name": {"$eq": "x"}}]}),
    # Nested field objects are dotted paths (norm_fields).
    ({"b": {"c": 2}}, {"b.c": {"$eq": 2}}),
    ({"b": {"c": {"$gt": 1}}}, {"b.c": {"$gt": 1}}),
    ({"a": {"$elemMatch": {"$eq": 1}}}, {"a": {"$elemMatch": {"": {"$eq": 1}}}}),
    # Negations pushed down (norm_negations).
    ({"a": {"$not": {"$eq": 1}}}, {"a": {"$ne": 1}}),
    ({"$not": {"a": 1}}, {"a": {"$ne": 1}}),
    ({"$nor": [{"a": 1}, {"a": 2}]}, {"$and": [{"a": {"$ne": 1}}, {"a": {"$ne": 2}}]}),
    # Terminal operators are kept as sent.
    ({"a": {"$in": [1, 2]}}, {"a": {"$in": [1, 2]}}),
    ({"a": {"$regex": "^x"}}, {"a": {"$regex": "^x"}}),
    ({}, {}),
    ({"a": 1, "$or": [{"b": {"$not": {"$in": [1]}}}, {"c": {"$not": {"$exists": True}}}],
      "d": {"$not": {"$and": [{"$gt": 1}, {"$regex": "x"}]}}, "e": {"$nor": [{"$lt": 1}]},
      "f": {"$elemMatch": {"g": 1, "h": {"$gt": 2}}}},
     {"$and": [{"a": {"$eq": 1}}, {"$or": [{"b": {"$nin": [1]}}, {"c": {"$exists": False}}]},
               {"$or": [{"d": {"$lte": 1}}, {"d": {"$not": {"$regex": "x"}}}]},
               {"$and": [{"e": {"$gte": 1}}]},
               {"f": {"$elemMatch": {"$and": [{"g": {"$eq": 1}}, {"h": {"$gt": 2}}]}}}]}),
]


@pytest.mark.parametrize("selector,normalized", NORMALIZED)
def test_selector_as_couchdb_normalizes_it(indexed, selector, normalized):
    """`selector` in _explain is mango_selector:normalize/1's output."""
    assert explain(indexed, {"selector": selector})["selector"] == normalized


def test_fields_default_and_opts(indexed):
    """`fields` absent is [] (top level and opts); limit/skip as sent."""
    out = explain(indexed, {"selector": {"a": 1}})
    assert out["fields"] == [] and out["opts"]["fields"] == []
    assert out["limit"] == 25 and out["skip"] == 0
    out = explain(indexed, {"selector": {"a": 1}, "fields": ["a"], "limit": 2, "skip": 1})
    assert out["fields"] == ["a"] and out["opts"]["fields"] == ["a"]
    assert (out["limit"], out["skip"], out["opts"]["limit"], out["opts"]["skip"]) == (2, 1, 2, 1)


def test_mrargs_and_covering(indexed):
    """include_docs unless the index covers the fields; end_key closed by "<MAX>";
    descending swaps the keys (mango_cursor_view:explain/1, mango_idx_view:end_key/1)."""
    out = explain(indexed, {"selector": {"a": 1}})
    assert out["index"]["name"] == "ia" and out["covering"] is False
    assert out["mrargs"]["include_docs"] is True
    assert (out["mrargs"]["start_key"], out["mrargs"]["end_key"]) == ([1], [1, "<MAX>"])
    out = explain(indexed, {"selector": {"a": {"$gt": 1}}, "fields": ["a"]})
    assert out["covering"] is True and out["mrargs"]["include_docs"] is False
    assert (out["mrargs"]["start_key"], out["mrargs"]["end_key"]) == ([1], ["<MAX>"])
    out = explain(indexed, {"selector": {"a": {"$lte": 5}}})
    assert (out["mrargs"]["start_key"], out["mrargs"]["end_key"]) == ([], [5, "<MAX>"])
    out = explain(indexed, {"selector": {"a": {"$lt": 5}}, "sort": [{"a": "desc"}]})
    assert out["mrargs"]["direction"] == "rev"
    assert (out["mrargs"]["start_key"], out["mrargs"]["end_key"]) == ([5, "<MAX>"], [])
    out = explain(indexed, {"selector": {"a": 1, "name": "x"}})
    assert out["index"]["name"] == "ian" and out["mrargs"]["end_key"] == [1, "x", "<MAX>"]


def test_all_docs_is_not_covering(indexed):
    """_all_docs chosen: covering false, include_docs true, keys null and "<MAX>"."""
    out = explain(indexed, {"selector": {"$or": [{"a": 1}, {"name": "x"}]}})
    assert out["index"]["name"] == "_all_docs" and out["covering"] is False
    assert out["mrargs"]["include_docs"] is True
    assert (out["mrargs"]["start_key"], out["mrargs"]["end_key"]) == (None, "<MAX>")


def test_explain_of_a_sort_no_index_serves(indexed):
    """_find answers 400 no_usable_index; _explain 200 with `index` null and no mrargs."""
    body = {"selector": {"name": "x"}, "sort": ["name"]}
    r = indexed.client.post(indexed.url("_find"), json=body)
    assert_error(r, 400, "no_usable_index", "No index exists for this sort, try indexing by the sort fields.")
    out = explain(indexed, body)
    assert out["index"] is None and out["selector"] == {"name": {"$eq": "x"}}
    assert out["opts"]["sort"] == {"name": "asc"}
    assert "mrargs" not in out and "covering" not in out
    assert all(c["analysis"]["usable"] is False for c in out["index_candidates"])


@pytest.mark.parametrize("use_index,parsed", [
    ("ia", ["ia"]),
    ("_design/ia", ["ia"]),
    ("ia/ia", ["ia", "ia"]),
    ("_design/ia/ia", ["ia", "ia"]),
    ("_design/", [""]),
    (["_design/ia", "ia"], ["_design/ia", "ia"]),
    (["ia"], ["ia"]),
])
def test_use_index_names(indexed, use_index, parsed):
    """mango_opts:validate_use_index/1: a string splits at `/`, a leading `_design` dropped;
    a list is kept as sent. opts.use_index shows the result."""
    out = explain(indexed, {"selector": {"a": 1}, "use_index": use_index})
    assert out["opts"]["use_index"] == parsed


@pytest.mark.parametrize("use_index,reason", [
    ("a/b/c", "Invalid index name: <<97,47,98,47,99>>"),
    (5, "Invalid index name: 5"),
    (["a", 1], "Invalid index name: [<<97>>,1]"),
])
def test_invalid_index_names(indexed, use_index, reason):
    """What validate_use_index refuses is 400 invalid_index_name (the term written with ~w)."""
    r = indexed.client.post(indexed.url("_find"), json={"selector": {"a": 1}, "use_index": use_index})
    assert_error(r, 400, "invalid_index_name", reason)


@pytest.mark.parametrize("use_index,named,why", [
    ("nope", "_design/nope", "does not contain a valid index"),
    ("ibc", "_design/ibc", "does not contain a valid index"),
    (["ia", "nope"], "_design/ia, nope", "is not a valid index"),
    (["ibc", "ibc"], "_design/ibc, ibc", "is not a valid index"),
])
def test_use_index_unusable_falls_back(indexed, use_index, named, why):
    """A missing or unsuitable named index: a warning and another index (mango_cursor:create/4,
    its wording differs for a ddoc and a ddoc+name); with allow_fallback false, 400 invalid_index."""
    r = indexed.client.post(indexed.url("_find"), json={"selector": {"a": 1}, "use_index": use_index})
    out = body_of(assert_status(r, 200))
    assert [d["_id"] for d in out["docs"]] == ["d"]
    assert out["warning"] == "%s was not used because it %s for this query." % (named, why)
    r = indexed.client.post(indexed.url("_find"), json={"selector": {"a": 1}, "use_index": use_index,
                                                        "allow_fallback": False})
    assert_error(r, 400, "invalid_index",
                 "%s specified by `use_index` could not be found or it is not suitable." % named)


def test_use_index_that_cannot_sort(indexed):
    """A named index that cannot give the sort, and no other can: 400 no_usable_index, not a fallback."""
    r = indexed.client.post(indexed.url("_find"), json={"selector": {"name": "x"}, "sort": ["name"],
                                                        "use_index": "ia"})
    assert_error(r, 400, "no_usable_index")


def candidates(out):
    return [(c["index"]["name"], c["analysis"]["usable"], [r["name"] for r in c["analysis"]["reasons"]],
             c["analysis"]["ranking"]) for c in out["index_candidates"]]


def test_index_candidates(indexed):
    """index_candidates: the indexes not chosen, newest-considered first, usable ones ranked by
    preference and unusable ones after them, one reason each (mango_cursor:explain/1)."""
    out = explain(indexed, {"selector": {"a": 1, "name": "x"}})
    assert out["index"]["name"] == "ian"
    assert candidates(out) == [("ibc", False, ["field_mismatch"], 3), ("ia", True, ["less_overlap"], 1),
                               ("_all_docs", True, ["unfavored_type"], 2)]
    out = explain(indexed, {"selector": {"a": 1}, "use_index": "ia"})
    assert candidates(out) == [("ibc", False, ["field_mismatch"], 2), ("ian", False, ["field_mismatch"], 2),
                               ("_all_docs", True, ["excluded_by_user"], 1)]
    out = explain(indexed, {"selector": {"a": {"$gt": 0}}, "sort": ["a", "name"]})
    assert candidates(out) == [("ibc", False, ["field_mismatch"], 1), ("ia", False, ["sort_order_mismatch"], 1),
                               ("_all_docs", False, ["field_mismatch"], 1)]


def test_passed_over_reasons(indexed):
    """A usable json index not chosen says why (mango_cursor:extract_candidate_indexes/1):
    `less_overlap` when its leading columns miss some of the selector's indexable fields, else
    `too_many_fields` when it has more columns than the winner, else `alphabetically_comes_after`."""
    r = indexed.client.post(indexed.url("_index"), json={"index": {"fields": ["a"]}, "ddoc": "ia2", "name": "ia2"})
    assert_status(r, 200)
    # `name` is required (so `ian` is usable) but not indexable: both indexes cover the one
    # indexable field, and `ian` has a column more; `ia2` only sorts after `ia`.
    for selector in ({"a": 1, "name": {"$regex": "x"}}, {"a": {"$gt": 0}, "name": {"$ne": "x"}},
                     {"name": {"$regex": "x"}, "a": {"$in": [1]}}):
        out = explain(indexed, {"selector": selector})
        assert out["index"]["name"] == "ia"
        assert candidates(out) == [("ibc", False, ["field_mismatch"], 4), ("ian", True, ["too_many_fields"], 2),
                                   ("ia2", True, ["alphabetically_comes_after"], 1),
                                   ("_all_docs", True, ["unfavored_type"], 3)]
    out = explain(indexed, {"selector": {"a": 1, "name": "x"}})
    assert out["index"]["name"] == "ian"
    assert candidates(out) == [("ibc", False, ["field_mismatch"], 4), ("ia2", True, ["less_overlap"], 2),
                               ("ia", True, ["less_overlap"], 1), ("_all_docs", True, ["unfavored_type"], 3)]

HINTS = [
    ({"a": 1}, ["a"], []),
    ({}, [], []),
    # Only fields under the top-level $and with a range operator are indexable
    # (mango_idx_view:indexable_fields/1); every other field is unindexable (mango_selector:fields/1),
    # both in the order of CouchDB's Erlang set (hash buckets), not as sent.
    ({"a": {"$gt": 1}, "c": {"$ne": 2}, "d": {"$or": [{"$eq": 1}, {"$eq": 2}]}, "e": {"f": {"$in": [1]}},
      "g": {"$not": {"$eq": 1}}, "h": {"$elemMatch": {"x": 1}}, "$or": [{"z": 1}, {"y": 2}]},
     ["a"], ["z", "d", "y", "c", "h", "g", "e.f"]),
    ({"name": "x", "a": {"$exists": True}, "b": {"c": {"$beginsWith": "q"}}, "zeta": {"$lte": 3}},
     ["b.c", "name", "zeta", "a"], []),
    ({"$or": [{"a": 1}, {"name": "x"}]}, [], ["name", "a"]),
    ({"$and": [{"a": 1}, {"$and": [{"name": "x"}, {"b": {"$regex": "^q"}}]}]}, ["name", "a"], ["b"]),
]


@pytest.mark.parametrize("selector,indexable,unindexable", HINTS)
def test_selector_hints(indexed, selector, indexable, unindexable):
    """`selector_hints` (mango_cursor:extract_selector_hints/1): one entry for json indexes."""
    out = explain(indexed, {"selector": selector})
    assert out["selector_hints"] == [{"type": "json", "indexable_fields": indexable,
                                      "unindexable_fields": unindexable}]
