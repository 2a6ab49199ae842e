"""What CouchDB client libraries rely on beyond the bodies: absolute Location
headers, request ids, cache headers, key lists with limit/skip/descending,
_local_docs keys, bulk edge cases, method override, form posts, batch=ok and
the rev checks of If-Match and COPY. Each case was checked against Apache
CouchDB 3.4.3; the source it encodes is cited (chttpd.erl, chttpd_db.erl,
fabric_view_all_docs.erl)."""

import re
import uuid

from couch import (
    assert_error,
    assert_status,
    body_of,
    get_doc,
    put_doc,
    qjson,
)


# --- Location: chttpd:absolute_uri/2 -------------------------------------------------


def test_location_is_absolute_from_host(client, db):
    """PUT /{db}/{doc}: Location is scheme://Host/db/doc (chttpd:absolute_uri)."""
    r = client.put(db.url("doc1"), json={}, headers={"Host": "couch.example:1234"})
    assert_status(r, 201)
    assert r.headers["Location"] == "http://couch.example:1234/%s/doc1" % db.name


def test_location_prefers_x_forwarded_host(client, db):
    """[chttpd] x_forwarded_host (default X-Forwarded-Host) wins over Host."""
    r = client.put(
        db.url("doc1"),
        json={},
        headers={"Host": "inner:1", "X-Forwarded-Host": "outer.example:8443"},
    )
    assert_status(r, 201)
    assert r.headers["Location"] == "http://outer.example:8443/%s/doc1" % db.name


def test_location_https_from_x_forwarded_proto(client, db):
    """X-Forwarded-Proto: https makes the scheme https (chttpd:absolute_uri)."""
    r = client.put(
        db.url("doc1"), json={}, headers={"Host": "h:1", "X-Forwarded-Proto": "https"}
    )
    assert_status(r, 201)
    assert r.headers["Location"] == "https://h:1/%s/doc1" % db.name


def test_location_of_post_and_database(client, make_db):
    """POST /{db} and PUT /{db} answer absolute Locations; POST sends no ETag
    (chttpd_db db_req POST and create_db_req)."""
    name = "t_" + uuid.uuid4().hex
    r = client.put(client.url(name), headers={"Host": "h:2"})
    client.delete(client.url(name))
    assert_status(r, 201)
    assert r.headers["Location"] == "http://h:2/" + name
    db = make_db()
    r = client.post(db.url(), json={"_id": "p1"}, headers={"Host": "h:2"})
    assert_status(r, 201)
    assert r.headers["Location"] == "http://h:2/%s/p1" % db.name
    assert "ETag" not in r.headers


def test_location_encodes_design_slash(client, db):
    """couch_util:url_encode escapes '/' in ids: _design/x -> _design%2Fx."""
    r = client.put(db.url("_design/x"), json={}, headers={"Host": "h:3"})
    assert_status(r, 201)
    assert r.headers["Location"] == "http://h:3/%s/_design%%2Fx" % db.name


def test_attachment_put_location_and_no_etag(client, db):
    """PUT /{db}/{doc}/{att}: Location is the attachment's URL; no ETag
    (chttpd_db db_attachment_req)."""
    rev = put_doc(db, "doc1")["rev"]
    r = client.put(
        db.url("doc1", "a b.txt"),
        params={"rev": rev},
        data=b"hi",
        headers={"Content-Type": "text/plain", "Host": "h:4"},
    )
    assert_status(r, 201)
    assert r.headers["Location"] == "http://h:4/%s/doc1/a%%20b.txt" % db.name
    assert "ETag" not in r.headers
    rev2 = body_of(r)["rev"]
    r = client.delete(db.url("doc1", "a b.txt"), params={"rev": rev2})
    assert_status(r, 200)
    assert "Location" not in r.headers and "ETag" not in r.headers


# --- Request ids and cache headers: chttpd:nonce/1, reqid/0 ---------------------------


def test_request_id_on_responses(client, db):
    """Every chttpd response carries X-Couch-Request-ID, errors and HEAD too."""
    for r in (
        client.get(client.url()),
        client.get(db.url("missing")),
        client.head(db.url()),
        client.put(db.url("doc1"), json={}),
    ):
        assert re.fullmatch(r"[0-9A-Za-z_-]{1,36}", r.headers.get("X-Couch-Request-ID", "")), r.headers


def test_request_id_echoed_when_valid(client):
    """A client's own X-Couch-Request-ID of <= 36 [0-9A-Za-z_-] is echoed;
    anything else is replaced by a fresh one (chttpd:nonce/1)."""
    r = client.get(client.url(), headers={"X-Couch-Request-ID": "my-req_42"})
    assert r.headers["X-Couch-Request-ID"] == "my-req_42"
    r = client.get(client.url(), headers={"X-Couch-Request-ID": "bad id!"})
    assert r.headers["X-Couch-Request-ID"] not in ("bad id!", "")
    r = client.get(client.url(), headers={"X-Couch-Request-ID": "x" * 37})
    assert r.headers["X-Couch-Request-ID"] != "x" * 37


