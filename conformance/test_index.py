"""/{db}/_index: list, create and delete Mango indexes. CouchDB docs: API Reference ›
Databases › /{db}/_index, /{db}/_index/_bulk_delete, /{db}/_index/{ddoc}/json/{name};
shapes of CouchDB 3.4's mango_httpd.erl and mango_idx_view.erl where the docs are silent."""

import pytest

from couch import assert_error, assert_status, body_of, bulk_docs, get_doc


def post_index(db, body, status=200):
    return body_of(assert_status(db.client.post(db.url("_index"), json=body), status))


def list_indexes(db, params=None):
    return body_of(assert_status(db.client.get(db.url("_index"), params=params), 200))


ALL_DOCS = {"ddoc": None, "name": "_all_docs", "type": "special", "def": {"fields": [{"_id": "asc"}]}}


def test_new_database_lists_all_docs(db):
    """Every database has the special _all_docs index."""
    assert list_indexes(db) == {"total_rows": 1, "indexes": [ALL_DOCS]}


def test_create_named_then_exists(db):
    """POST /{db}/_index: "created", then "exists" for the same definition."""
    body = {"index": {"fields": ["year"]}, "ddoc": "by-year", "name": "year"}
    assert post_index(db, body) == {"result": "created", "id": "_design/by-year", "name": "year"}
    assert post_index(db, body) == {"result": "exists", "id": "_design/by-year", "name": "year"}
    listed = list_indexes(db)
    assert listed["total_rows"] == 2
    assert listed["indexes"][1] == {"ddoc": "_design/by-year", "name": "year", "type": "json",
                                    "partitioned": False, "def": {"fields": [{"year": "asc"}]}}


def test_auto_name_is_ddoc_name(db):
    """Without ddoc and name, both are one generated name; the same definition
    gives the same name."""
    first = post_index(db, {"index": {"fields": ["a", "b"]}})
    assert first["id"] == "_design/" + first["name"]
    again = post_index(db, {"index": {"fields": ["a", "b"]}})
    assert again == dict(first, result="exists")


def test_index_is_a_query_design_document(db):
    """The index is stored as a view of a "language": "query" design document
    (so it replicates); its map holds the fields with directions."""
    post_index(db, {"index": {"fields": [{"n": "desc"}], "partial_filter_selector": {"n": {"$gt": 1}}},
                    "ddoc": "q", "name": "byn"})
    ddoc = get_doc(db, "_design/q")
    assert ddoc["language"] == "query"
    view = ddoc["views"]["byn"]
    assert view["map"] == {"fields": {"n": "desc"}, "partial_filter_selector": {"n": {"$gt": 1}}}
    assert view["reduce"] == "_count"
    assert view["options"]["def"]["fields"] == [{"n": "desc"}]
    listed = list_indexes(db)["indexes"][1]
    assert listed["def"] == {"fields": [{"n": "desc"}], "partial_filter_selector": {"n": {"$gt": 1}}}


def test_query_design_document_written_directly(db):
    """A "language": "query" design document written by hand (or replicated in)
    defines indexes that _find uses."""
    bulk_docs(db, [{"_id": "a", "k": 2}, {"_id": "b", "k": 1}])
    r = db.client.put(db.url("_design/hand"), json={"language": "query", "views": {"k": {
        "map": {"fields": {"k": "asc"}, "partial_filter_selector": {}}, "reduce": "_count",
        "options": {"def": {"fields": ["k"]}}}}})
    assert_status(r, 201)
    assert [i["name"] for i in list_indexes(db)["indexes"]] == ["_all_docs", "k"]
    out = body_of(assert_status(db.client.post(db.url("_find"), json={"selector": {"k": {"$gt": 0}},
                                                                       "sort": ["k"]}), 200))
    assert [d["_id"] for d in out["docs"]] == ["b", "a"]


def test_same_name_new_definition_replaces(db):
    """Posting another definition under an existing ddoc and name replaces it."""
    post_index(db, {"index": {"fields": ["a"]}, "ddoc": "d", "name": "n"})
    assert post_index(db, {"index": {"fields": ["b"]}, "ddoc": "d", "name": "n"})["result"] == "created"
    assert list_indexes(db)["indexes"][1]["def"] == {"fields": [{"b": "asc"}]}
    assert get_doc(db, "_design/d")["_rev"].startswith("2-")


def test_list_limit_and_skip(db):
    """GET /{db}/_index?limit=&skip= pages the list; total_rows counts all."""
    for name in ("a", "b", "c"):
        post_index(db, {"index": {"fields": [name]}, "ddoc": name, "name": name})
    out = list_indexes(db, {"limit": 2, "skip": 1})
    assert out["total_rows"] == 4
    assert [i["name"] for i in out["indexes"]] == ["a", "b"]


