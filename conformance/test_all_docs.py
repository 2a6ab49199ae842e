"""GET/POST /{db}/_all_docs. CouchDB docs: API Reference › Databases ›
/{db}/_all_docs (and Views › query parameters it shares)."""

import pytest

from couch import assert_error, assert_status, body_of, bulk_docs, delete_doc, make_conflict, put_doc, qjson

IDS = ["a", "b", "c", "d", "e"]


@pytest.fixture
def seeded(db):
    revs = {}
    for i in reversed(IDS):
        revs[i] = put_doc(db, i, {"n": i})["rev"]
    return db, revs


def all_docs(db, params=None):
    r = db.client.get(db.url("_all_docs"), params=params)
    return body_of(assert_status(r, 200))


def ids_of(body):
    return [row["id"] for row in body["rows"]]


def test_shape(seeded):
    """_all_docs: {"total_rows","offset","rows":[{"id","key","value":{"rev"}}]} sorted
    by id."""
    db, revs = seeded
    b = all_docs(db)
    assert b["total_rows"] == 5
    assert b["offset"] == 0
    assert ids_of(b) == IDS
    assert b["rows"][0] == {"id": "a", "key": "a", "value": {"rev": revs["a"]}}


def test_deleted_docs_not_listed(seeded):
    """_all_docs: deleted documents are not rows and not in total_rows."""
    db, revs = seeded
    delete_doc(db, "c", revs["c"])
    b = all_docs(db)
    assert ids_of(b) == ["a", "b", "d", "e"]
    assert b["total_rows"] == 4


def test_include_docs(seeded):
    """_all_docs?include_docs=true: each row has "doc"."""
    db, revs = seeded
    rows = all_docs(db, {"include_docs": "true"})["rows"]
    assert rows[1]["doc"] == {"_id": "b", "_rev": revs["b"], "n": "b"}


def test_key(seeded):
    """_all_docs?key=: a JSON-encoded key selects one row."""
    db, _ = seeded
    assert ids_of(all_docs(db, {"key": qjson("c")})) == ["c"]


def test_startkey_endkey(seeded):
    """_all_docs?startkey=&endkey=: inclusive range; total_rows still counts all."""
    db, _ = seeded
    b = all_docs(db, {"startkey": qjson("b"), "endkey": qjson("d")})
    assert ids_of(b) == ["b", "c", "d"]
    assert b["total_rows"] == 5


def test_start_key_end_key_aliases(seeded):
    """_all_docs: start_key / end_key are aliases of startkey / endkey."""
    db, _ = seeded
    assert ids_of(all_docs(db, {"start_key": qjson("b"), "end_key": qjson("c")})) == ["b", "c"]


def test_startkey_offset(seeded):
    """_all_docs: offset counts the rows before startkey."""
    db, _ = seeded
    b = all_docs(db, {"startkey": qjson("c")})
    assert ids_of(b) == ["c", "d", "e"]
    assert b["offset"] == 2


def test_inclusive_end_false(seeded):
    """_all_docs?inclusive_end=false: the endkey row is left out."""
    db, _ = seeded
    b = all_docs(db, {"startkey": qjson("b"), "endkey": qjson("d"), "inclusive_end": "false"})
    assert ids_of(b) == ["b", "c"]


def test_startkey_docid_endkey_docid(seeded):
    """_all_docs: startkey_docid / endkey_docid bound the range when startkey / endkey
    are not given (couch_mrview_util ad_skey_opts / ad_ekey_opts)."""
    db, _ = seeded
    b = all_docs(db, {"startkey_docid": "b", "endkey_docid": "d"})
    assert ids_of(b) == ["b", "c", "d"]


def test_limit_skip(seeded):
    """_all_docs?limit=&skip=."""
    db, _ = seeded
    assert ids_of(all_docs(db, {"limit": 2})) == ["a", "b"]
    assert ids_of(all_docs(db, {"skip": 3})) == ["d", "e"]
    assert ids_of(all_docs(db, {"skip": 1, "limit": 2})) == ["b", "c"]
    assert ids_of(all_docs(db, {"limit": 0})) == []


def test_descending(seeded):
    """_all_docs?descending=true reverses; startkey is then the upper bound."""
    db, _ = seeded
    assert ids_of(all_docs(db, {"descending": "true"})) == IDS[::-1]
    b = all_docs(db, {"descending": "true", "startkey": qjson("d"), "endkey": qjson("b")})
    assert ids_of(b) == ["d", "c", "b"]


def test_update_seq(seeded):
    """_all_docs?update_seq=true adds "update_seq" (opaque)."""
    db, _ = seeded
    b = all_docs(db, {"update_seq": "true"})
    assert "update_seq" in b and b["update_seq"] is not None
    assert "update_seq" not in all_docs(db)


