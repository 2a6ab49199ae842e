"""The web admin at /_utils (issue 27), driven in headless Chromium: log in, list
databases with sizes, create and delete one, write and edit documents, see revisions
and conflicts, watch _changes live, start a replication and see it complete, log out.
Screenshots of each page go to $ARTIFACTS (default .build-artifacts/web-admin)."""

import json
import os
import uuid
from datetime import datetime, timedelta, timezone
from urllib.parse import quote, urlsplit, urlunsplit, unquote

import pytest
import requests

from cdp import Browser, chromium_path

RAW_URL = os.environ.get("SETTEE_URL", "")
ARTIFACTS = os.environ.get("ARTIFACTS", os.path.join(os.path.dirname(__file__), "..", ".build-artifacts", "web-admin"))


def split(raw):
    parts = urlsplit(raw)
    netloc = parts.hostname + (":%d" % parts.port if parts.port else "")
    return urlunsplit((parts.scheme, netloc, "", "", "")), (unquote(parts.username or ""), unquote(parts.password or ""))


BASE, (ADMIN, PASSWORD) = split(RAW_URL) if RAW_URL else ("", ("", ""))


@pytest.fixture(scope="module")
def browser():
    if not RAW_URL:
        pytest.fail("SETTEE_URL (with admin credentials) is not set")
    executable = chromium_path()
    if executable is None:
        pytest.skip("no Chromium on this machine")
    browser = Browser(executable)
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def admin():
    session = requests.Session()
    session.auth = (ADMIN, PASSWORD)
    return session


@pytest.fixture(scope="module")
def names(admin):
    tag = uuid.uuid4().hex[:8]
    made = {"db": "webadmin_" + tag, "copy": "webadmin_copy_" + tag}
    yield made
    for name in made.values():
        admin.delete(f"{BASE}/{name}")


def shot(browser, name):
    return browser.screenshot(os.path.join(ARTIFACTS, name + ".png"))


def text_of(selector):
    return f"(document.querySelector({json.dumps(selector)}) || {{}}).textContent || ''"


def click(browser, selector):
    browser.wait_for(f"!!document.querySelector({json.dumps(selector)})")
    browser.evaluate(f"document.querySelector({json.dumps(selector)}).click()")


def fill(browser, selector, value):
    browser.wait_for(f"!!document.querySelector({json.dumps(selector)})")
    browser.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
                     f"e.value = {json.dumps(value)}; e.dispatchEvent(new Event('input')); }})()")


def test_1_login(browser):
    """/_utils redirects to /_utils/, which asks for a login, then shows the databases."""
    response = requests.get(BASE + "/_utils", allow_redirects=False)
    assert response.status_code == 301 and response.headers["Location"] == "/_utils/"
    browser.goto(BASE + "/_utils/")
    browser.wait_for("!!document.querySelector('#login-form')")
    shot(browser, "1-login")
    fill(browser, "#login-name", ADMIN)
    fill(browser, "#login-password", "wrong")
    click(browser, "#login-submit")
    browser.wait_for("!document.getElementById('toast').hidden")
    assert "Name or password is incorrect" in browser.evaluate(text_of("#toast"))
    fill(browser, "#login-password", PASSWORD)
    click(browser, "#login-submit")
    browser.wait_for("!!document.querySelector('#databases')")
    assert ADMIN in browser.evaluate(text_of("#who"))


