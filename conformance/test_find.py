"""POST /{db}/_find and /{db}/_explain. CouchDB docs: API Reference › Databases ›
/{db}/_find (selector syntax, sort syntax, filtering fields, pagination, execution
statistics), /{db}/_explain; behaviour of CouchDB 3.4's mango_cursor.erl,
mango_idx_view.erl and mango_opts.erl where the docs are silent (each case says)."""

import random

import pytest

from couch import assert_error, assert_status, body_of, bulk_docs, make_conflict, put_doc


def find(db, body, status=200):
    return body_of(assert_status(db.client.post(db.url("_find"), json=body), status))


def ids(result):
    return [d["_id"] for d in result["docs"]]


def create_index(db, fields, **extra):
    body = dict(extra)
    body["index"] = {"fields": fields}
    out = body_of(assert_status(db.client.post(db.url("_index"), json=body), 200))
    assert out["result"] in ("created", "exists"), out
    return out


NO_INDEX = "No matching index found, create an index to optimize query time."

MOVIES = [
    {"_id": "m1", "title": "alien", "year": 1979, "rating": 8.5, "genre": ["horror", "scifi"],
     "cast": {"lead": "weaver"}},
    {"_id": "m2", "title": "aliens", "year": 1986, "rating": 8.4, "genre": ["action", "scifi"],
     "cast": {"lead": "weaver"}},
    {"_id": "m3", "title": "blade runner", "year": 1982, "rating": 8.1, "genre": ["scifi"],
     "cast": {"lead": "ford"}},
    {"_id": "m4", "title": "heat", "year": 1995, "rating": 8.3, "genre": ["crime"]},
    {"_id": "m5", "title": "jaws", "year": 1975, "genre": ["thriller"], "cast": {"lead": "scheider"}},
    {"_id": "m6", "title": "ran", "year": "unknown", "genre": []},
]


@pytest.fixture
def movies(db):
    bulk_docs(db, [dict(m) for m in MOVIES])
    return db


OPERATOR_CASES = [
    ({"year": 1982}, ["m3"]),
    ({"year": {"$eq": 1986}}, ["m2"]),
    ({"year": {"$gt": 1982}}, ["m2", "m4", "m6"]),  # strings collate after numbers
    ({"year": {"$gte": 1982, "$lt": 1990}}, ["m2", "m3"]),
    ({"year": {"$lte": 1979}}, ["m1", "m5"]),
    ({"year": {"$ne": 1979}}, ["m2", "m3", "m4", "m5", "m6"]),
    ({"year": {"$in": [1975, 1995]}}, ["m4", "m5"]),
    ({"year": {"$nin": [1975, 1995]}}, ["m1", "m2", "m3", "m6"]),
    ({"rating": {"$exists": False}}, ["m5", "m6"]),
    ({"rating": {"$exists": True}}, ["m1", "m2", "m3", "m4"]),
    ({"year": {"$type": "string"}}, ["m6"]),
    ({"genre": {"$size": 2}}, ["m1", "m2"]),
    ({"year": {"$mod": [5, 0]}}, ["m4", "m5"]),
    ({"title": {"$regex": "^al"}}, ["m1", "m2"]),
    ({"title": {"$beginsWith": "al"}}, ["m1", "m2"]),
    ({"genre": {"$all": ["scifi", "horror"]}}, ["m1"]),
    ({"genre": {"$elemMatch": {"$eq": "crime"}}}, ["m4"]),
    ({"genre": {"$allMatch": {"$eq": "scifi"}}}, ["m3"]),
    ({"cast": {"$keyMapMatch": {"$eq": "lead"}}}, ["m1", "m2", "m3", "m5"]),
    ({"cast.lead": "weaver"}, ["m1", "m2"]),
    ({"cast": {"lead": "ford"}}, ["m3"]),
    ({"$or": [{"year": 1975}, {"title": "heat"}]}, ["m4", "m5"]),
    ({"$and": [{"year": {"$gt": 1975}}, {"rating": {"$lt": 8.4}}]}, ["m3", "m4"]),
    ({"$nor": [{"year": 1975}, {"year": 1979}]}, ["m2", "m3", "m4", "m6"]),
    ({"year": {"$not": {"$gt": 1980}}}, ["m1", "m5"]),
    ({"genre.0": "scifi"}, ["m3"]),
]


