"""GET/POST /{db}/_design/{ddoc}/_view/{view}. CouchDB docs: API Reference › Design
Documents › Views (query options), Guide to Views › Views Collation, Reduce/Rereduce
(built-in reduce functions); shapes of CouchDB 3.4's couch_mrview_http.erl. ICU
collation of strings (case, accents, raw collation): test_collation.py."""

import json
import re

import pytest

from couch import assert_error, assert_status, body_of, bulk_docs, make_conflict, put_doc


def view(db, name, params=None, ddoc="d", body=None):
    path = db.url("_design/" + ddoc, "_view", name)
    params = {k: (json.dumps(v) if k in ("key", "keys", "startkey", "endkey", "start_key", "end_key") else
                  (str(v).lower() if isinstance(v, bool) else v)) for k, v in (params or {}).items()}
    if body is None:
        r = db.client.get(path, params=params)
    else:
        r = db.client.post(path, params=params, json=body)
    return r


def rows(db, name, params=None, **kw):
    return body_of(assert_status(view(db, name, params, **kw), 200))


DDOC = {"views": {
    "by_n": {"map": "function(doc) { if (doc.n !== undefined) emit(doc.n, doc.t); }", "reduce": "_sum"},
    "by_t_n": {"map": "function(doc) { if (doc.t) emit([doc.t, doc.n], 1); }", "reduce": "_count"},
    "stats": {"map": "function(doc) { if (doc.t) emit(doc.t, doc.n); }", "reduce": "_stats"},
    "multi": {"map": "function(doc) { if (doc.tags) doc.tags.forEach(function(tag) { emit(tag, null); }); }"},
    "js_reduce": {"map": "function(doc) { if (doc.n !== undefined) emit(doc.t, doc.n); }",
                  "reduce": "function(keys, values, rereduce) { return values.length ? Math.max.apply(null, values) : 0; }"},
    "collation": {"map": "function(doc) { if (doc.k !== undefined) emit(doc.k, null); }"},
    "link": {"map": "function(doc) { if (doc.parent) emit(doc._id, {_id: doc.parent}); }"},
}}

DOCS = [
    {"_id": "a", "n": 1, "t": "x", "tags": ["red", "blue"]},
    {"_id": "b", "n": 2, "t": "y", "tags": ["blue"]},
    {"_id": "c", "n": 3, "t": "x"},
    {"_id": "d", "n": 4, "t": "y", "tags": []},
    {"_id": "e", "n": 5, "t": "x", "parent": "a"},
]


@pytest.fixture
def vdb(db):
    put_doc(db, "_design/d", DDOC)
    bulk_docs(db, [dict(d) for d in DOCS])
    return db


def test_map_rows_in_key_order(vdb):
    """Rows are sorted by key; total_rows counts the view, offset the rows before."""
    out = rows(vdb, "by_n", {"reduce": False})
    assert out["total_rows"] == 5 and out["offset"] == 0
    assert [(r["id"], r["key"], r["value"]) for r in out["rows"]] == [
        ("a", 1, "x"), ("b", 2, "y"), ("c", 3, "x"), ("d", 4, "y"), ("e", 5, "x")]


def test_key_range_options(vdb):
    """key, startkey/endkey, inclusive_end, descending, limit, skip."""
    assert [r["id"] for r in rows(vdb, "by_n", {"reduce": False, "key": 3})["rows"]] == ["c"]
    out = rows(vdb, "by_n", {"reduce": False, "startkey": 2, "endkey": 4})
    assert [r["key"] for r in out["rows"]] == [2, 3, 4] and out["offset"] == 1
    out = rows(vdb, "by_n", {"reduce": False, "startkey": 2, "endkey": 4, "inclusive_end": False})
    assert [r["key"] for r in out["rows"]] == [2, 3]
    out = rows(vdb, "by_n", {"reduce": False, "descending": True, "startkey": 4, "endkey": 2})
    assert [r["key"] for r in out["rows"]] == [4, 3, 2]
    out = rows(vdb, "by_n", {"reduce": False, "descending": True, "startkey": 4, "endkey": 2, "inclusive_end": False})
    assert [r["key"] for r in out["rows"]] == [4, 3]
    out = rows(vdb, "by_n", {"reduce": False, "skip": 1, "limit": 2})
    assert [r["key"] for r in out["rows"]] == [2, 3] and out["offset"] == 1


def test_startkey_docid(vdb):
    """startkey_docid/endkey_docid narrow rows with equal keys by document id."""
    out = rows(vdb, "multi", {"startkey": "blue", "startkey_docid": "b", "endkey": "blue"})
    assert [(r["key"], r["id"]) for r in out["rows"]] == [("blue", "b")]
    out = rows(vdb, "multi", {"startkey": "blue", "endkey": "blue", "endkey_docid": "a"})
    assert [(r["key"], r["id"]) for r in out["rows"]] == [("blue", "a")]


