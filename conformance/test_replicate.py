"""POST /_replicate. CouchDB docs: API Reference › Server › /_replicate; the
replicator's answers come from couch_replicator_httpd.erl, checked on CouchDB 3.4.3
(the server replicates between two of its own databases through its own URL)."""

import json

import pytest

from couch import assert_error, assert_status, body_of, bulk_docs, put_doc


@pytest.fixture
def endpoint(pytestconfig):
    """endpoint(db or name) -> the database's URL with the admin's credentials, as a
    replication document names it."""
    base = pytestconfig.getoption("--url").rstrip("/")
    return lambda db: base + "/" + getattr(db, "name", db)


def replicate(client, body):
    return client.post(client.url("_replicate"), json=body)


def test_one_shot_answers_the_session_and_its_history(client, make_db, endpoint):
    """_replicate one-shot: 200 {"ok":true,"session_id","source_last_seq","history":[..]}
    with the session's counters; the target then holds the documents."""
    source, target = make_db(), make_db()
    bulk_docs(source, [{"_id": "a", "v": 1}, {"_id": "b", "v": 2}])
    r = assert_status(replicate(client, {"source": endpoint(source), "target": endpoint(target)}), 200)
    out = body_of(r)
    assert out["ok"] is True and "no_changes" not in out
    assert isinstance(out["session_id"], str) and out["source_last_seq"]
    entry = out["history"][0]
    assert entry["session_id"] == out["session_id"]
    assert entry["docs_written"] == 2 and entry["missing_checked"] == 2 and entry["doc_write_failures"] == 0
    assert entry["recorded_seq"] == out["source_last_seq"]
    # Every member CouchDB 3.4.3's history entry has (couch_replicator_scheduler_job).
    assert set(entry) >= {"session_id", "start_time", "end_time", "start_last_seq", "end_last_seq", "recorded_seq",
                          "missing_checked", "missing_found", "docs_read", "docs_written", "doc_write_failures",
                          "bulk_get_docs", "bulk_get_attempts"}
    assert entry["bulk_get_docs"] == 2 and entry["bulk_get_attempts"] == 2
    rows = body_of(client.get(target.url("_all_docs")))["rows"]
    assert [row["id"] for row in rows] == ["a", "b"]
    # Again: nothing new, said so.
    again = body_of(assert_status(replicate(client, {"source": endpoint(source), "target": endpoint(target)}), 200))
    assert again["ok"] is True and again["no_changes"] is True


def test_doc_ids_and_create_target(client, make_db, endpoint, random_name):
    """doc_ids replicates only those documents and answers the totals at the top
    level too; create_target makes the target."""
    source = make_db()
    bulk_docs(source, [{"_id": "a"}, {"_id": "b"}, {"_id": "c"}])
    target_name = random_name
    try:
        body = {"source": endpoint(source), "target": endpoint(target_name),
                "doc_ids": ["a", "c"], "create_target": True}
        out = body_of(assert_status(replicate(client, body), 200))
        assert out["docs_written"] == 2 and out["doc_write_failures"] == 0
        assert out["start_time"] == out["history"][0]["start_time"] and out["end_time"] == out["history"][0]["end_time"]
        rows = body_of(client.get(client.url(target_name, "_all_docs")))["rows"]
        assert [row["id"] for row in rows] == ["a", "c"]
    finally:
        client.delete(client.url(target_name))


def test_missing_source_or_target(client, make_db, endpoint):
    """A database that does not exist: 500 db_not_found "could not open <url>/"."""
    real = make_db()
    missing = "t_missing_for_replicate"
    r = replicate(client, {"source": endpoint(missing), "target": endpoint(real)})
    assert_error(r, 500, "db_not_found")
    assert body_of(r)["reason"].startswith("could not open ") and body_of(r)["reason"].endswith("/t_missing_for_replicate/")
    assert "@" not in body_of(r)["reason"]  # no credentials in the message
    assert_error(replicate(client, {"source": endpoint(real), "target": endpoint(missing)}), 500, "db_not_found")


