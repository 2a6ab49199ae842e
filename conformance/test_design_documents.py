"""Design documents as CouchDB 3.4.3 checks them when saved and answers them when their
language is not JavaScript. CouchDB docs: Design Documents (the members and their types),
Query Servers (`language`); shapes of CouchDB 3.4's couch_mrview:validate_ddoc_fields/1
("`views.v.map` field must have string type", checked in its table's order, even in a
deletion's body), couch_mrview:require_map_function_for_views/1 and
couch_query_servers:get_os_process/1 (500 `unknown_query_language` naming the language)."""

import uuid

import pytest

from couch import assert_error, assert_status, put_doc

REFUSED = [
    ({"language": 5}, "`language` field must have string type"),
    ({"filters": []}, "`filters` field must have object type"),
    ({"filters": {"f": 5}}, "`filters.f` field must have string or object type"),
    ({"lists": {"l": True}}, "`lists.l` field must have string or object type"),
    ({"options": "x"}, "`options` field must have object type"),
    ({"options": {"include_design": "yes"}}, "`options.include_design` field must have boolean type"),
    ({"options": {"local_seq": 1}}, "`options.local_seq` field must have boolean type"),
    ({"rewrites": {}}, "`rewrites` field must have array or string type"),
    ({"shows": {"s": 1}}, "`shows.s` field must have string or object type"),
    ({"updates": "x"}, "`updates` field must have object type"),
    ({"validate_doc_update": 5}, "`validate_doc_update` field must have string type"),
    ({"views": []}, "`views` field must have object type"),
    ({"views": {"lib": "x"}}, "`views.lib` field must have object type"),
    ({"views": {"v": "x"}}, "`views.v` field must have object type"),
    ({"views": {"v": {"map": 5}}}, "`views.v.map` field must have string type"),
    ({"views": {"v": {"map": "function(doc) {}", "reduce": 5}}}, "`views.v.reduce` field must have string type"),
    ({"views": {"v": {"reduce": "_count"}}}, "View `v` must contain map function"),
    ({"language": "query", "views": {"v": {"map": "x"}}}, "`views.v.map` field must have object type"),
    ({"language": "python", "views": {"v": {"map": 5}}}, "`views.v.map` field must have string type"),
    ({"_deleted": True, "language": 5}, "`language` field must have string type"),
]


@pytest.mark.parametrize("body,reason", REFUSED, ids=[r for _, r in REFUSED])
def test_member_types_checked_when_saved(db, body, reason):
    r = db.client.put(db.url("_design/x" + uuid.uuid4().hex[:6]), json=body)
    assert_error(r, 400, "invalid_design_doc", reason)


def test_another_language_is_saved_and_answered_unknown(db):
    put_doc(db, "a", {})
    put_doc(db, "_design/p", {"language": "python", "views": {"v": {"map": "def f(doc): yield 1, None"}},
                              "shows": {"s": "x"}, "lists": {"l": "x"}, "updates": {"u": "x"}})
    for r in [db.client.get(db.url("_design/p", "_view", "v")),
              db.client.get(db.url("_design/p", "_show", "s", "a")),
              db.client.get(db.url("_design/p", "_list", "l", "v")),
              db.client.put(db.url("_design/p", "_update", "u", "a"))]:
        assert_error(r, 500, "unknown_query_language", "python")
    assert_error(db.client.get(db.url("_design/p", "_view", "nope")), 404, "not_found", "missing_named_view")
    # JavaScript design documents beside it keep working.
    put_doc(db, "_design/js", {"views": {"v": {"map": "function(doc) { emit(doc._id, null); }"}}})
    rows = assert_status(db.client.get(db.url("_design/js", "_view", "v")), 200).json()["rows"]
    assert [row["id"] for row in rows] == ["a"]


def test_another_languages_validate_doc_update_refuses_every_write(db):
    put_doc(db, "_design/q", {"language": "python", "validate_doc_update": "def validate(*args): pass"})
    assert_error(db.client.put(db.url("c"), json={}), 500, "unknown_query_language", "python")


def test_paths_under_an_escaped_design_id_are_redirected(client, db):
    """design_paths_test.exs: GET /{db}/_design%2F{name}/... is 301 to the unescaped path for
    anything under it, a view or _info as much as the document (chttpd_db:db_req/2)."""
    assert_status(client.put(db.url("_design/test"), json={"views": {"v": {"map": "function(doc){emit(1,1)}"}}}), 201)
    base = client.url(db.name)
    for tail in ("/_design%2Ftest/_view/v?limit=1", "/_design%2Ftest/_info"):
        r = client.get(base + tail, allow_redirects=False)
        assert_status(r, 301)
        assert r.headers["Location"].endswith("/" + db.name + tail.replace("%2F", "/"))
