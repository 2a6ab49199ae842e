internal import SetteeJSON

/*
 A `_bulk_get?revs=true&latest=true` answer read in one pass, without building its
 values (bench/RESULTS.md, "Replication of 100,000 documents, second round": parsing
 these answers whole and writing the `_bulk_docs` bodies again were about half of the
 replicator's CPU). Only the members the replicator reads are looked at — each result's
 `docs`, each entry's `ok`, and in each document `_id`, `_rev` and whether `_attachments`
 is there — and each document is kept as its byte range in the answer, which the
 `_bulk_docs` body copies (`TransferRevision.write(to:)`).

 The text is checked as `JSONReader` checks it (`StrictJSONCursor`), so nothing the
 reader would refuse is ever sent on. The usual shape is all it reads:

     {"results":[{"id":..,"docs":[{"ok":{..}},{"error":{..}}]},..]}

 Anything else — text `JSONReader` refuses, a key with an escape where a key is looked
 at, a result that is not an object with a `docs` array, no `results` array — makes
 `scan` answer nil, and the caller parses the answer whole as before, so its errors and
 its reading of odd answers stay exactly the same. A member it reads given twice
 makes it parse the answer whole (which keeps the last, as CouchDB does).
 */

/// One document of a `_bulk_get` answer found by `BulkGetAnswer.scan`.
struct BulkGetDocument: Equatable {
    /// The `ok` object's text: `answer[text]`.
    var text: Range<Int>
    /// `_id` as `TransferRevision.id` reads it ("" when it is missing or no string).
    var id: String
    /// `_rev`, when it is a string.
    var rev: String?
    /// Whether it has an `_attachments` member (of any value): such a document is parsed
    /// and goes the attachments' way.
    var hasAttachments: Bool
}

enum BulkGetAnswer {
    /// One entry of a result's `docs`: a document, or anything without an `ok` object
    /// (an error entry: the revision the source listed but cannot serve now).
    enum Entry: Equatable {
        case ok(BulkGetDocument)
        case missing
    }

    /// Each result's entries, in order; nil for an answer to parse whole instead.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> [[Entry]]? {
        var cursor = StrictJSONCursor(bytes)
        var results: [[Entry]]?
        let isRead = cursor.forEachMember(depth: 1) { key, keyHasEscape, cursor in
            guard !keyHasEscape else { return false }
            guard Self.matches(key, "results", in: bytes) else { return cursor.skipValue(depth: 1) }
            guard results == nil else { return false }  // repeated: parsed whole (last wins)
            results = scanResults(&cursor)
            return results != nil
        }
        cursor.skipWhitespace()
        guard isRead, cursor.isAtEnd else { return nil }
        return results
    }

    /// The `results` array: one object with a `docs` array per revision asked for.
    private static func scanResults(_ cursor: inout StrictJSONCursor) -> [[Entry]]? {
        var results: [[Entry]] = []
        let isRead = cursor.forEachElement(depth: 2) { cursor in
            cursor.skipWhitespace()
            var docs: [Entry]?
            let isObject = cursor.current == UInt8(ascii: "{")
            let isRead = isObject && cursor.forEachMember(depth: 3) { key, keyHasEscape, cursor in
                guard !keyHasEscape else { return false }
                guard Self.matches(key, "docs", in: cursor.bytes) else { return cursor.skipValue(depth: 3) }
                guard docs == nil else { return false }  // repeated: parsed whole (last wins)
                docs = scanEntries(&cursor)
                return docs != nil
            }
            guard isRead, let docs else { return false }
            results.append(docs)
            return true
        }
        return isRead ? results : nil
    }

    /// A result's `docs` array.
    private static func scanEntries(_ cursor: inout StrictJSONCursor) -> [Entry]? {
        var entries: [Entry] = []
        let isRead = cursor.forEachElement(depth: 4) { cursor in
            cursor.skipWhitespace()
            guard cursor.current == UInt8(ascii: "{") else {
                entries.append(.missing)
                return cursor.skipValue(depth: 4)
            }
            var entry: Entry?
            let isRead = cursor.forEachMember(depth: 5) { key, keyHasEscape, cursor in
                guard !keyHasEscape else { return false }
                guard Self.matches(key, "ok", in: cursor.bytes) else { return cursor.skipValue(depth: 5) }
                guard entry == nil else { return false }  // repeated: parsed whole (last wins)
                cursor.skipWhitespace()
                guard cursor.current == UInt8(ascii: "{") else {
                    entry = .missing
                    return cursor.skipValue(depth: 5)
                }
                guard let document = scanDocument(&cursor) else { return false }
                entry = .ok(document)
                return true
            }
            entries.append(entry ?? .missing)
            return isRead
        }
        return isRead ? entries : nil
    }

    /// An `ok` document: its range and the members the replicator reads.
    private static func scanDocument(_ cursor: inout StrictJSONCursor) -> BulkGetDocument? {
        let start = cursor.index
        var id: String?, rev: String??, hasAttachments = false
        var isUnusual = false
        let isRead = cursor.forEachMember(depth: 6) { key, keyHasEscape, cursor in
            guard !keyHasEscape else { return false }
            let bytes = cursor.bytes
            if Self.matches(key, "_id", in: bytes) {
                guard id == nil else { return false }  // repeated: parsed whole (last wins)
                id = readString(&cursor, unusual: &isUnusual) ?? ""
            } else if Self.matches(key, "_rev", in: bytes) {
                guard rev == nil else { return false }
                rev = .some(readString(&cursor, unusual: &isUnusual))
            } else {
                if Self.matches(key, "_attachments", in: bytes) { hasAttachments = true }
                return cursor.skipValue(depth: 6)
            }
            return !isUnusual
        }
        guard isRead else { return nil }
        return BulkGetDocument(text: start..<cursor.index, id: id ?? "", rev: rev ?? nil, hasAttachments: hasAttachments)
    }

    /// The string value at the cursor (moved past), or nil for a value of another type
    /// (also moved past). `unusual` is set when the value could not be read.
    private static func readString(_ cursor: inout StrictJSONCursor, unusual: inout Bool) -> String? {
        cursor.skipWhitespace()
        guard cursor.current == UInt8(ascii: "\"") else {
            if !cursor.skipValue(depth: 6) { unusual = true }
            return nil
        }
        let start = cursor.index
        guard let hasEscape = cursor.skipString() else {
            unusual = true
            return nil
        }
        let quoted = UnsafeBufferPointer(rebasing: cursor.bytes[start..<cursor.index])
        guard hasEscape else { return String(decoding: UnsafeBufferPointer(rebasing: quoted.dropFirst().dropLast()), as: UTF8.self) }
        // Rare in ids and revs: the reader decodes the escapes.
        guard let value = (try? JSONReader.parse(quoted))?.stringValue else {
            unusual = true
            return nil
        }
        return value
    }

    /// Whether the key text `key` (between its quotes, no escapes) is `name`.
    private static func matches(_ key: Range<Int>, _ name: StaticString, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        for (offset, i) in key.enumerated() where bytes[i] != name.utf8Start[offset] { return false }
        return true
    }
}