def test_uuids_cache_busting_headers(client):
    """GET /_uuids: Cache-Control no-cache, Pragma no-cache and an Expires in the
    past (couch_httpd_misc_handlers:handle_uuids_req)."""
    r = client.get(client.url("_uuids"))
    assert_status(r, 200)
    assert r.headers["Cache-Control"] == "no-cache"
    assert r.headers["Pragma"] == "no-cache"
    assert r.headers["Expires"] == "Mon, 01 Jan 1990 00:00:00 GMT"
    assert r.headers.get("ETag")


def test_json_responses_must_revalidate(client, db):
    """JSON answers say Cache-Control: must-revalidate (chttpd:send_json)."""
    put_doc(db, "doc1")
    for r in (client.get(db.url()), client.get(db.url("doc1")), client.get(db.url("_all_docs"))):
        assert r.headers["Cache-Control"] == "must-revalidate"


def test_head_doc_headers_match_get(client, db):
    """HEAD /{db}/{doc} sends GET's headers: ETag, Content-Type and the length
    of the body GET sends (mochiweb strips only the body)."""
    put_doc(db, "doc1", {"a": 1})
    g = client.get(db.url("doc1"))
    h = client.head(db.url("doc1"))
    assert_status(h, 200)
    assert h.content == b""
    assert h.headers["ETag"] == g.headers["ETag"]
    assert h.headers["Content-Type"] == g.headers["Content-Type"]
    assert int(h.headers["Content-Length"]) == len(g.content)
    assert "X-Couch-Request-ID" in h.headers


def test_doc_body_ends_with_newline(client, db):
    """chttpd:send_json ends a document's JSON with a newline."""
    put_doc(db, "doc1")
    r = client.get(db.url("doc1"))
    assert r.content.endswith(b"}\n")


def test_if_none_match_head_and_get_304(client, db):
    """If-None-Match with the current ETag: 304, no body, the ETag and a request
    id, for HEAD as for GET (couch_httpd:etag_respond)."""
    rev = put_doc(db, "doc1")["rev"]
    for method in ("GET", "HEAD"):
        r = client.request(method, db.url("doc1"), headers={"If-None-Match": '"%s"' % rev})
        assert_status(r, 304)
        assert r.content == b""
        assert r.headers["ETag"] == '"%s"' % rev
        assert "X-Couch-Request-ID" in r.headers


# --- _all_docs and _local_docs keys: fabric_view_all_docs ------------------------------


def _three_docs(db):
    for i in ("a", "b", "c"):
        put_doc(db, i)


def test_all_docs_keys_skip_limit(client, db):
    """keys with skip and limit: skip then limit over the key list, in key order."""
    _three_docs(db)
    r = client.get(db.url("_all_docs"), params={"keys": qjson(["c", "a", "b"]), "skip": "1", "limit": "1"})
    assert [row["key"] for row in body_of(r)["rows"]] == ["a"]
    r = client.post(db.url("_all_docs"), params={"limit": "2"}, json={"keys": ["b", "zz", "a"]})
    rows = body_of(r)["rows"]
    assert [row["key"] for row in rows] == ["b", "zz"]
    assert rows[1] == {"key": "zz", "error": "not_found"}


def test_all_docs_keys_descending_reverses(client, db):
    """keys with descending=true answers the keys in reverse order, then skip and
    limit (fabric_view_all_docs: lists:reverse(Keys) when the direction is rev)."""
    _three_docs(db)
    r = client.get(db.url("_all_docs"), params={"keys": qjson(["a", "c", "b"]), "descending": "true"})
    assert [row["key"] for row in body_of(r)["rows"]] == ["b", "c", "a"]
    r = client.post(db.url("_all_docs"), params={"descending": "true", "skip": "1"}, json={"keys": ["a", "c", "b"]})
    assert [row["key"] for row in body_of(r)["rows"]] == ["c", "a"]


def test_local_docs_keys(client, db):
    """_local_docs with keys (GET and POST) answers the matching rows, not_found rows
    for missing _local/ ids, in the keys' order (CouchDB 3.4.3)."""
    for i in ("a", "b"):
        assert_status(client.put(db.url("_local/" + i), json={"v": i}), 201)
    r = client.get(db.url("_local_docs"), params={"keys": qjson(["_local/b", "_local/zz", "_local/a"])})
    rows = body_of(r)["rows"]
    assert [row.get("id") for row in rows] == ["_local/b", None, "_local/a"]
    assert rows[1] == {"key": "_local/zz", "error": "not_found"}
    assert rows[0]["value"] == {"rev": "0-1"}
    r = client.post(db.url("_local_docs"), params={"include_docs": "true"}, json={"keys": ["_local/a"]})
    rows = body_of(r)["rows"]
    assert len(rows) == 1 and rows[0]["doc"] == {"_id": "_local/a", "_rev": "0-1", "v": "a"}


