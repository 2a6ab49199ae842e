"""System databases, who may list databases, and q/n at creation.
CouchDB: couch_db.erl `validate_dbname`/`is_system_db_name` and couch_db.hrl
`?SYSTEM_DATABASES`; chttpd_auth_request.erl `maybe_admin_only_dbs`
([chttpd] admin_only_all_dbs, default true); chttpd_db.erl `parse_shards_opt`;
setup.erl `cluster_system_dbs` (a single node keeps _users and _replicator)."""

import uuid

import pytest

from couch import assert_error, assert_status, body_of

ILLEGAL = (
    "Name: '%s'. Only lowercase characters (a-z), digits (0-9), and any of the "
    "characters _, $, (, ), +, -, and / are allowed. Must begin with a letter."
)


def _name():
    return "t_" + uuid.uuid4().hex


def test_single_node_has_users_and_replicator(client):
    """A single node's set-up leaves _users and _replicator in place: creating them
    again is 412 file_exists."""
    for name in ("_users", "_replicator"):
        assert_status(client.get(client.url(name)), 200)
        assert_error(client.put(client.url(name)), 412, "file_exists")


@pytest.mark.parametrize("system", ["_users", "_replicator", "_global_changes"])
def test_prefixed_system_database_can_be_created(client, system):
    """A system name under a valid prefix (`app/_users`) is a legal database name."""
    name = _name() + "/" + system
    r = client.put(client.url(name))
    try:
        assert_status(r, 201)
        assert body_of(client.get(client.url(name)))["db_name"] == name
        assert name in body_of(client.get(client.url("_all_dbs")))
    finally:
        client.delete(client.url(name))


@pytest.mark.parametrize("name", ["_foo", "_userss", "_users/_users", "Foo/_users", "_users_"])
def test_other_underscore_names_are_illegal(client, name):
    """Only CouchDB's own system names may start with `_`; nothing is created."""
    r = client.put(client.url(name))
    assert_error(r, 400, "illegal_database_name", ILLEGAL % name)
    assert_status(client.get(client.url(name)), (400, 404))


def test_all_dbs_is_admin_only(client, anon):
    """Anonymous GET /_all_dbs: 401 "You are not a server admin."; an admin lists."""
    assert_error(anon.get(anon.url("_all_dbs")), 401, "unauthorized", "You are not a server admin.")
    assert isinstance(body_of(client.get(client.url("_all_dbs"))), list)


def test_dbs_info_is_admin_only(anon):
    """GET and POST /_dbs_info: 401 for anonymous too."""
    assert_error(anon.get(anon.url("_dbs_info")), 401, "unauthorized", "You are not a server admin.")
    r = anon.post(anon.url("_dbs_info"), json={"keys": ["_users"]})
    assert_error(r, 401, "unauthorized", "You are not a server admin.")


def test_get_dbs_info_lists_like_all_dbs(client, db):
    """GET /_dbs_info takes _all_dbs' parameters and answers {key, info} rows."""
    key = '"%s"' % db.name
    rows = body_of(client.get(client.url("_dbs_info"), params={"startkey": key, "endkey": key}))
    assert [row["key"] for row in rows] == [db.name]
    assert rows[0]["info"]["db_name"] == db.name
    rows = body_of(client.get(client.url("_dbs_info"), params={"limit": "1"}))
    assert len(rows) == 1


def test_q_is_kept(client):
    """PUT /{db}?q=4: GET /{db} reports cluster.q 4."""
    name = _name()
    try:
        assert_status(client.put(client.url(name), params={"q": "4"}), (201, 202))
        assert body_of(client.get(client.url(name)))["cluster"]["q"] == 4
    finally:
        client.delete(client.url(name))


@pytest.mark.parametrize(
    "param,value", [("q", "0"), ("q", "abc"), ("q", "-1"), ("q", "1.5"), ("n", "0"), ("n", "x")]
)
def test_bad_q_or_n_is_rejected(client, param, value):
    """q and n must be positive integers: 400, and no database is created."""
    name = _name()
    r = client.put(client.url(name), params={param: value})
    try:
        assert_error(r, 400, "bad_request", "The `%s` value should be a positive integer." % param)
        assert_status(client.get(client.url(name)), 404)
    finally:
        client.delete(client.url(name))
