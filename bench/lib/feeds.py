"""Many idle continuous `_changes` feeds on raw non-blocking sockets, one epoll, for
bench/feeds10k: open N feeds, then time single writes until every feed has its change.

A feed counts the change lines it has received (each holds one `"id":"`); the
heartbeat's bare newlines carry none. Writes go out on a raw keep-alive socket of
their own in the same epoll, so nothing here blocks while feeds are being read."""
import select
import socket
import time
import common

NEEDLE = b'"id":"'


def complete_answer(data):
    """Whether `data` holds a whole HTTP answer with a Content-Length body."""
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        return False
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    return len(body) >= length


class Feeds:
    """N continuous feeds of database `db`, opened `batch` at a time."""

    def __init__(self, db, n, heartbeat_ms=10000, batch=500, deadline_s=180):
        self.db = db
        self.epoll = select.epoll(n + 16)
        self.socks = {}       # fd -> socket
        self.count = {}       # fd -> change lines seen
        self.tail = {}        # fd -> last bytes (a needle split over two reads)
        request = common.raw_get(f"/{db}/_changes?feed=continuous&since=now&heartbeat={heartbeat_ms}")
        t0 = time.monotonic()
        for start in range(0, n, batch):
            opened = [self._open(request) for _ in range(min(batch, n - start))]
            self._await_heads(opened, t0 + deadline_s)
        self.open_seconds = time.monotonic() - t0

    def _open(self, request):
        s = common.raw_socket()
        s.sendall(request)
        s.setblocking(False)
        self.socks[s.fileno()] = s
        self.count[s.fileno()] = 0
        self.tail[s.fileno()] = b""
        self.epoll.register(s.fileno(), select.EPOLLIN)
        return s.fileno()

    def _await_heads(self, fds, deadline):
        heads = {fd: b"" for fd in fds}
        while heads:
            if time.monotonic() > deadline:
                raise SystemExit(f"{len(heads)} feeds got no answer in time ({len(self.socks)} opened)")
            for fd, _ in self.epoll.poll(1.0):
                data = self.socks[fd].recv(65536)
                if not data:
                    raise SystemExit(f"server closed a feed while opening ({len(self.socks)} opened)")
                if fd not in heads:
                    self._seen(fd, data)
                    continue
                heads[fd] += data
                head, sep, rest = heads[fd].partition(b"\r\n\r\n")
                if sep:
                    if b" 200 " not in head.split(b"\r\n")[0]:
                        raise SystemExit(f"feed refused: {heads[fd][:300]!r}")
                    del heads[fd]
                    self._seen(fd, rest)

    def _seen(self, fd, data):
        window = self.tail[fd] + data
        self.count[fd] += window.count(NEEDLE)
        self.tail[fd] = window[-(len(NEEDLE) - 1):]

    def drain(self, seconds):
        """Reads what arrives (heartbeats) for `seconds`."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for fd, _ in self.epoll.poll(max(0.0, end - time.monotonic())):
                self._seen(fd, self.socks[fd].recv(65536))

    def fan_out(self, writer, doc_id, deadline_s=30):
        """PUTs `doc_id` on `writer` (a raw keep-alive socket) and returns (ms until every
        feed has the change, ms until the PUT's answer)."""
        want = {fd: c + 1 for fd, c in self.count.items()}
        missing = len(want)
        body = b'{"n":1}'
        put = (f"PUT /{self.db}/{doc_id} HTTP/1.1\r\nHost: {common.HOST}:{common.PORT}\r\n"
               f"Authorization: {common.AUTH}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body
        answer, put_ms = b"", None
        wfd = writer.fileno()
        self.epoll.register(wfd, select.EPOLLIN)
        t0 = time.perf_counter()
        writer.sendall(put)
        try:
            while missing or put_ms is None:
                if time.perf_counter() - t0 > deadline_s:
                    raise SystemExit(f"{missing} of {len(want)} feeds lacked {doc_id} after {deadline_s} s")
                for fd, _ in self.epoll.poll(1.0, 4096):
                    if fd == wfd:
                        answer += writer.recv(65536)
                        if put_ms is None and complete_answer(answer):
                            if b" 201 " not in answer.split(b"\r\n")[0]:
                                raise SystemExit(f"PUT {doc_id}: {answer[:200]!r}")
                            put_ms = (time.perf_counter() - t0) * 1000
                        continue
                    data = self.socks[fd].recv(65536)
                    if not data:
                        raise SystemExit("server closed a feed")
                    before = self.count[fd]
                    self._seen(fd, data)
                    if before < want[fd] <= self.count[fd]:
                        missing -= 1
            return (time.perf_counter() - t0) * 1000, put_ms
        finally:
            self.epoll.unregister(wfd)

    def close(self):
        for s in self.socks.values():
            s.close()
        self.epoll.close()
