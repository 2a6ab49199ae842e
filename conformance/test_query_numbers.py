"""Numeric (and flag) query parameters of _changes, _all_docs and document reads,
with the ranges CouchDB 3.4.3 accepts: chttpd_db.erl `parse_changes_query`,
couch_mrview_http.erl `parse_int`/`parse_pos_int`/`parse_boolean`, and
`parse_doc_query` (a flag counts only when it is exactly `true`)."""

import pytest

from couch import assert_error, assert_status, body_of, changes, put_doc, skip_if_couchdb_defect


@pytest.fixture
def one_doc(db):
    put_doc(db, "a")
    return db


@pytest.mark.parametrize("timeout", ["0", "1"])
def test_changes_timeout_zero(client, one_doc, timeout):
    """timeout=0 is an immediate timeout, not an error, for a normal and a
    longpoll feed. (A negative one makes CouchDB drop a longpoll connection.)"""
    out = changes(one_doc, params={"timeout": timeout})
    assert [r["id"] for r in out["results"]] == ["a"]
    out = changes(one_doc, params={"feed": "longpoll", "since": "now", "timeout": timeout})
    assert out["results"] == []


def test_changes_timeout_negative_normal_feed(client, one_doc):
    """A normal feed takes any integer timeout, a negative one too."""
    out = changes(one_doc, params={"timeout": "-1"})
    assert [r["id"] for r in out["results"]] == ["a"]


@pytest.mark.parametrize("timeout", ["1.5", "abc"])
def test_changes_timeout_not_an_integer(client, one_doc, timeout):
    """A non-integer timeout is refused (CouchDB crashes with 500 badarg there)."""
    r = client.get(one_doc.url("_changes"), params={"timeout": timeout})
    skip_if_couchdb_defect(client, r, 500, "unknown_error", "a non-integer `timeout` answers 500 badarg")
    assert_error(r, 400, "bad_request")


def test_changes_limit_zero_and_negative(client, one_doc):
    """limit=0: no rows, pending counts them; a negative limit is no limit."""
    out = changes(one_doc, params={"limit": "0"})
    assert out["results"] == [] and out["pending"] == 1
    out = changes(one_doc, params={"limit": "-1"})
    assert [r["id"] for r in out["results"]] == ["a"]


@pytest.mark.parametrize(
    "value,reason",
    [
        ("0", "The heartbeat value should be a positive integer (in milliseconds)."),
        ("-5", "The heartbeat value should be a positive integer (in milliseconds)."),
        ("abc", "Invalid heartbeat value. Expecting a positive integer value (in milliseconds)."),
    ],
)
def test_changes_bad_heartbeat(client, one_doc, value, reason):
    r = client.get(one_doc.url("_changes"), params={"heartbeat": value})
    assert_error(r, 400, "bad_request", reason)


@pytest.mark.parametrize("value", ["0", "-1", "abc"])
def test_changes_bad_seq_interval(client, one_doc, value):
    r = client.get(one_doc.url("_changes"), params={"seq_interval": value})
    assert_error(r, 400, "bad_request", "invalid_seq_interval")


@pytest.mark.parametrize("since", ["abc", "-1", "1.5", ""])
def test_changes_malformed_since(client, one_doc, since):
    r = client.get(one_doc.url("_changes"), params={"since": since})
    assert_error(r, 400, "bad_request", "Malformed sequence supplied in 'since' parameter.")


@pytest.mark.parametrize(
    "param,value,reason",
    [
        ("limit", "-1", 'Invalid value for positive integer: "-1"'),
        ("skip", "-1", 'Invalid value for positive integer: "-1"'),
        ("limit", "1.5", 'Invalid value for integer: "1.5"'),
        ("skip", "abc", 'Invalid value for integer: "abc"'),
        ("limit", "", "Invalid value for integer: []"),
        ("descending", "yes", 'Invalid boolean parameter: "yes"'),
    ],
)
def test_all_docs_bad_numbers(client, one_doc, param, value, reason):
    r = client.get(one_doc.url("_all_docs"), params={param: value})
    assert_error(r, 400, "query_parse_error", reason)


def test_all_docs_huge_numbers(client, one_doc):
    """A limit or skip past 64 bits is a number like any other."""
    rows = body_of(client.get(one_doc.url("_all_docs"), params={"limit": "9" * 20}))["rows"]
    assert [r["id"] for r in rows] == ["a"]
    out = body_of(client.get(one_doc.url("_all_docs"), params={"skip": "9" * 20}))
    assert out["rows"] == []
    # With a start key the rows before it are counted too (the sum once overflowed in Settee).
    out = body_of(client.get(one_doc.url("_all_docs"), params={"skip": "9" * 20, "startkey": '"a"',
                                                              "include_docs": "true"}))
    assert out["rows"] == []


def test_all_docs_boolean_any_case(client, one_doc):
    """parse_boolean lower-cases: descending=TRUE is true."""
    put_doc(one_doc, "b")
    rows = body_of(client.get(one_doc.url("_all_docs"), params={"descending": "TRUE"}))["rows"]
    assert [r["id"] for r in rows] == ["b", "a"]


def test_doc_flags_only_true_counts(client, one_doc):
    """Document read flags other than exactly `true` are ignored, not errors."""
    for param in ("latest", "revs", "conflicts", "meta"):
        r = client.get(one_doc.url("a"), params={param: "1"})
        assert_status(r, 200)
        assert set(body_of(r)) == {"_id", "_rev"}


def test_open_revs_empty_list_is_a_plain_read(client, one_doc):
    """open_revs=[] is the default (no open revs): the document itself."""
    r = client.get(one_doc.url("a"), params={"open_revs": "[]"})
    assert_status(r, 200)
    assert body_of(r)["_id"] == "a"
