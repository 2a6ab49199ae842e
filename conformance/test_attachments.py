"""Attachments: inline, stubs, standalone /{db}/{doc}/{att}, multipart, encodings.

CouchDB API reference "/{db}/{docid}" (Attachments, Inline / multipart) and
"/{db}/{docid}/{attname}"; source: chttpd_db.erl db_attachment_req (GET headers:
ETag = quoted base64 MD5, Accept-Ranges, Content-Encoding when the client accepts the
stored encoding; Range -> 206 / 416, several ranges -> multipart/byteranges),
validate_attachment_name (leading `_` -> 400).
"""

import base64
import json
import hashlib

import pytest

from couch import assert_error, assert_status, body_of, get_doc, put_doc, qjson
from multipart import boundary_of, build_related, media_type, parse_multipart

DATA = bytes((i * 7) % 256 for i in range(2003))
B64 = base64.b64encode(DATA).decode()
OCTET = "application/octet-stream"


def md5_digest(data):
    return "md5-" + base64.b64encode(hashlib.md5(data).digest()).decode()


def inline(data=DATA, ctype=OCTET):
    return {"content_type": ctype, "data": base64.b64encode(data).decode()}


def test_inline_put_gives_stub_on_read(db):
    """Inline base64 attachment; GET shows a stub with content_type, digest
    (md5-<base64>), length, revpos, stub (API reference /{db}/{docid}, Attachments)."""
    out = put_doc(db, "a", {"_attachments": {"x.bin": inline()}})
    doc = get_doc(db, "a")
    stub = doc["_attachments"]["x.bin"]
    assert stub == {
        "content_type": OCTET,
        "digest": md5_digest(DATA),
        "length": len(DATA),
        "revpos": 1,
        "stub": True,
    }, stub
    assert doc["_rev"] == out["rev"]


def test_bulk_docs_inline_attachment(db):
    """_bulk_docs accepts inline attachments like PUT (API reference /{db}/_bulk_docs)."""
    r = db.client.post(db.url("_bulk_docs"),
                       json={"docs": [{"_id": "b", "_attachments": {"x.bin": inline()}}]})
    assert_status(r, 201)
    stub = get_doc(db, "b")["_attachments"]["x.bin"]
    assert stub["stub"] is True and stub["length"] == len(DATA)
    assert stub["digest"] == md5_digest(DATA)


def test_attachments_true_inlines_data(db):
    """?attachments=true with Accept: application/json inlines base64 `data`
    (API reference /{db}/{docid} GET, attachments; spec/couchdb.md "Checked on 3.4.3")."""
    put_doc(db, "a", {"_attachments": {"x.bin": inline()}})
    doc = get_doc(db, "a", params={"attachments": "true"})
    att = doc["_attachments"]["x.bin"]
    assert att["data"] == B64
    assert "stub" not in att
    assert att["digest"] == md5_digest(DATA) and att["revpos"] == 1


def test_atts_since_only_newer_attachments(db):
    """atts_since=[revs]: only attachments changed after those revisions carry data
    (API reference /{db}/{docid} GET, atts_since)."""
    r1 = put_doc(db, "a", {"_attachments": {"old.bin": inline(b"old")}})
    doc = get_doc(db, "a")
    doc["_attachments"]["new.bin"] = inline(b"new")
    put_doc(db, "a", doc)
    got = get_doc(db, "a", params={"attachments": "true", "atts_since": qjson([r1["rev"]])})
    atts = got["_attachments"]
    assert atts["old.bin"].get("stub") is True and "data" not in atts["old.bin"]
    assert atts["new.bin"]["data"] == base64.b64encode(b"new").decode()
    assert atts["new.bin"]["revpos"] == 2


def test_att_encoding_info_for_compressible_type(db):
    """text/plain is compressible (CouchDB [attachments] compressible_types default):
    att_encoding_info=true shows encoding "gzip" and encoded_length (API reference
    /{db}/{docid} GET, att_encoding_info; spec/couchdb.md Attachments)."""
    text = b"hello hello hello hello hello hello hello hello\n" * 20
    put_doc(db, "a", {"_attachments": {"t.txt": inline(text, "text/plain")}})
    stub = get_doc(db, "a", params={"att_encoding_info": "true"})["_attachments"]["t.txt"]
    assert stub["encoding"] == "gzip"
    assert isinstance(stub["encoded_length"], int) and stub["length"] == len(text)
    plain = get_doc(db, "a")["_attachments"]["t.txt"]
    assert "encoding" not in plain and "encoded_length" not in plain


