#!/usr/bin/env python3
"""fuzz/tls_records.py [BASE_URL] [--cases N] [--seed S]: TLS 1.3 records from a second
implementation (tlslite-ng) at the server's own record layer (TLS13Records).

After an ordinary handshake, each case sends records that tlslite-ng seals but arranges
as RFC 8446 §5 allows or forbids: an HTTP request cut into records of random sizes with
empty application-data records between them, KeyUpdates (either kind) fragmented over
several records, replayed, reordered, truncated and altered records, and the empty or
misplaced records §5.1 forbids. $SETTEE_TLS_PORT names the server's HTTPS port; the URL
(admin credentials in its userinfo) defaults to $SETTEE_URL and is used to check, every
25 cases and at the end, that a fresh plain connection is still answered.

What must hold:
- what §5.1 allows is served: the request is answered 200, whatever the record sizes,
  and after any KeyUpdate (the server's own KeyUpdate, when asked for, is followed);
- what it forbids ends the connection with the alert OpenSSL sends: unexpected_message
  for an empty alert or handshake record, a key change not ending its record, or another
  record type between a handshake message's fragments; bad_record_mac for a replayed,
  reordered or altered record; a truncated record is waited for, then dropped at close;
- the server stays up.
The seed makes a run repeatable; a failure prints its case.
"""

import os
import random
import socket
import sys

import live
from tlslite.api import HandshakeSettings, TLSConnection
from tlslite.constants import AlertDescription, ContentType, KeyUpdateMessageType
from tlslite.errors import TLSAbruptCloseError, TLSRemoteAlert
from tlslite.messages import KeyUpdate, Message

REQUEST = b"GET /_up HTTP/1.1\r\nHost: fuzz\r\n\r\n"


class RecordingSocket:
    """A socket whose sends can be held back (`hold`) instead of sent, so that the
    ciphertext of sealed records can be replayed, reordered or cut."""

    def __init__(self, sock):
        self.sock = sock
        self.holding = False
        self.held = []

    def send(self, data):
        if self.holding:
            self.held.append(bytes(data))
            return len(data)
        return self.sock.send(data)

    def sendall(self, data):
        if self.holding:
            self.held.append(bytes(data))
            return None
        return self.sock.sendall(data)

    def __getattr__(self, name):
        return getattr(self.sock, name)


def connect(port):
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock = RecordingSocket(raw)
    conn = TLSConnection(sock)
    settings = HandshakeSettings()
    settings.minVersion = (3, 4)
    settings.maxVersion = (3, 4)
    conn.handshakeClientCert(settings=settings)
    return conn, sock


def send_record(conn, content_type, data):
    for _ in conn._recordLayer.sendRecord(Message(content_type, bytearray(data))):
        pass


def sealed(conn, sock, content_type, data):
    """The ciphertext of one record, sealed (the sequence number moves on) but not sent."""
    sock.holding = True
    try:
        send_record(conn, content_type, data)
    finally:
        sock.holding = False
    out = b"".join(sock.held)
    sock.held.clear()
    return out


def follow_own_key_update(conn):
    """The client's side of its own KeyUpdate, sent in pieces by hand."""
    session = conn.session
    session.cl_app_secret, session.sr_app_secret = conn._recordLayer.calcTLS1_3KeyUpdate_reciever(
        session.cipherSuite, session.cl_app_secret, session.sr_app_secret)


