#!/usr/bin/env python3
"""Run CouchDB client libraries against a server by hand: aiocouch 4.0.1 and
python-cloudant 2.15.0, the uses issue 40 item 8 found differing from CouchDB 3.4.3.

    python3 -m venv /tmp/clients-venv
    /tmp/clients-venv/bin/pip install -r conformance/clients/requirements.txt
    /tmp/clients-venv/bin/python conformance/clients/run_clients.py http://admin:pw@127.0.0.1:5984

Run it against Settee and against CouchDB 3.4.3: every check should pass on both.
It creates and deletes one database, `clients_check_<random>`. Not part of `make test`
(it needs the two libraries); the behaviours it checks are conformance cases in
conformance/test_client_libraries.py."""

import asyncio
import sys
import time
import uuid
from urllib.parse import urlsplit

from aiocouch import CouchDB as AioCouchDB
from cloudant.client import CouchDB as CloudantCouchDB
from cloudant.error import CloudantClientException
from cloudant.feed import Feed

FAILURES = []


def check(name, ok, detail=""):
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else "  " + detail))
    if not ok:
        FAILURES.append(name)


async def first_events(generator, count, seconds):
    """Up to `count` events, or what came within `seconds` (a feed may stay open)."""
    events = []

    async def collect():
        async for event in generator:
            events.append(event)
            if len(events) >= count:
                break

    try:
        await asyncio.wait_for(collect(), seconds)
    except asyncio.TimeoutError:
        pass
    return events


async def aiocouch_checks(base, user, password, name):
    async with AioCouchDB(base, user=user, password=password) as couch:
        db = await couch.create(name, q=1)  # one shard: the feed is in write order
        for i in range(4):
            doc = await db.create("d%d" % i)
            await doc.save()
        events = await first_events(db.changes(), 10, 5)
        check("aiocouch: changes() gives all four", [e.id for e in events] == ["d0", "d1", "d2", "d3"],
              repr([e.id for e in events]))
        third = events[2].json["seq"]
        after = await first_events(db.changes(last_event_id=third), 10, 5)
        check("aiocouch: changes(last_event_id=third) gives the one after it",
              [e.id for e in after] == ["d3"], repr([e.id for e in after]))
        live = await first_events(db.changes(feed="continuous", last_event_id=third), 1, 5)
        check("aiocouch: continuous changes(last_event_id=third) starts after it",
              [e.id for e in live] == ["d3"], repr([e.id for e in live]))
        await db.delete()


def cloudant_checks(base, user, password, name):
    client = CloudantCouchDB(user, password, url=base, connect=True)
    try:
        client.create_database(name)
        for partitioned in (None, False):
            kwargs = {} if partitioned is None else {"partitioned": partitioned}
            try:
                client.create_database(name, throw_on_exists=True, **kwargs)
                check("cloudant: create_database(existing, %r) refused" % kwargs, False, "no error")
            except CloudantClientException as error:
                check("cloudant: create_database(existing, %r) refused" % kwargs,
                      "already exists" in str(error), str(error))
        # longpoll only: a continuous Feed over _db_updates with a timeout does not end on
        # CouchDB 3.4.3 either (its rows all come, then the iteration waits on).
        start = time.monotonic()
        rows = [row for row in Feed(client, feed="longpoll", timeout=1000) if row]
        took = time.monotonic() - start
        check("cloudant: Feed(_db_updates, longpoll) finishes in seconds", took < 10,
              "%.1f s, %d rows" % (took, len(rows)))
    finally:
        client.delete_database(name)
        client.disconnect()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    parts = urlsplit(sys.argv[1])
    base = "%s://%s:%d" % (parts.scheme, parts.hostname, parts.port or 5984)
    name = "clients_check_" + uuid.uuid4().hex[:12]
    asyncio.run(aiocouch_checks(base, parts.username, parts.password, name))
    cloudant_checks(base, parts.username, parts.password, name)
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