@pytest.mark.parametrize("selector,expected", OPERATOR_CASES)
def test_operators_without_index(movies, selector, expected):
    """Selector Syntax › operators: each matches exactly the documents it should,
    in _id order when no index is used."""
    out = find(movies, {"selector": selector})
    assert ids(out) == expected


@pytest.mark.parametrize("selector,expected", OPERATOR_CASES)
def test_operators_with_indexes(movies, selector, expected):
    """The same selectors with json indexes on the fields present: an index narrows
    the scan, never the answer (mango_cursor_view re-checks every document)."""
    for fields in (["year"], ["title"], ["rating"], ["genre"], ["cast.lead"]):
        create_index(movies, fields)
    out = find(movies, {"selector": selector})
    assert sorted(ids(out)) == expected


def test_response_shape_and_no_index_warning(movies):
    """/{db}/_find response: docs, bookmark (a string), and a warning when no index
    was used (mango_cursor:no_index_warning/1)."""
    out = find(movies, {"selector": {"year": {"$gt": 1990}}})
    assert [d["_id"] for d in out["docs"]] == ["m4", "m6"]
    assert isinstance(out["bookmark"], str)
    assert out["warning"] == NO_INDEX
    doc = out["docs"][0]
    assert doc["title"] == "heat" and doc["_rev"].startswith("1-")


def test_index_used_no_warning(movies):
    """An index that serves the selector leaves no warning."""
    create_index(movies, ["year"])
    out = find(movies, {"selector": {"year": {"$gt": 1990}}})
    assert "warning" not in out
    assert ids(out) == ["m4", "m6"]


def test_design_documents_never_returned(movies):
    """_find over _all_docs skips design documents (they are not in any index)."""
    put_doc(movies, "_design/x", {"title": "alien"})
    create_index(movies, ["title"])
    assert ids(find(movies, {"selector": {"_id": {"$gt": None}}})) == [m["_id"] for m in MOVIES]
    assert ids(find(movies, {"selector": {"title": "alien"}})) == ["m1"]


def test_deleted_and_updated_documents(movies):
    """An index follows edits and deletions made after it was built."""
    create_index(movies, ["year"])
    assert ids(find(movies, {"selector": {"year": 1975}})) == ["m5"]
    rev = find(movies, {"selector": {"_id": "m5"}})["docs"][0]["_rev"]
    put_doc(movies, "m5", {"_rev": rev, "title": "jaws", "year": 1976})
    rev = find(movies, {"selector": {"_id": "m4"}})["docs"][0]["_rev"]
    assert_status(movies.client.delete(movies.url("m4"), params={"rev": rev}), 200)
    assert ids(find(movies, {"selector": {"year": 1975}})) == []
    assert ids(find(movies, {"selector": {"year": {"$gt": 1970}}})) == ["m5", "m1", "m3", "m2", "m6"]


def test_sort_with_index(movies):
    """Sort Syntax: ascending and descending on an indexed field; documents without
    the field are not in the index and so not in a sorted result."""
    create_index(movies, ["year"])
    asc = find(movies, {"selector": {"year": {"$gt": 0}}, "sort": ["year"]})
    assert ids(asc) == ["m5", "m1", "m3", "m2", "m4", "m6"]
    desc = find(movies, {"selector": {"year": {"$gt": 0}}, "sort": [{"year": "desc"}]})
    assert ids(desc) == ["m6", "m4", "m2", "m3", "m1", "m5"]


def test_sort_by_compound_index_after_equality(db):
    """A sort on the second field of an index works when the first is fixed by
    $eq (mango_idx_view:can_use_sort/3)."""
    bulk_docs(db, [{"_id": "d%d" % i, "kind": "a" if i % 2 else "b", "n": (i * 7) % 10} for i in range(10)])
    create_index(db, ["kind", "n"])
    out = find(db, {"selector": {"kind": "a"}, "sort": ["n"]})
    ns = [d["n"] for d in out["docs"]]
    assert ns == sorted(ns) and len(ns) == 5
    out = find(db, {"selector": {"kind": "a", "n": {"$gt": 0}}, "sort": [{"kind": "desc"}, {"n": "desc"}]})
    ns = [d["n"] for d in out["docs"]]
    assert ns == sorted(ns, reverse=True) and len(ns) == 5