def test_keys(vdb):
    """keys (GET parameter or POST body): rows of each key in the order given."""
    out = rows(vdb, "by_n", {"reduce": False, "keys": [4, 1, 9]})
    assert [r["id"] for r in out["rows"]] == ["d", "a"]
    out = rows(vdb, "by_n", {"reduce": False}, body={"keys": [5, 2]})
    assert [r["id"] for r in out["rows"]] == ["e", "b"]
    # A number, unlike _all_docs' null with keys; its value depends on how the shards split.
    assert isinstance(out["offset"], int) and out["total_rows"] == 5
    assert rows(vdb, "by_n", {"reduce": False, "include_docs": True}, body={"keys": []})["rows"] == []
    assert rows(vdb, "by_t_n", {"group": True}, body={"keys": []})["rows"] == []


@pytest.mark.parametrize("query,body,keys", [
    ("key=2&startkey=1", None, [1, 2]),
    ("startkey=1&key=2", None, [2]),
    ("keys=[2]&startkey=1", None, [1, 2]),
    ("startkey=1&keys=[2]", None, [2]),
    ("key=2&endkey=3", None, [2, 3]),
    ("keys=[2]&key=3", None, [3]),
    ("key=2&inclusive_end=false", None, []),
    ("keys=[2,3]&inclusive_end=false", None, []),
    ("keys=[]&startkey=1", None, []),
    ("keys=[2]&descending=true&startkey=3", None, [3, 2]),
    ("startkey=1", {"keys": [2]}, [1, 2]),
    ("key=3", {"keys": [2]}, [3]),
    ("", {"keys": [2], "startkey": 1}, [1, 2]),
    ("", {"startkey": 1, "keys": [2]}, [2]),
])
def test_key_bounds_apply_in_order(vdb, query, body, keys):
    """couch_mrview_http parses the body's options, then the query string's, each in
    order and each over what came before: `key`, and `keys` of one key, set both ends of
    the range, and a later bound moves one end (Apache CouchDB 3.4.3)."""
    path = vdb.url("_design/d", "_view", "by_n") + "?reduce=false" + ("&" + query if query else "")
    r = vdb.client.post(path, json=body) if body is not None else vdb.client.get(path)
    assert [row["key"] for row in body_of(assert_status(r, 200))["rows"]] == keys


@pytest.mark.parametrize("query,body", [("keys=[2,3]&startkey=1", None), ("startkey=1&keys=[2,3]", None),
                                        ("", {"keys": [2, 3], "startkey": 1}), ("key=1", {"keys": [2, 3]})])
def test_several_keys_take_no_bound(vdb, query, body):
    """couch_mrview_util:validate_args/1: `keys` of two or more keys with `key`,
    `start_key` or `end_key`, before or after it, is a query_parse_error."""
    path = vdb.url("_design/d", "_view", "by_n") + "?reduce=false" + ("&" + query if query else "")
    r = vdb.client.post(path, json=body) if body is not None else vdb.client.get(path)
    assert_error(r, 400, "query_parse_error", "`keys` is incompatible with `key`, `start_key` and `end_key`")


def test_huge_skip(vdb):
    """skip is any integer (couch_mrview_http:parse_int): past the rows, none are left and the
    offset stops at total_rows; with keys too (fuzz/api.py found Settee overflowing on it)."""
    for body in (None, {"keys": [5, 2]}):
        out = rows(vdb, "by_n", {"reduce": False, "skip": "99999999999999999999"}, body=body)
        assert out["rows"] == [] and out["total_rows"] == 5 and out["offset"] == 5


def test_several_emits_per_document(vdb):
    """A document emitting several rows has one row per emit, sorted by key then id."""
    out = rows(vdb, "multi")
    assert [(r["key"], r["id"]) for r in out["rows"]] == [("blue", "a"), ("blue", "b"), ("red", "a")]
    assert all(r["value"] is None for r in out["rows"])


def test_include_docs_and_linked_documents(vdb):
    """include_docs adds each row's document; a value {"_id": X} links document X."""
    out = rows(vdb, "by_n", {"reduce": False, "include_docs": True, "key": 2})
    assert out["rows"][0]["doc"]["_id"] == "b" and out["rows"][0]["doc"]["n"] == 2
    out = rows(vdb, "link", {"include_docs": True})
    assert out["rows"][0]["id"] == "e" and out["rows"][0]["doc"]["_id"] == "a"


def test_builtin_reduces(vdb):
    """_sum, _count (grouped by array prefix with group_level) and _stats."""
    assert rows(vdb, "by_n", {"key": 999})["rows"] == []
    out = rows(vdb, "by_t_n")
    assert out["rows"] == [{"key": None, "value": 5}]
    out = rows(vdb, "by_t_n", {"group_level": 1})
    assert out["rows"] == [{"key": ["x"], "value": 3}, {"key": ["y"], "value": 2}]
    out = rows(vdb, "by_t_n", {"group": True, "limit": 2})
    assert out["rows"] == [{"key": ["x", 1], "value": 1}, {"key": ["x", 3], "value": 1}]
    out = rows(vdb, "stats", {"group": True})
    assert out["rows"] == [{"key": "x", "value": {"sum": 9, "count": 3, "min": 1, "max": 5, "sumsqr": 35}},
                           {"key": "y", "value": {"sum": 6, "count": 2, "min": 2, "max": 4, "sumsqr": 20}}]