def test_gzip_attachment_served_encoded_when_accepted(db):
    """A gzip-stored attachment read with Accept-Encoding: gzip is sent as stored with
    Content-Encoding: gzip (chttpd_db.erl db_attachment_req: ReqAcceptsAttEnc)."""
    text = b"compressible text " * 100
    put_doc(db, "a", {"_attachments": {"t.txt": inline(text, "text/plain")}})
    r = db.client.get(db.url("a", "t.txt"), headers={"Accept-Encoding": "gzip"})
    assert_status(r, 200)
    assert r.headers.get("Content-Encoding") == "gzip"
    assert r.content == text  # requests decodes it
    r = db.client.get(db.url("a", "t.txt"), headers={"Accept-Encoding": "identity"})
    assert_status(r, 200)
    assert r.headers.get("Content-Encoding") in (None, "identity")
    assert r.content == text


def test_stub_keeps_attachment_across_update(db):
    """Sending the stub back keeps the attachment (revpos unchanged) (API reference
    /{db}/{docid}, Attachments: stubs)."""
    put_doc(db, "a", {"_attachments": {"x.bin": inline()}})
    doc = get_doc(db, "a")
    doc["v"] = 2
    put_doc(db, "a", doc)
    stub = get_doc(db, "a")["_attachments"]["x.bin"]
    assert stub["revpos"] == 1 and stub["digest"] == md5_digest(DATA)
    r = db.client.get(db.url("a", "x.bin"))
    assert r.content == DATA


def test_unknown_stub_is_412_missing_stub(db):
    """A stub for an attachment the parent revision lacks: 412 missing_stub
    (spec/couchdb.md Attachments; couch_doc merge_stubs)."""
    out = put_doc(db, "a", {"v": 1})
    r = db.client.put(db.url("a"), json={
        "_rev": out["rev"],
        "_attachments": {"nope.bin": {"stub": True, "content_type": OCTET, "length": 3,
                                      "digest": md5_digest(b"abc"), "revpos": 1}},
    })
    assert_error(r, 412, "missing_stub")


def test_standalone_put_get_head_delete(db):
    """PUT /{db}/{doc}/{att} without rev creates the document; GET returns the bytes
    with Content-Type, Content-Length and ETag (quoted base64 MD5); If-None-Match ->
    304; HEAD has the headers and no body; DELETE ?rev= removes it (API reference
    /{db}/{docid}/{attname}; chttpd_db.erl db_attachment_req)."""
    r = db.client.put(db.url("doc", "f.bin"), data=DATA, headers={"Content-Type": OCTET})
    assert_status(r, 201)
    out = body_of(r)
    assert out["ok"] is True and out["id"] == "doc" and out["rev"].startswith("1-")
    r = db.client.get(db.url("doc", "f.bin"))
    assert_status(r, 200)
    assert r.content == DATA
    assert media_type(r.headers["Content-Type"]) == OCTET
    assert int(r.headers["Content-Length"]) == len(DATA)
    etag = r.headers["ETag"]
    assert etag == '"%s"' % base64.b64encode(hashlib.md5(DATA).digest()).decode()
    assert r.headers.get("Accept-Ranges") == "bytes"
    r = db.client.get(db.url("doc", "f.bin"), headers={"If-None-Match": etag})
    assert_status(r, 304)
    r = db.client.head(db.url("doc", "f.bin"))
    assert_status(r, 200)
    assert int(r.headers["Content-Length"]) == len(DATA) and r.content == b""
    r = db.client.put(db.url("doc", "g.txt"), params={"rev": out["rev"]}, data=b"second",
                      headers={"Content-Type": "text/plain"})
    assert_status(r, 201)
    rev2 = body_of(r)["rev"]
    assert set(get_doc(db, "doc")["_attachments"]) == {"f.bin", "g.txt"}
    r = db.client.delete(db.url("doc", "f.bin"), params={"rev": rev2})
    assert_status(r, 200)
    assert body_of(r)["ok"] is True
    assert_status(db.client.get(db.url("doc", "f.bin")), 404)
    assert set(get_doc(db, "doc")["_attachments"]) == {"g.txt"}


