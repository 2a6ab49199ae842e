"""What happens after a churn's links come back (ROOM_TIMELINE=1 in bench/room): every device's
`/_peers` and `doc_count` polled every 0.25 s from the moment the links are up, so that the
seconds of `churn` can be put down to a cause: when each device saw each returning device
again (its row leaves `away`/`gone`), when their replications ran without error (`syncing`),
when each replication was caught up, and when each device held every document."""
import http.client
import json
import os
import statistics
import threading
import time

from roomlib import AUTH, enter_netns


class Timeline:
    def __init__(self, room, away, uuids, total):
        self.room, self.away, self.total = room, away, total
        self.uuid_of = uuids  # device index -> server uuid, every device
        self.index_of = {u: i for i, u in uuids.items()}
        self.events = {}  # (kind, observer, peer) -> seconds after the links came up
        self.stop = threading.Event()
        self.t0 = None
        self.peers_took = {}  # device index -> slowest /_peers answer, s

    def start(self):
        self.t0 = time.monotonic()
        away = {d.index for d in self.away}
        self.threads = [threading.Thread(target=self._poll, args=(d, away), daemon=True) for d in self.room.devices]
        for t in self.threads:
            t.start()

    def finish(self, grace):
        """Goes on `grace` seconds past convergence (pairs may still be restarting), then stops."""
        self.stop.wait(grace)
        self.stop.set()
        for t in self.threads:
            t.join()

    def note(self, kind, observer, peer=None):
        self.events.setdefault((kind, observer, peer), time.monotonic() - self.t0)

    def _poll(self, d, away):
        """A thread of its own inside the device's namespace, with its own connection: the
        bench's requests through the device's worker do not hold it up."""
        enter_netns(d.netns)
        conn, asked = None, time.monotonic()
        while not self.stop.is_set():
            try:
                conn = conn or http.client.HTTPConnection("127.0.0.1", 5984, timeout=10)
                asked = time.monotonic()
                peers = get(conn, "/_peers?reachable=false")
                self._slowest(d.index, time.monotonic() - asked)
                self._look(d, away, peers, get(conn, "/room"))
            except (OSError, http.client.HTTPException, ValueError):
                self._slowest(d.index, time.monotonic() - asked)
                conn = None
            self.stop.wait(0.2)

    def _slowest(self, index, seconds):
        """The slowest `/_peers` answer (or failure) of each device: a slow one delays what it tells."""
        self.peers_took[index] = max(self.peers_took.get(index, 0.0), seconds)

    def _look(self, d, away, body, db):
        if (db or {}).get("doc_count") == self.total:
            self.note("converged", d.index)
        for peer in (body or {}).get("peers", []):
            other = self.index_of.get(peer.get("uuid"))
            if other is None or (d.index not in away and other not in away):
                continue  # only pairs with a returning device on one side
            state = peer.get("state")
            if state not in ("away", "gone", None):
                self.note("seen", d.index, other)
            if state == "syncing":
                self.note("syncing", d.index, other)
            reps = peer.get("replications", [])
            for r in reps:
                if r.get("state") == "running" and r.get("caught_up") and (r.get("docs_written") or 0) > 0:
                    self.note(f"caught_up_{r.get('direction')}", d.index, other)

    def report(self, say):
        away = [d.index for d in self.away]
        staying = [d.index for d in self.room.devices if d.index not in away]
        rows = []
        kinds = [("seen", "seen again"), ("syncing", "replicating without error"), ("caught_up_pull", "pull caught up")]
        if os.environ.get("ROOM_TOPOLOGY") != "pull":  # pull: the way out is the other side's pull
            kinds.append(("caught_up_push", "push caught up"))
        for kind, label in kinds:
            back = [self.events.get((kind, s, a)) for s in staying for a in away]
            out = [self.events.get((kind, a, s)) for a in away for s in staying]
            rows.append(f"{label}: staying→returning {spread(back)}; returning→staying {spread(out)}")
        conv_s = [self.events.get(("converged", s, None)) for s in staying]
        conv_a = [self.events.get(("converged", a, None)) for a in away]
        rows.append(f"all documents held: staying {spread(conv_s)}; returning {spread(conv_a)}")
        for row in rows:
            say("  churn t", row + " (median / max s after the links came up; 'n missing' never within the wait)")
        took = sorted(self.peers_took.values())
        if took:
            say("  churn t", f"/_peers answered in at most {statistics.median(took):.2f} s (median device) / "
                f"{took[-1]:.2f} s (slowest, d{max(self.peers_took, key=self.peers_took.get)}) while polled")
        first = away[0]
        line = " ".join(f"d{s}:{fmt(self.events.get(('seen', s, first)))}/{fmt(self.events.get(('syncing', s, first)))}"
                        f"/{fmt(self.events.get(('seen', first, s)))}/{fmt(self.events.get(('syncing', first, s)))}"
                        for s in staying)
        say("  churn t", f"d{first} (returning), per staying device: it saw d{first} again / synced with it / "
            f"d{first} saw it / synced with it: {line}; d{first} held all at "
            f"{fmt(self.events.get(('converged', first, None)))}")


def get(conn, path):
    conn.request("GET", path, headers={"Authorization": AUTH})
    return json.loads(conn.getresponse().read())


def fmt(value):
    return "-" if value is None else f"{value:.1f}"


def spread(values):
    known = sorted(v for v in values if v is not None)
    missing = len(values) - len(known)
    if not known:
        return "never"
    text = f"{statistics.median(known):.2f} / {known[-1]:.2f}"
    return text + (f" ({missing} missing)" if missing else "")
