internal import SetteeJSON

/*
 A page of `_changes?style=all_docs` read in one pass, without the value tree of its
 1,000 rows (bench/RESULTS.md, "Replication of 100,000 documents, third round": the
 pages parsed whole were a tenth of the replicator's CPU). The usual shape is all it reads:

     {"results":[{"seq":..,"id":"..","changes":[{"rev":".."}],..},..],"last_seq":..,"pending":..}

 The text is checked as `JSONReader` checks it (`StrictJSONCursor`) and read as the whole
 parse read it; `seq` and `last_seq` are any JSON value
 (parsed from their text: opaque, sent back as they came); a `changes` element with no
 string `rev` is dropped. Anything else — a member it reads given twice (the whole parse
 keeps the last, as CouchDB does), a key spelled with an escape, a row that is no
 object or lacks a string `id`, a `seq` or a `changes` array, no `results` array or
 `last_seq`, text the reader refuses — makes `scan` answer nil, and the caller parses the
 page whole, which reports what is wrong as before.
 */
enum ChangesAnswer {
    /// The page's rows and `last_seq`; nil for a page to parse whole instead.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> ChangesPage? {
        var cursor = StrictJSONCursor(bytes)
        var rows: [ChangeRow]?, lastSeq: JSONValue?
        let isRead = cursor.forEachMember(depth: 1) { key, keyHasEscape, cursor in
            guard !keyHasEscape else { return false }
            if matches(key, "results", in: cursor.bytes) {
                guard rows == nil else { return false }  // repeated: parsed whole (last wins)
                rows = scanRows(&cursor)
                return rows != nil
            }
            if matches(key, "last_seq", in: cursor.bytes) {
                guard lastSeq == nil else { return false }  // repeated: parsed whole (last wins)
                lastSeq = value(&cursor, depth: 1)
                return lastSeq != nil
            }
            return cursor.skipValue(depth: 1)
        }
        cursor.skipWhitespace()
        guard isRead, cursor.isAtEnd, let rows, let lastSeq else { return nil }
        return ChangesPage(rows: rows, lastSeq: lastSeq)
    }

    private static func scanRows(_ cursor: inout StrictJSONCursor) -> [ChangeRow]? {
        var rows: [ChangeRow] = []
        let isRead = cursor.forEachElement(depth: 2) { cursor in
            guard let row = scanRow(&cursor) else { return false }
            rows.append(row)
            return true
        }
        return isRead ? rows : nil
    }

    /// One row: its `seq`, `id` and the `rev` of each of its `changes`.
    private static func scanRow(_ cursor: inout StrictJSONCursor) -> ChangeRow? {
        var seq: JSONValue?, id: String?, revisions: [String]?
        let isRead = cursor.forEachMember(depth: 3) { key, keyHasEscape, cursor in
            guard !keyHasEscape else { return false }
            let bytes = cursor.bytes
            if matches(key, "seq", in: bytes) {
                guard seq == nil else { return false }  // repeated: parsed whole (last wins)
                seq = value(&cursor, depth: 3)
                return seq != nil
            }
            if matches(key, "id", in: bytes) {
                guard id == nil else { return false }  // repeated: parsed whole (last wins)
                id = value(&cursor, depth: 3)?.stringValue
                return id != nil
            }
            if matches(key, "changes", in: bytes) {
                guard revisions == nil else { return false }  // repeated: parsed whole (last wins)
                revisions = scanRevs(&cursor)
                return revisions != nil
            }
            return cursor.skipValue(depth: 3)
        }
        guard isRead, let seq, let id, let revisions else { return nil }
        return ChangeRow(seq: seq, id: id, revisions: revisions)
    }

    /// The `changes` array: the string `rev` of each element that has one.
    private static func scanRevs(_ cursor: inout StrictJSONCursor) -> [String]? {
        var revs: [String] = []
        let isRead = cursor.forEachElement(depth: 4) { cursor in
            cursor.skipWhitespace()
            guard cursor.current == UInt8(ascii: "{") else { return cursor.skipValue(depth: 4) }
            var rev: JSONValue?
            let isRead = cursor.forEachMember(depth: 5) { key, keyHasEscape, cursor in
                guard !keyHasEscape else { return false }
                guard matches(key, "rev", in: cursor.bytes) else { return cursor.skipValue(depth: 5) }
                guard rev == nil else { return false }  // repeated: parsed whole (last wins)
                rev = value(&cursor, depth: 5)
                return rev != nil
            }
            if let rev = rev?.stringValue { revs.append(rev) }
            return isRead
        }
        return isRead ? revs : nil
    }

    /// The value at the cursor (moved past), parsed from its text: a string without
    /// escapes is taken as it is, anything else by `JSONReader`.
    private static func value(_ cursor: inout StrictJSONCursor, depth: Int) -> JSONValue? {
        cursor.skipWhitespace()
        let start = cursor.index
        if cursor.current == UInt8(ascii: "\"") {
            guard let hasEscape = cursor.skipString() else { return nil }
            if !hasEscape {
                return .string(String(decoding: UnsafeBufferPointer(rebasing: cursor.bytes[(start + 1)..<(cursor.index - 1)]),
                                      as: UTF8.self))
            }
        } else {
            guard cursor.skipValue(depth: depth) else { return nil }
        }
        return try? JSONReader.parse(UnsafeBufferPointer(rebasing: cursor.bytes[start..<cursor.index]))
    }

    /// Whether the key text `key` (between its quotes, no escapes) is `name`.
    private static func matches(_ key: Range<Int>, _ name: StaticString, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        for (offset, i) in key.enumerated() where bytes[i] != name.utf8Start[offset] { return false }
        return true
    }
}
