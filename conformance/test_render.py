"""Show, list and update functions: /{db}/_design/{ddoc}/_show/..., _list/..., _update/...
CouchDB docs: API Reference › Design Documents (/db/_design/design-doc/_show/show-name,
_list/list-name/view-name, _update/update-name), Query Server › Protocol (shows, lists,
updates) and Design Documents › Show/List/Update Functions; shapes of CouchDB 3.4's
couch_mrview_show.erl, chttpd_external.erl (the request object, response objects) and
share/server/render.js (provides, start/send/getRow). Deprecated in CouchDB 3, still on."""

import json
import re

import pytest

from couch import assert_error, assert_status, body_of, bulk_docs, get_doc, make_conflict, put_doc

DDOC = {
    "lib": {"greet": "exports.hi = function(name) { return 'hi ' + name; };"},
    "shows": {
        "text": "function(doc, req) { return 'hello ' + (doc ? doc._id : 'nobody'); }",
        "full": "function(doc, req) { return {code: 202, headers: {'X-Show': 'yes'}, body: 'b'}; }",
        "json": "function(doc, req) { return {json: {doc: doc, req: req}}; }",
        "bytes": "function(doc, req) { return {base64: 'aGVsbG8='}; }",
        "this": "function(doc, req) { return this._id + ' ' + require('lib/greet').hi('there'); }",
        "throws": "function(doc, req) { throw new Error('boom'); }",
        "number": "function(doc, req) { return 42; }",
        "provides": ("function(doc, req) {"
                     " provides('html', function() { return '<p>html</p>'; });"
                     " provides('text', function() { return 'plain'; }); }"),
    },
    "updates": {
        "count": ("function(doc, req) {"
                  " if (!doc) return [{_id: req.id || req.uuid, n: 1}, 'created'];"
                  " doc.n += 1; return [doc, {json: {n: doc.n}}]; }"),
        "nothing": "function(doc, req) { return [null, 'nothing saved']; }",
        "echo": "function(doc, req) { return [{_id: req.id, body: req.body, form: req.form}, {code: 200, body: 'ok'}]; }",
        "noid": "function(doc, req) { return [{a: 1}, 'ok']; }",
        "stale": "function(doc, req) { return [{_id: req.id, _rev: '1-00000000000000000000000000000000'}, 'ok']; }",
        "number": "function(doc, req) { return [null, 42]; }",
    },
    "views": {
        "by_n": {"map": "function(doc) { if (doc.n) emit(doc.n, doc._id); }", "reduce": "_count"},
    },
    "lists": {
        "rows": ("function(head, req) {"
                 " start({headers: {'Content-Type': 'text/plain'}});"
                 " send('head ' + JSON.stringify(head) + '\\n'); var row;"
                 " while (row = getRow()) { send(JSON.stringify(row) + '\\n'); }"
                 " return 'tail'; }"),
        "count": "function(head, req) { var n = 0; while (getRow()) n++; return 'rows ' + n; }",
        "code": "function(head, req) { start({code: 203, headers: {'X-List': '1'}}); return 'x'; }",
        "throws": "function(head, req) { throw new Error('boom'); }",
    },
}


@pytest.fixture
def rdb(db):
    put_doc(db, "_design/r", DDOC)
    bulk_docs(db, [{"_id": "a", "n": 1}, {"_id": "b", "n": 2}, {"_id": "c", "n": 3}])
    return db


def fn(db, kind, *parts):
    return db.url("_design/r", "_" + kind, *parts)


# MARK: shows

def test_show_string_is_html(rdb):
    """A string answer is the body, text/html; charset=utf-8; the document is null
    without an id or when the id is missing (couch_mrview_show:handle_doc_show_req)."""
    r = assert_status(rdb.client.get(fn(rdb, "show", "text", "a")), 200)
    assert r.text == "hello a"
    assert r.headers["Content-Type"] == "text/html; charset=utf-8"
    assert r.headers["Vary"] == "Accept" and r.headers["ETag"]
    assert r.headers["Content-Security-Policy"] == "sandbox"  # [csp] showlist_enable
    assert assert_status(rdb.client.get(fn(rdb, "show", "text")), 200).text == "hello nobody"
    assert assert_status(rdb.client.get(fn(rdb, "show", "text", "missing")), 200).text == "hello nobody"


