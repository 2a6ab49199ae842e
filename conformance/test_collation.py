"""View and Mango collation. CouchDB docs: Guide to Views › Views Collation (the order
of types; strings by the Unicode Collation Algorithm through ICU, "a" < "A" < "aa";
"Raw collation" with a view's `"options": {"collation": "raw"}`); API Reference › Design
Documents › `/{db}/_design/{ddoc}/_info` (`collator_versions`). The expected orders
are CouchDB's own: test/elixir/test/view_collation_test.exs and view_collation_raw_test.exs
at 3.4.3, and couch_ejson_compare.c (ICU's root collator, `ucol_open("")`)."""

import json

import pytest

from couch import assert_status, body_of, bulk_docs, put_doc

# view_collation_test.exs @values: each type in order, strings by ICU (case and accents).
DEFAULT_ORDER = [
    None, False, True,
    1, 2, 3.0, 4,
    "a", "A", "aa", "b", "B", "ba", "bb",
    ["a"], ["b"], ["b", "c"], ["b", "c", "a"], ["b", "d"], ["b", "d", "e"],
    {"a": 1}, {"a": 2}, {"b": 1}, {"b": 2}, {"b": 2, "a": 1}, {"b": 2, "c": 2},
]

# view_collation_raw_test.exs @values: Erlang's term order, strings by bytes.
RAW_ORDER = [
    1, 2, 3, 4,
    False, None, True,
    {"a": 1}, {"a": 2}, {"b": 1}, {"b": 2}, {"b": 2, "a": 1}, {"b": 2, "c": 2},
    ["a"], ["b"], ["b", "c"], ["b", "c", "a"], ["b", "d"], ["b", "d", "e"],
    "A", "B", "a", "aa", "b", "ba", "bb",
]

# Accents and case as ICU's root collation orders them: accents are a secondary
# difference, case a tertiary one, so base letters decide first.
ACCENTED = ["a", "A", "á", "Á", "ab", "b", "E", "é", "f", "z", "Z", "ζ"]

MAP = "function(doc) { emit(doc.k, null); }"


def keys_of(db, ddoc, params=None):
    r = db.client.get(db.url("_design/" + ddoc, "_view", "v"), params=params or {})
    return [row["key"] for row in body_of(assert_status(r, 200))["rows"]]


def load(db, values):
    # Ids that sort against the values' order, so only the keys can order the rows.
    bulk_docs(db, [{"_id": "%03d" % (len(values) - i), "k": v} for i, v in enumerate(values)])


def test_default_collation(db):
    """view_collation_test.exs "ascending collation order" and "descending collation order"."""
    put_doc(db, "_design/c", {"views": {"v": {"map": MAP}}})
    load(db, DEFAULT_ORDER)
    assert keys_of(db, "c") == DEFAULT_ORDER
    assert keys_of(db, "c", {"descending": "true"}) == list(reversed(DEFAULT_ORDER))


def test_accents_and_case(db):
    """Strings with accents and case in ICU root order, ranges bounded in that order."""
    put_doc(db, "_design/c", {"views": {"v": {"map": MAP}}})
    load(db, ACCENTED)
    assert keys_of(db, "c") == ACCENTED
    # "A" <= key <= "b": every string from "A" up to "b", whatever its code point.
    inner = keys_of(db, "c", {"startkey": json.dumps("A"), "endkey": json.dumps("b")})
    assert inner == ["A", "á", "Á", "ab", "b"]


def test_key_range_in_collation_order(db):
    """view_collation_test.exs "key query option" and "inclusive_end=false"."""
    put_doc(db, "_design/c", {"views": {"v": {"map": MAP}}})
    load(db, DEFAULT_ORDER)
    for value in DEFAULT_ORDER:
        assert keys_of(db, "c", {"key": json.dumps(value)}) == [value]
    between = keys_of(db, "c", {"startkey": json.dumps("a"), "endkey": json.dumps("b"), "inclusive_end": "false"})
    assert between == ["a", "A", "aa"]


