"""Attachments are served sandboxed: `Content-Security-Policy: sandbox` on every
standalone attachment read, whatever its type, of documents and design documents
alike, so an uploaded HTML page cannot run script on the server's origin.
Source: chttpd_db.erl `db_attachment_req` (`chttpd_util:maybe_add_csp_header(
"attachments", Headers0, "sandbox")`), default.ini `[csp] attachments_enable = true`,
`attachments_header_value = sandbox`; CouchDB's own eunit `chttpd_csp_tests`
(sandbox_doc_attachments, sandbox_ddoc_attachments, plain_docs_not_sandboxed).
Checked on CouchDB 3.4.3."""

import pytest

from couch import assert_status

PAGE = b"<!doctype html><script>document.title = 'ran'</script>"


@pytest.mark.parametrize("doc_id", ["doc", "_design/app"])
@pytest.mark.parametrize("ctype", ["text/html", "image/svg+xml", "application/octet-stream"])
def test_attachment_reads_carry_the_sandbox_policy(client, db, doc_id, ctype):
    r = assert_status(client.put(db.url(doc_id) + "/page", data=PAGE, headers={"Content-Type": ctype}), 201)
    att = db.url(doc_id) + "/page"
    for method in ("GET", "HEAD"):
        r = client.request(method, att)
        assert r.status_code == 200
        assert r.headers.get("Content-Security-Policy") == "sandbox"
    ranged = client.get(att, headers={"Range": "bytes=0-4"})
    assert ranged.status_code in (200, 206)
    assert ranged.headers.get("Content-Security-Policy") == "sandbox"


def test_documents_themselves_are_not_sandboxed(client, db):
    assert_status(client.put(db.url("plain"), json={"a": 1}), 201)
    assert "Content-Security-Policy" not in client.get(db.url("plain")).headers
