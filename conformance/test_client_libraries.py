"""What CouchDB client libraries send, answered as CouchDB 3.4.3 answers it.

Found by running aiocouch 4.0.1 and python-cloudant 2.15.0 against Apache CouchDB 3.4.3
and Settee side by side (conformance/clients/run_clients.py does it by hand). CouchDB docs:
API Reference › Databases › /{db}/_changes (`since`, `last-event-id`, the eventsource
`Last-Event-ID` header), › PUT /{db} (412 file_exists), › /_db_updates. Behaviour of
chttpd_db:parse_changes_query/1 and chttpd_db:create_db_req/2."""

import json

import pytest

from couch import assert_error, assert_status, body_of, put_doc


@pytest.fixture
def db1(make_db):
    # One shard: the feed's order is the write order (PUT /{db} `q`).
    db = make_db(query={"q": "1"})
    for docid in ("d0", "d1", "d2", "d3"):
        put_doc(db, docid, {})
    return db


def seqs(db):
    body = body_of(assert_status(db.client.get(db.url("_changes")), 200))
    return [row["seq"] for row in body["results"]]


def ids_of(resp):
    return [row["id"] for row in body_of(assert_status(resp, 200))["results"]]


def test_last_event_id_parameter_is_since(db1):
    """aiocouch's `changes(last_event_id=...)` sends `?last-event-id=`: CouchDB reads it as
    `since` (parse_changes_query/1), so the feed after the third change has one row."""
    third = seqs(db1)[2]
    r = db1.client.get(db1.url("_changes"), params={"last-event-id": third})
    assert ids_of(r) == ["d3"]
    r = db1.client.get(db1.url("_changes"), params={"feed": "continuous", "timeout": "100", "last-event-id": third})
    lines = [json.loads(line) for line in r.text.splitlines() if line.strip()]
    assert [line["id"] for line in lines[:-1]] == ["d3"] and "last_seq" in lines[-1]


def test_since_and_last_event_id_later_wins(db1):
    """The parameters are folded in order: of `since` and `last-event-id`, the later one counts."""
    third = seqs(db1)[2]
    url = db1.url("_changes")
    assert ids_of(db1.client.get(url + "?since=0&last-event-id=" + third)) == ["d3"]
    assert ids_of(db1.client.get(url + "?last-event-id=" + third + "&since=0")) == ["d0", "d1", "d2", "d3"]


def test_malformed_last_event_id(db1):
    """A `last-event-id` that is not a sequence is refused as a bad `since`."""
    r = db1.client.get(db1.url("_changes"), params={"last-event-id": "garbage"})
    assert_error(r, 400, "bad_request", "Malformed sequence supplied in 'since' parameter.")


def test_last_event_id_header_is_for_eventsource_only(db1):
    """The `Last-Event-ID` header (a browser's EventSource reconnecting) overrides `since`
    for `feed=eventsource` only; other feeds ignore it."""
    second = seqs(db1)[1]
    url = db1.url("_changes")
    header = {"Last-Event-ID": second}
    assert ids_of(db1.client.get(url, params={"since": "0"}, headers=header)) == ["d0", "d1", "d2", "d3"]
    assert ids_of(db1.client.get(url, headers=header)) == ["d0", "d1", "d2", "d3"]
    r = db1.client.get(url, params={"feed": "eventsource", "since": "0", "timeout": "100"}, headers=header)
    data = [json.loads(line[len("data: "):]) for line in r.text.splitlines() if line.startswith("data: ")]
    assert [d["id"] for d in data] == ["d2", "d3"]


def test_parameter_names_in_any_case(db1):
    """parse_changes_query/1 lowercases every parameter name."""
    second = seqs(db1)[1]
    r = db1.client.get(db1.url("_changes"), params={"Since": second, "LIMIT": "1"})
    assert ids_of(r) == ["d2"]


@pytest.mark.parametrize("query", [{"q": "1"}, {"n": "1"}, {"partitioned": "false"}, {"props": "x"}])
def test_put_existing_database_with_creation_parameters(client, db, query):
    """PUT of an existing database, whatever valid creation parameters come with it (python-
    cloudant's `create_database(..., partitioned=False)` sends `?partitioned=false`): 412."""
    r = client.put(db.url(), params=query)
    assert_error(r, 412, "file_exists", "The database could not be created, the file already exists.")


@pytest.mark.parametrize("q", ["0", "x"])
def test_put_existing_database_bad_q(client, db, q):
    """A bad `q` is checked before existence: 400 even for an existing database."""
    r = client.put(db.url(), params={"q": q})
    assert_error(r, 400, "bad_request", "The `q` value should be a positive integer.")