def test_continuous_starts_follows_and_cancels(client, make_db, endpoint):
    """continuous: 202 {"ok":true,"_local_id":"<id>+continuous"}; a cancel with the
    same body answers 200 with that id, and a second cancel 404 not_found."""
    source, target = make_db(), make_db()
    body = {"source": endpoint(source), "target": endpoint(target), "continuous": True}
    started = body_of(assert_status(replicate(client, body), 202))
    try:
        assert started["ok"] is True and started["_local_id"].endswith("+continuous")
        put_doc(source, "live", {"v": 1})
        # Wait for the document on the target through its own longpoll feed.
        since = "0"
        for _ in range(30):
            feed = body_of(client.get(target.url("_changes"), params={"feed": "longpoll", "since": since,
                                                                     "timeout": "2000"}))
            if any(row["id"] == "live" for row in feed["results"]):
                break
            since = feed["last_seq"]
        else:
            pytest.fail("the continuous replication did not deliver the document")
    finally:
        cancelled = replicate(client, {**body, "cancel": True})
    assert body_of(assert_status(cancelled, 200)) == {"ok": True, "_local_id": started["_local_id"]}
    assert_error(replicate(client, {**body, "cancel": True}), 404, "not_found", "missing")


def test_bad_requests(client, anon, make_db, endpoint):
    """Options are type-checked; the body must be JSON; anonymous users are refused."""
    source, target = make_db(), make_db()
    body = {"source": endpoint(source), "target": endpoint(target)}
    assert_error(replicate(client, {**body, "continuous": "yes"}), 400, "bad_request",
                 "parameter `continuous` must be a boolean")
    r = client.post(client.url("_replicate"), data=json.dumps(body), headers={"Content-Type": "text/plain"})
    assert_error(r, 415, "bad_content_type")
    assert_error(anon.post(anon.url("_replicate"), json=body), 401, "unauthorized")


@pytest.fixture
def random_name(client):
    from conftest import random_db_name

    return random_db_name()


def test_selector_copies_matching_documents(client, make_db, endpoint):
    """selector: only documents whose winner matches (Replication › Selector Objects)."""
    source, target = make_db(), make_db()
    bulk_docs(source, [{"_id": "a", "kind": "x"}, {"_id": "b", "kind": "y"}, {"_id": "c", "kind": "x"}])
    body = {"source": endpoint(source), "target": endpoint(target), "selector": {"kind": "x"}}
    assert body_of(assert_status(replicate(client, body), 200))["ok"] is True
    rows = body_of(client.get(target.url("_all_docs")))["rows"]
    assert [row["id"] for row in rows] == ["a", "c"]


def test_create_target_params(client, make_db, endpoint, random_name):
    """create_target_params are the target's creation parameters (here q, kept in cluster.q)."""
    source = make_db()
    bulk_docs(source, [{"_id": "a"}])
    try:
        body = {"source": endpoint(source), "target": endpoint(random_name), "create_target": True,
                "create_target_params": {"q": 3}}
        assert_status(replicate(client, body), 200)
        assert body_of(client.get(client.url(random_name)))["cluster"]["q"] == 3
    finally:
        client.delete(client.url(random_name))


def test_filter_function_with_query_params(client, make_db, endpoint):
    """filter: a design document's filter function of the source, query_params its
    req.query (Replication › Filtered Replication); design documents pass only if it
    lets them."""
    source, target = make_db(), make_db()
    put_doc(source, "_design/f", {"filters": {"even": "function(doc, req) {"
                                  " return doc.n % 2 === 0 && doc.n >= Number(req.query.min || 0); }"}})
    bulk_docs(source, [{"_id": "n%d" % i, "n": i} for i in range(1, 7)])
    body = {"source": endpoint(source), "target": endpoint(target), "filter": "f/even", "query_params": {"min": "4"}}
    out = body_of(assert_status(replicate(client, body), 200))
    assert out["ok"] is True
    rows = body_of(client.get(target.url("_all_docs")))["rows"]
    assert [row["id"] for row in rows] == ["n4", "n6"]


def test_filter_errors(client, make_db, endpoint):
    """A filter the source does not have is 404 not_found (its code is fetched before the
    replication starts); query_params must be an object (400)."""
    source, target = make_db(), make_db()
    put_doc(source, "_design/f", {"filters": {"all": "function(doc) { return true; }"}})
    body = {"source": endpoint(source), "target": endpoint(target)}
    assert_error(replicate(client, {**body, "filter": "f/nosuch"}), 404, "not_found")
    assert_error(replicate(client, {**body, "filter": "nodesign/all"}), 404, "not_found")
    assert_error(replicate(client, {**body, "filter": "f/all", "query_params": "x"}), 400, "bad_request",
                 "parameter `query_params` must be an object")