def test_list_parameters_separated_by_semicolons(db):
    """CouchDB's own Mango test helper asks `GET /{db}/_index?limit=2;`: mochiweb's
    parse_qs/1 takes `;` as a separator like `&` (HTML 4.01 B.2.2)."""
    for name in ("a", "b", "c"):
        post_index(db, {"index": {"fields": [name]}, "ddoc": name, "name": name})
    r = db.client.get(db.url("_index") + "?limit=2;")
    assert [i["name"] for i in body_of(assert_status(r, 200))["indexes"]] == ["_all_docs", "a"]
    r = db.client.get(db.url("_index") + "?limit=1;skip=2")
    assert [i["name"] for i in body_of(assert_status(r, 200))["indexes"]] == ["b"]


def test_delete_index(db):
    """DELETE /{db}/_index/{ddoc}/json/{name}: ok; the design document holding no
    other index is deleted; a second delete is 404."""
    post_index(db, {"index": {"fields": ["a"]}, "ddoc": "d", "name": "a"})
    post_index(db, {"index": {"fields": ["b"]}, "ddoc": "d", "name": "b"})
    assert body_of(assert_status(db.client.delete(db.url("_index", "d", "json", "a")), 200)) == {"ok": True}
    assert list(get_doc(db, "_design/d")["views"]) == ["b"]
    r = db.client.delete(db.url("_index", "_design", "d", "json", "b"))
    assert body_of(assert_status(r, 200)) == {"ok": True}
    assert_error(db.client.get(db.url("_design/d")), 404, "not_found")
    assert_error(db.client.delete(db.url("_index", "d", "json", "b")), 404, "not_found")
    assert list_indexes(db)["total_rows"] == 1


def test_delete_unknown_index(db):
    """404 for an index that does not exist, or the wrong type."""
    post_index(db, {"index": {"fields": ["a"]}, "ddoc": "d", "name": "a"})
    assert_error(db.client.delete(db.url("_index", "d", "json", "nope")), 404, "not_found")
    assert_error(db.client.delete(db.url("_index", "d", "text", "a")), 404, "not_found")


def test_bulk_delete(db):
    """POST /{db}/_index/_bulk_delete: per design document, success or fail."""
    post_index(db, {"index": {"fields": ["a"]}, "ddoc": "d", "name": "a"})
    r = db.client.post(db.url("_index", "_bulk_delete"), json={"docids": ["d", "_design/none"]})
    out = body_of(assert_status(r, 200))
    assert out == {"success": [{"id": "_design/d", "ok": True}],
                   "fail": [{"id": "_design/none", "error": "not_found"}]}


def test_deleted_index_no_longer_used(db):
    """After its index is deleted, a sort that needed it is refused again."""
    bulk_docs(db, [{"_id": "a", "k": 1}])
    post_index(db, {"index": {"fields": ["k"]}, "ddoc": "d", "name": "k"})
    body = {"selector": {"k": {"$gt": 0}}, "sort": ["k"]}
    assert_status(db.client.post(db.url("_find"), json=body), 200)
    assert_status(db.client.delete(db.url("_index", "d", "json", "k")), 200)
    assert_error(db.client.post(db.url("_find"), json=body), 400, "no_usable_index")


@pytest.mark.parametrize("body,error", [
    ({}, "missing_required_key"),
    ({"index": {}}, "missing_required_key"),
    ({"index": {"fields": "a"}}, "invalid_sort_json"),
    ({"index": {"fields": [1]}}, "invalid_sort_field"),
    ({"index": {"fields": [""]}}, "invalid_sort_field"),
    ({"index": {"fields": ["a"], "partial_filter_selector": {"$foo": 1}}}, "invalid_operator"),
    ({"index": {"fields": ["a"], "partial_filter_selector": 5}}, "invalid_selector_json"),
    ({"index": {"fields": [{"a": "up"}]}}, "invalid_sort_field"),
    ({"index": {"fields": ["a", {"b": "desc"}]}}, "unsupported_mixed_sort"),
    ({"index": {"fields": ["a"]}, "type": "foo"}, "invalid_index"),
    ({"index": {"fields": ["a"]}, "name": ""}, "invalid_empty_string"),
    ({"index": {"fields": ["a"]}, "ddoc": ""}, "invalid_empty_string"),
    ({"index": {"fields": ["a"]}, "name": 5}, "invalid_string"),
    ({"index": {"fields": ["a"]}, "foo": 5}, "invalid_key"),
    ({"index": {"fields": ["a"], "foo": 1}}, "invalid_key"),
])
def test_bad_index_definitions(db, body, error):
    """mango_opts:validate_idx_create/1 and mango_sort: 400 and CouchDB's error."""
    assert_error(db.client.post(db.url("_index"), json=body), 400, error)
    assert list_indexes(db)["total_rows"] == 1


def test_index_methods(db):
    """/_index takes GET and POST (405 otherwise); its POST body must be JSON (415)."""
    assert_error(db.client.put(db.url("_index"), json={}), 405, "method_not_allowed")
    r = db.client.post(db.url("_index"), data='{"index":{"fields":["a"]}}', headers={"Content-Type": "text/plain"})
    assert_error(r, 415, "bad_content_type")