def test_sort_on_id_without_index(movies):
    """_all_docs can serve a sort on _id when the selector constrains _id."""
    out = find(movies, {"selector": {"_id": {"$gt": "m2"}}, "sort": [{"_id": "desc"}]})
    assert ids(out) == ["m6", "m5", "m4", "m3"]


def test_sort_without_index(movies):
    """400 no_usable_index when no index can give the sort."""
    r = movies.client.post(movies.url("_find"), json={"selector": {"year": {"$gt": 0}}, "sort": ["year"]})
    assert_error(r, 400, "no_usable_index",
                 "No index exists for this sort, try indexing by the sort fields.")


@pytest.mark.parametrize("sort,error", [
    ("year", "invalid_sort_json"),
    ([{"year": "up"}], "invalid_sort_field"),
    ([{"a": "asc", "b": "asc"}], "invalid_sort_field"),
    ([1], "invalid_sort_field"),
    ([{"year": "asc"}, {"title": "desc"}], "unsupported_mixed_sort"),
])
def test_bad_sort(movies, sort, error):
    """mango_sort: a sort is an array of names or one-member {field: asc|desc}
    objects, all one direction."""
    r = movies.client.post(movies.url("_find"), json={"selector": {}, "sort": sort})
    assert_error(r, 400, error)


def test_fields(movies):
    """Filtering Fields: only the listed fields, nested ones nested, missing ones absent."""
    out = find(movies, {"selector": {"_id": "m1"}, "fields": ["title", "cast.lead", "nothing"]})
    assert out["docs"] == [{"title": "alien", "cast": {"lead": "weaver"}}]
    out = find(movies, {"selector": {"_id": "m1"}, "fields": ["_id", "_rev"]})
    assert set(out["docs"][0]) == {"_id", "_rev"}


def test_limit_and_skip(movies):
    """limit (default 25) and skip count matching documents."""
    assert ids(find(movies, {"selector": {"_id": {"$gt": None}}, "limit": 2})) == ["m1", "m2"]
    assert ids(find(movies, {"selector": {"_id": {"$gt": None}}, "skip": 4})) == ["m5", "m6"]
    assert ids(find(movies, {"selector": {"_id": {"$gt": None}}, "limit": 0})) == []
    bulk_docs(movies, [{"_id": "x%02d" % i} for i in range(30)])
    assert len(find(movies, {"selector": {"_id": {"$gt": None}}})["docs"]) == 25


@pytest.mark.parametrize("indexed", [False, True])
def test_bookmark_pagination(db, indexed):
    """Pagination: each page's bookmark resumes after its last document; paging
    through yields every match once, in order; past the end the bookmark stays."""
    bulk_docs(db, [{"_id": "p%03d" % i, "v": (i * 37) % 50} for i in range(50)])
    selector = {"v": {"$gte": 10}}
    body = {"selector": selector, "limit": 7}
    if indexed:
        create_index(db, ["v"])
        body["sort"] = ["v"]
    seen, bookmark = [], None
    for _ in range(20):
        if bookmark:
            body["bookmark"] = bookmark
        out = find(db, body)
        if not out["docs"]:
            assert out["bookmark"] == bookmark
            break
        seen += out["docs"]
        bookmark = out["bookmark"]
    assert len(seen) == 40 and len({d["_id"] for d in seen}) == 40
    keys = [d["v"] for d in seen] if indexed else [d["_id"] for d in seen]
    assert keys == sorted(keys)


def test_empty_result_bookmark(movies):
    """No match: docs is empty and the bookmark is "nil" (mango_json_bookmark)."""
    out = find(movies, {"selector": {"year": 3000}})
    assert out["docs"] == [] and out["bookmark"] == "nil"


def test_invalid_bookmark(movies):
    """400 invalid_bookmark for a bookmark the server never gave."""
    r = movies.client.post(movies.url("_find"), json={"selector": {}, "bookmark": "zzz"})
    assert_error(r, 400, "invalid_bookmark")


def test_execution_stats(movies):
    """Execution Statistics: the five figures, when asked for."""
    out = find(movies, {"selector": {"year": {"$gt": 1980}}, "execution_stats": True})
    stats = out["execution_stats"]
    assert set(stats) == {"total_keys_examined", "total_docs_examined", "total_quorum_docs_examined",
                          "results_returned", "execution_time_ms"}
    assert stats["results_returned"] == 4
    assert stats["total_docs_examined"] >= 4


