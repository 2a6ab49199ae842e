#!/usr/bin/env python3
"""fuzz/diff.py URL_A URL_B [--requests N] [--seed S] [--show K] [--strict]: differential
testing of two CouchDB-compatible servers (Settee and Apache CouchDB 3.4.3, say).

The same seeded stream of requests goes to both: first every valid request of
fuzz/api.py's templates, then N of them mutated as fuzz/api.py mutates them (JSON
values of other types, special `_` fields, odd query values, hostile headers). Each
server gets a database of the same fresh name (`?q=1`, so a sharded CouchDB keeps one
order of changes). The answers are compared by status and by JSON shape after
normalising what legitimately differs between two servers: revision hashes, sequences,
uuids, timestamps, sizes and server identities. An error answer must also carry the
same `error` word. Admin credentials go in each URL's userinfo.

It prints every difference grouped by endpoint and kind, with the first request that
showed it, and exits 0 unless `--strict` is given and something differed (two servers
are expected to differ somewhere; the list is what to read). Not part of `make test`:
run against one server twice it would only show that answers repeat.

    fuzz/diff.py http://admin:pw@127.0.0.1:5984 http://admin:pw@127.0.0.1:15984 --requests 2000
"""

import argparse
import json
import random
import re
import sys
import time
from collections import OrderedDict

import api

REV = re.compile(r"^(\d+)-[0-9a-f]{32}$")
HEX32 = re.compile(r"^[0-9a-f]{32}$")
COUCH_SEQ = re.compile(r"^\d+-[A-Za-z0-9_-]{20,}$")
# Members whose values are the server's own: compared by type only, whatever they hold.
OPAQUE_KEYS = {"seq", "last_seq", "update_seq", "purge_seq", "since", "instance_start_time", "sizes", "other",
               "file_size", "data_size", "disk_size", "uuid", "server", "node", "vendor", "version", "git_sha",
               "features", "cluster", "props", "start_time", "end_time", "session_id", "source_last_seq",
               "recorded_seq", "ref", "bookmark", "committed_update_seq", "compacted_seq", "uuids",
               "execution_stats"}


def normalise(value, key=None):
    """`value` with server-specific values replaced by markers; keys are kept."""
    if isinstance(value, dict):
        return {k: normalise(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v, key) for v in value]
    if key in OPAQUE_KEYS:
        return "<%s>" % type(value).__name__
    if isinstance(value, str):
        match = REV.match(value)
        if match:
            return match.group(1) + "-<rev>"
        if HEX32.match(value):
            return "<uuid>"
        if COUCH_SEQ.match(value):
            return "<seq>"
    return value


def shape(value):
    """The JSON shape: object keys with their shapes, list lengths with their elements'
    shapes (sorted: order is not compared), and the type of a scalar."""
    # Tuples, not JSON text: text of text escapes every level again, exponential in depth.
    if isinstance(value, dict):
        return ("object",) + tuple((k, shape(v)) for k, v in sorted(value.items()))
    if isinstance(value, list):
        return ("list", len(value), tuple(sorted({repr(s): s for s in map(shape, value)}.values(), key=repr)))
    if isinstance(value, bool) or value is None:
        return repr(value)
    return type(value).__name__


def compare(a, b):
    """Why two answers (status, content type, body) differ; None when they agree."""
    (status_a, type_a, body_a), (status_b, type_b, body_b) = a, b
    if status_a != status_b:
        return "status %s vs %s" % (status_a, status_b)
    json_a, json_b = parse(type_a, body_a), parse(type_b, body_b)
    if (json_a is None) != (json_b is None):
        return "JSON on one side only (%s vs %s)" % (type_a.split(";")[0], type_b.split(";")[0])
    if json_a is None:
        return None
    if isinstance(json_a, dict) and isinstance(json_b, dict) and status_a >= 400:
        if json_a.get("error") != json_b.get("error"):
            return "error %r vs %r" % (json_a.get("error"), json_b.get("error"))
        return None  # reasons are prose: not compared
    shape_a, shape_b = shape(normalise(json_a)), shape(normalise(json_b))
    if shape_a != shape_b:
        return "shape: " + first_difference(shape_a, shape_b)
    return None