# --- _bulk_docs: chttpd_db db_req _bulk_docs -----------------------------------------


def test_bulk_docs_same_id_twice(client, db):
    """The second write of one id in one request conflicts and gets no rev."""
    r = client.post(db.url("_bulk_docs"), json={"docs": [{"_id": "z", "v": 1}, {"_id": "z", "v": 2}]})
    assert_status(r, 201)
    first, second = body_of(r)
    assert first["ok"] is True and first["id"] == "z"
    assert second == {"id": "z", "error": "conflict", "reason": "Document update conflict."}
    assert get_doc(db, "z")["v"] == 1


def test_bulk_docs_update_and_delete_same_doc(client, db):
    """An update and a delete of one document from the same rev in one request:
    the first wins, the second conflicts."""
    rev = put_doc(db, "z")["rev"]
    r = client.post(
        db.url("_bulk_docs"),
        json={"docs": [{"_id": "z", "_rev": rev, "v": 2}, {"_id": "z", "_rev": rev, "_deleted": True}]},
    )
    first, second = body_of(r)
    assert first.get("ok") is True
    assert second.get("error") == "conflict" and "rev" not in second
    assert get_doc(db, "z")["v"] == 2


def test_bulk_docs_docs_not_an_array(client, db):
    """`docs` present but not a list: 400 "`docs` parameter must be an array."."""
    r = client.post(db.url("_bulk_docs"), json={"docs": {"_id": "x"}})
    assert_error(r, 400, "bad_request", "`docs` parameter must be an array.")
    r = client.post(db.url("_bulk_docs"), json={"all_or_nothing": False})
    assert_error(r, 400, "bad_request", "POST body must include `docs` parameter.")


# --- Methods and content types: chttpd:handle_request_int, validate_ctype -------------


def test_method_override_on_post(client, db):
    """X-HTTP-Method-Override on a POST stands in for the method."""
    r = client.post(db.url("viaoverride"), data=b"{}", headers={"X-HTTP-Method-Override": "PUT"})
    assert_status(r, 201)
    assert body_of(r)["id"] == "viaoverride"
    rev = body_of(r)["rev"]
    r = client.post(db.url("viaoverride"), params={"rev": rev}, headers={"X-HTTP-Method-Override": "DELETE"})
    assert_status(r, 200)
    assert_status(client.get(db.url("viaoverride")), 404)


def test_method_override_ignored_unless_post(client, db):
    """The header counts on a POST only: a GET stays a GET."""
    put_doc(db, "d")
    r = client.get(db.url("d"), headers={"X-HTTP-Method-Override": "DELETE"})
    assert_status(r, 200)
    assert_status(client.get(db.url("d")), 200)


