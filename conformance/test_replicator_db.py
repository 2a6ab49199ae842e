"""The _replicator database. CouchDB docs: Replication › Replicator Database
(a document starts a replication; CouchDB 3 writes only the end states back:
`completed` with `_replication_stats`, `failed` with a reason) and API Reference ›
Server › /_scheduler/docs; shapes checked on CouchDB 3.4.3."""

import uuid

import pytest

from couch import assert_status, body_of, bulk_docs


@pytest.fixture
def endpoint(pytestconfig):
    base = pytestconfig.getoption("--url").rstrip("/")
    return lambda name: base + "/" + name


@pytest.fixture
def replicator_doc(client):
    """A fresh _replicator document id, deleted after the test."""
    doc_id = "t_" + uuid.uuid4().hex
    yield doc_id
    r = client.get(client.url("_replicator", doc_id))
    if r.status_code == 200:
        client.delete(client.url("_replicator", doc_id), params={"rev": body_of(r)["_rev"]})


def wait_for_state(client, doc_id, wanted, rounds=30):
    """The document once its _replication_state is `wanted`, woken by _replicator's
    longpoll feed (no sleeps)."""
    since = "now"
    for _ in range(rounds):
        doc = body_of(client.get(client.url("_replicator", doc_id)))
        if doc.get("_replication_state") == wanted:
            return doc
        feed = body_of(client.get(client.url("_replicator", "_changes"),
                                  params={"feed": "longpoll", "since": since, "timeout": "2000"}))
        since = feed["last_seq"]
    pytest.fail(f"{doc_id} never reached {wanted}")


def test_a_one_shot_document_completes(client, make_db, endpoint, replicator_doc):
    source = make_db()
    target_name = "t_" + uuid.uuid4().hex
    bulk_docs(source, [{"_id": "a"}, {"_id": "b"}])
    try:
        body = {"source": endpoint(source.name), "target": endpoint(target_name), "create_target": True}
        assert_status(client.put(client.url("_replicator", replicator_doc), json=body), 201)
        doc = wait_for_state(client, replicator_doc, "completed")
        assert doc["_replication_stats"]["docs_written"] == 2
        assert doc["_replication_state_time"]
        rows = body_of(client.get(client.url(target_name, "_all_docs")))["rows"]
        assert [row["id"] for row in rows] == ["a", "b"]
        status = body_of(client.get(client.url("_scheduler", "docs", "_replicator", replicator_doc)))
        assert status["database"] == "_replicator" and status["doc_id"] == replicator_doc
        assert status["state"] == "completed" and status["id"] is None
        assert status["info"]["docs_written"] == 2
        assert "@" not in status["source"] and status["target"].endswith("/" + target_name + "/")
        listed = body_of(client.get(client.url("_scheduler", "docs")))
        assert any(d["doc_id"] == replicator_doc for d in listed["docs"])
    finally:
        client.delete(client.url(target_name))


def test_an_unreadable_document_is_refused(client, replicator_doc):
    """_replicator's validation refuses a document with a bad option or no source
    with 403 forbidden, and stores nothing."""
    r = client.put(client.url("_replicator", replicator_doc),
                   json={"source": "http://127.0.0.1:1/x", "target": "http://127.0.0.1:1/y", "continuous": "yes"})
    assert r.status_code == 403 and body_of(r)["error"] == "forbidden"
    assert "`continuous` must be a boolean" in body_of(r)["reason"]
    r = client.put(client.url("_replicator", replicator_doc), json={"target": "http://127.0.0.1:1/y"})
    assert r.status_code == 403 and body_of(r) == {"error": "forbidden", "reason": "Missing replicator database"}
    assert client.get(client.url("_replicator", replicator_doc)).status_code == 404


def test_scheduler_needs_an_admin(anon):
    r = anon.get(anon.url("_scheduler", "docs"))
    assert r.status_code == 401


def test_documents_record_their_owner(client, admin_auth, replicator_doc):
    """couch_replicator_docs:before_doc_update: a new document gets `owner`, its writer's name."""
    body = {"source": "http://127.0.0.1:1/a", "target": "http://127.0.0.1:1/b"}
    assert_status(client.put(client.url("_replicator", replicator_doc), json=body), 201)
    assert body_of(client.get(client.url("_replicator", replicator_doc)))["owner"] == admin_auth[0]


def test_an_unreachable_peer_makes_the_job_crash(client, make_db, endpoint, replicator_doc):
    """A continuous replication whose source cannot be reached: `_scheduler/docs` shows it
    `crashing`, its `info.error` saying why and `error_count` counting the crashes, and
    `_scheduler/jobs` records them (Replication › Replication states, couch_replicator_docs).
    CouchDB takes a few retries of its HTTP client before the first crash; the wait is
    bounded by longpolls on the target, not sleeps."""
    target = make_db()
    # Port 9 (discard) on loopback: nothing listens there on these machines.
    doc = {"source": "http://127.0.0.1:9/nowhere", "target": endpoint(target.name), "continuous": True}
    assert_status(client.put(client.url("_replicator", replicator_doc), json=doc), 201)
    state = None
    for _ in range(90):
        state = body_of(client.get(client.url("_scheduler", "docs", "_replicator", replicator_doc)))
        if state.get("state") == "crashing":
            break
        client.get(target.url("_changes"), params={"feed": "longpoll", "since": "now", "timeout": "1000"})
    assert state["state"] == "crashing", state
    assert isinstance(state["info"]["error"], str) and state["info"]["error"]
    assert state["error_count"] >= 1
    jobs = body_of(client.get(client.url("_scheduler", "jobs")))["jobs"]
    job = next(j for j in jobs if j["doc_id"] == replicator_doc)
    assert any(event["type"] == "crashed" for event in job["history"])