def test_standalone_put_stale_rev_conflicts(db):
    """PUT of an attachment with a non-leaf rev: 409 conflict (API reference
    /{db}/{docid}/{attname} PUT, 409)."""
    out = put_doc(db, "doc", {"v": 1})
    put_doc(db, "doc", {"_rev": out["rev"], "v": 2})
    r = db.client.put(db.url("doc", "f.bin"), params={"rev": out["rev"]}, data=b"x",
                      headers={"Content-Type": OCTET})
    assert_error(r, 409, "conflict")


def test_attachment_name_with_slash(db):
    """Attachment names may contain `/`: /{db}/{doc}/a/b.txt names "a/b.txt"
    (chttpd_db.erl joins the remaining path parts with "/")."""
    url = db.client.base + "/" + db.name + "/doc/dir/b.txt"
    r = db.client.put(url, data=b"nested", headers={"Content-Type": "text/plain"})
    assert_status(r, 201)
    assert "dir/b.txt" in get_doc(db, "doc")["_attachments"]
    r = db.client.get(url)
    assert_status(r, 200)
    assert r.content == b"nested"


def test_an_empty_attachment_name_is_allowed(db):
    """chttpd_db validate_attachment_name refuses only a leading '_' (and bytes that are
    not UTF-8): an inline attachment named "" is stored and read back, so a document
    holding one replicates like any other (Apache CouchDB 3.4.3)."""
    att = {"content_type": "text/plain", "data": base64.b64encode(b"hi").decode()}
    assert_status(db.client.put(db.url("e"), json={"_attachments": {"": att}}), 201)
    stored = get_doc(db, "e", params={"attachments": "true"}, headers={"Accept": "application/json"})
    assert list(stored["_attachments"]) == [""]
    assert base64.b64decode(stored["_attachments"][""]["data"]) == b"hi"


def test_range_requests(db):
    """Range: bytes=a-b on an identity-stored attachment -> 206 with Content-Range;
    a range past the end -> 416 (chttpd_db.erl parse_ranges / make_content_range)."""
    db.client.put(db.url("doc", "f.bin"), data=DATA, headers={"Content-Type": OCTET})
    r = db.client.get(db.url("doc", "f.bin"), headers={"Range": "bytes=10-19"})
    assert_status(r, 206)
    assert r.headers["Content-Range"] == "bytes 10-19/%d" % len(DATA)
    assert r.content == DATA[10:20]
    r = db.client.get(db.url("doc", "f.bin"), headers={"Range": "bytes=5000-6000"})
    assert_status(r, 416)


def test_open_ended_suffix_and_whole_ranges(db):
    """chttpd_db.erl parse_ranges: `first-` runs to the end and `-n` is the last n
    bytes (206, one Content-Range); a `0-` range means the whole attachment (200); a
    last byte past the end is clamped; a range that ends before it starts is 416."""
    db.client.put(db.url("doc", "f.bin"), data=DATA, headers={"Content-Type": OCTET})
    url = db.url("doc", "f.bin")
    r = db.client.get(url, headers={"Range": "bytes=2000-"})
    assert_status(r, 206)
    assert r.headers["Content-Range"] == "bytes 2000-2002/%d" % len(DATA)
    assert r.content == DATA[2000:]
    r = db.client.get(url, headers={"Range": "bytes=-5"})
    assert_status(r, 206)
    assert r.headers["Content-Range"] == "bytes 1998-2002/%d" % len(DATA)
    assert r.content == DATA[-5:]
    r = db.client.get(url, headers={"Range": "bytes=1990-9999"})
    assert_status(r, 206)
    assert r.content == DATA[1990:]
    r = db.client.get(url, headers={"Range": "bytes=0-"})
    assert_status(r, 200)
    assert r.content == DATA
    r = db.client.get(url, headers={"Range": "bytes=20-10"})
    assert_status(r, 416)