def test_show_response_object(rdb):
    """{code, headers, body}, {json} and {base64} (chttpd_external:parse_external_response)."""
    r = assert_status(rdb.client.get(fn(rdb, "show", "full")), 202)
    assert r.headers["X-Show"] == "yes" and r.text == "b"
    r = assert_status(rdb.client.get(fn(rdb, "show", "bytes")), 200)
    assert r.headers["Content-Type"] == "application/binary" and r.content == b"hello"
    r = assert_status(rdb.client.get(fn(rdb, "show", "json", "a")), 200)
    assert r.headers["Content-Type"].startswith("application/json")
    doc = r.json()["doc"]
    assert doc["_id"] == "a" and doc["n"] == 1
    # couch_query_servers:json_doc: the document carries its _revisions.
    assert doc["_revisions"]["start"] == 1 and doc["_revisions"]["ids"] == [doc["_rev"].split("-")[1]]


def test_show_document_has_conflicts(rdb):
    """The document is opened with `conflicts` (maybe_open_doc)."""
    make_conflict(rdb, "x")
    doc = body_of(assert_status(rdb.client.get(fn(rdb, "show", "json", "x")), 200))["doc"]
    assert len(doc["_conflicts"]) == 1


def test_show_this_and_require(rdb):
    """Functions run with the design document as `this` and `require` CommonJS modules from it."""
    assert assert_status(rdb.client.get(fn(rdb, "show", "this")), 200).text == "_design/r hi there"


def test_show_request_object(rdb):
    """The request object (chttpd_external:json_req_obj): key/startkey/endkey/descending
    parsed as JSON, the rest strings; body "undefined" without one; credentials scrubbed."""
    r = rdb.client.get(fn(rdb, "show", "json", "a"), params={"key": '["k", 1]', "descending": "true", "x": "1"},
                       headers={"X-Custom": "yes"})
    req = body_of(assert_status(r, 200))["req"]
    assert req["query"] == {"key": ["k", 1], "descending": True, "x": "1"}
    assert req["method"] == "GET" and req["id"] == "a" and req["body"] == "undefined"
    assert req["path"] == [rdb.name, "_design", "r", "_show", "json", "a"]
    assert req["raw_path"].startswith("/" + rdb.name + "/_design/r/_show/json/a?")
    assert req["headers"]["X-Custom"] == "yes"
    assert "Authorization" not in req["headers"] and req["cookie"] == {}
    assert req["info"]["db_name"] == rdb.name
    assert re.fullmatch(r"[0-9a-f]{32}", req["uuid"])
    assert req["userCtx"]["db"] == rdb.name and "name" in req["userCtx"] and "roles" in req["userCtx"]
    assert isinstance(req["secObj"], dict) and req["form"] == {}


def test_show_post_form(rdb):
    """A url-encoded POST body is parsed into `form` (Content-Type application/x-www-form-urlencoded)."""
    r = rdb.client.post(fn(rdb, "show", "json"), data="x=1&y=two+words",
                        headers={"Content-Type": "application/x-www-form-urlencoded"})
    req = body_of(assert_status(r, 200))["req"]
    assert req["method"] == "POST" and req["body"] == "x=1&y=two+words"
    assert req["form"] == {"x": "1", "y": "two words"}


def test_show_post_form_empty_names(rdb):
    """mochiweb_util:parse_qs, which fills `form`: "=" is the name "" with the value "", a
    name without "=" has the value "", and empty pairs are skipped (fuzz/api.py found
    Settee trapping on "=")."""
    r = rdb.client.post(fn(rdb, "show", "json"), data=b"=&a=1&&b&=x",
                        headers={"Content-Type": "application/x-www-form-urlencoded"})
    req = body_of(assert_status(r, 200))["req"]
    assert req["form"] == {"": "x", "a": "1", "b": ""}


def test_show_etag_not_modified(rdb):
    """chttpd:etag_respond: If-None-Match with the show's ETag is 304."""
    etag = assert_status(rdb.client.get(fn(rdb, "show", "text", "a")), 200).headers["ETag"]
    assert_status(rdb.client.get(fn(rdb, "show", "text", "a"), headers={"If-None-Match": etag}), 304)
    doc = get_doc(rdb, "a")
    put_doc(rdb, "a", {"n": 10, "_rev": doc["_rev"]})
    r = assert_status(rdb.client.get(fn(rdb, "show", "text", "a"), headers={"If-None-Match": etag}), 200)
    assert r.headers["ETag"] != etag