def read_answer(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.read(max=4096)
        if not chunk:
            break
        data += bytes(chunk)
    return data


def expect_served(conn, what):
    answer = read_answer(conn)
    assert answer.startswith(b"HTTP/1.1 200"), f"{what}: answered {answer[:40]!r}"


def expect_alert(conn, alert, what):
    try:
        answer = read_answer(conn)
    except TLSRemoteAlert as remote:
        assert remote.description == alert, \
            f"{what}: alert {AlertDescription.toStr(remote.description)}, not {AlertDescription.toStr(alert)}"
        return
    except (TLSAbruptCloseError, OSError) as closed:
        raise AssertionError(f"{what}: closed without the alert {AlertDescription.toStr(alert)} ({closed!r})")
    raise AssertionError(f"{what}: answered {answer[:40]!r} instead of alert {AlertDescription.toStr(alert)}")


def split(rng, data, pieces):
    cuts = sorted(rng.sample(range(1, len(data)), min(pieces - 1, len(data) - 1)))
    return [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]


def case_request_in_pieces(rng, port):
    conn, _ = connect(port)
    for piece in split(rng, REQUEST, rng.randint(1, 8)):
        if rng.random() < 0.3:
            send_record(conn, ContentType.application_data, b"")  # allowed, means nothing
        send_record(conn, ContentType.application_data, piece)
    expect_served(conn, "request in pieces")
    conn.sock.close()


def case_fragmented_key_update(rng, port):
    conn, _ = connect(port)
    kind = rng.choice([KeyUpdateMessageType.update_not_requested, KeyUpdateMessageType.update_requested])
    message = KeyUpdate().create(kind).write()
    for piece in split(rng, message, rng.randint(2, 5)):
        send_record(conn, ContentType.handshake, piece)
    follow_own_key_update(conn)
    conn.write(REQUEST)  # tlslite-ng follows the server's KeyUpdate while it reads
    expect_served(conn, f"KeyUpdate ({kind}) fragmented")
    conn.sock.close()


def case_forbidden(rng, port):
    conn, _ = connect(port)
    choice = rng.randrange(4)
    message = KeyUpdate().create(KeyUpdateMessageType.update_not_requested).write()
    if choice == 0:
        send_record(conn, ContentType.alert, b"")
        what = "empty alert record"
    elif choice == 1:
        send_record(conn, ContentType.handshake, b"")
        what = "empty handshake record"
    elif choice == 2:
        send_record(conn, ContentType.handshake, message + message[:1])
        what = "KeyUpdate not ending its record"
    else:
        send_record(conn, ContentType.handshake, message[:2])
        send_record(conn, ContentType.application_data, REQUEST)
        what = "application data between KeyUpdate fragments"
    expect_alert(conn, AlertDescription.unexpected_message, what)
    conn.sock.close()


def case_damaged(rng, port):
    conn, sock = connect(port)
    choice = rng.randrange(4)
    first = sealed(conn, sock, ContentType.application_data, REQUEST[:10])
    second = sealed(conn, sock, ContentType.application_data, REQUEST[10:])
    if choice == 0:
        wire, what = first + first, "replayed record"
    elif choice == 1:
        wire, what = second + first, "reordered records"
    elif choice == 2:
        index = rng.randrange(5, len(first))  # past the header: the content or the tag
        wire = first[:index] + bytes([first[index] ^ (1 << rng.randrange(8))]) + first[index + 1:] + second
        what = "altered record"
    else:
        sock.sock.sendall(first + second[: rng.randrange(1, len(second))])
        sock.sock.shutdown(socket.SHUT_WR)  # a truncated record: waited for, then dropped
        sock.sock.settimeout(5)
        try:
            while sock.sock.recv(4096):
                pass
        except socket.timeout:
            raise AssertionError("truncated record: the server did not close within 5 s of our half-close")
        sock.sock.close()
        return
    sock.sock.sendall(wire)
    expect_alert(conn, AlertDescription.bad_record_mac, what)
    sock.sock.close()


CASES = [case_request_in_pieces, case_fragmented_key_update, case_forbidden, case_damaged]


def main():
    args = live.arguments(__doc__, "cases", 400)
    host, port, _ = live.address(args.base)
    tls_port = int(os.environ["SETTEE_TLS_PORT"])
    rng = random.Random(args.seed)
    counts = {case.__name__: 0 for case in CASES}
    for n in live.cases(args):
        case = CASES[n % len(CASES)] if n < len(CASES) else rng.choice(CASES)
        state = rng.getstate()
        try:
            case(rng, tls_port)
        except (AssertionError, OSError, TLSAbruptCloseError, TLSRemoteAlert) as failure:
            up = "alive" if live.alive(host, port) else "DOWN"
            raise AssertionError(f"case {n} {case.__name__} (server {up}, rng state hash {hash(state)}): {failure!r}")
        counts[case.__name__] += 1
        if n % 25 == 24 and not live.alive(host, port):
            raise AssertionError(f"no answer on a fresh connection after case {n}")
    if not live.alive(host, port):
        raise AssertionError("no answer on a fresh connection at the end")
    print(f"fuzz tls records: {args.count} connections (seed {args.seed}): "
          + ", ".join(f"{name.removeprefix('case_')} {count}" for name, count in counts.items()))


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"fuzz tls records: FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
