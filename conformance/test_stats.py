"""Node statistics. CouchDB docs: API Reference › Server › /_node/{node-name}/_stats,
/_system and /_prometheus; names and shapes as CouchDB 3.4.3 answers them (checked on a
live one). Only what both count is asserted; other processes may use the server too, so
counters are compared as "grew by at least"."""

from couch import assert_error, assert_status, body_of, put_doc


def stat(client, *path):
    return body_of(assert_status(client.get(client.url("_node", "_local", "_stats", *path)), 200))


def test_stats_entries_have_couchdbs_shape(client):
    """Each metric is {"value", "type", "desc"}: counters for requests by method and
    status, document reads and writes; a gauge of open databases; a histogram of
    request times; the replicator's job gauges."""
    all_stats = stat(client)
    couchdb = all_stats["couchdb"]
    for entry in (couchdb["httpd"]["requests"], couchdb["httpd_request_methods"]["GET"],
                  couchdb["httpd_status_codes"]["200"], couchdb["database_reads"], couchdb["database_writes"]):
        assert entry["type"] == "counter" and isinstance(entry["value"], int) and isinstance(entry["desc"], str)
    assert couchdb["open_databases"]["type"] in ("counter", "gauge")
    assert couchdb["request_time"]["type"] == "histogram"
    assert isinstance(couchdb["request_time"]["value"]["n"], int)
    assert [p for p, _ in couchdb["request_time"]["value"]["percentile"]][:3] == [50, 75, 90]
    assert all_stats["couch_replicator"]["jobs"]["running"]["type"] == "gauge"
    # A path picks one part; an unknown one is null.
    assert stat(client, "couchdb", "httpd", "requests")["type"] == "counter"
    assert stat(client, "couchdb", "no_such_metric") is None


def test_counters_follow_requests_reads_and_writes(client, db):
    """httpd.requests counts requests; database_reads a document read; database_writes a
    change to a database (couch_stats counters, read live)."""
    requests = stat(client, "couchdb", "httpd", "requests")["value"]
    writes = stat(client, "couchdb", "database_writes")["value"]
    put_doc(db, "counted")
    reads = stat(client, "couchdb", "database_reads")["value"]
    assert_status(client.get(db.url("counted")), 200)
    assert stat(client, "couchdb", "database_reads")["value"] >= reads + 1
    assert stat(client, "couchdb", "database_writes")["value"] >= writes + 1
    assert stat(client, "couchdb", "httpd", "requests")["value"] >= requests + 4


def test_prometheus_text(client):
    """/_prometheus: text/plain exposition with couchdb_* names."""
    r = assert_status(client.get(client.url("_node", "_local", "_prometheus")), 200)
    assert r.headers["Content-Type"].startswith("text/plain")
    lines = r.text.splitlines()
    assert any(line.startswith("couchdb_httpd_requests_total ") for line in lines)
    assert any(line.startswith('couchdb_httpd_request_methods{method="GET"} ') for line in lines)
    assert any(line.startswith("couchdb_database_reads_total ") for line in lines)
    assert any(line.startswith('couchdb_request_time_seconds{quantile="0.5"} ') for line in lines)


def test_system_and_admin_only(client, anon):
    """/_system has the uptime and memory; all of it is for server admins."""
    system = body_of(assert_status(client.get(client.url("_node", "_local", "_system")), 200))
    assert isinstance(system["uptime"], int) and isinstance(system["memory"], dict)
    for path in ("_stats", "_system", "_prometheus"):
        assert_error(anon.get(client.url("_node", "_local", path)), 401, "unauthorized")


def test_metrics_role_reads_figures_only(client, anon):
    """A user with the `_metrics` role reads _stats, _system and _prometheus and nothing
    else a server admin may; others get 401 "You are not a server admin or read-only
    metrics user" (CouchDB 3.4 chttpd_auth_request: require_metrics; docs: API Reference ›
    Server › /_node/{node-name}/_prometheus, "_metrics role")."""
    import uuid

    import requests

    name = "metrics" + uuid.uuid4().hex[:8]
    doc_url = client.url("_users", "org.couchdb.user:" + name)
    assert_status(client.put(doc_url, json={"name": name, "password": "pw-metrics", "roles": ["_metrics"],
                                            "type": "user"}), 201)
    try:
        reader = requests.Session()
        reader.auth = (name, "pw-metrics")
        for path in ("_stats", "_system", "_prometheus"):
            assert_status(reader.get(client.url("_node", "_local", path)), 200)
        assert_error(reader.get(client.url("_node", "_local", "_config")), 401, "unauthorized")
        assert_error(reader.get(client.url("_all_dbs")), 401, "unauthorized")
        assert_error(anon.get(client.url("_node", "_local", "_stats")), 401, "unauthorized",
                     "You are not a server admin or read-only metrics user")
    finally:
        r = client.get(doc_url)
        if r.status_code == 200:
            client.delete(doc_url, params={"rev": body_of(r)["_rev"]})
