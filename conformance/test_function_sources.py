"""Design document function sources as couchjs takes them. CouchDB docs: Design
Documents › View Functions, Show/Update/Validate functions; share/server/util.js
(compileFunction: the source is evaluated as a script, its value must be a function;
an empty source is "missing function") and couch_mrview:validate/2 (built-in reduces
matched by their beginning) at 3.4.3. Named function declarations are left out: CouchDB
with SpiderMonkey rewrites them into expressions, with QuickJS it refuses them."""

import pytest

from couch import assert_error, assert_status, body_of, put_doc

MAP = "function(doc) { emit(doc.n, 1); }"

FORMS = {
    "one_semicolon": MAP + ";",
    "several_semicolons": MAP + ";;\n",
    "leading_comments": "// by n\n/* map */ " + MAP,
    "trailing_comment": MAP + " // end",
    "whitespace": "\n\n  " + MAP + "  \n\n",
    "parenthesised": "(" + MAP + ")",
    "arrow": "(doc) => { emit(doc.n, 1); }",
}


@pytest.fixture
def one(db):
    put_doc(db, "a", {"n": 1})
    return db


@pytest.mark.parametrize("form", sorted(FORMS))
def test_map_sources_that_save_and_run(one, form):
    put_doc(one, "_design/f", {"views": {"v": {"map": FORMS[form]}}})
    out = body_of(assert_status(one.client.get(one.url("_design/f", "_view", "v")), 200))
    assert [(r["key"], r["value"]) for r in out["rows"]] == [(1, 1)]


def test_reduce_show_and_update_with_trailing_semicolons(one):
    put_doc(one, "_design/f", {
        "views": {"v": {"map": MAP + ";", "reduce": "function(keys, values, rereduce) { return sum(values); };"}},
        "shows": {"s": "function(doc, req) { return 'n is ' + doc.n; };"},
        "updates": {"u": "// bump\nfunction(doc, req) { doc.n += 1; return [doc, 'bumped']; };"},
    })
    out = body_of(assert_status(one.client.get(one.url("_design/f", "_view", "v")), 200))
    assert out["rows"] == [{"key": None, "value": 1}]
    assert assert_status(one.client.get(one.url("_design/f", "_show", "s", "a")), 200).text == "n is 1"
    assert assert_status(one.client.put(one.url("_design/f", "_update", "u", "a")), 201).text == "bumped"
    assert body_of(one.client.get(one.url("a")))["n"] == 2


@pytest.mark.parametrize("name", ["_sum  ", "_count\n", "_stats "])
def test_builtin_reduce_names_with_trailing_whitespace(one, name):
    """couch_mrview:validate/2 and couch_query_servers:builtin_reduce/4 match
    `<<"_sum", _/binary>>`: what follows the name does not matter."""
    put_doc(one, "_design/f", {"views": {"v": {"map": MAP, "reduce": name}}})
    out = body_of(assert_status(one.client.get(one.url("_design/f", "_view", "v")), 200))
    assert len(out["rows"]) == 1


def test_sources_couchdb_refuses(db):
    """Not a function: 400 compilation_error "Expression does not eval to a function.";
    an empty source: 404 not_found "missing function"; a syntax error: 400."""
    r = db.client.put(db.url("_design/f"), json={"views": {"v": {"map": "42"}}})
    assert_error(r, 400, "compilation_error")
    assert "Expression does not eval to a function." in body_of(r)["reason"]
    assert_error(db.client.put(db.url("_design/f"), json={"views": {"v": {"map": ""}}}), 404, "not_found",
                 "missing function")
    assert_error(db.client.put(db.url("_design/f"), json={"views": {"v": {"map": MAP[:-1]}}}), 400,
                 "compilation_error")


def test_several_anonymous_functions_the_last_wins(one):
    """couchjs evaluates the source as a script; with several anonymous functions one after
    another its value, the function used, is the last (CouchDB 3.4.3 with QuickJS)."""
    source = "function(doc) { emit('first', 1); } function(doc) { emit('second', 2); }"
    put_doc(one, "_design/f", {"views": {"v": {"map": source}}})
    rows = body_of(assert_status(one.client.get(one.url("_design/f", "_view", "v")), 200))["rows"]
    assert [(row["key"], row["value"]) for row in rows] == [("second", 2)]


def test_what_a_map_function_may_use(one):
    """CouchDB 3.4.3 does not take `eval` or `Function` away from map functions, and a map
    function has `require` (for `views.lib`) whether or not the design document has a lib."""
    put_doc(one, "_design/f", {"views": {
        "eval": {"map": "function(doc) { emit(doc._id, eval('1 + 1')); }"},
        "function": {"map": "function(doc) { emit(doc._id, (new Function('return 7'))()); }"},
        "require": {"map": "function(doc) { emit(doc._id, typeof require); }"}}})
    for name, value in [("eval", 2), ("function", 7), ("require", "function")]:
        rows = body_of(assert_status(one.client.get(one.url("_design/f", "_view", name)), 200))["rows"]
        assert [row["value"] for row in rows] == [value], name
