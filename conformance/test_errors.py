"""Bad input of every class gets a 4xx JSON error, never a 500. CouchDB docs: API
Reference › Basics › HTTP Status Codes; spec/couchdb.md › Errors, shape. Each case
names the chttpd / couch_doc code path it follows."""

import socket
from urllib.parse import urlsplit

from couch import JSON, assert_error, assert_status, body_of, put_doc, sig


def test_invalid_json_doc(client, db):
    """chttpd:json_body: malformed JSON -> 400 bad_request ("invalid UTF-8 JSON")."""
    for raw in (b"{", b'{"a":1,}', b"{'a':1}", b"nope", b'{"a": tru}'):
        assert_error(client.put(db.url("d"), data=raw, headers=JSON), 400, "bad_request")


def test_truncated_json(client, db):
    """A body cut short mid-document -> 400 bad_request."""
    raw = b'{"a": {"b": [1, 2, '
    assert_error(client.put(db.url("d"), data=raw, headers=JSON), 400, "bad_request")
    assert_error(client.post(db.url("_bulk_docs"), data=b'{"docs": [{"_id": "x"', headers=JSON), 400, "bad_request")


def test_invalid_utf8_in_json(client, db):
    """Bytes that are not UTF-8 inside a JSON string -> 400 bad_request."""
    raw = b'{"a": "\xff\xfe"}'
    assert_error(client.put(db.url("d"), data=raw, headers=JSON), 400, "bad_request")


def test_empty_body(client, db):
    """PUT of a document with an empty body -> 400 bad_request."""
    assert_error(client.put(db.url("d"), data=b"", headers=JSON), 400, "bad_request")


def test_non_object_bodies(client, db):
    """couch_doc from_json_obj / chttpd:json_body_obj: a JSON value that is not an
    object where one is required -> 400 bad_request."""
    assert_error(client.put(db.url("d"), data=b"[1]", headers=JSON), 400, "bad_request")
    assert_error(client.post(db.url(), data=b"null", headers=JSON), 400, "bad_request")
    assert_error(client.post(db.url("_bulk_docs"), data=b"[]", headers=JSON), 400, "bad_request")
    assert_error(client.post(db.url("_revs_diff"), data=b"[]", headers=JSON), 400, "bad_request")
    assert_error(client.post(db.url("_bulk_get"), data=b'"x"', headers=JSON), 400, "bad_request")


def test_bulk_docs_entry_not_object(client, db):
    """couch_doc from_json_obj: a docs entry that is not an object -> 400 bad_request."""
    r = client.post(db.url("_bulk_docs"), json={"docs": [1]})
    assert_error(r, 400, "bad_request")


def test_deleted_not_boolean(client, db):
    """couch_doc transfer_fields: _deleted must be a boolean, otherwise it is an
    unknown special member -> 400 doc_validation."""
    r = client.put(db.url("d"), json={"_deleted": "yes"})
    assert_error(r, 400, "doc_validation", "Bad special document member: _deleted")


def test_id_not_string(client, db):
    """couch_doc validate_docid: a non-string _id -> 400 illegal_docid."""
    assert_error(client.post(db.url(), json={"_id": 5}), 400, "illegal_docid")
    assert_error(client.post(db.url("_bulk_docs"), json={"docs": [{"_id": ["a"]}]}), 400, "illegal_docid")


def test_rev_not_string(client, db):
    """couch_doc parse_rev: a non-string _rev -> 400 bad_request."""
    put_doc(db, "d", {})
    assert_error(client.put(db.url("d"), json={"_rev": 1}), 400, "bad_request")


def test_revisions_bad_types(client, db):
    """couch_doc transfer_fields: _revisions.start not an integer / ids not an array
    -> 400 doc_validation."""
    bad_start = {"_rev": "1-" + sig("a"), "_revisions": {"start": "1", "ids": [sig("a")]}}
    r = client.put(db.url("d"), params={"new_edits": "false"}, json=bad_start)
    assert_error(r, 400, "doc_validation")
    bad_ids = {"_rev": "1-" + sig("a"), "_revisions": {"start": 1, "ids": "x"}}
    r = client.put(db.url("d"), params={"new_edits": "false"}, json=bad_ids)
    assert_error(r, 400, "doc_validation")


