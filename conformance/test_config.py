"""Node configuration over HTTP. CouchDB docs: API Reference › Server › /_node/{node-name}/_config
and /_membership; the answers are CouchDB 3.4.3's `chttpd_node` (checked on a live one).

Every test uses its own section name, or restores what it changed (a key these tests touch
is unset on a stock CouchDB, so restoring is deleting it), so the server is left as found.
"""

import re
import uuid

import pytest

from couch import assert_error, assert_status, body_of


def config_url(client, *parts):
    return client.url("_node", "_local", "_config", *parts)


@pytest.fixture
def section(client):
    """A section no server has, emptied afterwards."""
    name = "conformance_" + uuid.uuid4().hex[:12]
    yield name
    for key in body_of(client.get(config_url(client, name))).keys():
        client.delete(config_url(client, name, key))


@pytest.fixture
def restore(client):
    """Deletes (section, key) pairs the test set, whatever happened in it."""
    touched = []
    yield touched
    for section, key in touched:
        client.delete(config_url(client, section, key))


def test_membership_names_this_node(client):
    """/_membership: all_nodes and cluster_nodes; /_node/_local: {"name": node}."""
    node = body_of(assert_status(client.get(client.url("_node", "_local")), 200))["name"]
    members = body_of(assert_status(client.get(client.url("_membership")), 200))
    assert node in members["all_nodes"] and node in members["cluster_nodes"]
    # The node's own name works where _local does.
    assert assert_status(client.get(client.url("_node", node, "_config")), 200)


def test_an_unknown_node_is_404(client):
    """chttpd_node:call_node: a name that is no node (no such atom) is 404 "no such node: NAME"."""
    name = "conformance-%s@nowhere" % uuid.uuid4().hex[:8]
    assert_error(client.get(client.url("_node", name, "_config")), 404, "not_found", "no such node: " + name)


def test_set_get_delete_a_key(client, section):
    """PUT answers the old value ("" when unset), GET the value, DELETE the old value;
    afterwards GET and DELETE are 404 unknown_config_value."""
    assert body_of(assert_status(client.put(config_url(client, section, "k"), data='"v1"'), 200)) == ""
    assert body_of(assert_status(client.put(config_url(client, section, "k"), data='"v2"'), 200)) == "v1"
    assert body_of(assert_status(client.get(config_url(client, section, "k")), 200)) == "v2"
    assert body_of(assert_status(client.get(config_url(client, section)), 200)) == {"k": "v2"}
    assert body_of(assert_status(client.get(config_url(client)), 200))[section] == {"k": "v2"}
    assert body_of(assert_status(client.delete(config_url(client, section, "k")), 200)) == "v2"
    assert_error(client.get(config_url(client, section, "k")), 404, "not_found", "unknown_config_value")
    assert_error(client.delete(config_url(client, section, "k")), 404, "not_found", "unknown_config_value")
    # An unknown section is empty, not missing.
    assert body_of(assert_status(client.get(config_url(client, section)), 200)) == {}


def test_values_are_trimmed(client, section):
    """chttpd_node: `couch_util:trim(JSONValue)` before config:set."""
    assert_status(client.put(config_url(client, section, "k"), data='"  spaced  "'), 200)
    assert body_of(client.get(config_url(client, section, "k"))) == "spaced"


def test_the_body_must_be_a_json_string(client, section):
    """400 "a JSON string expected" for other JSON, "invalid UTF-8 JSON" for none."""
    assert_error(client.put(config_url(client, section, "k"), data="5"), 400, "bad_request", "a JSON string expected")
    assert_error(client.put(config_url(client, section, "k"), data="not json"), 400, "bad_request",
                 "invalid UTF-8 JSON")
    assert_error(client.get(config_url(client, section, "k")), 404, "not_found", "unknown_config_value")


def test_blacklisted_sections_cannot_be_written(client):
    """couch_util:check_config_blacklist: query_servers, daemons... are 403 over HTTP."""
    for name in ("query_servers", "daemons", "native_query_servers"):
        assert_error(client.put(config_url(client, name, "x"), data='"y"'), 403, "forbidden",
                     "Config section blacklisted for modification over HTTP API.")
        assert_error(client.delete(config_url(client, name, "x")), 403, "forbidden")