def test_show_provides(rdb):
    """provides() picks by `format` or Accept (render.js Mime.runProvides); none acceptable is 406."""
    r = assert_status(rdb.client.get(fn(rdb, "show", "provides"), headers={"Accept": "text/html"}), 200)
    assert r.text == "<p>html</p>" and r.headers["Content-Type"] == "text/html; charset=utf-8"
    r = assert_status(rdb.client.get(fn(rdb, "show", "provides"), headers={"Accept": "text/plain"}), 200)
    assert r.text == "plain" and r.headers["Content-Type"] == "text/plain; charset=utf-8"
    r = assert_status(rdb.client.get(fn(rdb, "show", "provides"), params={"format": "text"}), 200)
    assert r.text == "plain"
    assert_error(rdb.client.get(fn(rdb, "show", "provides"), headers={"Accept": "image/png"}), 406, "not_acceptable")


def test_show_errors(rdb):
    """A missing function is 404 "missing json key"; a throw is 500 render_error, or 404
    "document not found" when the id named a missing document; a number is render_error."""
    assert_error(rdb.client.get(fn(rdb, "show", "nosuch")), 404, "not_found", "missing json key: nosuch")
    assert_error(rdb.client.get(fn(rdb, "show", "throws", "a")), 500, "render_error")
    assert_error(rdb.client.get(fn(rdb, "show", "throws")), 500, "render_error")
    assert_error(rdb.client.get(fn(rdb, "show", "throws", "missing")), 404, "not_found", "document not found")
    assert_error(rdb.client.get(fn(rdb, "show", "number")), 500, "render_error",
                 "undefined response from show function")
    assert_error(rdb.client.get(rdb.url("_design/none", "_show", "text")), 404, "not_found")


# MARK: updates

def test_update_creates_and_changes(rdb):
    """A returned document is saved: 201 with X-Couch-Id and X-Couch-Update-NewRev
    (couch_mrview_show:send_doc_update_response); the function gets the stored one next time."""
    r = assert_status(rdb.client.put(fn(rdb, "update", "count", "new")), 201)
    assert r.text == "created" and r.headers["X-Couch-Id"] == "new"
    assert get_doc(rdb, "new")["_rev"] == r.headers["X-Couch-Update-NewRev"]
    r = assert_status(rdb.client.post(fn(rdb, "update", "count", "new")), 201)
    assert r.json() == {"n": 2}
    doc = get_doc(rdb, "new")
    assert doc["n"] == 2 and doc["_rev"] == r.headers["X-Couch-Update-NewRev"] and doc["_rev"].startswith("2-")
    r = assert_status(rdb.client.post(fn(rdb, "update", "count")), 201)
    assert re.fullmatch(r"[0-9a-f]{32}", r.headers["X-Couch-Id"])


def test_update_null_saves_nothing(rdb):
    """[null, response] is a 200 with no document written."""
    before = body_of(rdb.client.get(rdb.url()))["doc_count"]
    r = assert_status(rdb.client.post(fn(rdb, "update", "nothing")), 200)
    assert r.text == "nothing saved" and "X-Couch-Id" not in r.headers
    assert body_of(rdb.client.get(rdb.url()))["doc_count"] == before


