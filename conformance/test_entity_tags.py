"""ETags and If-None-Match beyond attachments: documents, `_local` documents,
`_changes` (normal feed), `_all_dbs` and `GET /_dbs_info`. CouchDB 3.4.3 tags them
(chttpd:etag_respond/3, couch_httpd:make_etag/1 over the database's or `_dbs`' info,
couch_httpd:doc_etag/3) and answers a matching If-None-Match with 304 and
`Content-Length: 0`, to GET and HEAD alike. Tags are opaque: only their presence,
their stability while nothing changes and their change after a write are asserted."""

from couch import assert_status, body_of, put_doc


def assert_not_modified(r, tag):
    assert r.status_code == 304, (r.status_code, r.text[:200])
    assert r.headers.get("ETag") == tag
    assert r.headers.get("Content-Length") == "0" and r.content == b""


def tag_of(r):
    tag = assert_status(r, 200).headers.get("ETag")
    assert tag and tag.startswith('"') and tag.endswith('"'), r.headers
    return tag


def test_document_304_declares_no_content(client, db):
    """GET and HEAD of a document with its ETag: 304, `Content-Length: 0`."""
    put_doc(db, "d", {"v": 1})
    tag = tag_of(client.get(db.url("d")))
    assert_not_modified(client.get(db.url("d"), headers={"If-None-Match": tag}), tag)
    assert_not_modified(client.head(db.url("d"), headers={"If-None-Match": tag}), tag)


def test_local_documents_are_tagged(client, db):
    """`_local` documents carry an ETag (of their rev and body) and answer 304 to it."""
    assert_status(client.put(db.url("_local/l"), json={"v": 1}), 201)
    tag = tag_of(client.get(db.url("_local/l")))
    assert_not_modified(client.get(db.url("_local/l"), headers={"If-None-Match": tag}), tag)
    assert_not_modified(client.head(db.url("_local/l"), headers={"If-None-Match": tag}), tag)
    assert_status(client.put(db.url("_local/l"), json={"v": 2}), 201)
    r = client.get(db.url("_local/l"), headers={"If-None-Match": tag})
    assert tag_of(r) != tag and body_of(r)["v"] == 2


def test_changes_are_tagged_until_the_next_write(client, db):
    """A normal `_changes` feed is tagged; the same request with the tag is 304 (GET
    and HEAD) until a write changes the database."""
    put_doc(db, "a", {})
    url = db.url("_changes")
    tag = tag_of(client.get(url))
    assert_not_modified(client.get(url, headers={"If-None-Match": tag}), tag)
    assert_not_modified(client.head(url, headers={"If-None-Match": tag}), tag)
    put_doc(db, "b", {})
    r = client.get(url, headers={"If-None-Match": tag})
    assert tag_of(r) != tag and sorted(row["id"] for row in body_of(r)["results"]) == ["a", "b"]


def test_all_dbs_and_dbs_info_are_tagged(client, db):
    """`_all_dbs` (GET and HEAD) and `GET /_dbs_info` are tagged; sent back, the tag is
    304 unless the server's databases changed meanwhile (then a new tag)."""
    for path in ("_all_dbs", "_dbs_info"):
        tag = tag_of(client.get(client.url(path)))
        assert client.head(client.url(path)).headers.get("ETag")
        r = client.get(client.url(path), headers={"If-None-Match": tag})
        if r.status_code != 304:  # another client created or deleted a database in between
            assert tag_of(r) != tag
        else:
            assert_not_modified(r, tag)


def test_if_none_match_weak_and_listed_tags(client, db):
    """etags_head_test.exs "etags head" (`if-none-match: W/<etag>` is 304) and
    couch_httpd:etag_match/2 (API Reference › Documents › GET, If-None-Match): the header
    is split on commas and spaces, a weak `W/` prefix is dropped; documents, attachments
    and `_local` documents alike. `*` matches nothing in CouchDB 3.4.3 (full 200)."""
    assert_status(client.put(db.url("d"), json={"_attachments": {"a.txt": {
        "content_type": "text/plain", "data": "aGVsbG8="}}}), 201)
    assert_status(client.put(db.url("_local/l"), json={"v": 1}), 201)
    for url in (db.url("d"), db.url("d", "a.txt"), db.url("_local/l")):
        tag = tag_of(client.get(url))
        for header in ("W/" + tag, '"zz", ' + tag, '"zz",W/' + tag):
            assert_not_modified(client.get(url, headers={"If-None-Match": header}), tag)
        assert client.head(url, headers={"If-None-Match": "W/" + tag}).status_code == 304
        tag_of(client.get(url, headers={"If-None-Match": "*"}))