def test_sum_of_non_numbers_is_an_error_row(vdb):
    """_sum over values that are not numbers: a builtin_reduce_error value, status 200."""
    out = rows(vdb, "by_n")
    assert out["rows"][0]["key"] is None
    assert out["rows"][0]["value"]["error"] == "builtin_reduce_error"
    # caused_by is the value that could not be added (which one depends on the shards' order).
    assert out["rows"][0]["value"]["caused_by"] in ("x", "y")


def test_stats_of_arrays_and_of_strings(db):
    """_stats of arrays of numbers: one stats object per position; of a string: the query
    fails, 500 invalid_value (couch_query_servers.erl builtin_reduce, checked on 3.4.3)."""
    put_doc(db, "_design/s", {"views": {"t": {"map": "function(doc) { if (doc.v) emit(doc._id, doc.v); }",
                                              "reduce": "_stats"}}})
    bulk_docs(db, [{"_id": "a", "v": [1, 10]}, {"_id": "b", "v": [3, 20]}])
    out = rows(db, "t", ddoc="s")
    assert out["rows"][0]["value"] == [{"sum": 4, "count": 2, "min": 1, "max": 3, "sumsqr": 10},
                                       {"sum": 30, "count": 2, "min": 10, "max": 20, "sumsqr": 500}]
    put_doc(db, "_design/w", {"views": {"t": {"map": "function(doc) { emit(doc._id, 'x'); }", "reduce": "_stats"}}})
    assert_error(view(db, "t", ddoc="w"), 500, "invalid_value")


def test_javascript_reduce(vdb):
    """A JavaScript reduce function, grouped and not."""
    assert rows(vdb, "js_reduce")["rows"] == [{"key": None, "value": 5}]
    assert rows(vdb, "js_reduce", {"group": True})["rows"] == [{"key": "x", "value": 5}, {"key": "y", "value": 4}]


def test_sorted_and_stable_are_checked(vdb):
    """sorted must be a boolean and stable true or false (couch_mrview_http:parse_param);
    sorted=false answers the rows without total_rows and offset (CouchDB 3.4.3)."""
    out = rows(vdb, "by_n", {"reduce": False, "sorted": False, "stable": True})
    assert len(out["rows"]) == 5 and "total_rows" not in out and "offset" not in out
    assert_error(view(vdb, "by_n", {"sorted": "x"}), 400, "query_parse_error", 'Invalid boolean parameter: "x"')
    assert_error(view(vdb, "by_n", {"stable": "x"}), 400, "query_parse_error", "Invalid value for `stable`.")


def test_javascript_rereduce(db):
    """Reductions of many rows are rereduced (Guide to Views › Reduce/Rereduce): a count
    written for rereduce gives the row count over 1,200 rows, grouped and not."""
    put_doc(db, "_design/c", {"views": {"n": {
        "map": "function(doc) { emit(doc.g, 1); }",
        "reduce": "function(keys, values, rereduce) { return rereduce ? sum(values) : values.length; }"}}})
    bulk_docs(db, [{"_id": "d%04d" % i, "g": i % 3} for i in range(1200)])
    assert rows(db, "n", ddoc="c")["rows"] == [{"key": None, "value": 1200}]
    assert rows(db, "n", {"group": True}, ddoc="c")["rows"] == [{"key": g, "value": 400} for g in range(3)]


def test_incremental_updates(vdb):
    """Edits, deletions and conflicts after a query are in the next one."""
    assert rows(vdb, "by_n", {"reduce": False, "key": 1})["rows"][0]["id"] == "a"
    a = body_of(vdb.client.get(vdb.url("a")))
    put_doc(vdb, "a", {"_rev": a["_rev"], "n": 10, "t": "x"})
    d = body_of(vdb.client.get(vdb.url("d")))
    assert_status(vdb.client.delete(vdb.url("d"), params={"rev": d["_rev"]}), 200)
    put_doc(vdb, "f", {"n": 0, "t": "z"})
    out = rows(vdb, "by_n", {"reduce": False})
    assert [(r["id"], r["key"]) for r in out["rows"]] == [("f", 0), ("b", 2), ("c", 3), ("e", 5), ("a", 10)]
    assert out["total_rows"] == 5