def test_conflicts_with_include_docs(client, db):
    """_all_docs?include_docs=true&conflicts=true: docs carry _conflicts."""
    winner, loser, _ = make_conflict(db, "x")
    rows = all_docs(db, {"include_docs": "true", "conflicts": "true"})["rows"]
    assert rows[0]["value"]["rev"] == winner
    assert rows[0]["doc"]["_conflicts"] == [loser]


def test_post_keys(seeded):
    """POST _all_docs {"keys":[..]}: rows in the order of the keys."""
    db, revs = seeded
    r = db.client.post(db.url("_all_docs"), json={"keys": ["d", "a"]})
    b = body_of(assert_status(r, 200))
    assert ids_of(b) == ["d", "a"]
    assert b["rows"][0]["value"] == {"rev": revs["d"]}


def test_get_keys(seeded):
    """GET _all_docs?keys=[..] (JSON array in the query)."""
    db, _ = seeded
    assert ids_of(all_docs(db, {"keys": qjson(["e", "b"])})) == ["e", "b"]


def test_keys_missing_and_deleted(seeded):
    """_all_docs with keys: a missing key -> {"key","error":"not_found"}; a deleted doc
    -> {"id","key","value":{"rev","deleted":true}} and "doc": null with include_docs."""
    db, revs = seeded
    tomb = delete_doc(db, "b", revs["b"])["rev"]
    r = db.client.post(db.url("_all_docs"), params={"include_docs": "true"}, json={"keys": ["a", "b", "zz"]})
    rows = body_of(assert_status(r, 200))["rows"]
    assert rows[0]["id"] == "a" and rows[0]["doc"]["n"] == "a"
    assert rows[1] == {"id": "b", "key": "b", "value": {"rev": tomb, "deleted": True}, "doc": None}
    assert rows[2] == {"key": "zz", "error": "not_found"}


def test_keys_deleted_without_docs(seeded):
    """_all_docs with keys, no include_docs: the deleted row has no "doc"."""
    db, revs = seeded
    tomb = delete_doc(db, "b", revs["b"])["rev"]
    rows = body_of(db.client.post(db.url("_all_docs"), json={"keys": ["b"]}))["rows"]
    assert rows == [{"id": "b", "key": "b", "value": {"rev": tomb, "deleted": True}}]


def test_bad_limit(seeded):
    """Views › query parameters: limit=abc -> 400 query_parse_error."""
    db, _ = seeded
    assert_error(db.client.get(db.url("_all_docs"), params={"limit": "abc"}), 400, "query_parse_error")


def test_keys_not_array(seeded):
    """chttpd_db: `keys` must be an array -> 400 bad_request."""
    db, _ = seeded
    assert_error(db.client.post(db.url("_all_docs"), json={"keys": "a"}), 400, "bad_request")


def test_empty_db(client, db):
    """_all_docs on an empty database: total_rows 0, rows []."""
    b = all_docs(db)
    assert b["total_rows"] == 0 and b["rows"] == []


@pytest.mark.parametrize("path, params, error, reason", [
    ("_all_docs", {"conflicts": "null"}, "query_parse_error", 'Invalid boolean parameter: "null"'),
    ("_all_docs", {"keys": '["x"]', "att_encoding_info": "x"}, "query_parse_error", 'Invalid boolean parameter: "x"'),
    ("_all_docs", {"stale": "later"}, "query_parse_error", "Invalid value for `stale`."),
    ("_local_docs", {"update": "soon"}, "query_parse_error", "Invalid value for `update`."),
    ("/_all_dbs", {"conflicts": "null"}, "query_parse_error", 'Invalid boolean parameter: "null"'),
    ("/_all_dbs", {"skip": '"a"'}, "query_parse_error", 'Invalid value for integer: "\\"a\\""'),
])
def test_view_parameters_are_checked_where_they_do_nothing(client, db, path, params, error, reason):
    """couch_mrview_http:parse_param/4 reads every view parameter, in the request's
    order, on `_all_docs`, `_local_docs` and `_all_dbs` too: a bad one is 400 even
    where it changes nothing (checked on CouchDB 3.4.3)."""
    url = client.url(path[1:]) if path.startswith("/") else db.url(path)
    assert_error(client.get(url, params=params), 400, error, reason)


def test_posted_options_take_words_as_written(client, db):
    """A POST body's `stale`, `update` and ids are strings as written (not JSON text)."""
    put_doc(db, "a", {})
    r = client.post(db.url("_all_docs"), json={"keys": ["a"], "stale": "ok", "update": "lazy"})
    assert [row["id"] for row in body_of(assert_status(r, 200))["rows"]] == ["a"]