def test_2_databases(browser, admin, names):
    """The list shows each database with its document count and size; the form
    creates one, the Delete button removes one."""
    fill(browser, "#new-db", names["db"])
    click(browser, "#create-db")
    row = f"#databases tr[data-db={json.dumps(names['db'])}]"
    browser.wait_for(f"!!document.querySelector({json.dumps(row)})")
    assert admin.get(f"{BASE}/{names['db']}").status_code == 200
    cells = browser.evaluate(f"[...document.querySelectorAll({json.dumps(row + ' td')})].map(c => c.textContent)")
    assert cells[1] == "0" and cells[3].endswith("B")
    assert browser.evaluate("!!document.querySelector('#databases tr[data-db=\"_users\"]')")
    shot(browser, "2-databases")
    # A second database, deleted from the page.
    doomed = names["db"] + "_doomed"
    assert admin.put(f"{BASE}/{doomed}").status_code == 201
    browser.evaluate("location.hash = '#/x'; location.hash = '#/'")
    doomed_row = f"#databases tr[data-db={json.dumps(doomed)}]"
    browser.wait_for(f"!!document.querySelector({json.dumps(doomed_row)})")
    browser.evaluate("window.confirm = () => true")
    click(browser, doomed_row + " button.delete-db")
    browser.wait_for(f"!document.querySelector({json.dumps(doomed_row)})")
    assert admin.get(f"{BASE}/{doomed}").status_code == 404


def test_3_documents_and_live_changes(browser, admin, names):
    """New document, edit it (a second revision), and a change made elsewhere
    appears in the page's live _changes list."""
    db = names["db"]
    browser.goto(f"{BASE}/_utils/#/db/{quote(db)}")
    click(browser, "#new-doc")
    browser.wait_for("document.querySelector('#doc-editor') && document.querySelector('#doc-editor').value.includes('_id')")
    fill(browser, "#doc-editor", json.dumps({"_id": "doc1", "n": 1}))
    click(browser, "#save-doc")
    browser.wait_for("document.querySelector('#doc-editor') && document.querySelector('#doc-editor').value.includes('_rev')")
    assert admin.get(f"{BASE}/{db}/doc1").json()["n"] == 1
    edited = json.loads(browser.evaluate("document.querySelector('#doc-editor').value"))
    edited["n"] = 2
    fill(browser, "#doc-editor", json.dumps(edited))
    click(browser, "#save-doc")
    browser.wait_for("document.querySelectorAll('#revisions li').length === 2")
    assert admin.get(f"{BASE}/{db}/doc1").json()["n"] == 2

    browser.goto(f"{BASE}/_utils/#/db/{quote(db)}")
    browser.wait_for("!!document.querySelector('#changes') && document.querySelectorAll('#documents a.doc-link').length === 1")
    # The feed starts at "now": wait until it is connected before writing.
    browser.wait_for("document.querySelector('#changes').hasAttribute('data-connected')")
    assert admin.put(f"{BASE}/{db}/from-elsewhere", json={"x": 1}).status_code == 201
    browser.wait_for(f"({text_of('#changes')}).includes('from-elsewhere')", timeout=20)
    shot(browser, "3-database-live-changes")


def test_4_conflicts(browser, admin, names):
    """A document with a conflict lists the losing revision, which can be opened."""
    db = names["db"]
    current = admin.get(f"{BASE}/{db}/doc1").json()["_rev"]
    other = "2-" + "f" * 32 if current < "2-" + "f" * 32 else "2-" + "0" * 32
    rev1 = admin.get(f"{BASE}/{db}/doc1", params={"revs_info": "true"}).json()["_revs_info"][-1]["rev"]
    body = {"docs": [{"_id": "doc1", "_rev": other, "n": 99,
                      "_revisions": {"start": 2, "ids": [other[2:], rev1[2:]]}}], "new_edits": False}
    assert admin.post(f"{BASE}/{db}/_bulk_docs", json=body).status_code == 201
    conflicts = admin.get(f"{BASE}/{db}/doc1", params={"conflicts": "true"}).json().get("_conflicts", [])
    assert len(conflicts) == 1
    browser.goto(f"{BASE}/_utils/#/db/{quote(db)}/doc/doc1")
    browser.wait_for("document.querySelectorAll('#conflicts li').length === 1")
    assert conflicts[0] in browser.evaluate(text_of("#conflicts"))
    shot(browser, "4-document-conflict")
    click(browser, "#conflicts a.rev-link")
    browser.wait_for(f"!!document.querySelector('#doc-editor') && document.querySelector('#doc-editor').value.includes({json.dumps(conflicts[0])})")


