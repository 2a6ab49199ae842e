"""Tiny helpers shared by the conformance tests (CouchDB-neutral: nothing here
assumes Settee; seqs and revs are opaque strings taken from the server)."""

import hashlib
import json
import os
from urllib.parse import quote

import pytest

JSON = {"Content-Type": "application/json"}


# Set from `--no-skip` (conftest.py): skip_unless_strict fails instead of skipping.
STRICT = False


def skip_unless_strict(reason):
    """Skips a test that needs an optional server setup the server lacks; with
    `--no-skip` (servers that have everything, as `make test` runs Settee) it fails."""
    if STRICT:
        pytest.fail(reason + " (--no-skip)")
    pytest.skip(reason)


APACHE_VENDOR = "The Apache Software Foundation"


def skip_if_couchdb_defect(client, resp, status, error, why):
    """Skips, with `why`, when the server is Apache CouchDB (its welcome's vendor)
    and `resp` is the documented CouchDB defect (`status`, `error`); any other
    answer falls through to the test's own assertions. For cases where the
    suite asserts the right behaviour and CouchDB is known to get it wrong."""
    if resp.status_code != status:
        return
    try:
        if resp.json().get("error") != error:
            return
        vendor = client.get(client.url()).json().get("vendor", {}).get("name")
    except ValueError:
        return
    if vendor == APACHE_VENDOR:
        pytest.skip("Apache CouchDB defect: " + why)


def quote_part(part):
    """Percent-encode one path part. `_design/x` and `_local/x` keep their literal
    slash: CouchDB redirects GET /db/_design%2Fx to /db/_design/x."""
    for prefix in ("_design/", "_local/"):
        if part.startswith(prefix):
            return prefix + quote(part[len(prefix):], safe="")
    return quote(part, safe="")


class Client:
    """A requests.Session bound to a base URL."""

    def __init__(self, base, session):
        self.base = base
        self.session = session

    def url(self, *parts):
        return self.base + "/" + "/".join(quote_part(p) for p in parts)

    def request(self, method, url, **kw):
        kw.setdefault("timeout", 30)
        return self.session.request(method, url, **kw)

    def get(self, url, **kw):
        return self.request("GET", url, **kw)

    def head(self, url, **kw):
        return self.request("HEAD", url, **kw)

    def put(self, url, **kw):
        return self.request("PUT", url, **kw)

    def post(self, url, **kw):
        return self.request("POST", url, **kw)

    def delete(self, url, **kw):
        return self.request("DELETE", url, **kw)


def body_of(resp):
    try:
        return resp.json()
    except ValueError:
        raise AssertionError(
            "expected a JSON body, got %s %r" % (resp.status_code, resp.text[:500])
        )


def assert_status(resp, status):
    if isinstance(status, int):
        status = (status,)
    assert resp.status_code in status, "expected %s, got %s: %s" % (
        status,
        resp.status_code,
        resp.text[:500],
    )
    return resp


def assert_error(resp, status, error, reason=None):
    """Assert a CouchDB error response: `status`, {"error": error, "reason": <string>}."""
    assert_status(resp, status)
    if resp.request.method == "HEAD":
        return None
    body = body_of(resp)
    assert isinstance(body, dict), body
    assert body.get("error") == error, "expected error %r, got %r" % (error, body)
    assert isinstance(body.get("reason"), str), body
    if reason is not None:
        assert body["reason"] == reason, body
    return body


def assert_conflict(resp):
    return assert_error(resp, 409, "conflict")


def put_doc(db, docid, body=None, params=None, **kw):
    """PUT /{db}/{docid}; asserts 201 and returns the response JSON (ok, id, rev)."""
    r = db.client.put(db.url(docid), json=body if body is not None else {}, params=params, **kw)
    assert_status(r, 201)
    out = body_of(r)
    assert out.get("ok") is True and out.get("id") == docid, out
    return out


def get_doc(db, docid, params=None, **kw):
    r = db.client.get(db.url(docid), params=params, **kw)
    assert_status(r, 200)
    return body_of(r)


def update_doc(db, docid, rev, body=None):
    b = dict(body or {})
    b["_rev"] = rev
    return put_doc(db, docid, b)


def delete_doc(db, docid, rev):
    r = db.client.delete(db.url(docid), params={"rev": rev})
    assert_status(r, 200)
    out = body_of(r)
    assert out.get("ok") is True, out
    return out


def bulk_docs(db, docs, new_edits=None, status=201):
    body = {"docs": docs}
    if new_edits is not None:
        body["new_edits"] = new_edits
    r = db.client.post(db.url("_bulk_docs"), json=body)
    assert_status(r, status)
    return body_of(r)


def sig(seed):
    """A deterministic 32-lowercase-hex revision suffix (for new_edits=false)."""
    return hashlib.md5(seed.encode("utf-8")).hexdigest()


def random_sig():
    return os.urandom(16).hex()


def rev_gen(rev):
    return int(rev.split("-", 1)[0])


def rev_sig(rev):
    return rev.split("-", 1)[1]


def force_revs(db, docid, path, body=None, deleted=False):
    """Store the branch `path` (newest first, list of sigs, top generation = len(path))
    with new_edits=false; returns the leaf rev string."""
    start = len(path)
    doc = dict(body or {"v": path[0]})
    doc["_id"] = docid
    doc["_rev"] = "%d-%s" % (start, path[0])
    doc["_revisions"] = {"start": start, "ids": list(path)}
    if deleted:
        doc["_deleted"] = True
    out = bulk_docs(db, [doc], new_edits=False)
    assert out == [], out
    return doc["_rev"]


def make_conflict(db, docid):
    """A document with two live generation-2 leaves over a shared 1- parent.
    Returns (winner, loser, parent) revs; winner has the greater sig."""
    p = sig(docid + "/1")
    a, b = sorted([sig(docid + "/2a"), sig(docid + "/2b")])
    force_revs(db, docid, [a, p], {"branch": "a"})
    force_revs(db, docid, [b, p], {"branch": "b"})
    return "2-" + b, "2-" + a, "1-" + p


def changes(db, params=None, **kw):
    r = db.client.get(db.url("_changes"), params=params, **kw)
    assert_status(r, 200)
    return body_of(r)


def qjson(value):
    """Encode a JSON query-string value (startkey, key, keys, open_revs...)."""
    return json.dumps(value, separators=(",", ":"))