def test_partial_index_only_when_named(db):
    """partial_filter_selector: such an index is used only when use_index names it,
    and then holds only the documents its filter admits."""
    bulk_docs(db, [{"_id": "a", "n": 1, "live": True}, {"_id": "b", "n": 2, "live": False},
                   {"_id": "c", "n": 3, "live": True}])
    r = db.client.post(db.url("_index"), json={
        "index": {"fields": ["n"], "partial_filter_selector": {"live": True}}, "ddoc": "p", "name": "live"})
    assert_status(r, 200)
    plain = find(db, {"selector": {"n": {"$gt": 0}}})
    assert ids(plain) == ["a", "b", "c"] and plain["warning"] == NO_INDEX
    named = find(db, {"selector": {"n": {"$gt": 0}}, "use_index": ["p", "live"]})
    assert ids(named) == ["a", "c"] and "warning" not in named


def test_use_index_fallback_and_error(movies):
    """use_index naming no usable index: a warning and another index, or with
    allow_fallback false, 400 invalid_index (mango_cursor:create/4)."""
    out = find(movies, {"selector": {"year": 1975}, "use_index": "nope"})
    assert ids(out) == ["m5"]
    assert out["warning"].startswith("_design/nope was not used because it does not contain a valid index")
    r = movies.client.post(movies.url("_find"), json={"selector": {"year": 1975}, "use_index": "nope",
                                                      "allow_fallback": False})
    assert_error(r, 400, "invalid_index",
                 "_design/nope specified by `use_index` could not be found or it is not suitable.")


def test_use_index_null_is_absent(movies):
    """CouchDB's Mango test helper sends `"use_index": null` with every query
    (test/elixir/test/mango): null names no index, as if the member were absent."""
    plain = find(movies, {"selector": {"year": {"$gt": 1990}}})
    with_null = find(movies, {"selector": {"year": {"$gt": 1990}}, "use_index": None})
    assert ids(with_null) == ids(plain)
    assert "warning" not in with_null or with_null.get("warning") == plain.get("warning")


def test_use_index_chooses(db):
    """use_index picks among usable indexes."""
    bulk_docs(db, [{"_id": "a", "x": 1, "y": 2}])
    create_index(db, ["x"], ddoc="one", name="x")
    create_index(db, ["x", "y"], ddoc="two", name="xy")
    explain = body_of(assert_status(db.client.post(db.url("_explain"), json={
        "selector": {"x": 1, "y": 2}, "use_index": "one"}), 200))
    assert explain["index"]["ddoc"] == "_design/one"
    explain = body_of(assert_status(db.client.post(db.url("_explain"), json={
        "selector": {"x": 1, "y": 2}}), 200))
    assert explain["index"]["ddoc"] == "_design/two"


def test_conflicts_option(db):
    """conflicts: true adds _conflicts to documents that have them."""
    make_conflict(db, "c")
    out = find(db, {"selector": {"_id": "c"}, "conflicts": True})
    assert len(out["docs"][0]["_conflicts"]) == 1
    assert "_conflicts" not in find(db, {"selector": {"_id": "c"}})["docs"][0]


@pytest.mark.parametrize("body,status,error", [
    ({}, 400, "missing_required_key"),
    ({"selector": []}, 400, "invalid_selector_json"),
    ({"selector": {}, "limit": -1}, 400, "invalid_non_neg_integer"),
    ({"selector": {}, "limit": "a"}, 400, "invalid_non_neg_integer"),
    ({"selector": {}, "skip": -1}, 400, "invalid_non_neg_integer"),
    ({"selector": {}, "r": 0}, 400, "invalid_pos_integer"),
    ({"selector": {}, "conflicts": 1}, 400, "invalid_boolean"),
    ({"selector": {}, "use_index": 5}, 400, "invalid_index_name"),
    ({"selector": {}, "use_index": ["a", "b", "c"]}, 400, "invalid_index_name"),
    ({"selector": {}, "fields": "a"}, 400, "invalid_fields"),
    ({"selector": {}, "fields": [1]}, 400, "invalid_field"),
    ({"selector": {}, "foo": 1}, 400, "invalid_key"),
    ({"selector": {"a": {"$foo": 1}}}, 400, "invalid_operator"),
    ({"selector": {"a": {"$in": 1}}}, 400, "bad_arg"),
    ({"selector": {}, "partition": "x"}, 400, "bad_request"),
])
def test_bad_requests(movies, body, status, error):
    """mango_opts:validate_find/1 and mango_selector: CouchDB's error for each bad option."""
    assert_error(movies.client.post(movies.url("_find"), json=body), status, error)