def test_4b_conflict_pages(browser, admin, names):
    """The database's conflict list (GET /{db}/_conflicts) links each document to its
    winner and another leaf shown side by side (issue 42, item 1)."""
    db = names["db"]
    doc = admin.get(f"{BASE}/{db}/doc1", params={"conflicts": "true"}).json()
    assert len(doc.get("_conflicts", [])) == 1
    browser.goto(f"{BASE}/_utils/#/db/{quote(db)}")
    click(browser, "#db-conflicts")
    browser.wait_for("document.querySelectorAll('#conflicted-docs a.conflict-link').length === 1")
    assert "1 documents" in browser.evaluate(text_of("#conflict-count"))
    shot(browser, "4b-conflict-list")
    click(browser, "#conflicted-docs a.conflict-link")
    browser.wait_for("!!document.querySelector('#leaf-other')")
    assert json.dumps(doc["_rev"]) in browser.evaluate(text_of("#leaf-winner"))
    assert json.dumps(doc["_conflicts"][0]) in browser.evaluate(text_of("#leaf-other"))
    shot(browser, "4b-leaves-side-by-side")


def test_5_replication(browser, admin, names):
    """The replication page starts a replication (a _replicator document) that
    completes; its copy holds the documents."""
    browser.goto(f"{BASE}/_utils/#/replication")
    browser.wait_for("!!document.querySelector('#replicate-form')")
    fill(browser, "#rep-source", names["db"])
    fill(browser, "#rep-target", names["copy"])
    browser.evaluate("document.querySelector('#rep-create-target').checked = true")
    click(browser, "#start-replication")
    browser.wait_for(f"({text_of('#replication-docs')}).includes({json.dumps(names['copy'])})")
    # The page refreshes itself every 5 s.
    browser.wait_for(f"[...document.querySelectorAll('#replication-docs tr')].some(r => r.textContent.includes("
                     f"{json.dumps(names['copy'])}) && r.textContent.includes('completed'))", timeout=40)
    shot(browser, "5-replication")
    copied = admin.get(f"{BASE}/{names['copy']}/_all_docs").json()
    assert {row["id"] for row in copied["rows"]} == {"doc1", "from-elsewhere"}
    for doc in admin.get(f"{BASE}/_replicator/_all_docs").json()["rows"]:
        if not doc["id"].startswith("_design/"):
            admin.delete(f"{BASE}/_replicator/{doc['id']}", params={"rev": doc["value"]["rev"]})


# A room as GET /_peers describes it (the fields NodeDiscovery+Peers.swift writes): discovery
# needs avahi in a network namespace, so the page's rendering of a populated room is fed
# this answer through the page's own fetch, and the real server's answer is checked too.
STUB_PEERS = {
    "enabled": True, "instance": "settee-here",
    "peers": [
        {"instance": "laptop-b", "host": "laptop-b.local", "port": 5984, "addresses": ["198.18.0.2", "fe80::2"],
         "url": "http://198.18.0.2:5984", "uuid": "b" * 32, "databases": ["photos"], "tls_fingerprint": None,
         "last_seen": None, "seen_since": "2020-01-01T00:00:00Z", "state": "syncing",
         "replications": [
             {"id": "discovery+bbb+photos+push", "database": "photos", "direction": "push", "state": "running",
              "caught_up": True, "lag_ms": 120, "docs_written": 7, "checkpointed_seq": 7, "last_error": None},
             {"id": "discovery+bbb+photos+pull", "database": "photos", "direction": "pull", "state": "running",
              "caught_up": False, "lag_ms": 40, "docs_written": 3, "checkpointed_seq": "3", "last_error": None}]},
        {"instance": "pi-c", "host": "pi-c.local", "port": 5984, "addresses": ["198.18.0.3"],
         "url": "http://198.18.0.3:5984", "uuid": "c" * 32, "databases": [], "tls_fingerprint": None,
         "last_seen": "2020-01-01T00:00:00Z", "state": "gone", "reason": "goodbye", "replications": []}]}


