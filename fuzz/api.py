#!/usr/bin/env python3
"""fuzz/api.py [BASE_URL] [--requests N] [--seed S]: mutational fuzzing of the HTTP API.

The libFuzzer targets (fuzz/run) cover the parsers one by one; this covers what
lies behind them, through a real server: the handlers' reading of JSON bodies,
query parameters and headers. It takes valid requests to every endpoint and
changes them (JSON values swapped for values of other types, special `_` fields,
truncated and corrupted bodies, odd query values, hostile headers), and sends N of
them on one keep-alive connection. The admin credentials go in the URL, which
defaults to $SETTEE_URL (as scripts/with-settee sets it).

What must hold for every request (STYLE's bad-input rule, DESIGN's "never a crash"):
- the answer is below 500 (501 for what Settee does not implement is allowed);
- an error answer is CouchDB's JSON `{"error": ..., "reason": ...}`;
- the connection stays usable unless the answer said `Connection: close`.
And at the end the server still answers, and a document written first is unchanged.

Settee-specific (it asserts no 5xx and Settee's 501), so it is not in conformance/.
The seed makes a run repeatable: a failure prints the request that caused it.
"""

import base64
import http.client
import json
import random
import sys
import urllib.parse

import live

BODY_METHODS = {"PUT", "POST"}


