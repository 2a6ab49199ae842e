"""What the live fuzzers share: their command line, the server's address, and whether it answers."""

import argparse
import base64
import os
import socket
import urllib.parse


def arguments(doc, count_flag, count_default):
    """Parses `[BASE_URL] --COUNT N --seed S`; the URL defaults to $SETTEE_URL."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("base", nargs="?", default=os.environ.get("SETTEE_URL"))
    parser.add_argument(f"--{count_flag}", dest="count", type=int, default=count_default)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not args.base:
        parser.error("give BASE_URL or set SETTEE_URL")
    return args


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