@pytest.mark.parametrize("selector,reason", [
    ({"a": {"$in": 1}}, "Bad argument for operator $in: 1"),
    ({"a": {"$nin": "x"}}, "Bad argument for operator $nin: <<120>>"),
    ({"$and": {}}, "Bad argument for operator $and: {[]}"),
    ({"$nor": {"x": [1, "a"]}}, "Bad argument for operator $nor: {[{<<120>>,[1,<<97>>]}]}"),
    ({"a": {"$mod": [1]}}, "Bad argument for operator $mod: [1]"),
    ("x", "Selector must be a JSON object, not: <<120>>"),
])
def test_selector_errors_print_the_operand_as_erlang_writes_it(db, selector, reason):
    """mango_selector's bad_arg and invalid_selector_json reasons format the operand with
    io_lib's ~w: strings as their bytes (<<120>>), objects as EJSON ({[{<<97>>,1}]}),
    an empty object as {[]} (mango_error.erl info/2). Read from Apache CouchDB 3.4.3."""
    r = db.client.post(db.url("_find"), json={"selector": selector})
    error = "invalid_selector_json" if isinstance(selector, str) else "bad_arg"
    assert_error(r, 400, error)
    assert r.json()["reason"] == reason


@pytest.mark.parametrize("options,error,reason", [
    ({"r": "x\"\u00e9"}, "invalid_pos_integer", "<<120,34,195,169>> is not an integer greater than zero"),
    ({"limit": "x"}, "invalid_non_neg_integer", "<<120>> is not an integer greater than or equal to zero"),
    ({"skip": {"a": "x"}}, "invalid_non_neg_integer", "{[{<<97>>,<<120>>}]} is not an integer greater than or equal to zero"),
    ({"conflicts": "x"}, "invalid_boolean", "Invalid boolean value: <<120>>"),
    ({"fields": "x"}, "invalid_fields", "Fields must be an array of strings, not: <<120>>"),
    ({"sort": "\u00e9"}, "invalid_sort_json", "Sort must be an array of sort specs, not: <<\"\u00e9\">>"),
    ({"sort": 1000.0}, "invalid_sort_json", "Sort must be an array of sort specs, not: 1.0e3"),
    ({"partition": 5}, "illegal_partition", "Partition must be a string"),
    ({"partition": "a:b"}, "illegal_partition", "Partition must not contain a colon"),
    ({"partition": "_x"}, "illegal_partition", "Partition must not start with an underscore"),
])
def test_option_errors_quote_the_value_as_couchdb_does(db, options, error, reason):
    """mango_opts's reasons write the value with ~w (a string as its bytes, <<120>>), the
    sort reasons with ~p (<<"\u00e9">>; floats in Erlang's shortest form, 1.0e3);
    couch_partition:validate_partition/1 checks a partition before anything else
    (mango_error.erl, couch_partition.erl). Read from Apache CouchDB 3.4.3."""
    r = db.client.post(db.url("_find"), json={"selector": {}, **options})
    assert_error(r, 400, error)
    assert r.json()["reason"] == reason


def test_find_methods_and_content_type(movies):
    """_find is POST only (405); its body must be application/json (415)."""
    assert_error(movies.client.get(movies.url("_find")), 405, "method_not_allowed")
    r = movies.client.post(movies.url("_find"), data='{"selector":{}}',
                           headers={"Content-Type": "text/plain"})
    assert_error(r, 415, "bad_content_type")
    assert_error(movies.client.post(movies.url("_find"), data="{", headers={"Content-Type": "application/json"}),
                 400, "bad_request")


def test_partition_endpoints_on_a_global_database(db):
    """/{db}/_partition/... on a database created without ?partitioned=true: 400
    "database is not partitioned" (chttpd_db:partition_db_req)."""
    r = db.client.post(db.url("_partition", "p", "_find"), json={"selector": {}})
    assert_error(r, 400, "bad_request", "database is not partitioned")
    assert_error(db.client.get(db.url("_partition", "p")), 400, "bad_request", "database is not partitioned")