def test_5b_peers(browser, admin):
    """The peer page (issue 41, item 6) lists GET /_peers — state, addresses, last seen,
    lag, replications — and refreshes itself while shown."""
    real = admin.get(f"{BASE}/_peers", params={"reachable": "false"}).json()
    browser.goto(f"{BASE}/_utils/#/peers")
    browser.wait_for("!!document.querySelector('#peers-refreshed')")
    if real.get("enabled") is False:
        assert browser.evaluate("!!document.querySelector('#discovery-off')")
    else:
        assert browser.evaluate(text_of("#peer-count")) == f"{len(real['peers'])} peers"
    # The page's own fetch answers /_peers from window.stubPeers from now on, counting the calls.
    seen = (datetime.now(timezone.utc) - timedelta(seconds=12)).strftime("%Y-%m-%dT%H:%M:%SZ")
    STUB_PEERS["peers"][0]["last_seen"] = seen
    browser.evaluate("""(() => {
      window.stubPeers = %s; window.peersCalls = 0; window.realFetch = window.fetch;
      window.fetch = (path, options) => {
        if (!String(path).startsWith("/_peers")) return window.realFetch(path, options);
        window.peersCalls += 1;
        return Promise.resolve(new Response(JSON.stringify(window.stubPeers), {
          status: 200, headers: { "Content-Type": "application/json" } }));
      };
      location.hash = "#/peers?stub";
    })()""" % json.dumps(STUB_PEERS))
    browser.wait_for("document.querySelectorAll('#peers-table tr.peer').length === 2")
    rows = browser.evaluate("""[...document.querySelectorAll('#peers-table tr.peer')].map((row) => ({
      instance: row.dataset.instance, state: row.querySelector('.peer-state').textContent,
      bad: row.querySelector('.peer-state').classList.contains('bad'),
      addresses: row.querySelector('.peer-addresses').textContent, seen: row.querySelector('.peer-last-seen').textContent,
      lag: row.querySelector('.peer-lag').textContent, replications: row.querySelector('.peer-replications').textContent }))""")
    laptop, pi = rows
    assert (laptop["instance"], laptop["state"], laptop["bad"]) == ("laptop-b", "syncing", False)
    assert "198.18.0.2" in laptop["addresses"] and "fe80::2" in laptop["addresses"]
    assert laptop["seen"].endswith(" s ago") and laptop["lag"] == "120 ms"
    assert pi["seen"].endswith(" d ago")
    assert "photos push" in laptop["replications"] and "photos pull" in laptop["replications"]
    assert "lag 40 ms" in laptop["replications"] and "7 written" in laptop["replications"]
    assert (pi["instance"], pi["state"], pi["bad"], pi["lag"]) == ("pi-c", "gone", True, "—")
    assert "none" in pi["replications"]
    assert browser.evaluate(text_of("#peer-count")) == "2 peers"
    shot(browser, "5b-peers")
    # A replication starts failing: the page shows it on its next refresh, with no navigation.
    calls = browser.evaluate("window.peersCalls")
    browser.evaluate("""(() => { const r = window.stubPeers.peers[0];
      r.state = "failing"; r.replications[0].last_error = "laptop-b is unreachable: timed out"; })()""")
    browser.wait_for("[...document.querySelectorAll('.peer-error')].some(e => e.textContent.includes('timed out'))"
                     " && document.querySelector('.peer-state').classList.contains('bad')", timeout=15)
    assert browser.evaluate("window.peersCalls") > calls
    browser.evaluate("window.fetch = window.realFetch")


def test_6_logout(browser):
    """Log out ends the session: the login form again."""
    click(browser, "#logout")
    browser.wait_for("!!document.querySelector('#login-form')")
    browser.evaluate("location.reload()")
    browser.wait_for("!!document.querySelector('#login-form')")
