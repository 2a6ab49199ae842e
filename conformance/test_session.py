"""POST and DELETE /_session with `?next=`: CouchDB 3.4.3 redirects only to a path on
its own host. `couch_httpd_auth:handle_session_req/2` builds the `Location` with
`couch_httpd:absolute_uri/2`, which prefixes the request's scheme and host to a value
starting with "/" and throws `{bad_request, "path must begin with a /."}` for anything
else (so `//evil.example/` stays on the server and `http://evil.example/` is a 400).
CouchDB docs: API Reference › Server › Authentication › Cookie Authentication (`next`)."""

import requests

from couch import assert_error


def login(base_url, admin_auth, next_value):
    name, password = admin_auth
    return requests.post(base_url + "/_session", params={"next": next_value},
                         data={"name": name, "password": password}, allow_redirects=False)


def test_next_path_redirects_on_the_same_host(base_url, admin_auth):
    r = login(base_url, admin_auth, "/_utils/")
    assert r.status_code == 302
    assert r.headers["Location"] == base_url + "/_utils/"
    assert "AuthSession=" in r.headers.get("Set-Cookie", "")


def test_protocol_relative_next_stays_on_the_server(base_url, admin_auth):
    r = login(base_url, admin_auth, "//evil.example/")
    assert r.status_code == 302
    assert r.headers["Location"] == base_url + "//evil.example/"


def test_next_naming_another_site_is_refused(base_url, admin_auth):
    for value in ("http://evil.example/", "https://evil.example/x", "evil.example"):
        r = login(base_url, admin_auth, value)
        assert_error(r, 400, "bad_request", "path must begin with a /.")
        assert "Location" not in r.headers
        assert "AuthSession=" not in r.headers.get("Set-Cookie", "")


def test_wrong_password_is_401_whatever_next_says(base_url):
    r = requests.post(base_url + "/_session", params={"next": "http://evil.example/"},
                      data={"name": "nobody-next", "password": "wrong"}, allow_redirects=False)
    assert_error(r, 401, "unauthorized", "Name or password is incorrect.")


def test_logout_next_follows_the_same_rule(base_url):
    r = requests.delete(base_url + "/_session", params={"next": "/"}, allow_redirects=False)
    assert r.status_code == 302 and r.headers["Location"] == base_url + "/"
    r = requests.delete(base_url + "/_session", params={"next": "http://evil.example/"}, allow_redirects=False)
    assert_error(r, 400, "bad_request", "path must begin with a /.")


def test_refused_login_clears_the_cookie_and_follows_fail(base_url):
    """cookie_auth_test.exs neighbourhood: a refused login answers with a Set-Cookie clearing
    AuthSession and, with `?fail=`, is a 302 to that path carrying the same error
    (couch_httpd_auth:handle_session_req/2)."""
    r = requests.post(base_url + "/_session", json={"name": "nobody-fail", "password": "wrong"}, allow_redirects=False)
    assert_error(r, 401, "unauthorized", "Name or password is incorrect.")
    assert r.headers.get("Set-Cookie", "").startswith("AuthSession=;")
    r = requests.post(base_url + "/_session", params={"fail": "/failed"},
                      json={"name": "nobody-fail", "password": "wrong"}, allow_redirects=False)
    assert r.status_code == 302 and r.headers["Location"] == base_url + "/failed"
    assert r.json() == {"error": "unauthorized", "reason": "Name or password is incorrect."}


def test_session_content_type_is_worded_as_couchdb(base_url):
    """API Reference › Server › Authentication › POST /_session: neither form nor JSON is 415
    in couch_httpd_auth's words, the types quoted."""
    r = requests.post(base_url + "/_session", data="name=x", headers={"Content-Type": "text/plain"})
    assert_error(r, 415, "bad_content_type",
                 "Content-Type must be 'application/x-www-form-urlencoded' or 'application/json'")


def test_malformed_session_cookie_is_400(base_url, admin_auth):
    """cookie_auth_test.exs neighbourhood: couch_httpd_auth:cookie_authentication_handler/1
    runs first and answers 400 for an AuthSession cookie that does not split into
    name:time:mac, even beside valid Basic credentials; an empty one is no cookie."""
    for auth in (None, admin_auth):
        r = requests.get(base_url + "/_session", headers={"Cookie": "AuthSession=garbage"}, auth=auth)
        assert_error(r, 400, "bad_request", "Malformed AuthSession cookie. Please clear your cookies.")
    assert requests.get(base_url + "/_session", headers={"Cookie": "AuthSession="}).status_code == 200


def test_logout_cookie_has_the_attributes_of_a_session_cookie(base_url):
    """cookie_auth_test.exs neighbourhood: couch_httpd_auth:clear_auth_cookie/1 empties the
    cookie with the attributes a fresh one has (Version, Expires, Max-Age of the session
    timeout, Path, HttpOnly), for a logout and a refused login alike."""
    import re
    shape = re.compile(r"^AuthSession=; Version=1; Expires=[A-Z][a-z]{2}, \d\d-[A-Z][a-z]{2}-\d{4} \d\d:\d\d:\d\d GMT; "
                       r"Max-Age=[1-9]\d*; Path=/; HttpOnly$")
    r = requests.delete(base_url + "/_session")
    assert shape.match(r.headers.get("Set-Cookie", "")), r.headers.get("Set-Cookie")
    r = requests.post(base_url + "/_session", json={"name": "nobody-clear", "password": "x"})
    assert shape.match(r.headers.get("Set-Cookie", "")), r.headers.get("Set-Cookie")