def test_update_request_body_and_code(rdb):
    """The body reaches the function as text and as a form; the response's code wins over 201."""
    r = rdb.client.post(fn(rdb, "update", "echo", "e1"), data="a=1&b=2",
                        headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert_status(r, 200)
    doc = get_doc(rdb, "e1")
    assert doc["body"] == "a=1&b=2" and doc["form"] == {"a": "1", "b": "2"}
    assert r.headers["X-Couch-Update-NewRev"] == doc["_rev"]


def test_update_errors(rdb):
    """GET is 405 (render.js runUpdate); no _id is 400 illegal_docid; a stale _rev is 409;
    a response that is neither object nor string is 500 render_error; a missing function 404."""
    assert_error(rdb.client.get(fn(rdb, "update", "count", "a")), 405, "method_not_allowed")
    assert_error(rdb.client.post(fn(rdb, "update", "noid")), 400, "illegal_docid")
    assert_error(rdb.client.post(fn(rdb, "update", "stale", "a")), 409, "conflict")
    assert_error(rdb.client.post(fn(rdb, "update", "number")), 500, "render_error",
                 "undefined response from update function")
    assert_error(rdb.client.post(fn(rdb, "update", "nosuch")), 404, "not_found", "missing json key: nosuch")


def test_update_passes_validate_doc_update(rdb):
    """A document an update function returns is written as any write: validate_doc_update runs."""
    put_doc(rdb, "_design/guard", {"validate_doc_update":
                                   "function(doc) { if (doc.n > 5) throw({forbidden: 'too big'}); }"})
    for _ in range(2):  # c has n = 3
        assert_status(rdb.client.post(fn(rdb, "update", "count", "c")), 201)
    assert_error(rdb.client.post(fn(rdb, "update", "count", "c")), 403, "forbidden", "too big")
    assert get_doc(rdb, "c")["n"] == 5


# MARK: lists

def test_list_rows(rdb):
    """getRow() hands out the view's rows (id, key, value); head has total_rows and offset;
    start() sets the headers; the return value is the last chunk."""
    r = assert_status(rdb.client.get(fn(rdb, "list", "rows", "by_n"), params={"reduce": "false", "skip": "1"}), 200)
    assert r.headers["Content-Type"] == "text/plain"
    lines = r.text.split("\n")
    assert lines[0] == 'head {"total_rows":3,"offset":1}'
    assert [eval_row(line) for line in lines[1:3]] == [{"id": "b", "key": 2, "value": "b"},
                                                      {"id": "c", "key": 3, "value": "c"}]
    assert lines[3] == "tail"


def eval_row(line):
    return json.loads(line)


def test_list_reduced_and_grouped(rdb):
    """A reduce view's rows are {key, value} and its head is {}."""
    r = assert_status(rdb.client.get(fn(rdb, "list", "rows", "by_n")), 200)
    assert r.text == 'head {}\n{"key":null,"value":3}\ntail'
    r = assert_status(rdb.client.get(fn(rdb, "list", "count", "by_n"), params={"group": "true"}), 200)
    assert r.text == "rows 3"
    assert r.headers["Content-Type"].startswith("application/json")  # no start(): CouchDB's default


def test_list_include_docs_keys_and_other_ddoc(rdb):
    """include_docs rows carry `doc`; POST {"keys"}; a view of another design document
    (_list/{list}/{ddoc}/{view}); _all_docs."""
    put_doc(rdb, "_design/other", {"views": {"ids": {"map": "function(doc) { if (doc.n) emit(doc._id, null); }"}}})
    r = assert_status(rdb.client.get(fn(rdb, "list", "rows", "other", "ids"), params={"include_docs": "true"}), 200)
    rows = [eval_row(line) for line in r.text.split("\n")[1:-1]]
    assert [row["doc"]["n"] for row in rows] == [1, 2, 3]
    r = assert_status(rdb.client.post(fn(rdb, "list", "count", "by_n"), params={"reduce": "false"},
                                      json={"keys": [3, 1]}), 200)
    assert r.text == "rows 2"
    r = assert_status(rdb.client.get(fn(rdb, "list", "count", "_all_docs")), 200)
    assert r.text == "rows 5"  # three documents and two design documents


def test_list_code_and_errors(rdb):
    """start({code, headers}); a missing view 404 missing_named_view; a missing list 404;
    a throw 500 render_error."""
    r = assert_status(rdb.client.get(fn(rdb, "list", "code", "by_n"), params={"reduce": "false"}), 203)
    assert r.headers["X-List"] == "1" and r.text == "x"
    assert_error(rdb.client.get(fn(rdb, "list", "rows", "nosuch")), 404, "not_found", "missing_named_view")
    assert_error(rdb.client.get(fn(rdb, "list", "nosuch", "by_n")), 404, "not_found", "missing json key: nosuch")
    assert_error(rdb.client.get(fn(rdb, "list", "throws", "by_n")), 500, "render_error")
