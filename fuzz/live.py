"""What the live fuzzers share: their command line, the server's address, and whether it answers."""

import argparse
import base64
import os
import socket
import time
import urllib.parse


def arguments(doc, count_flag, count_default):
    """Parses `[BASE_URL] --COUNT N --seed S [--seconds T]`; the URL defaults to $SETTEE_URL."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("base", nargs="?", default=os.environ.get("SETTEE_URL"))
    parser.add_argument(f"--{count_flag}", dest="count", type=int, default=count_default)
    parser.add_argument("--seed", type=int, default=1)
    # fuzz/long bounds a run by time: it stops after T seconds or N cases, whichever comes first.
    parser.add_argument("--seconds", type=float, default=None)
    args = parser.parse_args()
    if not args.base:
        parser.error("give BASE_URL or set SETTEE_URL")
    return args


def cases(args):
    """The case numbers 0, 1, ... up to `args.count`, ending early once `args.seconds` have
    passed; `args.count` is then set to the number run, for the summary line."""
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    n = 0
    while n < args.count and (deadline is None or time.monotonic() < deadline):
        yield n
        n += 1
    args.count = n


def address(base):
    """(host, port, Basic Authorization value) of a URL with credentials in its userinfo."""
    url = urllib.parse.urlsplit(base)
    creds = f"{urllib.parse.unquote(url.username or '')}:{urllib.parse.unquote(url.password or '')}"
    return url.hostname, url.port or 80, "Basic " + base64.b64encode(creds.encode()).decode()


def alive(host, port):
    """Whether a fresh plain connection gets `GET /_up` answered 200 within 5 s."""
    try:
        with socket.create_connection((host, port), timeout=5) as s:
            s.sendall(b"GET /_up HTTP/1.1\r\nConnection: close\r\n\r\n")
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False
