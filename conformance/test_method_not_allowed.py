"""A method a path does not take is 405 method_not_allowed, and both its `Allow` header
and its reason ("Only GET,HEAD allowed") list the methods in the words and order of the
CouchDB handler that answers: chttpd's send_method_not_allowed(Req, Methods) is called
with a literal list per handler (chttpd_misc, chttpd_db, chttpd_view, chttpd_node,
chttpd_auth, global_changes_httpd, mem3_reshard_httpd), so `_uuids` says "GET" without
HEAD and a database's `_security` "PUT,GET". Lists read from Apache CouchDB 3.4.3.
PATCH is the method sent: no CouchDB handler takes it, so nothing changes."""

import pytest

from couch import assert_error, put_doc

# (path under the server, with {db} for a fresh database, the method sent, the list)
CASES = [
    ("/_uuids", "PATCH", "GET"),
    ("/_uuids", "POST", "GET"),
    ("/_all_dbs", "PATCH", "GET,HEAD"),
    ("/_up", "PATCH", "GET,HEAD"),
    ("/_active_tasks", "PATCH", "GET,HEAD"),
    ("/_dbs_info", "PATCH", "GET,HEAD,POST"),
    ("/_db_updates", "PATCH", "GET"),
    # global_changes_httpd:handle_global_changes_req/1 takes GET only.
    ("/_db_updates", "POST", "GET"),
    ("/_session", "PATCH", "GET,HEAD,POST,DELETE"),
    ("/_membership", "PATCH", "GET"),
    ("/_scheduler/jobs", "PATCH", "GET,HEAD"),
    ("/_node/_local/_config", "PATCH", "GET"),
    ("/_node/_local/_config/couchdb", "PATCH", "GET"),
    ("/_node/_local/_config/couchdb/max_dbs_open", "PATCH", "GET,PUT,DELETE"),
    ("/_node/_local/_config/_reload", "PATCH", "POST"),
    ("/_node/_local/_stats", "PATCH", "GET"),
    ("/_node/_local/_system", "PATCH", "GET"),
    ("/_node/_local/_versions", "PATCH", "GET"),
    ("/_node/_local/_prometheus", "PATCH", "GET"),
    ("/_reshard", "PATCH", "GET,HEAD"),
    ("/_reshard/state", "PATCH", "GET,HEAD,PUT"),
    ("/_reshard/jobs", "PATCH", "GET,HEAD,POST"),
    ("/_reshard/jobs/nosuchjob", "PATCH", "GET,HEAD,DELETE"),
    ("/{db}", "PATCH", "DELETE,GET,HEAD,POST"),
    ("/{db}/_all_docs", "PATCH", "GET,HEAD,POST"),
    ("/{db}/_bulk_docs", "PATCH", "POST"),
    ("/{db}/_changes", "PATCH", "GET,POST,HEAD"),
    ("/{db}/_revs_limit", "PATCH", "PUT,GET"),
    ("/{db}/_purged_infos", "PATCH", "GET"),
    ("/{db}/_purged_infos_limit", "PATCH", "GET,PUT"),
    ("/{db}/_index", "PATCH", "GET,POST"),
    ("/{db}/_security", "PATCH", "PUT,GET"),
    ("/{db}/doc", "PATCH", "DELETE,GET,HEAD,POST,PUT,COPY"),
    ("/{db}/_local/loc", "PATCH", "DELETE,GET,HEAD,POST,PUT,COPY"),
    ("/{db}/_design/dd", "PATCH", "DELETE,GET,HEAD,POST,PUT,COPY"),
    ("/{db}/doc/a.txt", "PATCH", "DELETE,GET,HEAD,PUT"),
    ("/{db}/_design/dd/_view/v", "PATCH", "GET,POST,HEAD"),
    ("/{db}/_design/dd/_info", "PATCH", "GET"),
    ("/{db}/_design/dd/_list/l/v", "PATCH", "GET,POST,HEAD"),
]


@pytest.mark.parametrize("path,method,allowed", CASES, ids=[c[0] + " " + c[1] for c in CASES])
def test_method_not_allowed_names_the_handlers_methods(client, db, path, method, allowed):
    """chttpd:send_method_not_allowed/2: 405, `Allow: <list>`, reason "Only <list> allowed"."""
    if "{db}" in path:
        put_doc(db, "doc", {})
        put_doc(db, "_design/dd", {"views": {"v": {"map": "function(doc) { emit(doc._id, null); }"}},
                                   "lists": {"l": "function(head, req) { return 'x'; }"}})
    r = client.request(method, client.base + path.replace("{db}", db.name))
    assert_error(r, 405, "method_not_allowed")
    assert r.headers.get("Allow") == allowed
    assert r.json()["reason"] == "Only %s allowed" % allowed