def templates(db):
    """(method, path, query, headers, body) of valid requests; body is JSON-able or bytes."""
    j = {"Content-Type": "application/json"}
    att = {"x.txt": {"content_type": "text/plain", "data": base64.b64encode(b"hello").decode()}}
    history = {"start": 2, "ids": ["b" * 32, "a" * 32]}
    multipart = (b"--B\r\nContent-Type: application/json\r\n\r\n"
                 b'{"_id":"m","_rev":"1-' + b"c" * 32 + b'","_attachments":{"f":{"follows":true,'
                 b'"content_type":"text/plain","length":3}}}\r\n--B\r\n\r\nabc\r\n--B--')
    return [
        ("PUT", f"/{db}/doc", {}, j, {"a": 1, "nested": {"b": [1, 2]}, "_attachments": att}),
        ("POST", f"/{db}", {}, j, {"_id": "posted", "v": True}),
        ("POST", f"/{db}/_bulk_docs", {}, j, {"docs": [{"_id": "a", "v": 1}, {"_id": "b", "_deleted": True}]}),
        ("POST", f"/{db}/_bulk_docs", {}, j, {"new_edits": False, "docs": [
            {"_id": "r", "_rev": "2-" + "b" * 32, "_revisions": history, "x": 1, "_attachments": att}]}),
        ("POST", f"/{db}/_bulk_get", {"revs": "true", "latest": "true"}, j,
         {"docs": [{"id": "a"}, {"id": "r", "rev": "2-" + "b" * 32, "atts_since": ["1-" + "a" * 32]}]}),
        ("POST", f"/{db}/_revs_diff", {}, j, {"r": ["2-" + "b" * 32, "3-" + "d" * 32], "zz": ["1-a"]}),
        ("POST", f"/{db}/_missing_revs", {}, j, {"r": ["2-" + "b" * 32, "3-" + "d" * 32]}),
        ("GET", f"/{db}/_changes", {"since": "0", "limit": "5", "include_docs": "true", "style": "all_docs",
                                     "conflicts": "true", "descending": "false"}, {}, None),
        ("POST", f"/{db}/_changes", {"filter": "_doc_ids"}, j, {"doc_ids": ["a", "r"]}),
        ("POST", f"/{db}/_changes", {"filter": "_selector", "include_docs": "true"}, j,
         {"selector": {"v": {"$gt": 0}, "$or": [{"a": {"$exists": True}}, {"x": {"$in": [1, 2]}}]}}),
        ("GET", f"/{db}/_changes", {"feed": "longpoll", "timeout": "20", "since": "now"}, {}, None),
        ("GET", f"/{db}/_all_docs", {"startkey": '"a"', "endkey": '"z"', "include_docs": "true", "skip": "0",
                                      "limit": "10", "inclusive_end": "true", "update_seq": "true"}, {}, None),
        ("GET", f"/{db}/_all_docs", {"keys": '["a","b","nope"]', "conflicts": "true"}, {}, None),
        ("POST", f"/{db}/_all_docs", {}, j, {"keys": ["a", "b"], "include_docs": True}),
        ("GET", f"/{db}/_design_docs", {"descending": "true"}, {}, None),
        ("POST", f"/{db}/_index", {}, j, {"index": {"fields": ["v", {"x": "asc"}],
                                                    "partial_filter_selector": {"v": {"$gt": 0}}},
                                          "ddoc": "q", "name": "vx", "type": "json"}),
        ("POST", f"/{db}/_find", {}, j, {"selector": {"v": {"$gte": 1}, "x": {"$in": [1, "a"]},
                                                      "a": {"$regex": "^(a|b)+$"}},
                                         "sort": [{"v": "asc"}], "fields": ["_id", "v"], "limit": 3, "skip": 0,
                                         "use_index": ["q", "vx"], "execution_stats": True, "bookmark": "nil"}),
        ("POST", f"/{db}/_explain", {}, j, {"selector": {"_id": {"$gt": "a"}}, "sort": ["_id"]}),
        ("GET", f"/{db}/_index", {"limit": "2", "skip": "0"}, {}, None),
        ("PUT", f"/{db}/_design/v", {}, j, {"views": {"v": {"map": "function(doc) { emit([doc.v, doc._id], 1); }",
                                                              "reduce": "_sum"}},
                                               "validate_doc_update": "function(n, o, u, s) { if (n.no) throw({forbidden: 'no'}); }"}),
        ("GET", f"/{db}/_design/v/_view/v", {"group_level": "1", "startkey": "[1]", "endkey": "[9,{}]",
                                              "inclusive_end": "false", "limit": "5", "update": "true"}, {}, None),
        ("POST", f"/{db}/_design/v/_view/v", {"reduce": "false", "include_docs": "true"}, j, {"keys": [[1, "a"], 2]}),
        ("PUT", f"/{db}/_design/r", {}, j, {
            "shows": {"s": "function(doc, req) { provides('json', function() { return {json: {doc: doc, q: req.query}}; });"
                           " return {code: 200, headers: {'X-A': 'b'}, body: 'x'}; }"},
            "updates": {"u": "function(doc, req) { if (!doc) return [{_id: req.uuid, b: req.body}, 'new'];"
                             " doc.n = (doc.n || 0) + 1; return [doc, {json: doc}]; }"},
            "lists": {"l": "function(head, req) { start({headers: {'Content-Type': 'text/plain'}}); var r;"
                           " while (r = getRow()) send(JSON.stringify(r)); return JSON.stringify(head); }"},
            "views": {"v": {"map": "function(doc) { emit(doc._id, doc.n); }", "reduce": "_count"}}}),
        ("GET", f"/{db}/_design/r/_show/s/doc", {"format": "json", "key": '"a"'}, {"Accept": "application/json"}, None),
        ("POST", f"/{db}/_design/r/_update/u/doc", {}, {"Content-Type": "application/x-www-form-urlencoded"}, b"a=1&b=%ZZ"),
        ("GET", f"/{db}/_design/r/_list/l/v", {"reduce": "false", "limit": "3", "include_docs": "true"}, {}, None),
        ("POST", f"/{db}/_design/r/_list/l/v/v", {"group": "true"}, j, {"keys": ["doc", 1]}),
        ("DELETE", f"/{db}/_index/q/json/vx", {}, {}, None),
        ("GET", f"/{db}/doc", {"revs": "true", "revs_info": "true", "attachments": "true",
                               "atts_since": '["1-' + "a" * 32 + '"]', "local_seq": "true", "meta": "true"}, {}, None),
        ("GET", f"/{db}/r", {"open_revs": "all", "latest": "true"}, {"Accept": "multipart/mixed"}, None),
        ("GET", f"/{db}/r", {"open_revs": '["2-' + "b" * 32 + '","9-x"]'}, j, None),
        ("GET", f"/{db}/doc/x.txt", {}, {"Range": "bytes=0-1,3-"}, None),
        ("PUT", f"/{db}/doc/y.bin", {"rev": "1-" + "0" * 32}, {"Content-Type": "application/octet-stream"},
         b"\x00\x01binary"),
        ("PUT", f"/{db}/m", {"new_edits": "false"}, {"Content-Type": 'multipart/related; boundary="B"'}, multipart),
        ("DELETE", f"/{db}/a", {"rev": "1-" + "0" * 32}, {}, None),
        ("COPY", f"/{db}/a", {}, {"Destination": "copied?rev=1-abc"}, None),
        ("PUT", f"/{db}/_local/l", {}, j, {"v": 1, "_rev": "0-1"}),
        ("POST", f"/{db}/_local_docs", {}, j, {"keys": ["_local/l"]}),
        ("PUT", f"/{db}/_security", {}, j, {"admins": {"names": [], "roles": []},
                                             "members": {"names": [], "roles": []}}),
        ("PUT", f"/{db}/_revs_limit", {}, j, 50),
        ("POST", f"/{db}/_compact", {}, j, None),
        ("POST", f"/{db}/_ensure_full_commit", {}, j, None),
        ("GET", f"/{db}", {}, {}, None),
        ("POST", "/_dbs_info", {}, j, {"keys": [db, "nope"]}),
        ("GET", "/_all_dbs", {"limit": "2", "skip": "0", "descending": "true", "startkey": '"a"'}, {}, None),
        ("GET", "/_uuids", {"count": "3"}, {}, None),
        ("GET", "/_db_updates", {"timeout": "20"}, {}, None),
        ("POST", "/_session", {}, j, {"name": "nobody", "password": "x"}),
        ("GET", "/_session", {}, {}, None),
    ]