def test_config_needs_a_server_admin(anon, client):
    """chttpd_auth_request: /_node and /_membership are for server admins (401 anonymous)."""
    for path in (("_node", "_local", "_config"), ("_membership",)):
        assert_error(anon.get(client.url(*path)), 401, "unauthorized")


def test_wrong_methods_are_405(client, section):
    """send_method_not_allowed: _config is GET only; a key GET, PUT, DELETE."""
    assert_status(client.post(config_url(client), json={}), 405)
    assert_status(client.post(config_url(client, section, "k"), json="v"), 405)


def test_unpersisted_values_go_at_reload(client, section):
    """POST _config/_reload "flushes unpersisted config values from RAM" (chttpd_node):
    a value set with X-Couch-Persist: false is gone after it."""
    assert_status(client.put(config_url(client, section, "k"), data='"temp"', headers={"X-Couch-Persist": "false"}), 200)
    assert body_of(client.get(config_url(client, section, "k"))) == "temp"
    assert body_of(assert_status(client.post(config_url(client, "_reload")), 200)) == {"ok": True}
    assert_error(client.get(config_url(client, section, "k")), 404, "not_found", "unknown_config_value")


def test_uuids_algorithm_applies_at_once(client, restore):
    """[uuids] algorithm = utc_id with utc_id_suffix: /_uuids gives 14 hex digits of
    microseconds, then the suffix (couch_uuids, config listener)."""
    restore += [("uuids", "algorithm"), ("uuids", "utc_id_suffix")]
    assert_status(client.put(config_url(client, "uuids", "utc_id_suffix"), data='"-conformance"'), 200)
    assert_status(client.put(config_url(client, "uuids", "algorithm"), data='"utc_id"'), 200)
    ids = body_of(assert_status(client.get(client.url("_uuids"), params={"count": 3}), 200))["uuids"]
    assert all(re.fullmatch(r"[0-9a-f]{14}-conformance", i) for i in ids), ids
    assert len(set(ids)) == 3 and ids == sorted(ids)
    assert_status(client.put(config_url(client, "uuids", "algorithm"), data='"random"'), 200)
    ids = body_of(client.get(client.url("_uuids"), params={"count": 2}))["uuids"]
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids), ids


def test_max_document_size_applies_at_once(client, db, restore):
    """[couchdb] max_document_size: a bigger document is 413 document_too_large at once."""
    restore.append(("couchdb", "max_document_size"))
    assert_status(client.put(config_url(client, "couchdb", "max_document_size"), data='"200"'), 200)
    big = {"text": "x" * 400}
    assert_error(client.put(db.url("big"), json=big), 413, "document_too_large")
    client.delete(config_url(client, "couchdb", "max_document_size"))
    restore.clear()
    assert_status(client.put(db.url("big"), json=big), 201)


def test_require_valid_user_applies_at_once(client, anon, restore):
    """[chttpd] require_valid_user = true: anonymous requests are 401 "Authentication
    required." at once, but a login (POST /_session) is always allowed (chttpd_auth
    party_mode_handler, CouchDB #1947)."""
    restore.append(("chttpd", "require_valid_user"))
    assert_status(client.put(config_url(client, "chttpd", "require_valid_user"), data='"true"'), 200)
    assert_error(anon.get(client.url()), 401, "unauthorized", "Authentication required.")
    assert_status(client.get(client.url()), 200)
    login = anon.post(client.url("_session"), json={"name": "nobody-" + uuid.uuid4().hex[:6], "password": "x"})
    assert login.status_code == 401 and body_of(login)["reason"] != "Authentication required."
    assert_status(client.delete(config_url(client, "chttpd", "require_valid_user")), 200)
    restore.clear()
    assert_status(anon.get(client.url()), 200)


def test_uuids_max_count_applies_at_once(client, restore):
    """[uuids] max_count caps GET /_uuids?count= (400 "count parameter too large" past it)."""
    restore.append(("uuids", "max_count"))
    assert_status(client.put(config_url(client, "uuids", "max_count"), data='"5"'), 200)
    assert len(body_of(assert_status(client.get(client.url("_uuids"), params={"count": 5}), 200))["uuids"]) == 5
    assert_error(client.get(client.url("_uuids"), params={"count": 6}), 400, "bad_request", "count parameter too large")
