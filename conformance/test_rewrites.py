"""/{db}/_design/{ddoc}/_rewrite/{path}: deprecated in CouchDB 3, still served by 3.4.3.
CouchDB docs: API Reference › Design Documents › /db/_design/design-doc/_rewrite/path
and Design Documents › Rewrite Functions (the array of rules and the JavaScript form);
shapes of CouchDB 3.4's chttpd_rewrite.erl (binding, query order, `*`, `..` limits,
`[chttpd] secure_rewrites`, `rewrite_limit` 100) and couch_query_servers:rewrite/3."""

import pytest

from couch import assert_error, assert_status, body_of, put_doc

SHOW = "function(doc, req) { return {json: {id: doc && doc._id, q: req.query}}; }"


@pytest.fixture
def rwdb(db):
    put_doc(db, "a", {"n": 1})
    put_doc(db, "b", {"n": 2})
    put_doc(db, "_design/r", {
        "shows": {"s": SHOW},
        "views": {"v": {"map": "function(doc) { emit(doc.n, null); }"}},
        "rewrites": [
            {"from": "/doc/:id", "to": "../../:id"},
            {"from": "/show/:id", "to": "_show/s/:id", "query": {"x": "1", "k": ":id"}},
            {"from": "/all", "to": "../../_all_docs"},
            {"from": "/view/:n", "to": "_view/v", "query": {"key": ":n"}, "formats": {"n": "int"}},
            {"from": "/star/*", "to": "_show/s/*"},
            {"from": "/meth", "to": "../../a", "method": "GET"},
            {"from": "/loop", "to": "_rewrite/loop"},
            {"from": "", "to": "_show/s"},
        ]})
    return db


def rewrite(db, path, ddoc="r", method="GET", **kw):
    return db.client.request(method, db.url("_design/" + ddoc, "_rewrite") + path, **kw)


def test_rules_bind_paths_and_queries(rwdb):
    doc = body_of(assert_status(rewrite(rwdb, "/doc/a"), 200))
    assert (doc["_id"], doc["n"]) == ("a", 1)
    shown = body_of(assert_status(rewrite(rwdb, "/show/a", params={"y": "2"}), 200))
    # The rule's query in its order, the request's, then the bindings it does not name.
    assert shown["id"] == "a"
    assert list(shown["q"].items()) == [("x", "1"), ("k", "a"), ("y", "2"), ("id", "a")]
    rows = body_of(assert_status(rewrite(rwdb, "/all"), 200))["rows"]
    assert [row["id"] for row in rows] == ["_design/r", "a", "b"]
    view = body_of(assert_status(rewrite(rwdb, "/view/2"), 200))
    assert [row["id"] for row in view["rows"]] == ["b"]
    assert body_of(assert_status(rewrite(rwdb, "/star/b"), 200))["id"] == "b"
    assert body_of(assert_status(rewrite(rwdb, ""), 200)) == {"id": None, "q": {}}
    assert body_of(assert_status(rewrite(rwdb, "/"), 200)) == {"id": None, "q": {}}


def test_method_rules_no_match_and_loops(rwdb):
    assert body_of(assert_status(rewrite(rwdb, "/meth"), 200))["_id"] == "a"
    assert_error(rewrite(rwdb, "/meth", method="PUT", json={}), 404, "not_found", "missing")
    assert_error(rewrite(rwdb, "/nothing/here"), 404, "not_found", "missing")
    assert_error(rewrite(rwdb, "/loop"), 400, "bad_request", "Exceeded rewrite recursion limit")


def test_insecure_rules_and_design_documents_without_rewrites(db):
    put_doc(db, "_design/up", {"rewrites": [{"from": "/up", "to": "../../../"}, {"from": "x", "to": "../../a"}]})
    assert_error(rewrite(db, "/x", ddoc="up"), 500, "insecure_rewrite_rule", "too many ../.. segments")
    put_doc(db, "_design/none", {})
    assert_error(rewrite(db, "/x", ddoc="none"), 404, "rewrite_error", "Invalid path.")
    assert_error(rewrite(db, "/x", ddoc="missing"), 404, "not_found", "missing")


def test_javascript_rewrite_function(db):
    put_doc(db, "b", {})
    put_doc(db, "_design/js", {
        "shows": {"s": SHOW},
        "rewrites": ("function(req) {"
                     " if (req.path[4] == 'loop') return {path: '_rewrite/loop'};"
                     " if (req.path[4] == 'code') return {code: 418, body: 'teapot'};"
                     " if (req.path[4] == 'str') return '_show/s/b';"
                     " if (req.path[4] == 'none') return null;"
                     " return {path: '_show/s/' + (req.path[4] || 'none'), query: {z: 'q'}, method: 'GET'}; }")})
    assert body_of(assert_status(rewrite(db, "/b", ddoc="js", params={"w": "1"}), 200)) == {"id": "b", "q": {"z": "q"}}
    assert body_of(assert_status(rewrite(db, "/str", ddoc="js"), 200)) == {"id": "b", "q": {}}
    teapot = rewrite(db, "/code", ddoc="js")
    assert (teapot.status_code, teapot.text) == (418, "teapot")
    assert_error(rewrite(db, "/loop", ddoc="js"), 400, "bad_request", "Exceeded rewrite recursion limit")
    assert_error(rewrite(db, "/none", ddoc="js"), 404, "rewrite_error", "Invalid path.")


def test_design_handler_paths_without_names(rwdb):
    """couch_mrview_show's and chttpd_db's answers to a handler's bare name."""
    assert_error(rwdb.client.get(rwdb.url("_design/r", "_show")), 404, "show_error", "Invalid path.")
    assert_error(rwdb.client.put(rwdb.url("_design/r", "_update")), 404, "update_error", "Invalid path.")
    assert_error(rwdb.client.get(rwdb.url("_design/r", "_list")), 404, "list_error", "Invalid path.")
    assert_error(rwdb.client.get(rwdb.url("_design/r", "_list", "l", "a", "b", "c")), 404, "list_error", "Invalid path.")
    assert_error(rwdb.client.get(rwdb.url("_design/r", "_view")), 405, "method_not_allowed")
    assert_error(rwdb.client.get(rwdb.url("_design/r", "_foo")), 404, "not_found", "Document is missing attachment")