def test_raw_collation(db):
    """view_collation_raw_test.exs: a view's `options.collation = raw` orders as Erlang
    terms, its key ranges too ("raw semantics in key ranges"); the option belongs to the
    view, not to the design document."""
    put_doc(db, "_design/raw", {"views": {"v": {"map": MAP, "options": {"collation": "raw"}}}})
    put_doc(db, "_design/ddoc_level", {"options": {"collation": "raw"}, "views": {"v": {"map": MAP}}})
    load(db, RAW_ORDER)
    assert keys_of(db, "raw") == RAW_ORDER
    assert keys_of(db, "raw", {"descending": "true"}) == list(reversed(RAW_ORDER))
    inner = keys_of(db, "raw", {"startkey": json.dumps("B"), "endkey": json.dumps("aa")})
    assert inner == ["B", "a", "aa"]
    assert keys_of(db, "ddoc_level") == [v for v in DEFAULT_ORDER if v in RAW_ORDER]


def test_collator_versions_in_design_info(db):
    """`_info` names the ICU collator version the views were built with (one, dotted)."""
    put_doc(db, "_design/c", {"views": {"v": {"map": MAP}}})
    info = body_of(assert_status(db.client.get(db.url("_design/c", "_info")), 200))
    versions = info["view_index"]["collator_versions"]
    assert len(versions) == 1
    assert all(part.isdigit() for part in versions[0].split("."))


def test_node_versions_name_the_collator(db, client, anon):
    """`GET /_node/_local/_versions` (chttpd_node:get_versions/0): the collation driver,
    whose collator version is the one `_info` reports; server admins only."""
    assert_status(anon.get(anon.url("_node", "_local", "_versions")), 401)
    versions = body_of(assert_status(client.get(client.url("_node", "_local", "_versions")), 200))
    driver = versions["collation_driver"]
    assert driver["name"] == "libicu"
    put_doc(db, "_design/c", {"views": {"v": {"map": MAP}}})
    info = body_of(assert_status(db.client.get(db.url("_design/c", "_info")), 200))
    assert info["view_index"]["collator_versions"] == [driver["collator_version"]]


def test_mango_sort_and_range_in_collation_order(db):
    """Mango json indexes use the view collation (mango_idx_view, couch_ejson_compare):
    a sort and a `$gt`/`$lt` range order strings as ICU does."""
    r = db.client.post(db.url("_index"), json={"index": {"fields": ["k"]}, "name": "k", "type": "json"})
    assert_status(r, 200)
    load(db, ACCENTED)
    r = db.client.post(db.url("_find"), json={"selector": {"k": {"$gt": None}}, "sort": ["k"], "fields": ["k"]})
    assert [d["k"] for d in body_of(assert_status(r, 200))["docs"]] == ACCENTED
    r = db.client.post(db.url("_find"), json={"selector": {"k": {"$gte": "A", "$lt": "b"}}, "fields": ["k"]})
    assert sorted(d["k"] for d in body_of(assert_status(r, 200))["docs"]) == sorted(["A", "á", "Á", "ab"])


@pytest.mark.parametrize("prefix, expected", [("a", ["a", "ab"]), ("A", ["A"]), ("á", ["á"])])
def test_mango_begins_with_is_a_byte_prefix(db, prefix, expected):
    """`$beginsWith` matches a byte prefix (mango_selector:match/3), with or without an index."""
    load(db, ACCENTED)
    selector = {"k": {"$beginsWith": prefix}}
    r = db.client.post(db.url("_find"), json={"selector": selector, "fields": ["k"]})
    assert sorted(d["k"] for d in body_of(assert_status(r, 200))["docs"]) == sorted(expected)
    assert_status(db.client.post(db.url("_index"), json={"index": {"fields": ["k"]}, "name": "k", "type": "json"}), 200)
    r = db.client.post(db.url("_find"), json={"selector": selector, "fields": ["k"], "use_index": "k"})
    assert sorted(d["k"] for d in body_of(assert_status(r, 200))["docs"]) == sorted(expected)
