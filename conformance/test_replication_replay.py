"""Replay of what Apache CouchDB 3.4.3's replicator sends to a source and to a target.

Issue: "Apache CouchDB's replicator must work against Settee". The exchanges are in
transcripts/*.jsonl (copied from spec/transcripts, recorded through a proxy; see
transcripts/README.md). A module fixture rebuilds, through the server's own API, a
source equivalent to the recorded one, storing every revision with new_edits=false
under its recorded rev id, so most recorded requests replay verbatim. Each exchange is
sent again and the answer must match the recorded one in status, content-type family
and JSON structure (seqs, session ids and instance_start_time are opaque).

Bodies in the transcripts are cut at 3,000 bytes and binary bytes show as '.'; the
bodies that were cut are rebuilt from the fixture's definition, and
test_rebuilt_bodies_match_transcript checks each rebuilt body against the recorded
prefix and byte count.
"""

import base64
import json
import os
import re
import time
import zlib
from urllib.parse import urlencode

import pytest
import requests

from conftest import random_db_name
from couch import assert_error, assert_status, body_of
from multipart import (
    assert_same_shape,
    media_type,
    parse_multipart,
    salvage_array,
    shape_diffs,
)

HERE = os.path.dirname(os.path.abspath(__file__))
PULL = os.path.join(HERE, "transcripts", "couchdb-replicator-pull-from-source.jsonl")
PUSH = os.path.join(HERE, "transcripts", "couchdb-replicator-push-to-target.jsonl")

SENT_HEADERS = ("Accept", "Content-Type", "X-Couch-Full-Commit", "User-Agent")
TRUNC_RE = re.compile(r"\.\.\. \[(\d+) bytes\]$")
BINARY_RE = re.compile(r"(?:\.\.\.)? ?\[(\d+) bytes, binary shown as '\.'\]$")


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


PULL_X = load(PULL)
PUSH_X = load(PUSH)


# ---------------------------------------------------------------------------------
# The recorded source database (transcripts: pull lines 8-10, push lines 12-20)

REVS = {
    "doc000000": "8f9a440806b30273f1910d9cf9ac11ac",
    "doc000002": "ec21274fdfef1a29067d3d578fb53a05",
    "doc000004": "93782de0f79af56fb418945ccfdc4ca5",
    "doc000005": "d81ebc9d14dc73236fcdcdc4bf97993d",
    "doc000006": "aeabfe2f4f0d0c3a4f9d4e38ab889877",
    "doc000007": "3c1783cc911ca63eb9e6e7598ae4a8cf",
    "doc000008": "0b110c91136e95f36df107099445c752",
    "doc000009": "71f7036ae55e558222f9031dba630f5b",
    "doc000010": "7923ca562f80a356435b42f4189538e5",
    "doc000011": "50a64cbd4a6ad86cd016637be48c7127",
    "doc000012": "0e2615bd15c10b084220dc5d8cdfba64",
    "doc000013": "12071ada0d3d8c90ecf205dbea308557",
    "doc000014": "77086ea12b5f730096702cc3d7fd9063",
    "doc000015": "455cd8a89ac506801ec27ff7a169ed81",
    "doc000016": "88000cafdc0c7d48c8c2355abff1bf15",
    "doc000017": "616160bf9d23b6455adda52a777a8bb8",
    "doc000018": "53e4d287b66dd89aed9bd971ea6ae673",
    "doc000019": "afe50f8c5fdf10fdae83b0989dbc7b92",
    "doc000020": "fb83157ef0ba2f0966ef48e91e9878cb",
    "doc000021": "181b4a7befd7275a7c94eff54e876660",
    "doc000022": "4b95a9d51668eb06b4283a7d20658a58",
    "doc000023": "a724a790d596148a276cc5b577134a49",
    "doc000024": "da043d3a02f5299f4365402a4af65cf2",
    "doc000025": "8f51ad23a22887a79a4f6b9981d9972b",
    "doc000026": "4ae6cb85ce40898c9ec9e4840cb4cebd",
    "doc000027": "cd128bc487ca242d7c89795658647c53",
    "doc000028": "ae2824087bfb3fad559486cf5db017cd",
    "doc000029": "ef7d450dd7d2aa57eef411509287b0dc",
    "doc000030": "41ab86d586371ea33850310ad52b0f04",
    "doc000031": "7f04402cb2e39edb1cd4cc922d40889a",
    "doc000032": "878e24eecc04ebaa594224a14bc78159",
    "doc000033": "3fd09c76cbd44a4066f7f1dacae79dde",
    "doc000034": "3b288dde069c2d4b53e27c6b2bb9df3e",
    "doc000035": "1b52c0fec3e885b9d539078ccd90c6e6",
    "doc000036": "bf87c20ca36adeae0411925ba35ae334",
    "doc000037": "5a466126fb287b264a3f9e775d477f55",
    "doc000038": "e6b4198c4cce483b3d1dfcba3dd4d3c4",
    "doc000039": "3a629686fa550f88fe08e72251bade57",
}
DOC1_REVS = ["b9c35683e25b02361b8673a523cbe727", "9901cae4ea04dbbe2fc860c5f17c34aa"]
DOC3_REVS = ["ec3a565c3fec9e9e532e1f052f19ead8", "6dc5cdb1c47ddc90b8dc8877014c7b5a"]
DDOC_REV = "4e4e6495ce418dcc2f00ba7c77113900"
LOCAL_SRC = "_local/e5bf6d81f25923f37507a4897fe0bcc2"
LOCAL_TGT = "_local/608a325fda943ed05b43703b904ae27f"
ALL_IDS = ["doc%06d" % i for i in range(40)] + ["_design/app"]