def test_html_form_post_to_db_is_415(client, db):
    """POST /{db} with a form body: 415 bad_content_type (chttpd:validate_ctype)."""
    r = client.post(db.url(), data="a=b", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert_error(r, 415, "bad_content_type", "Content-Type must be application/json")


def test_post_local_doc_to_db(client, db):
    """POST /{db} with a _local/ id writes the local document (CouchDB 3.4.3)."""
    r = client.post(db.url(), json={"_id": "_local/p", "a": 1})
    assert_status(r, 201)
    assert body_of(r) == {"ok": True, "id": "_local/p", "rev": "0-1"}
    assert get_doc(db, "_local/p") == {"_id": "_local/p", "_rev": "0-1", "a": 1}


def test_local_doc_attachment_is_bad_request(client, db):
    """/{db}/_local/{id}/{att}: 400 "_local documents do not accept attachments."."""
    r = client.put(db.url("_local/a") + "/att", data=b"x", headers={"Content-Type": "text/plain"})
    assert_error(r, 400, "bad_request", "_local documents do not accept attachments.")


# --- Attachments ---------------------------------------------------------------------


def test_delete_missing_attachment_404(client, db):
    """DELETE of an attachment the revision lacks: 404 not_found."""
    rev = put_doc(db, "doc1")["rev"]
    r = client.delete(db.url("doc1", "nope.txt"), params={"rev": rev})
    assert_error(r, 404, "not_found", "Document is missing attachment")


# --- Rev checks: chttpd_db couch_doc_from_req / extract_header_rev ----------------------


def test_if_match_disagrees_with_body_rev(client, db):
    """A body _rev other than If-Match: 400 "Document rev and etag have different values"."""
    rev = put_doc(db, "doc1")["rev"]
    r = client.put(db.url("doc1"), json={"_rev": "1-" + "0" * 32}, headers={"If-Match": '"%s"' % rev})
    assert_error(r, 400, "bad_request", "Document rev and etag have different values")


def test_if_match_disagrees_with_query_rev(client, db):
    """?rev= other than If-Match, no body rev: the same etag error."""
    rev = put_doc(db, "doc1")["rev"]
    r = client.put(db.url("doc1"), params={"rev": rev}, json={}, headers={"If-Match": '"1-%s"' % ("0" * 32)})
    assert_error(r, 400, "bad_request", "Document rev and etag have different values")


def test_copy_destination_bad_rev(client, db):
    """COPY with a Destination rev that is not a rev: 400 "Invalid rev format";
    a well-formed rev the target lacks: 409."""
    put_doc(db, "src")
    put_doc(db, "dst")
    r = client.request("COPY", db.url("src"), headers={"Destination": "dst?rev=abc"})
    assert_error(r, 400, "bad_request", "Invalid rev format")
    r = client.request("COPY", db.url("src"), headers={"Destination": "dst?rev=1-bad"})
    assert_error(r, 409, "conflict")


# --- batch=ok: chttpd_db db_req POST / db_doc_req PUT ----------------------------------


def test_batch_ok_put_and_post(client, db):
    """?batch=ok answers 202 {"ok":true,"id":..} with no rev, no Location, no ETag.
    (CouchDB writes the document later, so when it becomes readable is not
    asserted here; Settee writes before answering, see its README.)"""
    r = client.put(db.url("b1"), params={"batch": "ok"}, json={"v": 1})
    assert_status(r, 202)
    assert body_of(r) == {"ok": True, "id": "b1"}
    assert "Location" not in r.headers and "ETag" not in r.headers
    r = client.post(db.url(), params={"batch": "ok"}, json={"_id": "b2", "v": 2})
    assert_status(r, 202)
    assert body_of(r) == {"ok": True, "id": "b2"}


def test_batch_ok_conflict_is_not_reported(client, db):
    """With batch=ok a conflicting write still answers 202: the conflict is
    dropped, and the stored document is unchanged."""
    put_doc(db, "b1", {"v": 1})
    r = client.put(db.url("b1"), params={"batch": "ok"}, json={"v": 2})
    assert_status(r, 202)
    assert get_doc(db, "b1")["v"] == 1


# --- _design%2F: chttpd_db db_req GET [_DbName, <<"_design/", _/binary>> | _] ----------


def _raw_get(client, path, method="GET"):
    """A request to `path` exactly as written (requests would not re-quote it)."""
    return client.request(method, client.base + path, allow_redirects=False)


def test_design_slash_escaped_redirects(client, db):
    """GET /{db}/_design%2F{name}: 301 to /{db}/_design/{name}, the query string
    kept, an absolute Location, an empty body; %2f (lower case) too."""
    assert_status(client.put(db.url("_design/x"), json={}), 201)
    r = _raw_get(client, "/%s/_design%%2Fx?revs=true" % db.name)
    assert_status(r, 301)
    assert r.content == b""
    loc = r.headers["Location"]
    assert loc.startswith("http") and loc.endswith("/%s/_design/x?revs=true" % db.name)
    r = _raw_get(client, "/%s/_design%%2fx" % db.name)
    assert_status(r, 301)
    assert r.headers["Location"].endswith("/%s/_design/x" % db.name)
    r = _raw_get(client, "/%s/_design%%2Fx" % db.name, method="HEAD")
    assert_status(r, 301)


def test_design_slash_escaped_attachment_redirects(client, db):
    """The attachment path redirects as well, the rest of the path kept as sent."""
    r = _raw_get(client, "/%s/_design%%2Fx/a%%2Fb" % db.name)
    assert_status(r, 301)
    assert r.headers["Location"].endswith("/%s/_design/x/a%%2Fb" % db.name)


def test_design_slash_escaped_put_is_served(client, db):
    """Only GET (and HEAD) redirect: a PUT to _design%2F{name} writes _design/{name}."""
    r = client.request("PUT", client.base + "/%s/_design%%2Fy" % db.name, json={})
    assert_status(r, 201)
    assert body_of(r)["id"] == "_design/y"
    assert get_doc(db, "_design/y")["_id"] == "_design/y"


def test_design_slash_redirect_needs_the_database(client, anon, db):
    """The redirect comes after the database is opened and its members checked:
    a missing database is 404, an admin-only one is 401 to anonymous."""
    r = _raw_get(client, "/%s_missing/_design%%2Fx" % db.name)
    assert_status(r, 404)
    r = anon.request("GET", anon.base + "/%s/_design%%2Fx" % db.name, allow_redirects=False)
    assert_status(r, 401)