def test_reductions_follow_writes_and_the_reduce_function(vdb):
    """The same reduce query asked again answers what the index holds now: after a write,
    read with update=false too, and with a new reduce function over the same map (Guide to Views › Reduce/
    Rereduce: reductions are kept in the b-tree and updated with it)."""
    stats = {"group": True}
    first = rows(vdb, "stats", stats)["rows"]
    assert first == rows(vdb, "stats", stats)["rows"]
    assert rows(vdb, "by_t_n", {})["rows"] == [{"key": None, "value": 5}]
    put_doc(vdb, "f", {"n": 100, "t": "x"})
    # A query brings the index up to f; update=false then reads it as it is.
    assert rows(vdb, "by_t_n", {})["rows"] == [{"key": None, "value": 6}]
    assert rows(vdb, "by_t_n", {"update": "false"})["rows"] == [{"key": None, "value": 6}]
    x = next(r["value"] for r in rows(vdb, "stats", stats)["rows"] if r["key"] == "x")
    assert x["sum"] == 1 + 3 + 5 + 100 and x["count"] == 4 and x["max"] == 100
    ddoc = body_of(vdb.client.get(vdb.url("_design/d")))
    ddoc["views"]["by_t_n"]["reduce"] = "function(keys, values, rereduce) { return 42; }"
    put_doc(vdb, "_design/d", ddoc)
    assert rows(vdb, "by_t_n", {})["rows"] == [{"key": None, "value": 42}]


def test_conflicts_index_the_winner(db):
    """A document in conflict is mapped once, from its winning revision."""
    put_doc(db, "_design/d", DDOC)
    make_conflict(db, "w")
    out = rows(db, "collation")
    assert out["rows"] == []
    winner = body_of(db.client.get(db.url("w")))
    put_doc(db, "w", {"_rev": winner["_rev"], "k": 7})
    out = rows(db, "collation", {"include_docs": True, "conflicts": True})
    assert [r["key"] for r in out["rows"]] == [7]
    assert len(out["rows"][0]["doc"]["_conflicts"]) == 1


def test_a_map_function_cannot_change_the_document(db):
    """couchjs deep-freezes each document before it runs the design document's map
    functions on it: a change one function makes is seen neither by itself nor by the
    next (CouchDB's view_sandboxing tests, "attempting to change the document has no
    effect" and COUCHDB-925); a function whose change throws (push on a frozen array)
    emits nothing for that document."""
    put_doc(db, "_design/d", {"views": {
        "changer": {"map": "function(doc) { doc.integer = 2; doc.tokens.c = 3; emit(doc.integer, doc); }"},
        "pusher": {"map": "function(doc) { doc.tags.push('qwerty'); emit(doc._id, null); }"},
        "reader": {"map": "function(doc) { emit(doc._id, [doc.integer, doc.tags, doc.tokens]); }"},
    }})
    put_doc(db, "x", {"integer": 1, "tags": ["a"], "tokens": {"a": 1}})
    out = rows(db, "changer")
    assert [r["key"] for r in out["rows"]] == [1]
    assert out["rows"][0]["value"]["integer"] == 1 and out["rows"][0]["value"]["tokens"] == {"a": 1}
    assert rows(db, "pusher")["rows"] == []
    assert [r["value"] for r in rows(db, "reader")["rows"]] == [[1, ["a"], {"a": 1}]]


def test_collation_order(db):
    """Views Collation: null, false, true, numbers, strings, arrays, objects."""
    put_doc(db, "_design/d", DDOC)
    keys = [None, False, True, -1, 0, 1.5, 2, "a", "aa", "b", [], ["a"], ["a", 1], ["b"], {}, {"a": 1}]
    bulk_docs(db, [{"_id": "k%02d" % (len(keys) - i), "k": k} for i, k in enumerate(keys)])
    out = rows(db, "collation")
    assert [r["key"] for r in out["rows"]] == keys


def test_errors(vdb, db):
    """404 for a missing design document or view; query_parse_error for bad options."""
    assert_error(view(db, "v", ddoc="nope"), 404, "not_found", "missing")
    assert_error(view(vdb, "nope"), 404, "not_found", "missing_named_view")
    assert_error(view(vdb, "by_n", {"reduce": False, "group": True}), 400, "query_parse_error")
    assert_error(view(vdb, "by_n", {"reduce": False, "startkey": 3, "endkey": 1}), 400, "query_parse_error")
    assert_error(view(vdb, "by_n", {"limit": -1}), 400, "query_parse_error")
    assert_error(view(vdb, "by_n", {"include_docs": True}), 400, "query_parse_error")
    assert_error(view(vdb, "by_n", {"keys": [1, 2]}), 400, "query_parse_error")


def test_update_false(vdb):
    """update=false answers from the index as it is; the next query catches up."""
    rows(vdb, "by_n", {"reduce": False})
    put_doc(vdb, "g", {"n": 7, "t": "x"})
    stale = rows(vdb, "by_n", {"reduce": False, "update": "false"})
    assert "g" not in [r["id"] for r in stale["rows"]]
    assert "g" in [r["id"] for r in rows(vdb, "by_n", {"reduce": False})["rows"]]