def test_unsatisfiable_range_on_a_compressed_attachment_is_416(db):
    """chttpd_db.erl db_attachment_req parses Range against the length it is about to
    send (identity, or the gzipped length for a client that takes gzip) before it looks
    at the encoding: a text/plain attachment stored gzipped (Accept-Ranges: none) is
    sent whole for a range that length could satisfy, and 416 for one it cannot."""
    url = db.url("doc", "a.txt")
    assert_status(db.client.put(url, data=b"0123456789", headers={"Content-Type": "text/plain"}), 201)
    info = get_doc(db, "doc", params={"att_encoding_info": "true"})["_attachments"]["a.txt"]
    if info.get("encoding") != "gzip":
        pytest.skip("the server did not store text/plain compressed")
    identity = {"Accept-Encoding": "identity"}
    r = db.client.get(url, headers={"Range": "bytes=9-", **identity})
    assert_status(r, 200)
    assert r.headers["Accept-Ranges"] == "none" and r.content == b"0123456789"
    for asked in ("bytes=10-", "bytes=5-2", "bytes=-0"):
        r = db.client.get(url, headers={"Range": asked, **identity})
        assert_error(r, 416, "requested_range_not_satisfiable")
    encoded = info["encoded_length"]
    r = db.client.get(url, headers={"Range": "bytes=%d-" % (encoded - 1), "Accept-Encoding": "gzip"})
    assert_status(r, 200)
    assert r.headers.get("Content-Encoding") == "gzip" and r.content == b"0123456789"
    r = db.client.get(url, headers={"Range": "bytes=%d-" % encoded, "Accept-Encoding": "gzip"})
    assert_error(r, 416, "requested_range_not_satisfiable")


def test_several_ranges_are_multipart_byteranges(db):
    """Two to nine ranges: 206 multipart/byteranges, one part per range in request
    order, each with the attachment's Content-Type and its Content-Range
    (chttpd_db.erl send_ranges_multipart); ten or more: the whole attachment, 200."""
    db.client.put(db.url("doc", "f.bin"), data=DATA, headers={"Content-Type": OCTET})
    url = db.url("doc", "f.bin")
    r = db.client.get(url, headers={"Range": "bytes=100-109, 0-4, -3"})
    assert_status(r, 206)
    assert media_type(r.headers["Content-Type"]) == "multipart/byteranges"
    delimiter = b"--" + boundary_of(r.headers["Content-Type"]).encode()
    pieces = r.content.split(delimiter)
    assert pieces[0] == b"" and pieces[-1].startswith(b"--"), r.content[:80]
    parts = []
    for piece in pieces[1:-1]:
        assert piece.startswith(b"\r\n") and piece.endswith(b"\r\n")
        head, data = piece[2:-2].split(b"\r\n\r\n", 1)
        fields = dict(line.split(": ", 1) for line in head.decode().split("\r\n"))
        parts.append((fields["Content-Type"], fields["Content-Range"], data))
    total = len(DATA)
    assert parts == [
        (OCTET, "bytes 100-109/%d" % total, DATA[100:110]),
        (OCTET, "bytes 0-4/%d" % total, DATA[0:5]),
        (OCTET, "bytes 2000-2002/%d" % total, DATA[2000:]),
    ]
    ten = ", ".join("%d-%d" % (i * 10 + 1, i * 10 + 5) for i in range(10))
    r = db.client.get(url, headers={"Range": "bytes=" + ten})
    assert_status(r, 200)
    assert r.content == DATA


def test_multipart_related_put(db):
    """PUT /{db}/{docid} as multipart/related: JSON first with "follows": true, then
    the attachment bodies in _attachments order (API reference /{db}/{docid},
    "Creating Multiple Attachments")."""
    doc = {"v": 1, "_attachments": {
        "a.bin": {"follows": True, "content_type": OCTET, "length": len(DATA)},
        "b.txt": {"follows": True, "content_type": "text/plain", "length": 5},
    }}
    body, ctype = build_related(doc, [([], DATA), ([], b"hello")])
    r = db.client.put(db.url("mp"), data=body, headers={"Content-Type": ctype})
    assert_status(r, 201)
    got = get_doc(db, "mp")
    assert got["_attachments"]["a.bin"]["length"] == len(DATA)
    assert got["_attachments"]["a.bin"]["digest"] == md5_digest(DATA)
    assert db.client.get(db.url("mp", "a.bin")).content == DATA
    assert db.client.get(db.url("mp", "b.txt")).content == b"hello"


