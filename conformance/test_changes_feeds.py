"""_changes feeds (longpoll, continuous, eventsource), filters and _db_updates.

CouchDB API reference "/{db}/_changes" and "/_db_updates"; source chttpd_db.erl
handle_changes_req1 / changes_callback / parse_changes_query and couch_changes.erl
(COUCHDB-2961: heartbeats are sent until the feed's timeout). Every streaming request
uses stream=True and explicit timeouts and is closed; nothing sleeps to synchronise.
"""

import json
import threading
import time

from couch import (assert_error, assert_status, body_of, changes, force_revs, put_doc, sig,
                   skip_unless_strict)

READ = (5, 15)  # connect, read timeouts for streaming requests


def current_seq(db):
    return changes(db)["last_seq"]


def feed_lines(r, max_seconds=10, stop=None):
    """Lines of a streaming response until it ends, `stop(line)` is true or
    max_seconds pass; the response is closed."""
    lines, deadline = [], time.monotonic() + max_seconds
    try:
        for line in r.iter_lines(chunk_size=1, decode_unicode=False):
            lines.append(line.decode("utf-8"))
            if stop and stop(lines[-1]):
                break
            if time.monotonic() > deadline:
                break
    finally:
        r.close()
    return lines


def in_thread(fn):
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # reported by the caller
            box["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, box


def joined(t, box, timeout=20):
    t.join(timeout)
    assert not t.is_alive(), "request did not finish"
    if "error" in box:
        raise box["error"]
    return box["value"]


def test_longpoll_returns_first_change_after_since(db):
    """feed=longpoll waits for the first change after `since`, then answers
    {"results":[..],"last_seq":..} (API reference /{db}/_changes, longpoll)."""
    put_doc(db, "before")
    since = current_seq(db)
    t, box = in_thread(lambda: db.client.get(
        db.url("_changes"), params={"feed": "longpoll", "since": since, "timeout": "10000"},
        timeout=READ))
    put_doc(db, "after")
    r = joined(t, box)
    assert_status(r, 200)
    out = body_of(r)
    assert [row["id"] for row in out["results"]] == ["after"]
    assert "last_seq" in out


def test_longpoll_timeout_returns_empty(db):
    """feed=longpoll with a short timeout and nothing new: empty results and a
    last_seq (API reference /{db}/_changes, timeout)."""
    put_doc(db, "a")
    r = db.client.get(db.url("_changes"),
                      params={"feed": "longpoll", "since": "now", "timeout": "200"}, timeout=READ)
    assert_status(r, 200)
    out = body_of(r)
    assert out["results"] == []
    assert isinstance(out["last_seq"], (str, int))


def test_continuous_timeout_ends_with_last_seq(db):
    """feed=continuous writes one JSON object per line and, when `timeout` passes, a
    final {"last_seq":..} line (chttpd_db.erl changes_callback stop, continuous)."""
    put_doc(db, "a")
    put_doc(db, "b")
    r = db.client.get(db.url("_changes"), params={"feed": "continuous", "timeout": "300"},
                      stream=True, timeout=READ)
    assert_status(r, 200)
    lines = [ln for ln in feed_lines(r) if ln.strip()]
    rows = [json.loads(ln) for ln in lines]
    assert sorted(row["id"] for row in rows[:-1]) == ["a", "b"]
    assert "last_seq" in rows[-1] and "id" not in rows[-1]
    for row in rows[:-1]:
        assert set(row) >= {"seq", "id", "changes"}


def _continuous_rows(db, docs, limit):
    """The JSON lines of feed=continuous&limit=N over freshly written `docs`."""
    for d in docs:
        put_doc(db, d)
    r = db.client.get(db.url("_changes"),
                      params={"feed": "continuous", "limit": str(limit), "timeout": "5000"},
                      stream=True, timeout=READ)
    assert_status(r, 200)
    return [json.loads(ln) for ln in feed_lines(r) if ln.strip()]


def test_continuous_limit(db):
    """feed=continuous&limit=1 sends one change, then the last_seq line, whose pending
    counts the two left out (API reference /{db}/_changes, limit; the end line is
    chttpd_db.erl changes_callback({stop, EndSeq, Pending}) with fabric_view_changes'
    pending_count)."""
    rows = _continuous_rows(db, ("a", "b", "c"), 1)
    assert len(rows) == 2, rows
    assert "id" in rows[0] and "last_seq" in rows[1]
    assert rows[1]["pending"] == 2


def test_continuous_limit_zero_ends_at_once(db):
    """feed=continuous&limit=0 sends no change, only the last_seq line: the clustered
    collector drops rows at limit 0 and keep_sending_changes stops a continuous feed
    once the limit is used up (src/fabric/src/fabric_view_changes.erl)."""
    rows = _continuous_rows(db, ("a", "b"), 0)
    assert len(rows) == 1 and "last_seq" in rows[0] and "id" not in rows[0], rows
    assert rows[0]["pending"] == 2


def test_heartbeat_sends_newlines(db):
    """heartbeat=ms writes a bare newline while idle; CouchDB keeps sending them until
    the feed's timeout (COUCHDB-2961). The read is bounded here by count and time."""
    r = db.client.get(db.url("_changes"),
                      params={"feed": "continuous", "since": "now", "heartbeat": "100",
                              "timeout": "1000"},
                      stream=True, timeout=READ)
    assert_status(r, 200)
    lines = feed_lines(r, max_seconds=5, stop=lambda ln: ln == "")
    assert "" in lines, lines


def test_eventsource_framing(db):
    """feed=eventsource: Content-Type text/event-stream, each change as
    `data: {json}` and `id: <seq json>` lines (chttpd_db.erl changes_callback,
    eventsource)."""
    put_doc(db, "a")
    r = db.client.get(db.url("_changes"), params={"feed": "eventsource", "timeout": "300"},
                      stream=True, timeout=READ)
    assert_status(r, 200)
    assert r.headers["Content-Type"].split(";")[0].strip() == "text/event-stream"
    lines = feed_lines(r, stop=lambda ln: ln.startswith("id:"))
    data = [ln for ln in lines if ln.startswith("data: ") and ln[6:].strip()]
    assert data, lines
    row = json.loads(data[0][len("data: "):])
    assert row["id"] == "a" and "seq" in row
    assert any(ln.startswith("id: ") for ln in lines), lines


def _ids(out):
    return sorted(row["id"] for row in out["results"])


def test_filter_doc_ids_get_and_post(db):
    """filter=_doc_ids with doc_ids in the query string or the POST body (API
    reference /{db}/_changes, filter=_doc_ids)."""
    for d in ("a", "b", "c"):
        put_doc(db, d)
    out = changes(db, {"filter": "_doc_ids", "doc_ids": json.dumps(["a", "c"])})
    assert _ids(out) == ["a", "c"]
    r = db.client.post(db.url("_changes"), params={"filter": "_doc_ids"},
                       json={"doc_ids": ["b"]})
    assert_status(r, 200)
    assert _ids(body_of(r)) == ["b"]


def test_filter_selector(db):
    """filter=_selector with a Mango selector in the POST body (API reference
    /{db}/_changes, filter=_selector)."""
    put_doc(db, "a", {"type": "x"})
    put_doc(db, "b", {"type": "y"})
    r = db.client.post(db.url("_changes"), params={"filter": "_selector"},
                       json={"selector": {"type": "x"}})
    assert_status(r, 200)
    assert _ids(body_of(r)) == ["a"]


def test_filter_selector_without_selector_is_400(db):
    """filter=_selector without a selector in the body: 400 bad_request
    (couch_changes.erl configure_filter "_selector")."""
    r = db.client.post(db.url("_changes"), params={"filter": "_selector"}, json={})
    assert_error(r, 400, "bad_request")


def test_filter_design(db):
    """filter=_design lists design documents only (API reference /{db}/_changes)."""
    put_doc(db, "a")
    put_doc(db, "_design/d", {"views": {}})
    assert _ids(changes(db, {"filter": "_design"})) == ["_design/d"]


def test_filter_missing_ddoc_is_404(db):
    """filter=ddoc/name naming a design document that does not exist: 404 not_found
    (couch_changes.erl configure_filter opens _design/ddoc)."""
    put_doc(db, "a")
    r = db.client.get(db.url("_changes"), params={"filter": "nosuch/f"})
    assert_error(r, 404, "not_found")


def test_include_docs_and_conflicts(db):
    """include_docs=true adds the winning `doc`; with conflicts=true it carries
    _conflicts (API reference /{db}/_changes, include_docs, conflicts)."""
    p = sig("p")
    a, b = sorted([sig("a"), sig("b")])
    force_revs(db, "c", [a, p], {"v": "a"})
    force_revs(db, "c", [b, p], {"v": "b"})
    out = changes(db, {"include_docs": "true", "conflicts": "true"})
    row = out["results"][0]
    assert row["doc"]["_id"] == "c" and row["doc"]["_rev"] == "2-" + b
    assert row["doc"]["_conflicts"] == ["2-" + a]
    out = changes(db, {"include_docs": "true"})
    assert "_conflicts" not in out["results"][0]["doc"]


def test_style_all_docs_lists_every_leaf(db):
    """style=all_docs lists every leaf in `changes`; the default only the winner
    (API reference /{db}/_changes, style; spec/couchdb.md Sequences and _changes)."""
    p = sig("p")
    a, b = sorted([sig("a"), sig("b")])
    force_revs(db, "c", [a, p])
    force_revs(db, "c", [b, p])
    row = changes(db)["results"][0]
    assert row["changes"] == [{"rev": "2-" + b}]
    row = changes(db, {"style": "all_docs"})["results"][0]
    assert sorted(c["rev"] for c in row["changes"]) == ["2-" + a, "2-" + b]


def test_since_now(db):
    """since=now starts at the current seq: a normal feed is empty (API reference
    /{db}/_changes, since)."""
    put_doc(db, "a")
    out = changes(db, {"since": "now"})
    assert out["results"] == []


def test_bad_feed_is_400(db):
    """An unknown feed type: 400 bad_request (chttpd_db.erl handle_changes_req1:
    "Supported `feed` types: ...")."""
    assert_error(db.client.get(db.url("_changes"), params={"feed": "bogus"}), 400, "bad_request")


def test_bad_heartbeat_is_400(db):
    """heartbeat that is not a positive integer: 400 bad_request (chttpd_db.erl
    parse_changes_query)."""
    for v in ("abc", "-5"):
        r = db.client.get(db.url("_changes"), params={"feed": "continuous", "heartbeat": v},
                          timeout=READ)
        assert_error(r, 400, "bad_request")


def test_bad_timeout_is_an_error(db):
    """timeout=abc is rejected. CouchDB parses it with list_to_integer, whose badarg
    reaches chttpd's generic handler; the status is not documented, so only an
    error status is asserted."""
    r = db.client.get(db.url("_changes"), params={"feed": "longpoll", "timeout": "abc"},
                      timeout=READ)
    assert 400 <= r.status_code < 600, r.status_code


def _db_updates(client, params):
    r = client.get(client.url("_db_updates"), params=params, timeout=READ)
    if r.status_code == 404:
        # CouchDB 3 serves /_db_updates from _global_changes, which a single node has
        # only once it is created by hand (Setup › Single Node Setup; conformance/README).
        skip_unless_strict("/_db_updates answers 404: the server has no _global_changes database")
    assert_status(r, 200)
    return body_of(r)


def _wait_for_db_update(client, name, since, deadline):
    """Follows /_db_updates with longpolls from `since` until `name` shows up."""
    while time.monotonic() < deadline:
        out = _db_updates(client, {"feed": "longpoll", "since": since, "timeout": "5000"})
        for row in out["results"]:
            if row.get("db_name") == name:
                return row
        since = out["last_seq"]
    return None


def test_db_updates_normal_lists_created_db(client, make_db):
    """GET /_db_updates lists a database created during the test with
    {"db_name","type","seq"} (API reference /_db_updates)."""
    since = _db_updates(client, {"since": "now"})["last_seq"]
    h = make_db()
    row = _wait_for_db_update(client, h.name, since, time.monotonic() + 15)
    assert row is not None, "created db never appeared in /_db_updates"
    assert row["type"] in ("created", "updated") and "seq" in row


def test_db_updates_longpoll_wakes_on_create(client, make_db):
    """feed=longpoll on /_db_updates returns once a database is created (API reference
    /_db_updates, feed=longpoll)."""
    since = _db_updates(client, {"since": "now"})["last_seq"]
    t, box = in_thread(lambda: _db_updates(
        client, {"feed": "longpoll", "since": since, "timeout": "10000"}))
    h = make_db()
    out = joined(t, box, timeout=30)
    assert out["results"], "longpoll ended without any update"
    if h.name not in [row.get("db_name") for row in out["results"]]:
        # another database's update woke it first: follow on from its last_seq
        row = _wait_for_db_update(client, h.name, out["last_seq"], time.monotonic() + 15)
        assert row is not None


def test_db_updates_bodies_have_one_result_a_line(client, make_db):
    """Normal and longpoll `/_db_updates` bodies are framed as `_changes` bodies: the
    opening `{"results":[`, each result on a line of its own, then `],` and `"last_seq"`
    (chttpd_misc db_updates feed). Line-reading clients (python-cloudant's Feed) rely on it."""
    since = _db_updates(client, {"since": "now"})["last_seq"]
    make_db()
    make_db()
    row = None
    for feed in ("normal", "longpoll"):
        r = client.get(client.url("_db_updates"), params={"feed": feed, "since": since, "timeout": "5000"},
                       timeout=READ)
        assert_status(r, 200)
        lines = [line.strip() for line in r.text.splitlines() if line.strip()]
        assert lines[0] == '{"results":['
        assert lines[-2] == "],"
        assert lines[-1].startswith('"last_seq":') and lines[-1].endswith("}")
        for line in lines[1:-2]:
            row = json.loads(line.rstrip(","))
            assert set(row) >= {"db_name", "type", "seq"}
    assert row is not None


def test_filter_selector_refusals_in_couchdb_words(db):
    """changes_test.exs neighbourhood: couch_changes:get_selector_and_fields/1 wants the
    selector to be an object and `fields` a list of field names; a mango refusal is 400 in
    mango's own words (mango_error:info/2), with no prefix."""
    for body, reason in (({"selector": 1}, "Selector error: expected a JSON object"),
                         ({}, "Selector error: expected a JSON object"),
                         ({"selector": {"$foo": 1}}, "Invalid operator: $foo"),
                         ({"selector": {"x": 1}, "fields": "x"}, "Selector error: fields must be JSON array"),
                         ({"selector": {"x": 1}, "fields": [1]}, "Invalid JSON for field spec: 1")):
        r = db.client.post(db.url("_changes"), params={"filter": "_selector"}, json=body)
        assert_error(r, 400, "bad_request", reason)