def test_design_documents_are_compiled_when_saved(db):
    """A view whose map does not compile: 400 compilation_error, nothing saved; an
    unknown built-in reduce: 400 invalid_design_doc (couch_mrview:validate/2)."""
    r = db.client.put(db.url("_design/bad"), json={"views": {"v": {"map": "function(doc) { emit(doc._id, "}}})
    assert_error(r, 400, "compilation_error")
    assert_error(db.client.get(db.url("_design/bad")), 404, "not_found")
    r = db.client.put(db.url("_design/bad"), json={"views": {"v": {"map": "function(doc) {}", "reduce": "_nope"}}})
    assert_error(r, 400, "invalid_design_doc", "`_nope` is not a supported reduce function.")
    r = db.client.post(db.url("_bulk_docs"), json={"docs": [
        {"_id": "_design/bad", "views": {"v": {"map": "not a function("}}}, {"_id": "fine"}]})
    out = body_of(assert_status(r, 201))
    assert out[0]["error"] == "compilation_error" and out[1]["ok"] is True


VDU = """function(newDoc, oldDoc, userCtx, secObj) {
  if (newDoc.bad) throw({forbidden: 'no bad documents'});
  if (newDoc.login) throw({unauthorized: 'log in first'});
  if (oldDoc && oldDoc.locked && !newDoc._deleted) throw({forbidden: 'locked by ' + oldDoc.owner});
  if (newDoc.owner && newDoc.owner !== userCtx.name) throw({forbidden: 'owner must be ' + userCtx.name});
  if (newDoc.needs_security && !secObj.members) throw({forbidden: 'no members in the security object'});
  if (newDoc.oops) throw('plain');
}"""


def test_validate_doc_update(db, admin_auth):
    """validate_doc_update runs on every write: forbidden is 403, unauthorized 401,
    with oldDoc, userCtx and secObj (Design Documents › Validate Document Update
    Functions); in _bulk_docs and replicated writes it refuses per document."""
    put_doc(db, "_design/guard", {"validate_doc_update": VDU})
    assert_error(db.client.put(db.url("x"), json={"bad": True}), 403, "forbidden", "no bad documents")
    assert_error(db.client.put(db.url("x"), json={"login": True}), 401, "unauthorized", "log in first")
    assert_error(db.client.get(db.url("x")), 404, "not_found")
    me = admin_auth[0]
    assert_error(db.client.put(db.url("x"), json={"owner": "someone-else"}), 403, "forbidden", "owner must be " + me)
    put_doc(db, "x", {"owner": me, "needs_security": True})
    rev = put_doc(db, "lock", {"locked": True, "owner": me})["rev"]
    assert_error(db.client.put(db.url("lock"), json={"_rev": rev, "locked": False}), 403, "forbidden", "locked by " + me)
    assert_status(db.client.delete(db.url("lock"), params={"rev": rev}), 200)
    out = body_of(assert_status(db.client.post(db.url("_bulk_docs"), json={"docs": [
        {"_id": "ok"}, {"_id": "no", "bad": True}]}), 201))
    assert out[0]["ok"] is True
    assert out[1]["error"] == "forbidden" and out[1]["reason"] == "no bad documents"
    replicated = {"new_edits": False, "docs": [{"_id": "r", "_rev": "1-" + "a" * 32, "bad": True}]}
    out = body_of(assert_status(db.client.post(db.url("_bulk_docs"), json=replicated), 201))
    assert out == [] or out[0]["error"] == "forbidden"
    assert_error(db.client.get(db.url("r")), 404, "not_found")
    # Any other exception: 500 unknown_error with its text (CouchDB 3.4.3).
    assert_error(db.client.put(db.url("y"), json={"oops": True}), 500, "unknown_error", "plain")
    # Design documents are not validated by it.
    put_doc(db, "_design/other", {"bad": True})


def test_validate_doc_update_exceptions(db):
    """What a validate_doc_update throws, other than forbidden/unauthorized, answers 500:
    an Error by its name (TypeError, ReferenceError, Error), a string as unknown_error with
    the string, an object as unknown_error with its member's value (CouchDB 3.4.3, couchjs
    on QuickJS; its reason for an Error is "{[]}", so only the error is asserted there)."""
    cases = [
        ("function(n, o) { return n.x.y.z; }", "TypeError", None),
        ("function(n, o) { notAFunction(); }", "ReferenceError", None),
        ("function(n, o) { throw new Error('plain'); }", "Error", None),
        ("function(n, o) { throw 'oops'; }", "unknown_error", "oops"),
        ("function(n, o) { throw {foo: 'bar'}; }", "unknown_error", "bar"),
    ]
    for i, (source, error, reason) in enumerate(cases):
        rev = put_doc(db, "_design/v", {"validate_doc_update": source})["rev"]
        assert_error(db.client.put(db.url("doc%d" % i), json={}), 500, error, reason)
        assert_status(db.client.delete(db.url("_design/v"), params={"rev": rev}), 200)


FILTERS = {
    "filters": {
        "by_type": "function(doc, req) { return doc.type === req.query.type; }",
        "deleted": "function(doc, req) { return !!doc._deleted; }",
        "user": "function(doc, req) { return req.userCtx.name !== null && doc.owner === req.userCtx.name; }",
    },
    "views": {"typed": {"map": "function(doc) { if (doc.type === 'b') emit(doc._id, null); }"}},
}


