"""Server-level endpoints. CouchDB docs: API Reference › Server."""

import pytest

from conftest import random_db_name
from couch import assert_error, assert_status, body_of, qjson


def test_welcome(client):
    """API Reference › Server › GET /: couchdb "Welcome", version, uuid, vendor."""
    r = assert_status(client.get(client.url()), 200)
    assert r.headers["Content-Type"].startswith("application/json")
    b = body_of(r)
    assert b["couchdb"] == "Welcome"
    assert isinstance(b["version"], str) and b["version"]
    assert isinstance(b["uuid"], str) and b["uuid"]
    assert isinstance(b["vendor"], dict) and isinstance(b["vendor"].get("name"), str)


def test_responses_carry_an_imf_fixdate_date(client):
    """API Reference › Server › GET / (its example response has `Date: Fri, 21 Sep 2018
    20:30:42 GMT`); RFC 9110 §6.6.1: an origin server with a clock sends Date, in the
    IMF-fixdate form of §5.6.7. Checked on a 200 and on an error answer."""
    from email.utils import parsedate_to_datetime
    for r in (client.get(client.url()), client.get(client.url(random_db_name()))):
        date = r.headers.get("Date")
        assert date is not None, r.headers
        assert date.endswith(" GMT") and len(date) == 29, date
        assert parsedate_to_datetime(date).year >= 2024


def test_welcome_uuid_is_stable(client):
    """spec/couchdb.md › Database info: the server uuid in GET / is stable (PouchDB
    derives replication ids from it)."""
    a = body_of(client.get(client.url()))["uuid"]
    b = body_of(client.get(client.url()))["uuid"]
    assert a == b


def test_welcome_head(client):
    """API Reference › Server › GET /: HEAD is allowed (Allow: GET,HEAD)."""
    r = client.head(client.url())
    assert r.status_code == 200
    assert r.content == b""


def test_up(client):
    """API Reference › Server › GET /_up: 200 {"status":"ok"}; CouchDB 3.4.3 also sends
    `seeds` (its `[cluster] seedlist` state, an empty object on a single node)."""
    r = assert_status(client.get(client.url("_up")), 200)
    body = body_of(r)
    assert body["status"] == "ok"
    assert isinstance(body["seeds"], dict)


def test_uuids_default_one(client):
    """API Reference › Server › GET /_uuids: one uuid by default."""
    b = body_of(assert_status(client.get(client.url("_uuids")), 200))
    assert isinstance(b["uuids"], list) and len(b["uuids"]) == 1
    assert isinstance(b["uuids"][0], str) and b["uuids"][0]


def test_uuids_count(client):
    """API Reference › Server › GET /_uuids?count=N: N distinct uuids."""
    b = body_of(assert_status(client.get(client.url("_uuids"), params={"count": 5}), 200))
    assert len(b["uuids"]) == 5
    assert len(set(b["uuids"])) == 5
    again = body_of(client.get(client.url("_uuids"), params={"count": 5}))["uuids"]
    assert not set(again) & set(b["uuids"])


def _three_dbs(make_db):
    prefix = random_db_name() + "_"
    names = [prefix + c for c in "abc"]
    for n in reversed(names):
        make_db(name=n)
    return prefix, names


def test_all_dbs_lists_created(client, make_db):
    """API Reference › Server › GET /_all_dbs: a sorted JSON array of names."""
    _, names = _three_dbs(make_db)
    b = body_of(assert_status(client.get(client.url("_all_dbs")), 200))
    assert isinstance(b, list)
    for n in names:
        assert n in b
    assert b == sorted(b)


def test_all_dbs_startkey_endkey(client, make_db):
    """API Reference › Server › GET /_all_dbs: startkey/endkey are JSON strings."""
    prefix, names = _three_dbs(make_db)
    p = {"startkey": qjson(names[0]), "endkey": qjson(names[2])}
    assert body_of(client.get(client.url("_all_dbs"), params=p)) == names
    p = {"startkey": qjson(names[1]), "endkey": qjson(names[2])}
    assert body_of(client.get(client.url("_all_dbs"), params=p)) == names[1:]


def test_all_dbs_limit_skip(client, make_db):
    """API Reference › Server › GET /_all_dbs: limit and skip."""
    _, names = _three_dbs(make_db)
    base = {"startkey": qjson(names[0]), "endkey": qjson(names[2])}
    assert body_of(client.get(client.url("_all_dbs"), params=dict(base, limit=2))) == names[:2]
    assert body_of(client.get(client.url("_all_dbs"), params=dict(base, skip=1))) == names[1:]
    got = body_of(client.get(client.url("_all_dbs"), params=dict(base, skip=1, limit=1)))
    assert got == names[1:2]


def test_all_dbs_descending(client, make_db):
    """API Reference › Server › GET /_all_dbs: descending=true reverses the order
    (startkey is then the high end)."""
    _, names = _three_dbs(make_db)
    p = {"descending": "true", "startkey": qjson(names[2]), "endkey": qjson(names[0])}
    assert body_of(client.get(client.url("_all_dbs"), params=p)) == names[::-1]


def test_dbs_info(client, db):
    """API Reference › Server › POST /_dbs_info: {"keys":[..]} -> [{"key","info"}],
    unknown databases as {"key","error":"not_found"}."""
    missing = random_db_name()
    r = client.post(client.url("_dbs_info"), json={"keys": [db.name, missing]})
    b = body_of(assert_status(r, 200))
    assert isinstance(b, list) and len(b) == 2
    assert b[0]["key"] == db.name
    assert b[0]["info"]["db_name"] == db.name
    assert "doc_count" in b[0]["info"] and "update_seq" in b[0]["info"]
    assert b[1]["key"] == missing
    assert b[1]["error"] == "not_found"
    assert "info" not in b[1]


def test_dbs_info_requires_keys(client):
    """API Reference › Server › POST /_dbs_info: the body must have `keys` (400)."""
    r = client.post(client.url("_dbs_info"), json={})
    assert_error(r, 400, "bad_request")


def test_method_not_allowed_welcome(client):
    """chttpd_misc handle_welcome_req: POST / -> 405 method_not_allowed, Allow header
    (API Reference › HTTP Status Codes › 405)."""
    r = client.post(client.url(), json={})
    assert_error(r, 405, "method_not_allowed")
    assert "GET" in r.headers.get("Allow", "")


def test_method_not_allowed_all_dbs(client):
    """chttpd_misc handle_all_dbs_req: only GET,HEAD -> DELETE /_all_dbs is 405."""
    r = client.delete(client.url("_all_dbs"))
    assert_error(r, 405, "method_not_allowed")


def test_method_not_allowed_db_endpoint(client, db):
    """chttpd_db: PUT /{db}/_bulk_docs -> 405 method_not_allowed (only POST)."""
    r = client.put(db.url("_bulk_docs"), json={"docs": []})
    assert_error(r, 405, "method_not_allowed")


@pytest.mark.parametrize("count", ["abc", "-1", "1-abc"])
def test_uuids_count_must_be_a_number(client, count):
    """chttpd_misc:handle_uuids_req/1: a count that is not a non-negative integer is 400
    "count must be a positive integer"; 0 is an empty list (checked on CouchDB 3.4.3)."""
    assert_error(client.get(client.url("_uuids"), params={"count": count}), 400, "bad_request",
                 "count must be a positive integer")
    assert body_of(client.get(client.url("_uuids"), params={"count": "0"})) == {"uuids": []}