# Replacement values: each a JSON text, so that numbers JSON allows but Python
# cannot hold (1e400) and deep nesting go out as written.
VALUES = [
    "null", "true", "false", "0", "-1", "1.5", "1e400", "-0", "18446744073709551616", '""', '"x"',
    '"1-abc"', '"_design/x"', '"\\u0000"', '"\\ud800"', "[]", "{}", '[null]', '{"a":{}}', '["a",1]',
    '{"start":1e9,"ids":[]}', '{"$regex":"("}', '{"$gt":[]}', '{"data":5}', '{"follows":"yes"}',
    "[" * 200 + "]" * 200, '"' + "x" * 20000 + '"',
]
KEYS = ["_id", "_rev", "_deleted", "_attachments", "_revisions", "_local_seq", "_conflicts", "_foo",
        "docs", "new_edits", "keys", "selector", "doc_ids", "ids", "start", "data", "stub", "length", "$and"]
QUERY_VALUES = ["", "true", "false", "-1", "0", "abc", '"a"', "[", '{"a":', "%ZZ", "1e400", "99999999999999999999",
                '["x"]', "null", "now", "all", "\u00e9", "1-abc", "_all_docs", "a" * 3000]
QUERY_KEYS = ["rev", "revs", "open_revs", "latest", "attachments", "atts_since", "conflicts", "deleted_conflicts",
              "local_seq", "meta", "since", "limit", "skip", "descending", "include_docs", "startkey", "endkey",
              "key", "keys", "inclusive_end", "style", "filter", "doc_ids", "new_edits", "batch", "count",
              "update_seq", "start_key", "end_key", "startkey_docid", "att_encoding_info", "revs_info", "seq_interval"]