def test_get_attachments_true_multipart_related(db):
    """GET ?attachments=true with Accept: multipart/related answers multipart/related:
    the JSON part first with "follows": true, then the attachment (spec/couchdb.md
    "Checked on 3.4.3"; API reference /{db}/{docid} GET, "Efficient Multiple
    Attachments Retrieving")."""
    put_doc(db, "a", {"_attachments": {"x.bin": inline()}})
    r = db.client.get(db.url("a"), params={"attachments": "true"},
                      headers={"Accept": "multipart/related"})
    assert_status(r, 200)
    assert media_type(r.headers["Content-Type"]) == "multipart/related"
    parts = parse_multipart(r.content, r.headers["Content-Type"])
    assert len(parts) == 2
    assert media_type(parts[0].content_type) == "application/json"
    j = parts[0].json()
    assert j["_attachments"]["x.bin"].get("follows") is True
    assert parts[1].body == DATA


def test_open_revs_multipart_mixed(db):
    """GET ?open_revs=all with Accept: multipart/mixed answers multipart/mixed, a
    document with attachments as a nested multipart/related part (transcript pull
    line 10)."""
    put_doc(db, "a", {"_attachments": {"x.bin": inline()}})
    r = db.client.get(db.url("a"), params={"open_revs": "all", "revs": "true"},
                      headers={"Accept": "multipart/mixed"})
    assert_status(r, 200)
    assert media_type(r.headers["Content-Type"]) == "multipart/mixed"
    parts = parse_multipart(r.content, r.headers["Content-Type"])
    assert len(parts) == 1
    assert media_type(parts[0].content_type) == "multipart/related"
    inner = parts[0].parts
    assert media_type(inner[0].content_type) == "application/json"
    assert inner[0].json()["_attachments"]["x.bin"]["follows"] is True
    assert inner[1].body == DATA


def test_bulk_get_attachments_true_json(db):
    """_bulk_get?attachments=true with Accept: application/json inlines data (API
    reference /{db}/_bulk_get; chttpd_db.erl bulk_get_is_multipart)."""
    out = put_doc(db, "a", {"_attachments": {"x.bin": inline()}})
    r = db.client.post(db.url("_bulk_get"), params={"attachments": "true"},
                       json={"docs": [{"id": "a", "rev": out["rev"]}]})
    assert_status(r, 200)
    doc = body_of(r)["results"][0]["docs"][0]["ok"]
    assert doc["_attachments"]["x.bin"]["data"] == B64


def test_bulk_get_multipart_mixed(db):
    """_bulk_get with Accept: multipart/mixed (and not JSON) answers multipart/mixed:
    a revision with attachments newer than its atts_since as a nested
    multipart/related part with X-Doc-Id and X-Rev-Id, attachment bytes as stored; one
    without as its JSON with stubs; an unknown id as an application/json; error="true"
    part (chttpd_db.erl bulk_get_is_multipart, send_docs_multipart_bulk_get; checked
    on CouchDB 3.4.3)."""
    rev = put_doc(db, "a", {"_attachments": {"x.bin": inline()}})["rev"]
    plain = put_doc(db, "b", {"v": 1})["rev"]
    r = db.client.post(db.url("_bulk_get"), params={"revs": "true"},
                       headers={"Accept": "multipart/mixed"},
                       json={"docs": [{"id": "a", "rev": rev}, {"id": "b"}, {"id": "nope"},
                                      {"id": "a", "rev": rev, "atts_since": [rev]}]})
    assert_status(r, 200)
    assert media_type(r.headers["Content-Type"]) == "multipart/mixed"
    parts = parse_multipart(r.content, r.headers["Content-Type"])
    assert len(parts) == 4
    first = dict(parts[0].headers)
    assert first["X-Doc-Id"] == "a" and first["X-Rev-Id"] == rev
    assert media_type(parts[0].content_type) == "multipart/related"
    inner = parts[0].parts
    doc = inner[0].json()
    assert doc["_rev"] == rev and doc["_attachments"]["x.bin"]["follows"] is True
    assert "_revisions" in doc
    assert inner[1].body == DATA
    assert media_type(parts[1].content_type) == "application/json"
    assert parts[1].json()["_rev"] == plain
    assert parts[2].content_type.replace(" ", "") == 'application/json;error="true"'
    assert parts[2].json() == {"id": "nope", "rev": "undefined", "error": "not_found", "reason": "missing"}
    assert media_type(parts[3].content_type) == "application/json"
    assert parts[3].json()["_attachments"]["x.bin"]["stub"] is True