def test_non_string_keys_are_not_found(client, db):
    """all_docs_test.exs "POST with keys and limit": `_all_docs` keys are document ids, so a
    key that is no string finds nothing: its row is {"key": <the key>, "error": "not_found"}
    (fabric_view_all_docs:open_doc/5), never the document whose id spells the number."""
    put_doc(db, "1")
    put_doc(db, "2")
    body = body_of(assert_status(client.post(db.url("_all_docs"), json={"keys": [1, "2", None]}), 200))
    assert body["rows"][0] == {"key": 1, "error": "not_found"}
    assert body["rows"][1]["id"] == "2"
    assert body["rows"][2] == {"key": None, "error": "not_found"}
    body = all_docs(db, {"keys": "[1]"})
    assert body["rows"] == [{"key": 1, "error": "not_found"}]


def test_queries_read_keys_as_a_view_parameter(client, db):
    """API Reference › Databases › POST /{db}/_all_docs/queries: each query's members are
    view parameters (couch_mrview_http:parse_param/4), where one key in `keys` is a `key=`
    range (so the answer has an offset) and a `keys` that is no list is 400 query_parse_error;
    a `queries` that is no list is 400 (couch_mrview_util:get_view_queries/1)."""
    for i in "0123":
        put_doc(db, i)
    r = client.post(db.url("_all_docs", "queries"), json={"queries": [{"keys": ["1"]}, {"keys": ["2", "0"]}]})
    results = body_of(assert_status(r, 200))["results"]
    assert results[0]["offset"] == 1 and [row["id"] for row in results[0]["rows"]] == ["1"]
    assert results[1]["offset"] is None and [row["id"] for row in results[1]["rows"]] == ["2", "0"]
    r = client.post(db.url("_all_docs", "queries"), json={"queries": [{"keys": "x"}]})
    assert_error(r, 400, "query_parse_error", "`keys` must be an array of strings.")
    r = client.post(db.url("_all_docs", "queries"), json={"queries": {}})
    assert_error(r, 400, "bad_request", "`queries` member must be an array.")


def test_post_body_parameters_are_decoded_values(client, db):
    """all_docs_test.exs "POST boolean" neighbourhood: a POST body's parameters are decoded
    JSON (couch_mrview_http:parse_param/4): `limit` must be a JSON integer, and a refusal
    prints the value as Erlang's ~p does (`<<"x">>`, `-1`, `null`)."""
    for body, reason in (({"limit": "1"}, 'Invalid value for integer: <<"1">>'),
                         ({"skip": "x"}, 'Invalid value for integer: <<"x">>'),
                         ({"limit": -1}, "Invalid value for positive integer: -1"),
                         ({"limit": None}, "Invalid value for integer: null"),
                         ({"descending": 1}, "Invalid boolean parameter: 1")):
        assert_error(client.post(db.url("_all_docs"), json=body), 400, "query_parse_error", reason)
    assert_status(client.post(db.url("_all_docs"), json={"descending": "true", "limit": 1}), 200)


@pytest.mark.parametrize("query,body,result", [
    ('key="b"&startkey="a"', None, ["a", "b"]),
    ('startkey="a"&key="b"', None, ["b"]),
    ('key="b"&inclusive_end=false', None, []),
    ('keys=["b"]&key="b"', None, ["b"]),
    ('keys=["b"]&startkey="a"', None, "error"),
    ('keys=["b","c"]&startkey="a"', None, "error"),
    ("", {"startkey": "a", "keys": ["b"]}, ["b"]),
    ("", {"keys": ["b"], "startkey": "a"}, "error"),
    ("", {"key": "c", "keys": ["b"]}, ["b"]),
    ("", {"keys": ["b"], "key": "c"}, "error"),
    ('startkey="a"', {"keys": ["b"]}, "error"),
])
def test_key_bounds_apply_in_order(client, db, query, body, result):
    """_all_docs applies key, keys, startkey and endkey in order, the body's and then the
    query string's, each over what came before; `keys` stands only if no bound left names
    another key (couch_mrview_http:parse_body_and_query/3, couch_mrview_util:validate_args/1;
    read from Apache CouchDB 3.4.3)."""
    bulk_docs(db, [{"_id": i} for i in "abcd"])
    path = db.url("_all_docs") + ("?" + query if query else "")
    r = client.post(path, json=body) if body is not None else client.get(path)
    if result == "error":
        assert_error(r, 400, "query_parse_error", "`keys` is incompatible with `key`, `start_key` and `end_key`")
    else:
        assert [row["id"] for row in body_of(assert_status(r, 200))["rows"]] == result
