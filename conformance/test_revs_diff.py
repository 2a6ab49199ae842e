"""POST /{db}/_revs_diff. CouchDB docs: API Reference › Databases › POST
/{db}/_revs_diff; Replication Protocol › Calculate Revision Difference."""

from couch import assert_status, body_of, delete_doc, force_revs, put_doc, sig, update_doc


def revs_diff(client, db, body):
    return body_of(assert_status(client.post(db.url("_revs_diff"), json=body), 200))


def test_fully_present_ids_omitted(client, db):
    """_revs_diff: ids whose revs are all known are left out (empty object)."""
    r1 = put_doc(db, "a", {})["rev"]
    r2 = update_doc(db, "a", r1)["rev"]
    assert revs_diff(client, db, {"a": [r1, r2]}) == {}


def test_missing_and_possible_ancestors(client, db):
    """_revs_diff: {"id":{"missing":[..],"possible_ancestors":[..]}} - ancestors are
    the doc's known leaves of a lower generation than a missing rev."""
    r1 = put_doc(db, "a", {})["rev"]
    missing = "2-" + sig("new")
    out = revs_diff(client, db, {"a": [r1, missing]})
    assert out == {"a": {"missing": [missing], "possible_ancestors": [r1]}}


def test_unknown_doc(client, db):
    """_revs_diff: every rev of an unknown doc is missing."""
    revs = ["1-" + sig("x1"), "2-" + sig("x2")]
    out = revs_diff(client, db, {"nope": revs})
    assert sorted(out["nope"]["missing"]) == sorted(revs)
    assert not out["nope"].get("possible_ancestors")


def test_non_leaf_known_rev_not_missing(client, db):
    """_revs_diff: an interior revision is known (not missing)."""
    r1 = put_doc(db, "a", {})["rev"]
    update_doc(db, "a", r1)
    assert revs_diff(client, db, {"a": [r1]}) == {}


def test_tombstone_is_known(client, db):
    """_revs_diff: a deleted revision counts as present."""
    r1 = put_doc(db, "a", {})["rev"]
    r2 = delete_doc(db, "a", r1)["rev"]
    assert revs_diff(client, db, {"a": [r2]}) == {}


def test_mixed_ids(client, db):
    """_revs_diff: several ids at once; only those with missing revs appear."""
    ra = put_doc(db, "a", {})["rev"]
    rb = force_revs(db, "b", [sig("b1")])
    missing = "1-" + sig("c1")
    out = revs_diff(client, db, {"a": [ra], "b": [rb], "c": [missing]})
    assert list(out) == ["c"]
    assert out["c"]["missing"] == [missing]