def test_bulk_get_accepting_json_too_answers_json(db):
    """_bulk_get with an Accept that takes JSON as well as multipart answers JSON
    (chttpd_db.erl bulk_get_is_multipart: multipart only when JSON is not accepted)."""
    rev = put_doc(db, "a", {"v": 1})["rev"]
    r = db.client.post(db.url("_bulk_get"), headers={"Accept": "application/json, multipart/mixed"},
                       json={"docs": [{"id": "a", "rev": rev}]})
    assert_status(r, 200)
    assert media_type(r.headers["Content-Type"]) == "application/json"
    assert body_of(r)["results"][0]["docs"][0]["ok"]["_rev"] == rev


def test_invalid_base64_is_400(db):
    """Inline `data` that is not base64: 400 bad_request (couch_att.erl: "Invalid
    attachment data")."""
    r = db.client.put(db.url("a"), json={"_attachments": {
        "x.bin": {"content_type": OCTET, "data": "***not base64***"}}})
    assert_status(r, 400)
    assert_status(db.client.get(db.url("a")), 404)


def test_attachment_name_with_underscore_is_400(db):
    """Attachment names must not start with `_`: 400 bad_request (chttpd_db.erl
    validate_attachment_name), inline or standalone."""
    r = db.client.put(db.url("a"), json={"_attachments": {"_x": inline(b"abc")}})
    assert_error(r, 400, "bad_request")
    r = db.client.put(db.url("b", "_x"), data=b"abc", headers={"Content-Type": OCTET})
    assert_error(r, 400, "bad_request")
    assert_status(db.client.get(db.url("b")), 404)


def test_missing_attachment_404(db):
    """GET of an attachment the document lacks: 404 not_found (chttpd_db.erl
    get_existing_attachment)."""
    put_doc(db, "a", {"v": 1})
    assert_error(db.client.get(db.url("a", "nope.bin")), 404, "not_found")



# --- HTML form uploads: chttpd_db db_doc_req POST (multipart/form-data) ---------------


def _referer(client):
    return {"Referer": client.base + "/"}


def test_form_upload_adds_an_attachment(client, db):
    """POST /{db}/{doc} with a form: `_rev` names the base, each `_attachments`
    file becomes an attachment named by its file name; 201 with ETag, no Location."""
    rev = put_doc(db, "d", {"a": 1})["rev"]
    r = client.post(
        db.url("d"),
        data={"_rev": rev},
        files={"_attachments": ("up.txt", b"hello form", "text/plain")},
        headers=_referer(client),
    )
    assert_status(r, 201)
    out = body_of(r)
    assert out["ok"] is True and out["id"] == "d" and out["rev"].startswith("2-")
    assert r.headers["ETag"] == '"%s"' % out["rev"]
    assert "Location" not in r.headers
    doc = get_doc(db, "d")
    assert doc["a"] == 1
    assert doc["_attachments"]["up.txt"]["content_type"] == "text/plain"
    assert client.get(db.url("d", "up.txt")).content == b"hello form"


def test_form_upload_with_a_whole_doc(client, db):
    """A `_doc` field gives the document itself (a new one here)."""
    r = client.post(
        db.url("n"),
        data={"_doc": json.dumps({"x": 2})},
        files={"_attachments": ("f.bin", b"\x00\x01", "application/octet-stream")},
        headers=_referer(client),
    )
    assert_status(r, 201)
    doc = get_doc(db, "n")
    assert doc["x"] == 2 and doc["_attachments"]["f.bin"]["length"] == 2


def test_form_upload_needs_a_matching_referer(client, db):
    """couch_httpd:validate_referer: no Referer, or another host, is 400."""
    rev = put_doc(db, "d")["rev"]
    files = {"_attachments": ("up.txt", b"x", "text/plain")}
    r = client.post(db.url("d"), data={"_rev": rev}, files=files)
    assert_error(r, 400, "bad_request", "Referer header required.")
    r = client.post(db.url("d"), data={"_rev": rev}, files=files, headers={"Referer": "http://elsewhere.example/"})
    assert_error(r, 400, "bad_request", "Referer header must match host.")
    assert "_attachments" not in get_doc(db, "d")


