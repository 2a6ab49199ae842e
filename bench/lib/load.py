#!/usr/bin/env python3
"""Create DB and load N small docs (ids doc000000..) with _bulk_docs batches of 1,000.
Usage: load.py DB N  -- prints the load rate on stderr."""
import sys
import common

db, n = sys.argv[1], int(sys.argv[2])
c = common.connect()
common.create_db(c, db)
secs = common.load_docs(c, db, n)
print(f"loaded {n} docs into {db} in {secs:.2f} s ({n / secs:,.0f} docs/s)", file=sys.stderr)