def first_difference(a, b, path="$"):
    if isinstance(a, tuple) and isinstance(b, tuple) and a[:1] == b[:1] == ("object",):
        members_a, members_b = dict(a[1:]), dict(b[1:])
        for k in sorted(set(members_a) | set(members_b)):
            if k not in members_a or k not in members_b:
                return "%s.%s only on %s" % (path, k, "A" if k in members_a else "B")
            if members_a[k] != members_b[k]:
                return first_difference(members_a[k], members_b[k], path + "." + k)
    if isinstance(a, tuple) and isinstance(b, tuple) and a[:1] == b[:1] == ("list",):
        if a[1] != b[1]:
            return "%s has %d vs %d elements" % (path, a[1], b[1])
        for x, y in zip(a[2], b[2]):
            if x != y:
                return first_difference(x, y, path + "[]")
        return "%s elements differ" % path
    return "%s is %s vs %s" % (path, describe_shape(a), describe_shape(b))


def describe_shape(s):
    if isinstance(s, tuple) and s[:1] == ("object",):
        return "an object"
    if isinstance(s, tuple):
        return "a list"
    return s


def parse(content_type, body):
    if "json" not in content_type:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def endpoint(path, db):
    """A request's endpoint with its database and document names generalised."""
    parts = path.replace(db, "{db}").split("/")
    return "/".join(p if p.startswith("_") or p in ("", "{db}") else "{id}" for p in parts[:4])


def run(args):
    one, two = api.Fuzzer(args.a.rstrip("/"), args.seed), api.Fuzzer(args.b.rstrip("/"), args.seed)
    rng = random.Random(args.seed)
    db = "diff-%d-%08x" % (args.seed, random.randrange(1 << 32))
    for fuzzer in (one, two):
        assert fuzzer.send("PUT", "/" + db, query={"q": "1"})[0] == 201, "cannot create " + db
    differences = OrderedDict()  # (endpoint, why) -> (count, first request)
    # Wrong-password logins would lock the user out of a CouchDB that enforces
    # `[chttpd_auth_lockout]` for minutes, for everyone else using that server too.
    seeds = [t for t in api.templates(db) if not (t[0] == "POST" and t[1] == "/_session")]
    requests = [(*r[:4], r[4] if isinstance(r[4], bytes) or r[4] is None else json.dumps(r[4]).encode())
                for r in seeds]
    requests += [api.mutate(rng, rng.choice(seeds)) for _ in range(args.count)]
    try:
        for request in requests:
            answers = []
            for label, fuzzer in zip("AB", (one, two)):
                started = time.monotonic()
                try:
                    answers.append(fuzzer.send(*request))
                except Exception as error:  # noqa: BLE001 - a dropped connection is an answer too
                    fuzzer.conn = None
                    answers.append((0, "", repr(error).encode()))
                if time.monotonic() - started > 3:
                    print("fuzz diff: %s took %.0f s: %s" % (label, time.monotonic() - started,
                                                             api.describe(request)[:200]), file=sys.stderr)
            why = compare(*answers)
            if why:
                key = (request[0] + " " + endpoint(request[1], db), why)
                count, first = differences.get(key, (0, None))
                differences[key] = (count + 1, first or (api.describe(request), answers))
    finally:
        for fuzzer in (one, two):
            try:
                fuzzer.send("DELETE", "/" + db)
            except Exception:  # noqa: BLE001
                pass
    report(differences, len(requests), args.show)
    return 1 if args.strict and differences else 0


def report(differences, total, show):
    differing = sum(count for count, _ in differences.values())
    print("fuzz diff: %d requests, %d answered differently (%d kinds)" % (total, differing, len(differences)))
    ranked = sorted(differences.items(), key=lambda item: -item[1][0])
    for (where, why), (count, (request, answers)) in ranked[:show]:
        print("\n%5d  %s: %s\n       e.g. %s" % (count, where, why, request[:240]))
        for label, (status, _, body) in zip("AB", answers):
            print("       %s: %s %s" % (label, status, body[:200]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a", help="first server's base URL, admin credentials in its userinfo")
    parser.add_argument("b", help="second server's base URL")
    parser.add_argument("--requests", dest="count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=40, help="kinds of difference to print")
    parser.add_argument("--strict", action="store_true", help="exit 1 when anything differed")
    sys.exit(run(parser.parse_args()))


if __name__ == "__main__":
    main()