def changed_ids(db, params):
    out = body_of(assert_status(db.client.get(db.url("_changes"), params=params), 200))
    return sorted(row["id"] for row in out["results"])


def test_changes_filter_functions(db, admin_auth):
    """_changes?filter=ddoc/name runs the design document's filter with the request's
    query and userCtx; a deleted document arrives with _deleted; filter=_view passes what the view's map emits for (Changes Feed ›
    Filtering)."""
    put_doc(db, "_design/f", FILTERS)
    bulk_docs(db, [{"_id": "a1", "type": "a"}, {"_id": "b1", "type": "b"}, {"_id": "b2", "type": "b"},
                   {"_id": "mine", "owner": admin_auth[0]}])
    assert changed_ids(db, {"filter": "f/by_type", "type": "b"}) == ["b1", "b2"]
    assert changed_ids(db, {"filter": "f/user"}) == ["mine"]
    rev = body_of(db.client.get(db.url("a1")))["_rev"]
    assert_status(db.client.delete(db.url("a1"), params={"rev": rev}), 200)
    assert changed_ids(db, {"filter": "f/deleted"}) == ["a1"]
    assert changed_ids(db, {"filter": "_view", "view": "f/typed"}) == ["b1", "b2"]


def test_changes_filter_request_object(db):
    """A filter gets CouchDB's whole request object (chttpd_external:json_req_obj, as
    shows do): `info` (in CouchDB the shard's, so only its presence is checked), `method`,
    and `key` in the query parsed as JSON."""
    put_doc(db, "_design/q", {"filters": {"q": "function(doc, req) { return typeof req.info === 'object'"
                                               " && req.method === 'GET' && req.query.key === doc.k; }"}})
    bulk_docs(db, [{"_id": "yes", "k": 1}, {"_id": "no", "k": "1"}])
    assert changed_ids(db, {"filter": "q/q", "key": "1"}) == ["yes"]


def test_changes_filter_errors(db):
    """A missing filter: 404 "missing json key: NAME"; filter=_view without view: 400;
    a filter name without a slash: 400."""
    put_doc(db, "_design/f", FILTERS)
    assert_error(db.client.get(db.url("_changes"), params={"filter": "f/nope"}), 404, "not_found",
                 "missing json key: nope")
    assert_error(db.client.get(db.url("_changes"), params={"filter": "_view"}), 400, "bad_request",
                 "`view` filter parameter is not provided.")
    assert_error(db.client.get(db.url("_changes"), params={"filter": "nofilter"}), 400, "bad_request",
                 "`filter` must be of the form `designname/filtername`")


def test_changes_filter_that_throws(db):
    """A filter that throws for a document fails the whole request with a 500 (CouchDB 3.4.3
    answers error "error" with its query server's stack as the reason: only the status is portable)."""
    put_doc(db, "_design/t", {"filters": {"t": "function(doc) { if (doc.bad) throw new Error('nope'); return true; }"}})
    bulk_docs(db, [{"_id": "good"}, {"_id": "bad", "bad": True}])
    assert_status(db.client.get(db.url("_changes"), params={"filter": "t/t"}), 500)


def test_design_info_cleanup_compact_and_queries(vdb):
    """GET _design/{ddoc}/_info names it and its index; POST _view_cleanup and
    _compact/{ddoc} answer 202 (404 for a missing design document); POST
    .../_view/{view}/queries answers each query in order."""
    rows(vdb, "by_n", {"reduce": False})
    info = body_of(assert_status(vdb.client.get(vdb.url("_design/d", "_info")), 200))
    assert info["name"] == "d"
    assert info["view_index"]["language"] == "javascript"
    assert re.fullmatch("[0-9a-f]{32}", info["view_index"]["signature"])
    assert_error(vdb.client.get(vdb.url("_design/nope", "_info")), 404, "not_found")
    assert body_of(assert_status(vdb.client.post(vdb.url("_view_cleanup"), json={}), 202)) == {"ok": True}
    assert body_of(assert_status(vdb.client.post(vdb.url("_compact", "d"), json={}), 202)) == {"ok": True}
    assert_error(vdb.client.post(vdb.url("_compact", "nope"), json={}), 404, "not_found")
    # The view still answers after the cleanup.
    assert len(rows(vdb, "by_n", {"reduce": False})["rows"]) == 5
    r = vdb.client.post(vdb.url("_design/d", "_view", "by_n", "queries"),
                        json={"queries": [{"reduce": False, "limit": 1}, {"reduce": False, "keys": [4, 2]}, {}]})
    out = body_of(assert_status(r, 200))
    assert [row["id"] for row in out["results"][0]["rows"]] == ["a"]
    assert [row["id"] for row in out["results"][1]["rows"]] == ["d", "b"]
    assert out["results"][2]["rows"][0]["key"] is None


