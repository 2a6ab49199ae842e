"""Who may do what in a database, by its _security object. CouchDB docs: Security ›
Database permissions (server admins everything; database admins also design
documents, _security, compaction and _revs_limit; members documents only; anyone
else 403, anonymous 401); the words are CouchDB 3.4.3's, checked there."""

import uuid

import pytest
import requests

from couch import assert_error, assert_status, body_of, skip_if_couchdb_defect

PASSWORD = "pw-access"


@pytest.fixture
def people(client, db):
    """Three users — a database admin, a member and a stranger — and `db` secured for them."""
    tag = uuid.uuid4().hex[:8]
    names = {role: f"{role}{tag}" for role in ("dbadmin", "member", "stranger")}
    for name in names.values():
        body = {"name": name, "password": PASSWORD, "roles": [], "type": "user"}
        assert_status(client.put(client.url("_users", "org.couchdb.user:" + name), json=body), 201)
    security = {"admins": {"names": [names["dbadmin"]], "roles": []},
                "members": {"names": [names["member"]], "roles": []}}
    assert_status(client.put(db.url("_security"), json=security), 200)
    assert_status(client.put(db.url("doc"), json={"v": 1}), 201)
    yield names
    for name in names.values():
        r = client.get(client.url("_users", "org.couchdb.user:" + name))
        if r.status_code == 200:
            client.delete(client.url("_users", "org.couchdb.user:" + name), params={"rev": body_of(r)["_rev"]})


def as_user(name):
    s = requests.Session()
    s.auth = (name, PASSWORD)
    return s


def test_members_read_and_write_documents_but_not_design_documents(db, people):
    member = as_user(people["member"])
    assert_status(member.get(db.url("doc")), 200)
    assert_status(member.put(db.url("mine"), json={}), 201)
    assert_status(member.put(db.url("_local", "mine"), json={}), 201)
    assert_error(member.put(db.url("_design/app"), json={}), 403, "forbidden", "You are not a db or server admin.")
    rows = body_of(member.post(db.url("_bulk_docs"), json={"docs": [{"_id": "_design/b"}, {"_id": "plain"}]}))
    assert rows[0] == {"id": "_design/b", "error": "forbidden", "reason": "You are not a db or server admin."}
    assert rows[1]["ok"] is True
    assert_status(member.get(db.url("_security")), 200)
    assert_error(member.post(db.url("_compact"), json={}), 401, "unauthorized", "You are not a server or db admin.")


def test_members_cannot_change_security_or_revs_limit(client, db, people):
    member = as_user(people["member"])
    r = member.put(db.url("_security"), json={"members": {"names": [], "roles": []}})
    skip_if_couchdb_defect(client, r, 500, "error", "a member's PUT _security answers 500 no_majority")
    assert_error(r, 403, "forbidden")
    r = member.put(db.url("_revs_limit"), data="5")
    skip_if_couchdb_defect(client, r, 500, "badmatch", "a member's PUT _revs_limit answers 500 badmatch")
    assert_error(r, 403, "forbidden", "You are not a db or server admin.")


def test_database_admins_manage_their_database(db, people):
    admin = as_user(people["dbadmin"])
    assert_status(admin.put(db.url("_design/app"), json={}), 201)
    assert_status(admin.put(db.url("_revs_limit"), data="900"), 200)
    assert_status(admin.post(db.url("_compact"), json={}), 202)
    security = body_of(admin.get(db.url("_security")))
    assert_status(admin.put(db.url("_security"), json=security), 200)


def test_strangers_and_anonymous_are_kept_out(db, people, anon):
    stranger = as_user(people["stranger"])
    for request in (lambda s: s.get(db.url("doc")), lambda s: s.put(db.url("x"), json={}),
                    lambda s: s.get(db.url("_all_docs")), lambda s: s.get(db.url())):
        assert_error(request(stranger), 403, "forbidden", "You are not allowed to access this db.")
        assert_error(request(anon.session), 401, "unauthorized", "You are not authorized to access this db.")


def test_server_admin_endpoints_answer_401_to_everyone_else(db, people, base_url):
    """Purge and the server lists are for server admins: 401, even to a database admin."""
    for role in ("dbadmin", "stranger"):
        user = as_user(people[role])
        assert_error(user.post(db.url("_purge"), json={}), 401, "unauthorized", "You are not a server admin.")
        assert_error(user.get(base_url + "/_all_dbs"), 401, "unauthorized", "You are not a server admin.")
