"""Stored XSS through attachments (issue 46, item 3), in headless Chromium: an admin,
logged in with a cookie, opens an HTML attachment whose script would create a server
admin through `PUT /_node/_local/_config/admins/...`. Attachments are served with
`Content-Security-Policy: sandbox`, as CouchDB 3.4.3 serves them (`[csp]
attachments_header_value`), so the page has an opaque origin: its script does not run,
and even code evaluated in it cannot reach the server's endpoints with the cookie."""

import json
import uuid

import pytest
import requests

from cdp import Browser, chromium_path
from test_web_admin import ADMIN, BASE, PASSWORD, RAW_URL


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


@pytest.fixture
def admin():
    session = requests.Session()
    session.auth = (ADMIN, PASSWORD)
    return session


@pytest.fixture
def planted(admin):
    """A database holding an HTML attachment whose script tries to make an admin named
    `intruder_<tag>`; the database and any such admin are removed afterwards."""
    tag = uuid.uuid4().hex[:8]
    db, intruder = "sandbox_" + tag, "intruder_" + tag
    assert admin.put(f"{BASE}/{db}").status_code == 201
    config = f"/_node/_local/_config/admins/{intruder}"
    page = ("<!doctype html><title>photo</title><script>window.scriptRan = true;"
            f"fetch({json.dumps(config)}, {{method: 'PUT', credentials: 'include', "
            "headers: {'Content-Type': 'application/json'}, body: JSON.stringify('owned')})"
            ".then(r => { window.attempt = r.status; });</script>")
    put = admin.put(f"{BASE}/{db}/doc/page.html", data=page.encode(), headers={"Content-Type": "text/html"})
    assert put.status_code == 201
    yield f"{BASE}/{db}/doc/page.html", config
    admin.delete(BASE + config, headers={"X-Couch-Persist": "false"})
    admin.delete(f"{BASE}/{db}")


def test_an_html_attachment_cannot_act_with_the_admins_cookie(browser, admin, planted):
    url, config = planted
    assert requests.head(url, auth=(ADMIN, PASSWORD)).headers.get("Content-Security-Policy") == "sandbox"
    # The admin logs in from a page of the server: the browser now holds its AuthSession cookie.
    browser.goto(BASE + "/_utils/")
    browser.wait_for("document.readyState === 'complete'")
    login = browser.evaluate(f"fetch('/_session', {{method: 'POST', credentials: 'include', "
                             f"headers: {{'Content-Type': 'application/json'}}, "
                             f"body: JSON.stringify({{name: {json.dumps(ADMIN)}, password: {json.dumps(PASSWORD)}}})}})"
                             ".then(r => r.status)")
    assert login == 200
    assert browser.evaluate("fetch('/_session', {credentials: 'include'}).then(r => r.json())"
                            ".then(j => j.userCtx.name)") == ADMIN

    browser.goto(url)
    browser.wait_for("document.readyState === 'complete' && document.title === 'photo'")
    # Sandboxed: an opaque origin, and the page's own script never ran.
    assert browser.evaluate("self.origin") == "null"
    assert browser.evaluate("typeof window.scriptRan") == "undefined"
    # Code run in the page anyway (DevTools ignores the CSP) is cross-origin to the server:
    # the request is refused before it reaches a handler with the cookie.
    outcome = browser.evaluate(f"fetch({json.dumps(config)}, {{method: 'PUT', credentials: 'include', "
                               "headers: {'Content-Type': 'application/json'}, body: JSON.stringify('owned')})"
                               ".then(r => 'status ' + r.status, e => 'blocked')")
    assert outcome == "blocked"
    assert admin.get(BASE + config).status_code == 404