def test_new_edits_not_boolean(client, db):
    """chttpd_db _bulk_docs: `new_edits` must be a boolean -> 400 bad_request."""
    r = client.post(db.url("_bulk_docs"), json={"docs": [], "new_edits": "no"})
    assert_error(r, 400, "bad_request")


def test_bad_query_parameters(client, db):
    """couch_mrview_http parse_params: bad view query values -> 400
    query_parse_error."""
    for params in ({"limit": "abc"}, {"limit": "-1"}, {"skip": "x"}, {"descending": "maybe"}):
        r = client.get(db.url("_all_docs"), params=params)
        assert_error(r, 400, "query_parse_error")


def test_bad_json_query_parameter(client, db):
    """A JSON-valued query parameter that is not JSON (startkey=abc unquoted) -> 400."""
    r = client.get(db.url("_all_docs"), params={"startkey": "abc"})
    assert_status(r, 400)
    assert isinstance(body_of(r).get("error"), str)


def test_bad_open_revs(client, db):
    """open_revs that is neither "all" nor a JSON array of revs -> 400."""
    put_doc(db, "d", {})
    r = client.get(db.url("d"), params={"open_revs": "[not json"}, headers={"Accept": "application/json"})
    assert_status(r, 400)
    r = client.get(db.url("d"), params={"open_revs": '["bogus"]'}, headers={"Accept": "application/json"})
    assert_error(r, 400, "bad_request")


def test_wrong_content_type(client, db):
    """chttpd:validate_ctype: JSON endpoints refuse other content types -> 415
    bad_content_type."""
    for path in ("_bulk_docs", "_revs_diff", "_all_docs", "_bulk_get"):
        r = client.post(db.url(path), data=b"{}", headers={"Content-Type": "text/plain"})
        assert_error(r, 415, "bad_content_type")


def _raw_request(client, path_bytes, body=b""):
    """Send a request whose path holds bytes requests would re-encode."""
    parts = urlsplit(client.base)
    host, port = parts.hostname, parts.port or 80
    auth = client.session.auth
    import base64

    lines = [b"PUT " + path_bytes + b" HTTP/1.1", b"Host: " + host.encode() + b":" + str(port).encode()]
    if auth:
        token = base64.b64encode(("%s:%s" % auth).encode()).decode()
        lines.append(b"Authorization: Basic " + token.encode())
    lines += [b"Content-Type: application/json", b"Accept: application/json",
              b"Content-Length: " + str(len(body)).encode(), b"Connection: close", b"", b""]
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(b"\r\n".join(lines) + body)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data


def test_invalid_utf8_doc_id(client, db):
    """couch_doc validate_docid: a doc id that is not UTF-8 (%FF in the path) -> 400
    illegal_docid "Document id must be valid UTF-8"."""
    if urlsplit(client.base).scheme != "http":
        import pytest

        pytest.skip("raw-socket test needs plain http")
    prefix = urlsplit(client.base).path.encode()
    status, data = _raw_request(client, prefix + b"/" + db.name.encode() + b"/bad%FFid", b"{}")
    assert status == 400, data[:500]
    assert b"illegal_docid" in data


def test_unknown_doc_method(client, db):
    """chttpd_db db_doc_req: an unsupported method on a document -> 405."""
    put_doc(db, "d", {})
    assert_error(client.request("PATCH", db.url("d"), json={}), 405, "method_not_allowed")


def test_unauthorized_sends_no_basic_challenge(anon):
    """401 answers carry no WWW-Authenticate by default, so a browser shows no password
    dialog over the page that asked (chttpd:error_headers/4: only with
    require_valid_user, [chttpd] WWW-Authenticate or X-CouchDB-WWW-Authenticate)."""
    r = anon.put(anon.url("t_never_created_by_anonymous"))
    assert_error(r, 401, "unauthorized")
    assert "WWW-Authenticate" not in r.headers
    r = anon.post(anon.url("_session"), json={"name": "nobody", "password": "wrong"})
    assert_error(r, 401, "unauthorized")
    assert "WWW-Authenticate" not in r.headers