def test_form_post_needs_form_data(client, db):
    """A POST to a document that is not multipart/form-data: 415."""
    put_doc(db, "d")
    r = client.post(db.url("d"), json={}, headers=_referer(client))
    assert_error(r, 415, "bad_content_type", "Content-Type must be multipart/form-data")


# --- Malformed inline attachments (couch_att:from_json; CouchDB 3.4.3) ----------------


def test_inline_attachment_without_data_is_invalid(client, db):
    """An entry with neither data, stub nor follows: 400 "Invalid attachment data for a"."""
    r = client.put(db.url("e"), json={"_attachments": {"a": {"content_type": "text/plain"}}})
    assert_error(r, 400, "bad_request", "Invalid attachment data for a")
    r = client.put(db.url("e"), json={"_attachments": {"a": {"data": "!!!", "content_type": "text/plain"}}})
    assert_error(r, 400, "bad_request", "Invalid attachment data for a")
    assert_status(client.get(db.url("e")), 404)


def test_inline_attachment_not_an_object_is_skipped(client, db):
    """A member of _attachments that is not an object is left out; the rest is stored."""
    r = client.put(
        db.url("g"),
        json={"_attachments": {"a": "str", "b": {"data": "aGk=", "content_type": "text/plain"}}},
    )
    assert_status(r, 201)
    assert list(get_doc(db, "g")["_attachments"]) == ["b"]


def test_stub_on_a_new_document_names_the_document(client, db):
    """A stub with nothing to resolve against: 412 missing_stub naming doc and attachment."""
    r = client.put(db.url("f"), json={"_attachments": {"a": {"stub": True}}})
    assert_error(r, 412, "missing_stub", "Invalid attachment stub in f for a")


def test_attachment_name_with_underscore(client, db):
    rev = put_doc(db, "d")["rev"]
    r = client.put(db.url("d", "_bad"), params={"rev": rev}, data=b"x", headers={"Content-Type": "text/plain"})
    assert_error(r, 400, "bad_request", "Attachment name '_bad' starts with prohibited character '_'")
    r = client.put(db.url("x"), json={"_attachments": {"_x": {"data": "aGk=", "content_type": "text/plain"}}})
    assert_error(r, 400, "bad_request", "Attachment name '_x' starts with prohibited character '_'")


def test_attachment_of_missing_document_or_name(client, db):
    put_doc(db, "d")
    assert_error(client.get(db.url("d", "missing")), 404, "not_found", "Document is missing attachment")
    assert_error(client.get(db.url("nodoc", "att")), 404, "not_found", "missing")


def test_multipart_answers_name_attachments_as_written(client, db):
    """couch_doc:atts_to_mp/4 writes `Content-Disposition: attachment; filename="NAME"`
    with the name as stored: quotes, slashes and UTF-8 unescaped (checked on CouchDB
    3.4.3), in a document's multipart answer and in `open_revs`."""
    name = 'a "q" é/ü.txt'
    body = {"_attachments": {name: {"content_type": "text/plain", "data": "aGk="}}}
    assert_status(client.put(db.url("m"), json=body), 201)
    expected = ('Content-Disposition: attachment; filename="%s"' % name).encode()
    r = client.get(db.url("m"), params={"attachments": "true"}, headers={"Accept": "multipart/related"})
    assert expected in assert_status(r, 200).content
    r = client.get(db.url("m"), params={"attachments": "true", "open_revs": "all"},
                   headers={"Accept": "multipart/mixed"})
    assert expected in assert_status(r, 200).content


def test_attachments_member_not_an_object(client, db):
    """attachment_names_test.exs neighbourhood (couch_doc:transfer_fields/3; API Reference ›
    Documents › Attachments): an `_attachments` that is not an object (number, string,
    array, null) -> 400 doc_validation "Bad special document member: _attachments"."""
    for value in (1, "x", [], None):
        r = client.put(db.url("d"), json={"_attachments": value})
        assert_error(r, 400, "doc_validation")
        assert body_of(r)["reason"] == "Bad special document member: _attachments"