def test_require_from_views_lib(db):
    """A map function can require CommonJS modules from the design document's
    views.lib (Design Documents › CommonJS Modules)."""
    put_doc(db, "_design/m", {"views": {
        "lib": {"math": "exports.double = function(x) { return 2 * require('./twice').times(x); };",
                "twice": "exports.times = function(x) { return x; };"},
        "doubled": {"map": "function(doc) { var m = require('views/lib/math'); emit(m.double(doc.n), null); }"}}})
    bulk_docs(db, [{"_id": "a", "n": 2}, {"_id": "b", "n": 5}])
    out = rows(db, "doubled", ddoc="m")
    assert [(r["id"], r["key"]) for r in out["rows"]] == [("a", 4), ("b", 10)]


def test_a_map_function_past_os_process_timeout(db, client):
    """A map function that runs past [couchdb] os_process_timeout fails the query with
    500 os_process_error (CouchDB 3.4.3: "OS process timed out."); other views of the
    database still answer. (CouchDB's query server reads the timeout when it starts, so
    there it may take the default 5 s.)"""
    timeout_url = client.url("_node", "_local", "_config", "couchdb", "os_process_timeout")
    assert_status(client.put(timeout_url, data='"500"'), 200)
    try:
        put_doc(db, "_design/loop", {"views": {"v": {"map": "function(doc) { while (true) {} }"}}})
        put_doc(db, "_design/fine", {"views": {"v": {"map": "function(doc) { emit(doc._id, null); }"}}})
        put_doc(db, "a", {})
        assert_error(view(db, "v", ddoc="loop"), 500, "os_process_error")
        assert [r["id"] for r in rows(db, "v", ddoc="fine")["rows"]] == ["a"]
    finally:
        client.delete(timeout_url)


def test_reduce_overflow_error(db):
    """`[query_server_config] reduce_limit` (true by default): a JavaScript reduce whose
    output is over 4096 characters and more than half its input is an error row
    (share/server/views.js runReduce; input: the query-server line less the source)."""
    put_doc(db, "a", {})
    source = ("function(keys, values, rereduce) { var out = [];"
              " for (var i = 0; i < 500; i++) out.push('xxxxxxxxxx' + i); return out; }")
    put_doc(db, "_design/big", {"views": {"v": {"map": "function(doc) { emit(doc._id, 1); }", "reduce": source}}})
    out = body_of(assert_status(db.client.get(db.url("_design/big", "_view", "v")), 200))
    assert out["rows"] == [{"key": None, "error": "reduce_overflow_error",
                            "reason": "Reduce output must shrink more rapidly: input size: 31 output size: 7893"}]


def test_query_parse_errors(vdb):
    """couch_mrview_http:parse_params and couch_mrview_util:determine_group_level/1."""
    assert_error(view(vdb, "by_n", {"stale": "maybe"}), 400, "query_parse_error", "Invalid value for `stale`.")
    assert_error(view(vdb, "by_n", {"group": False, "group_level": 1}), 400, "query_parse_error",
                 "Can't specify group=false and group_level>0 at the same time")
    assert_error(view(vdb, "by_n", {"update": "maybe"}), 400, "query_parse_error", "Invalid value for `update`.")
    assert_error(view(vdb, "by_n", {"skip": -1}), 400, "query_parse_error", 'Invalid value for positive integer: "-1"')
    assert_status(view(vdb, "by_n", {"stale": "ok"}), 200)


def test_reduce_answers_update_seq_and_request_errors(vdb):
    """A reduce answer carries `update_seq` when asked; the key-range and `queries`
    errors name what to change (couch_mrview_util:validate_args/1, chttpd_db)."""
    reduced = rows(vdb, "by_n", {"update_seq": True})
    assert list(reduced) == ["update_seq", "rows"]
    assert_error(view(vdb, "by_n", {"descending": True, "startkey": 1, "endkey": 2}), 400, "query_parse_error",
                 "No rows can match your key range, reverse your start_key and end_key or set descending=false")
    assert_error(view(vdb, "by_n", {"startkey": 2, "endkey": 1}), 400, "query_parse_error",
                 "No rows can match your key range, reverse your start_key and end_key or set descending=true")
    r = vdb.client.post(vdb.url("_design/d", "_view", "by_n", "queries"), json={"q": []})
    assert_error(r, 400, "bad_request", "POST body must include `queries` parameter.")
    r = vdb.client.post(vdb.url("_compact", "d"), data="{}", headers={"Content-Type": "text/plain"})
    assert_error(r, 415, "bad_content_type", "Content-Type must be application/json")