def test_invalid_partitioned_parameter(client):
    """PUT /{db}?partitioned= other than true or false: 400 (chttpd_db:parse_partitioned_opt/1)."""
    r = client.put(client.url("t_partitioned_bad"), params={"partitioned": "yes"})
    assert_error(r, 400, "bad_request", "Invalid `partitioned` parameter")


def test_find_missing_database(client):
    """404 for a database that does not exist."""
    r = client.post(client.url("no_such_db_for_find", "_find"), json={"selector": {}})
    assert_error(r, 404, "not_found")


def test_explain(movies):
    """/{db}/_explain: the chosen index, the selector and options, no documents."""
    create_index(movies, ["year"])
    out = body_of(assert_status(movies.client.post(movies.url("_explain"), json={
        "selector": {"year": {"$gt": 1980}}, "fields": ["_id"], "limit": 3}), 200))
    assert out["dbname"] == movies.name
    assert out["index"]["type"] == "json"
    assert out["index"]["def"] == {"fields": [{"year": "asc"}]}
    assert out["selector"] == {"year": {"$gt": 1980}}
    assert out["limit"] == 3 and out["skip"] == 0 and out["fields"] == ["_id"]
    assert out["opts"]["limit"] == 3
    out = body_of(assert_status(movies.client.post(movies.url("_explain"), json={"selector": {"title": "x"}}), 200))
    assert out["index"]["name"] == "_all_docs" and out["index"]["type"] == "special"
    assert_error(movies.client.get(movies.url("_explain")), 405, "method_not_allowed")


# --- property test: with and without an index, the same answer ------------------

WORDS = ["ant", "bee", "cat", "dog", "eel", "fox"]


def random_value(rng):
    kind = rng.random()
    if kind < 0.55:
        return rng.randint(-5, 20)
    if kind < 0.85:
        return rng.choice(WORDS)
    return rng.choice([None, True, False])


def random_selector(rng):
    value = random_value(rng)
    other = random_value(rng)
    shapes = [
        {"a": value},
        {"a": {"$gt": value}},
        {"a": {"$gte": value, "$lt": other}},
        {"a": {"$lte": value}, "b": {"$gt": other}},
        {"a": value, "b": {"$lte": other}},
        {"a": {"$beginsWith": rng.choice(WORDS)[:rng.randint(0, 2)]}},
        {"a": {"$in": [value, other]}},
        {"a": {"$exists": True}, "b": {"$ne": value}},
        {"$or": [{"a": value}, {"b": other}]},
    ]
    return rng.choice(shapes)


def test_indexed_and_unindexed_agree(make_db):
    """Random documents and selectors: _find on a database with json indexes on
    (a), (a, b) and (b) returns exactly what a full scan returns (the docs' "Indexes"
    promise: an index changes the speed of a query, not its answer)."""
    rng = random.Random(2511)
    docs = []
    for i in range(80):
        doc = {"_id": "r%03d" % i}
        if rng.random() < 0.85:
            doc["a"] = random_value(rng)
        if rng.random() < 0.7:
            doc["b"] = random_value(rng)
        docs.append(doc)
    plain, indexed = make_db(), make_db()
    bulk_docs(plain, [dict(d) for d in docs])
    bulk_docs(indexed, [dict(d) for d in docs])
    create_index(indexed, ["a"])
    create_index(indexed, ["a", "b"])
    create_index(indexed, ["b"])
    for _ in range(60):
        selector = random_selector(rng)
        expected = sorted(ids(find(plain, {"selector": selector, "limit": 1000})))
        got = sorted(ids(find(indexed, {"selector": selector, "limit": 1000})))
        assert got == expected, selector


def test_dup_keys_find_body_takes_the_last_selector(client, db):
    """A `_find` body is decoded like any request body, by couch_util:json_decode/2 with
    jiffy's dedupe_keys (src/couch/src/couch_util.erl): a repeated `selector` (or an
    operator's repeated field) takes its last value."""
    bulk_docs(db, [{"_id": "one", "v": 1}, {"_id": "two", "v": 2}])
    body = '{"selector":{"v":1},"fields":["_id"],"selector":{"v":{"$eq":1,"$eq":2}}}'
    r = client.post(db.url("_find"), data=body, headers={"Content-Type": "application/json"})
    assert_status(r, 200)
    assert [d["_id"] for d in body_of(r)["docs"]] == ["two"]