def test_inline_data_padding_is_checked(client, db):
    """attachments_test.exs "errors for bad attachment": inline `data` is decoded as Erlang's
    base64:decode/1 decodes it (couch_att:from_json), so padding that is not exactly what the
    last group lacks (`notBase64Encoded=`, `aGVsbG8==`) or is missing (`aGVsbG8`) is 400
    "Invalid attachment data for <name>"; whitespace inside is skipped."""
    for i, data in enumerate(("notBase64Encoded=", "aGVsbG8==", "aGVsbG8")):
        r = client.put(db.url("bad%d" % i), json={"_attachments": {"foo.txt": {"data": data}}})
        assert_error(r, 400, "bad_request")
        assert body_of(r)["reason"] == "Invalid attachment data for foo.txt"
        assert_status(client.get(db.url("bad%d" % i)), 404)
    r = client.put(db.url("good"), json={"_attachments": {"a": {"data": "aGVs bG8="}}})
    assert_status(r, 201)
    assert client.get(db.url("good", "a")).content == b"hello"


def test_stub_with_another_revpos_is_missing_stub(client, db):
    """attachments_test.exs "COUCHDB-809 - stubs should only require the 'stub' field": a stub
    is matched by name and revpos (couch_att:merge_stubs/2), so one naming a revpos the kept
    attachment lacks is 412 missing_stub; without revpos it keeps the attachment."""
    r = client.put(db.url("stub_doc"), json={"_attachments": {"foo.txt": inline(b"abc", "text/plain")}})
    rev = body_of(r)["rev"]
    r = client.put(db.url("stub_doc"), json={"_rev": rev, "_attachments": {"foo.txt": {"stub": True}}})
    assert_status(r, 201)
    rev = body_of(r)["rev"]
    r = client.put(db.url("stub_doc"), json={"_rev": rev, "_attachments": {"foo.txt": {"stub": True, "revpos": 10}}})
    assert_error(r, 412, "missing_stub")
    assert body_of(r)["reason"] == "Invalid attachment stub in stub_doc for foo.txt"
    assert get_doc(db, "stub_doc")["_rev"] == rev


def test_attachment_delete_is_200_whatever_w(client, db):
    """attachments_test.exs "delete attachment" (w=3): chttpd_db:db_attachment_req/3 answers a
    DELETE `{200, []}` whatever the write quorum, and sends no Location."""
    r = client.put(db.url("d", "a.txt"), data=b"x", headers={"Content-Type": "text/plain"})
    rev = body_of(r)["rev"]
    r = client.delete(db.url("d", "a.txt"), params={"w": "3", "rev": rev})
    assert_status(r, 200)
    assert "Location" not in r.headers


def test_bad_atts_since_is_400(client, db):
    """attachments_test.exs neighbourhood: `atts_since` goes through couch_doc:parse_revs/1
    (chttpd_db:parse_doc_query/1): JSON that does not parse -> 400 "invalid UTF-8 JSON", a
    non-list -> "Invalid list of revisions", an entry that is no rev -> "Invalid rev format"."""
    put_doc(db, "d")
    for value, reason in (("bad", "invalid UTF-8 JSON"), ("1", "Invalid list of revisions"),
                          ('["x"]', "Invalid rev format"), ("[1]", "Invalid rev format")):
        r = client.get(db.url("d"), params={"atts_since": value})
        assert_error(r, 400, "bad_request")
        assert body_of(r)["reason"] == reason


def test_multipart_part_length_is_worded_as_couchdb(client, db):
    """attachments_multipart_test.exs neighbourhood: a `follows` part shorter or longer than
    its `length`, or missing, is 400 in couch_att's words ("attachment shorter than
    expected" / "attachment longer than expected"), and nothing is stored."""
    doc = {"_attachments": {"a": {"follows": True, "content_type": "text/plain", "length": 3}}}
    for parts, reason in (([], "attachment shorter than expected"),
                          ([([], b"12")], "attachment shorter than expected"),
                          ([([], b"1234")], "attachment longer than expected")):
        body, ctype = build_related(doc, parts)
        r = client.put(db.url("x"), data=body, headers={"Content-Type": ctype})
        assert_error(r, 400, "bad_request", reason)
        assert_status(client.get(db.url("x")), 404)