# blob.bin: 2003 bytes (i + 21) mod 256 -- its MD5 is the recorded
# md5-HQIyCpEpH1tdeHEbc/E5CQ==. note.txt: "note 3", gzip'd by zlib at level 8 (CouchDB's
# default attachment compression level, mtime 0): 26 bytes whose MD5 is the recorded
# md5-o+SDhDpExwGEDTfSblMNqQ==.
BLOB = bytes((i + 21) % 256 for i in range(2003))
NOTE = b"note 3"


def gzip_bytes(data, level=8):
    c = zlib.compressobj(level, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


NOTE_GZ = gzip_bytes(NOTE)


def body(i):
    return {"i": i, "text": "x" * i, "nested": {"a": [i, str(i)]}}


def rev1_doc(docid):
    i = int(docid[3:])
    d = {"_id": docid, "_rev": "1-" + REVS[docid]}
    d.update(body(i))
    d["_revisions"] = {"start": 1, "ids": [REVS[docid]]}
    return d


CONFLICT_DOC = {
    "_id": "doc000000",
    "_rev": "1-conflict0000",
    "side": "b",
    "_revisions": {"start": 1, "ids": ["conflict0000"]},
}
DELETED_DOC = {
    "_id": "doc000001",
    "_rev": "2-" + DOC1_REVS[0],
    "_deleted": True,
    "_revisions": {"start": 2, "ids": DOC1_REVS},
}
DDOC = {
    "_id": "_design/app",
    "_rev": "1-" + DDOC_REV,
    "views": {},
    "language": "javascript",
    "note": "design doc",
    "_revisions": {"start": 1, "ids": [DDOC_REV]},
}
DOC3 = {
    "_id": "doc000003",
    "_rev": "2-" + DOC3_REVS[0],
    "i": 3,
    "text": "xxx",
    "nested": {"a": [3, "3"]},
    "_revisions": {"start": 2, "ids": DOC3_REVS},
    "_attachments": {
        "blob.bin": {
            "content_type": "application/octet-stream",
            "revpos": 2,
            "digest": "md5-HQIyCpEpH1tdeHEbc/E5CQ==",
            "length": 2003,
            "follows": True,
        },
        "note.txt": {
            "content_type": "text/plain",
            "revpos": 2,
            "digest": "md5-o+SDhDpExwGEDTfSblMNqQ==",
            "length": 6,
            "follows": True,
            "encoding": "gzip",
            "encoded_length": 26,
        },
    },
}


def doc3_multipart(boundary):
    """The multipart/related body CouchDB's replicator PUTs for doc000003 (push line 19)."""
    b = boundary.encode()
    return b"".join(
        [
            b"--" + b + b"\r\nContent-Type: application/json\r\n\r\n",
            json.dumps(DOC3, separators=(",", ":")).encode(),
            b"\r\n--" + b + b"\r\n",
            b'Content-Disposition: attachment; filename="blob.bin"\r\n',
            b"Content-Type: application/octet-stream\r\nContent-Length: 2003\r\n\r\n",
            BLOB,
            b"\r\n--" + b + b"\r\n",
            b'Content-Disposition: attachment; filename="note.txt"\r\n',
            b"Content-Type: text/plain\r\nContent-Length: 26\r\nContent-Encoding: gzip\r\n\r\n",
            NOTE_GZ,
            b"\r\n--" + b + b"--",
        ]
    )


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def rebuilt_bulk_get():
    """pull line 9: every leaf except doc000002's (fetched alone on line 8)."""
    docs = [{"rev": "1-conflict0000", "id": "doc000000", "atts_since": []}]
    for docid in ["doc%06d" % i for i in range(40)]:
        if docid == "doc000002":
            continue
        if docid == "doc000001":
            rev = DELETED_DOC["_rev"]
        elif docid == "doc000003":
            rev = DOC3["_rev"]
        else:
            rev = "1-" + REVS[docid]
        docs.append({"rev": rev, "id": docid, "atts_since": []})
    return compact({"revs": True, "latest": True, "docs": docs, "attachments": False})


def rebuilt_bulk_docs(ids, extra=()):
    docs = [rev1_doc(d) for d in sorted(ids, reverse=True)] + list(extra)
    return compact({"new_edits": False, "docs": docs})


def push_batch_ids(line):
    """Ids a _revs_diff batch (push lines 12 and 16) asked for."""
    return list(json.loads(PUSH_X[line - 1]["request"]["body"]))


def rebuilt_push_17():
    return rebuilt_bulk_docs(push_batch_ids(12))


def rebuilt_push_20():
    ids = [
        d for d in push_batch_ids(16)
        if d not in ("doc000003", "_design/app", "doc000000", "doc000001")
    ]
    return rebuilt_bulk_docs(ids, [DELETED_DOC, rev1_doc("doc000000"), CONFLICT_DOC])


PUSH19_BOUNDARY = "ec31ddb841e4778f83c47c9ec084a064"


def request_body(kind, n, x, creds):
    """The body to send for exchange n (1-based) of `kind`; bytes or str."""
    recorded = x["request"]["body"]
    if x["request"]["path"] == "/_session":
        return urlencode({"name": creds[0], "password": creds[1]})
    if kind == "pull" and n == 9:
        return rebuilt_bulk_get()
    if kind == "push" and n == 17:
        return rebuilt_push_17()
    if kind == "push" and n == 20:
        return rebuilt_push_20()
    if kind == "push" and n == 19:
        return doc3_multipart(PUSH19_BOUNDARY)
    assert not TRUNC_RE.search(recorded) and not BINARY_RE.search(recorded), (kind, n)
    return recorded


def test_rebuilt_bodies_match_transcript():
    """The bodies rebuilt for cut or binary transcript lines equal the recorded ones:
    same prefix (binary bytes as '.') and the recorded byte count (transcripts
    pull line 9, push lines 17, 19, 20)."""

    def visible(data):
        if isinstance(data, str):
            data = data.encode()
        return "".join(chr(c) if c in (10, 13) or 32 <= c < 127 else "." for c in data)

    for kind, n, rebuilt in (
        ("pull", 9, rebuilt_bulk_get()),
        ("push", 17, rebuilt_push_17()),
        ("push", 20, rebuilt_push_20()),
        ("push", 19, doc3_multipart(PUSH19_BOUNDARY)),
    ):
        x = (PULL_X if kind == "pull" else PUSH_X)[n - 1]
        rec = x["request"]["body"]
        m = TRUNC_RE.search(rec) or BINARY_RE.search(rec)
        assert m, (kind, n)
        size = int(m.group(1))
        prefix = rec[: m.start()]
        v = visible(rebuilt)
        assert len(rebuilt) == size == int(x["request"]["headers"]["Content-Length"]), (
            kind, n, len(rebuilt), size)
        if kind == "push" and n == 20:
            # the cut hides the order of the last documents; compare up to the cut
            prefix = prefix[: prefix.rfind('{"_id"')]
        assert v.startswith(prefix), (kind, n, v[:len(prefix)][-200:], prefix[-200:])
    assert base64.b64encode(__import__("hashlib").md5(NOTE_GZ).digest()).decode() == (
        "o+SDhDpExwGEDTfSblMNqQ==")


# ---------------------------------------------------------------------------------
# Fixtures


def _login(base_url, admin_auth):
    r = requests.post(
        base_url + "/_session",
        data=urlencode({"name": admin_auth[0], "password": admin_auth[1]}),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
        timeout=30,
    )
    assert_status(r, 200)
    cookie = r.cookies.get("AuthSession")
    assert cookie, r.headers
    return cookie


@pytest.fixture(scope="module")
def repl(base_url, admin_auth):
    """A replicator-like session: no Basic auth, the AuthSession cookie from
    POST /_session (pull line 1)."""
    if not admin_auth:
        pytest.skip("needs admin credentials in the URL")
    cookie = _login(base_url, admin_auth)
    s = requests.Session()
    s.cookies.set("AuthSession", cookie)
    yield s
    s.close()


@pytest.fixture(scope="module")
def source(client):
    """The recorded source database rebuilt with new_edits=false (recorded revs)."""
    name = random_db_name()
    r = client.put(client.url(name))
    assert_status(r, (201, 202))
    try:
        docs = [rev1_doc(d) for d in REVS]
        docs += [
            CONFLICT_DOC,
            {"_id": "doc000001", "_rev": "1-" + DOC1_REVS[1], **body(1),
             "_revisions": {"start": 1, "ids": [DOC1_REVS[1]]}},
            {"_id": "doc000003", "_rev": "1-" + DOC3_REVS[1], **body(3),
             "_revisions": {"start": 1, "ids": [DOC3_REVS[1]]}},
            DDOC,
        ]
        r = client.post(client.url(name, "_bulk_docs"), json={"docs": docs, "new_edits": False})
        assert_status(r, 201)
        assert body_of(r) == [], r.text
        r = client.post(client.url(name, "_bulk_docs"),
                        json={"docs": [DELETED_DOC], "new_edits": False})
        assert_status(r, 201)
        b = "5f1c0ffee5f1c0ffee5f1c0ffee5f1c0"
        r = client.put(
            client.url(name, "doc000003"),
            params={"new_edits": "false"},
            data=doc3_multipart(b),
            headers={"Content-Type": 'multipart/related; boundary="%s"' % b},
        )
        assert_status(r, (201, 202))
        checkpoint = json.loads(PULL_X[3]["response"]["body"])
        checkpoint.pop("_rev")
        r = client.put(client.url(name, LOCAL_SRC), json=checkpoint)
        assert_status(r, (201, 202))
        yield name
    finally:
        client.delete(client.url(name))


def send(base_url, session, kind, n, x, dbname, creds):
    req = x["request"]
    recorded_db = "/tsrc/" if kind == "pull" else "/tpush/"
    path = req["path"]
    if path.startswith(recorded_db):
        path = "/" + dbname + "/" + path[len(recorded_db):]
    headers = {k: v for k, v in req["headers"].items() if k in SENT_HEADERS}
    headers.setdefault("Accept", None)  # requests' default */* is not what was sent
    data = request_body(kind, n, x, creds)
    if isinstance(data, str):
        data = data.encode("utf-8")
    return session.request(req["method"], base_url + path, data=data or None,
                           headers=headers, timeout=30)


def compare_parts(rec_parts, parts, where):
    truncated = bool(rec_parts) and rec_parts[-1].truncated
    if truncated:
        assert len(parts) >= len(rec_parts), (where, parts)
    else:
        assert len(parts) == len(rec_parts), (where, rec_parts, parts)
    for i, (rp, p) in enumerate(zip(rec_parts, parts)):
        w = "%s part %d" % (where, i)
        rn, an = set(rp.header_names()), set(p.header_names())
        if rp.truncated:
            assert rn <= an, (w, rp.headers, p.headers)
        else:
            assert rn == an, (w, rp.headers, p.headers)
        for h in ("Content-Disposition", "Content-Length", "Content-Encoding"):
            if rp.header(h) is not None:
                assert p.header(h) == rp.header(h), (w, h, rp.headers, p.headers)
        if rp.content_type is not None:
            assert media_type(p.content_type) == media_type(rp.content_type), (w, p.headers)
        if rp.parts is not None:
            assert p.parts is not None, w
            compare_parts(rp.parts, p.parts, w)
        elif media_type(rp.content_type) == "application/json" and not rp.truncated:
            assert_same_shape(rp.json(), p.json(), w)
        elif not rp.truncated:
            assert len(p.body) == len(rp.body), (w, len(p.body), len(rp.body))


def compare_response(kind, n, x, r):
    """Same status, content-type family and JSON structure as recorded."""
    rec = x["response"]
    where = "%s line %d: %s %s" % (kind, n, x["request"]["method"], x["request"]["path"])
    assert r.status_code == rec["status"], (where, r.status_code, r.text[:500])
    rec_ct = rec["headers"].get("Content-Type")
    assert media_type(r.headers.get("Content-Type")) == media_type(rec_ct), (
        where, r.headers.get("Content-Type"))
    text = rec["body"]
    cut = TRUNC_RE.search(text) or BINARY_RE.search(text)
    if media_type(rec_ct).startswith("multipart/"):
        rec_body = text[: cut.start()] if cut else text
        rec_parts = parse_multipart(rec_body, rec_ct, lenient=True)
        parts = parse_multipart(r.content, r.headers["Content-Type"])
        compare_parts(rec_parts, parts, where)
        return
    actual = body_of(r)
    if not cut:
        assert_same_shape(json.loads(text), actual, where)
        return
    # A JSON body cut short: compare every complete recorded element of `results`
    # with the server's element for the same id (and rev).
    items = salvage_array(text, "results")
    assert items, where
    assert isinstance(actual, dict) and isinstance(actual.get("results"), list), where
    diffs = shape_diffs({"results": items}, {"results": actual["results"]})
    diffs = [d for d in diffs if "elements, expected" not in d]
    assert not diffs, (where, diffs[:10])


# ---------------------------------------------------------------------------------
# Source side


@pytest.mark.parametrize(
    "n", range(1, len(PULL_X) + 1),
    ids=["pull%02d-%s-%s" % (i + 1, x["request"]["method"], x["request"]["path"][:40])
         for i, x in enumerate(PULL_X)],
)
def test_pull_exchange(n, base_url, admin_auth, repl, source):
    """Each request CouchDB's replicator makes of a SOURCE gets the recorded answer
    (transcripts/couchdb-replicator-pull-from-source.jsonl line n)."""
    x = PULL_X[n - 1]
    session = requests.Session() if x["request"]["path"] == "/_session" else repl
    try:
        r = send(base_url, session, "pull", n, x, source, admin_auth)
    finally:
        if session is not repl:
            session.close()
    compare_response("pull", n, x, r)
    if x["request"]["path"] == "/_session":
        assert body_of(r)["name"] == admin_auth[0]
        assert "_admin" in body_of(r)["roles"]
        assert r.cookies.get("AuthSession"), r.headers
    if "_changes" in x["request"]["path"]:
        rows = {row["id"]: row for row in body_of(r)["results"]}
        assert set(rows) == set(ALL_IDS), sorted(rows)
        assert set(body_of(r)) == {"results", "last_seq", "pending"}
        # style=all_docs: every leaf (CouchDB docs, /{db}/_changes "style")
        assert sorted(c["rev"] for c in rows["doc000000"]["changes"]) == sorted(
            ["1-" + REVS["doc000000"], "1-conflict0000"])
        assert rows["doc000001"].get("deleted") is True
        assert rows["doc000001"]["changes"] == [{"rev": DELETED_DOC["_rev"]}]
        for docid, row in rows.items():
            assert set(row) <= {"seq", "id", "changes", "deleted"}, row
    if "_bulk_get" in x["request"]["path"]:
        sent = json.loads(request_body("pull", n, x, admin_auth))
        assert len(body_of(r)["results"]) == len(sent["docs"])


# ---------------------------------------------------------------------------------
# Target side


@pytest.fixture(scope="module")
def pushed(base_url, admin_auth, repl, client):
    """Replays the push transcript in order against a fresh target; returns
    (target name, [responses])."""
    name = random_db_name()
    out = []
    try:
        for n, x in enumerate(PUSH_X, 1):
            session = requests.Session() if x["request"]["path"] == "/_session" else repl
            try:
                out.append(send(base_url, session, "push", n, x, name, admin_auth))
            finally:
                if session is not repl:
                    session.close()
        yield name, out
    finally:
        client.delete(client.url(name))


@pytest.mark.parametrize(
    "n", range(1, len(PUSH_X) + 1),
    ids=["push%02d-%s-%s" % (i + 1, x["request"]["method"], x["request"]["path"][:40])
         for i, x in enumerate(PUSH_X)],
)
def test_push_exchange(n, pushed):
    """Each request CouchDB's replicator sends to a TARGET, replayed in order against
    a fresh database, gets the recorded answer
    (transcripts/couchdb-replicator-push-to-target.jsonl line n)."""
    _, responses = pushed
    compare_response("push", n, PUSH_X[n - 1], responses[n - 1])


def _leaves(client, db, docid):
    r = client.get(client.url(db, docid), params={"open_revs": "all", "revs": "true"},
                   headers={"Accept": "application/json"})
    assert_status(r, 200)
    out = {}
    for item in body_of(r):
        assert "ok" in item, item
        d = item["ok"]
        atts = {
            k: (v.get("digest"), v.get("length"), v.get("revpos"), v.get("content_type"))
            for k, v in (d.get("_attachments") or {}).items()
        }
        out[d["_rev"]] = (d.get("_revisions"), bool(d.get("_deleted")), atts)
    return out


def test_push_target_holds_source_trees(client, source, pushed):
    """After the replayed push the target holds every document's revision tree and
    attachment digests as the source does (transcript push lines 13-20; GET
    /{db}/{docid}?open_revs=all&revs=true, CouchDB API reference /{db}/{docid})."""
    target, _ = pushed
    for docid in ALL_IDS:
        assert _leaves(client, target, docid) == _leaves(client, source, docid), docid
    r = client.get(client.url(target, LOCAL_TGT))
    assert_status(r, 200)


# ---------------------------------------------------------------------------------
# Bad input


def test_session_wrong_password(base_url, admin_auth):
    """POST /_session (form-encoded, as on pull line 1) with a wrong password:
    401 unauthorized (CouchDB API reference, /_session POST: 401 Unauthorized)."""
    r = requests.post(
        base_url + "/_session",
        data=urlencode({"name": admin_auth[0], "password": admin_auth[1] + "-wrong"}),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
        timeout=30,
    )
    assert_error(r, 401, "unauthorized")
    assert not r.cookies.get("AuthSession")


def test_bogus_auth_session_cookie_is_anonymous(base_url, client):
    """A well-formed AuthSession cookie with a bad signature authenticates nobody
    (couch_httpd_auth cookie_authentication_handler leaves the request anonymous), so
    PUT /{db}, which needs a server admin, is 401 unauthorized."""
    name = random_db_name()
    raw = b"nosuchuser:%X:" % int(time.time()) + os.urandom(20).hex().encode()
    cookie = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    try:
        r = requests.put(base_url + "/" + name, cookies={"AuthSession": cookie},
                         headers={"Accept": "application/json"}, timeout=30)
        assert_error(r, 401, "unauthorized")
        assert_status(client.get(client.url(name)), 404)
    finally:
        client.delete(client.url(name))


def test_truncated_multipart_put_stores_nothing(client, db):
    """The multipart/related PUT of push line 19 cut short (the attachment part ends
    before its declared length and there is no closing boundary) is rejected and
    nothing is stored. CouchDB answers with an error status (couch_httpd_multipart
    reads `length` bytes per `follows` attachment); the exact status of a cut stream
    is not documented, so only "an error, and GET -> 404" is asserted."""
    full = doc3_multipart(PUSH19_BOUNDARY)
    cut = full[: full.find(b"Content-Length: 2003\r\n\r\n") + 24 + 500]
    r = client.put(
        db.url("doc000003"),
        params={"new_edits": "false"},
        data=cut,
        headers={"Content-Type": 'multipart/related; boundary="%s"' % PUSH19_BOUNDARY},
    )
    assert 400 <= r.status_code < 600, (r.status_code, r.text[:300])
    assert_status(client.get(db.url("doc000003")), 404)