HEADERS = [("Content-Type", "text/plain"), ("Content-Type", "application/json; charset=latin1"),
           ("Content-Type", "multipart/related"), ("Content-Type", 'multipart/related; boundary=""'),
           ("Accept", "multipart/related"), ("Accept", "text/plain"), ("If-Match", '"1-abc"'),
           ("If-Match", "garbage"), ("If-None-Match", '"x"'), ("Range", "bytes=5-2"), ("Range", "bytes=-0"),
           ("Range", "bytes=" + ",".join(["0-0"] * 12)), ("Destination", ""), ("Destination", "%ZZ"),
           ("Content-Encoding", "gzip"), ("X-Couch-Full-Commit", "true"), ("Expect", "100-continue")]


def mutate_json(rng, text):
    """Replaces, removes or renames one member or element of `text` (JSON), as text."""
    value = json.loads(text)
    slots = []  # (container, key) of every member and element

    def walk(node):
        if isinstance(node, dict):
            for k in list(node):
                slots.append((node, k))
                walk(node[k])
        elif isinstance(node, list):
            for i in range(len(node)):
                slots.append((node, i))
                walk(node[i])
    walk(value)
    marker = "\u2603MARK\u2603"
    if not slots:
        return rng.choice(VALUES)
    container, key = rng.choice(slots)
    action = rng.random()
    if action < 0.6:
        container[key] = marker
    elif action < 0.75 and isinstance(container, dict):
        container[rng.choice(KEYS)] = container.pop(key)
    elif action < 0.9:
        container.pop(key) if isinstance(container, dict) else container.pop(key)
    else:
        return json.dumps(value)[: rng.randrange(1, max(2, len(json.dumps(value))))]  # truncated
    return json.dumps(value).replace(json.dumps(marker), rng.choice(VALUES), 1)


def mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not data:
            data += bytes([rng.randrange(256)])
        pos = rng.randrange(len(data))
        choice = rng.random()
        if choice < 0.4:
            data[pos] = rng.randrange(256)
        elif choice < 0.7:
            data[pos:pos] = bytes(rng.choice([b"\xff", b"\x00", b'"', b"{", b"\\", b"\r\n", b"--B\r\n"]))
        else:
            del data[pos:pos + rng.randint(1, 8)]
    return bytes(data)


def mutate(rng, request):
    method, path, query, headers, body = request
    query, headers = dict(query), dict(headers)
    data = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else None)
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.35 and data is not None and not isinstance(body, bytes):
            try:
                data = mutate_json(rng, data.decode()).encode()
            except ValueError:  # an earlier mutation left no JSON to walk
                data = mutate_bytes(rng, data)
        elif r < 0.45 and data is not None:
            data = mutate_bytes(rng, data)
        elif r < 0.7:
            # Feeds wait for their timeout: never unbounded here.
            key = rng.choice([k for k in QUERY_KEYS + list(query) if k not in ("feed", "timeout", "heartbeat")])
            query[key] = rng.choice(QUERY_VALUES)
        elif r < 0.85:
            name, value = rng.choice(HEADERS)
            headers[name] = value
        else:
            segments = path.split("/")
            i = rng.randrange(2, len(segments)) if len(segments) > 2 else 1
            segments[i] = rng.choice(["%ZZ", "%00", "_design/x", "_local", "a%2Fb", "\u00e9".encode().decode("latin1"),
                                      "_nope", "x" * 300, "%C3%28", "."])
            path = "/".join(segments)
    return method, path, query, headers, data


