"""bench/crashloop's writers: each writes to a random peer at a time and records
every write a peer acknowledged (2xx) as (id, rev). A write that gets no answer
(the peer was killed) or an error is not recorded: it may or may not exist."""
import base64
import os
import threading
import time

from crashpeers import DB

SHARED = 30


class Writer(threading.Thread):
    def __init__(self, peers, rng, number, stop, pause=0.02):
        super().__init__(daemon=True)
        self.peers, self.rng, self.number, self.stop = peers, rng, number, stop
        self.clients = [p.client(timeout=30) for p in peers]
        self.pause = pause
        self.acked, self.refused, self.count = [], 0, 0

    def run(self):
        while not self.stop.is_set():
            client = self.rng.choice(self.clients)
            self.count += 1
            kind = self.rng.random()
            if kind < 0.45:
                done = self.new_doc(client, attachment=False)
            elif kind < 0.60:
                done = self.new_doc(client, attachment=True)
            elif kind < 0.85:
                done = self.edit_shared(client)
            elif kind < 0.95:
                done = self.attach_shared(client)
            else:
                done = self.delete_shared(client)
            if not done:
                self.refused += 1
            time.sleep(self.pause)  # pacing the load on two shared cores, not a synchronisation

    def record(self, docid, status, body):
        if status in (200, 201, 202) and body and body.get("rev"):
            self.acked.append((docid, body["rev"]))
            return True
        return False

    def new_doc(self, client, attachment):
        docid = f"w{self.number}-{self.count:06d}"
        doc = {"writer": self.number, "n": self.count, "text": "x" * self.rng.randrange(10, 400)}
        if attachment:
            data = os.urandom(self.rng.randrange(100, 48_000))
            doc["_attachments"] = {"blob.bin": {"content_type": "application/octet-stream",
                                                "data": base64.b64encode(data).decode()}}
        return self.record(docid, *client.request("PUT", f"/{DB}/{docid}", doc))

    def shared(self, client):
        docid = f"s{self.rng.randrange(SHARED):02d}"
        status, body = client.request("GET", f"/{DB}/{docid}")
        return docid, (body if status == 200 else None), status

    def edit_shared(self, client):
        docid, current, status = self.shared(client)
        if status not in (200, 404):
            return False
        doc = {"writer": self.number, "n": self.count, "edits": (current or {}).get("edits", 0) + 1}
        if current:
            doc["_rev"] = current["_rev"]
            if "_attachments" in current:
                doc["_attachments"] = current["_attachments"]  # stubs: the edit keeps them
        return self.record(docid, *client.request("PUT", f"/{DB}/{docid}", doc))

    def attach_shared(self, client):
        docid, current, _ = self.shared(client)
        if not current:
            return False
        data = os.urandom(self.rng.randrange(100, 16_000))
        name = f"a{self.rng.randrange(4)}.bin"
        return self.record(docid, *client.request("PUT", f"/{DB}/{docid}/{name}?rev={current['_rev']}", data,
                                                  headers={"Content-Type": "application/octet-stream"}))

    def delete_shared(self, client):
        docid, current, _ = self.shared(client)
        if not current:
            return False
        return self.record(docid, *client.request("DELETE", f"/{DB}/{docid}?rev={current['_rev']}"))