def test_post_body_parameters_are_decoded_values(vdb):
    """view_errors_test.exs neighbourhood: a POST body's view parameters are read as decoded
    JSON by couch_mrview_http:parse_param/4: a count must be a JSON integer (`"1"` is refused,
    the reason printing the value as Erlang does, `<<"1">>`), a boolean may be `true` or a
    string spelling it; a `keys` in the query string that is no list is query_parse_error."""
    for body, reason in (({"limit": "1"}, 'Invalid value for integer: <<"1">>'),
                         ({"limit": -1}, "Invalid value for positive integer: -1"),
                         ({"skip": 1.5}, "Invalid value for integer: 1.5"),
                         ({"group_level": "1"}, 'Invalid value for integer: <<"1">>')):
        assert_error(view(vdb, "by_n", body=body), 400, "query_parse_error", reason)
    body = rows(vdb, "by_n", body={"reduce": "false", "limit": 1})
    assert len(body["rows"]) == 1 and "id" in body["rows"][0]
    body = rows(vdb, "by_n", body={"group": "true"})
    assert len(body["rows"]) > 1
    assert_error(vdb.client.get(vdb.url("_design/d", "_view", "by_n"), params={"keys": "1"}), 400,
                 "query_parse_error", "`keys` must be an array of strings.")
    assert_error(view(vdb, "by_n", body={"keys": 1}), 400, "bad_request", "`keys` member must be an array.")


def test_temporary_views_are_gone(client, db):
    """view_errors_test.exs "temporary view should give error message": /{db}/_temp_view is
    410 gone for any method (chttpd_view:handle_temp_view_req/2)."""
    for method in ("POST", "GET"):
        r = client.request(method, db.url("_temp_view"), json={"map": "function(doc){emit(doc.integer)}"})
        assert_error(r, 410, "gone", "Temporary views are not supported in CouchDB")


def test_group_level_zero_is_one_row(vdb):
    """reduce_builtin_test.exs neighbourhood: couch_mrview_util:determine_group_level/1 lets a
    given `group_level` decide, and 0 reduces everything to one row keyed null, even with
    group=true (API Reference › Design Documents › Views: group_level)."""
    whole = rows(vdb, "by_n")["rows"]
    assert len(whole) == 1
    for params in ({"group_level": 0}, {"group": True, "group_level": 0}):
        assert rows(vdb, "by_n", params)["rows"] == [{"key": None, "value": whole[0]["value"]}]


def test_queries_take_the_query_string_under_their_own(vdb):
    """view_multi_key_design_test.exs neighbourhood: POST .../_view/{view}/queries parses the
    query string, then each query over it (chttpd_view:multi_query_view/5): `?limit=1` limits
    every query but one naming its own limit."""
    r = vdb.client.post(vdb.url("_design/d", "_view", "by_n", "queries"), params={"limit": "1", "reduce": "false"},
                        json={"queries": [{}, {"limit": 3}]})
    results = body_of(assert_status(r, 200))["results"]
    assert [len(result["rows"]) for result in results] == [1, 3]


def test_update_seq_is_the_index_sequence(client, db):
    """view_update_seq_test.exs "view update seq": a view's `update_seq` is the sequence its
    index has caught up to (couch_mrview's view state), not the database's: with stale=ok
    after a write, rows without that write come with the sequence before it, for map and
    reduce views alike. (CouchDB may build the index in the background meanwhile, so the
    check is that the sequence and the rows agree.)"""
    put_doc(db, "_design/test", {"autoupdate": False, "views": {
        "all_docs": {"map": "function(doc) { emit(doc.integer, doc.string) }"},
        "summate": {"map": "function(doc) { if (typeof doc.integer === 'number') emit(doc.integer, doc.integer); }",
                    "reduce": "_sum"}}})
    bulk_docs(db, [{"_id": str(i), "integer": i, "string": str(i)} for i in range(100)])
    built = {name: body_of(assert_status(view(db, name, {"update_seq": True}, ddoc="test"), 200))["update_seq"]
             for name in ("all_docs", "summate")}
    put_doc(db, "A", {"integer": 1})
    stale = body_of(assert_status(view(db, "all_docs", {"update_seq": True, "stale": "ok"}, ddoc="test"), 200))
    assert (stale["total_rows"] == 100) == (stale["update_seq"] == built["all_docs"])
    stale = body_of(assert_status(view(db, "summate", {"update_seq": True, "stale": "ok"}, ddoc="test"), 200))
    assert (stale["rows"][0]["value"] == 4950) == (stale["update_seq"] == built["summate"])
    fresh = body_of(assert_status(view(db, "all_docs", {"update_seq": True}, ddoc="test"), 200))
    assert fresh["total_rows"] == 101 and fresh["update_seq"] != built["all_docs"]


def test_descending_reverses_the_keys_of_a_map_query(vdb):
    """view_multi_key_design_test.exs "dir descending works": fabric_view_map reverses `keys`
    for a descending map query, so the last key's rows come first; a grouped reduce keeps
    the keys' order."""
    body = rows(vdb, "by_n", {"reduce": False, "descending": True}, body={"keys": [1, 3]})
    assert [row["key"] for row in body["rows"]] == [3, 1]
    body = rows(vdb, "by_n", {"group": True, "descending": True}, body={"keys": [1, 3]})
    assert [row["key"] for row in body["rows"]] == [1, 3]