class Fuzzer:
    def __init__(self, base, seed):
        self.host, self.port, self.auth = live.address(base)
        self.rng = random.Random(seed)
        self.conn = None
        self.statuses = {}

    def send(self, method, path, query=None, headers=None, data=None, timeout=10):
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        # Non-ASCII goes out percent-encoded (http.client sends ASCII only); `%` stays as written.
        path = urllib.parse.quote(path, safe="".join(chr(c) for c in range(33, 127)))
        target = path + ("?" + "&".join(f"{urllib.parse.quote(k)}={urllib.parse.quote(v, safe='%')}"
                                         for k, v in query.items()) if query else "")
        all_headers = {"Authorization": self.auth, **(headers or {})}
        if data is not None:
            all_headers["Content-Length"] = str(len(data))
        self.conn.request(method, target, body=data, headers=all_headers, encode_chunked=False)
        response = self.conn.getresponse()
        body = response.read()
        if (response.getheader("Connection") or "").lower() == "close":
            self.conn.close()
            self.conn = None
        return response.status, response.getheader("Content-Type") or "", body

    def check(self, request, status, content_type, body):
        method = request[0]
        self.statuses[status] = self.statuses.get(status, 0) + 1
        problem = None
        if status >= 500 and status != 501 and not self.design_function_error(body):
            problem = f"answered {status}"
        elif status >= 400 and method != "HEAD":
            try:
                error = json.loads(body)
                if not (isinstance(error, dict) and isinstance(error.get("error"), str)
                        and isinstance(error.get("reason"), str)):
                    problem = "an error without CouchDB's error and reason"
            except ValueError:
                problem = f"an error that is not JSON ({content_type})"
        if problem:
            raise AssertionError(f"{problem}: {describe(request)}\n  -> {status} {body[:300]!r}")


    # A design function's own failure (a show that throws, a reduce of bad values) is a 500
    # in CouchDB too: the function's fault, not the server's.
    DESIGN_FUNCTION_ERRORS = {"render_error", "external_response_error", "os_process_error", "reduce_error",
                              "invalid_value"}

    @classmethod
    def design_function_error(cls, body):
        try:
            return json.loads(body).get("error") in cls.DESIGN_FUNCTION_ERRORS
        except (ValueError, AttributeError):
            return False


def describe(request):
    method, path, query, headers, data = request
    return f"{method} {path} query={query} headers={headers} body={(data or b'')[:300]!r}"


def main():
    args = live.arguments(__doc__, "requests", 3000)
    fuzz = Fuzzer(args.base.rstrip("/"), args.seed)
    db = f"fuzz-{args.seed}-{random.randrange(1 << 32):08x}"  # one length: the same mutations each run
    canary = {"_id": "canary", "keep": ["this", 1, {"as": "is"}]}
    assert fuzz.send("PUT", f"/{db}")[0] == 201
    status, _, body = fuzz.send("PUT", f"/{db}/canary", data=json.dumps(canary).encode(),
                                headers={"Content-Type": "application/json"})
    assert status == 201, body
    canary_rev = json.loads(body)["rev"]
    seeds = templates(db)
    for request in seeds:  # unchanged first: every endpoint is reached with valid input too
        data = request[4] if isinstance(request[4], bytes) or request[4] is None else json.dumps(request[4]).encode()
        fuzz.check((*request[:4], data), *fuzz.send(*request[:4], data))
    recent = []  # the requests before a failure, on the same connection, may be its cause
    try:
        for _ in live.cases(args):
            request = mutate(fuzz.rng, fuzz.rng.choice(seeds))
            recent = recent[-2:] + [describe(request)]
            try:
                result = fuzz.send(*request)
            except (http.client.HTTPException, OSError) as error:
                fuzz.conn = None
                try:
                    alive = fuzz.send("GET", "/_up")[0] == 200
                except (http.client.HTTPException, OSError):
                    alive = False
                raise AssertionError(f"no answer ({error!r}; server {'alive' if alive else 'DOWN'}) to the last of:\n  "
                                     + "\n  ".join(recent))
            fuzz.check(request, *result)
        status, _, body = fuzz.send("GET", f"/{db}/canary")
        stored = json.loads(body)
        assert status == 200 and stored["_rev"] == canary_rev and stored["keep"] == canary["keep"], body
    finally:
        try:
            fuzz.send("DELETE", f"/{db}")
        except (http.client.HTTPException, OSError):
            pass
    print(f"fuzz api: {args.count} mutated requests (seed {args.seed}), statuses "
          + ", ".join(f"{s}: {n}" for s, n in sorted(fuzz.statuses.items())))


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"fuzz api: FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
