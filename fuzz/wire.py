#!/usr/bin/env python3
"""fuzz/wire.py [BASE_URL] [--cases N] [--seed S]: mutated HTTP/1.1 framing on raw sockets.

fuzz/run's `http` target covers the request parser alone; this covers the
connection around it, through a real server: pipelined requests, bodies framed by
Content-Length or chunked, `Expect: 100-continue`, bodies a handler leaves unread,
conflicting framing fields. Each case takes valid raw requests, corrupts their
bytes or framing fields, sends them in a few pieces on a new connection, then
half-closes it. The URL (admin credentials in its userinfo) defaults to $SETTEE_URL.

What must hold for every case:
- the server closes its side within 5 s of our half-close: it never waits on a
  peer that has said it will send nothing more;
- what it sent is HTTP/1.1 responses, none of them 5xx but 501 and 505, which the
  HTTP layer answers for transfer codings and versions it does not implement;
- a fresh connection still gets an answer (checked every 50 cases and at the end).
The seed makes a run repeatable; a failure prints the bytes of its case.
"""

import errno
import random
import re
import socket
import sys
import time

import live

STATUS_LINE = re.compile(rb"HTTP/1\.1 (\d{3}) ")
ANY_STATUS = re.compile(rb"(?:^|\r\n)HTTP/1\.1 (\d{3}) ")


def seeds(db, auth):
    a = f"Authorization: {auth}\r\n".encode()
    doc = b'{"a":1}'
    return [
        b"GET /_up HTTP/1.1\r\nHost: h\r\n\r\n",
        b"GET /" + db + b"/d HTTP/1.1\r\n" + a + b"\r\n",
        b"PUT /" + db + b"/d1 HTTP/1.1\r\n" + a + b"Content-Type: application/json\r\nContent-Length: 7\r\n\r\n" + doc,
        b"PUT /" + db + b"/d2 HTTP/1.1\r\n" + a + b"Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
        b"3;x=y\r\n{\"a\r\n4\r\n\":1}\r\n0\r\nTrailer-Field: v\r\n\r\n",
        b"POST /" + db + b"/_bulk_docs HTTP/1.1\r\n" + a + b"Content-Type: application/json\r\nExpect: 100-continue\r\n"
        b"Content-Length: 20\r\n\r\n{\"docs\":[{\"x\":1}]} ",
        # A body the handler does not read (GET with a body, then a 405 with one).
        b"GET /" + db + b" HTTP/1.1\r\n" + a + b"Content-Length: 5\r\n\r\nhello"
        b"PATCH /" + db + b" HTTP/1.1\r\n" + a + b"Content-Length: 3\r\n\r\nabcGET /_up HTTP/1.1\r\n\r\n",
        b"HEAD /" + db + b"/d HTTP/1.1\r\n" + a + b"\r\nGET /_up HTTP/1.1\r\nConnection: close\r\n\r\n",
        b"PUT /" + db + b"/d3/att.bin HTTP/1.1\r\n" + a + b"Content-Type: application/octet-stream\r\n"
        b"Content-Length: 10\r\n\r\n0123456789",
        b"GET /" + db + b"/_changes?feed=longpoll&timeout=10&since=now HTTP/1.0\r\n" + a
        + b"Connection: keep-alive\r\n\r\n",
    ]


