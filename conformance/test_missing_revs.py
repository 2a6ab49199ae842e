"""POST /{db}/_missing_revs. CouchDB docs: API Reference › Databases › POST
/{db}/_missing_revs."""

from couch import assert_status, body_of, put_doc, sig, update_doc


def missing_revs(client, db, body):
    return body_of(assert_status(client.post(db.url("_missing_revs"), json=body), 200))


def test_missing_revs(client, db):
    """_missing_revs: {"missing_revs":{"id":[missing revs]}}."""
    r1 = put_doc(db, "a", {})["rev"]
    missing = "2-" + sig("a2")
    out = missing_revs(client, db, {"a": [r1, missing], "nope": ["1-" + sig("n")]})
    assert set(out) == {"missing_revs"}
    assert out["missing_revs"]["a"] == [missing]
    assert out["missing_revs"]["nope"] == ["1-" + sig("n")]


def test_nothing_missing(client, db):
    """_missing_revs: known revs are omitted; all known -> {"missing_revs":{}}."""
    r1 = put_doc(db, "a", {})["rev"]
    r2 = update_doc(db, "a", r1)["rev"]
    assert missing_revs(client, db, {"a": [r1, r2]}) == {"missing_revs": {}}