FIELDS = [b"Content-Length: 0", b"Content-Length: 5", b"Content-Length: -1", b"Content-Length: 99999999999999999999",
          b"Content-Length: 3, 3", b"Transfer-Encoding: chunked", b"Transfer-Encoding: gzip, chunked",
          b"Transfer-Encoding: chunked, gzip", b"Transfer-Encoding: identity", b"Expect: 100-continue",
          b"Expect: nonsense", b"Connection: close", b"Connection: keep-alive, upgrade", b"Content-Encoding: gzip",
          b"Host: a", b"X: \x00", b" folded", b"Bad Name: x", b"Content-Type: multipart/related; boundary=b"]


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.3 and data:  # a field added after the request line of some request
            ends = [m.end() for m in re.finditer(rb"HTTP/1\.[01]\r\n", data)] or [0]
            at = rng.choice(ends)
            data[at:at] = rng.choice(FIELDS) + b"\r\n"
        elif r < 0.5 and data:
            data[rng.randrange(len(data))] = rng.choice(b"\r\n:; \t0-9aZ\x00\xff")
        elif r < 0.65 and data:
            start = rng.randrange(len(data))
            del data[start:start + rng.randint(1, 16)]
        elif r < 0.8 and data:
            start = rng.randrange(len(data))
            data[start:start] = data[start:start + rng.randint(1, 64)]  # a stretch repeated
        elif r < 0.9:
            data += rng.choice([b"\r\n", b"0\r\n\r\n", b"GET /_up HTTP/1.1\r\n\r\n", b"x" * rng.randint(1, 300)])
        elif data:
            del data[rng.randrange(len(data)):]  # truncated
    return bytes(data)


def run_case(host, port, data, rng):
    """Sends `data` in up to four pieces, half-closes, reads to EOF. Returns what came back."""
    with socket.create_connection((host, port), timeout=5) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        cuts = sorted(rng.sample(range(len(data) + 1), min(3, len(data) + 1)))
        start = 0
        try:
            for cut in cuts + [len(data)]:
                if cut > start:
                    s.sendall(data[start:cut])
                start = max(start, cut)
            s.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed early: allowed, what it sent is checked
        except OSError as error:
            # The same, seen from shutdown(): the server's close with our bytes unread made
            # its kernel reset the connection, and the socket is no longer connected (seed
            # 866519289, case 8132: a 400 for a pipelined request without Host, then close).
            if error.errno != errno.ENOTCONN:
                raise
        received = bytearray()
        deadline = time.monotonic() + 5
        while True:
            if time.monotonic() > deadline:
                raise AssertionError("the server did not close within 5 s of the half-close")
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            except socket.timeout:
                raise AssertionError("the server did not close within 5 s of the half-close")
            if not chunk:
                break
            received += chunk
    return bytes(received)


def check(received):
    if received and not STATUS_LINE.match(received):
        raise AssertionError(f"the answer does not start with a status line: {received[:200]!r}")
    for status in ANY_STATUS.findall(received):
        if status.startswith(b"5") and status not in (b"501", b"505"):
            raise AssertionError(f"answered {status.decode()}: {received[:400]!r}")


def admin_request(host, port, auth, method, path):
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(f"{method} {path} HTTP/1.1\r\nAuthorization: {auth}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data


def main():
    args = live.arguments(__doc__, "cases", 3000)
    host, port, auth = live.address(args.base)
    rng = random.Random(args.seed)
    db = f"wire-{args.seed}-{random.randrange(1 << 32):08x}"
    assert admin_request(host, port, auth, "PUT", f"/{db}").startswith(b"HTTP/1.1 201"), "could not create the db"
    statuses = {}
    try:
        cases = seeds(db.encode(), auth)
        for data in cases:  # unchanged first: each must be answered without a 5xx
            check(run_case(host, port, data, rng))
        for n in live.cases(args):
            data = mutate(rng, rng.choice(cases))
            try:
                received = run_case(host, port, data, rng)
                check(received)
            except (AssertionError, OSError) as failure:
                state = "alive" if live.alive(host, port) else "DOWN"
                raise AssertionError(f"case {n} (server {state}): {failure}\n  sent {data!r}")
            for status in ANY_STATUS.findall(received):
                statuses[status.decode()] = statuses.get(status.decode(), 0) + 1
            if n % 50 == 49 and not live.alive(host, port):
                raise AssertionError(f"no answer on a fresh connection after case {n}: {data!r}")
        if not live.alive(host, port):
            raise AssertionError("no answer on a fresh connection at the end")
    finally:
        try:
            admin_request(host, port, auth, "DELETE", f"/{db}")
        except OSError:
            pass
    print(f"fuzz wire: {args.count} mutated connections (seed {args.seed}), statuses "
          + ", ".join(f"{s}: {n}" for s, n in sorted(statuses.items())))


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"fuzz wire: FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
