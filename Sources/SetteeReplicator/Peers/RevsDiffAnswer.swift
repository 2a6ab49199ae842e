internal import SetteeJSON

/*
 A `_revs_diff` request written and its answer read without JSON values in between
 (bench/RESULTS.md, "Replication of 100,000 documents, second round": a `_revs_diff`
 of 1,000 ids built a `JSONObject` to write and a value tree to read, a page at a time).

 The answer's usual shape is all `scan` reads:

     {"id":{"missing":["2-b"],"possible_ancestors":["1-a"]},..}

 Its text is checked as `JSONReader` checks it (`StrictJSONCursor`). As the answer parsed
 whole was read: a repeated id counts by its last entry, and non-string elements are dropped;
 a repeated `missing` or `possible_ancestors` makes it parse the answer whole. Anything else —
 a key spelled with an escape among the entry's members, an entry or list that is no
 object or array, text the reader refuses — makes `scan` answer nil, and the caller
 parses the answer whole, as before.
 */
enum RevsDiffAnswer {
    /// `{"id":["rev",..],..}`, written as `JSONWriter` writes the same object.
    static func body(_ revisions: [String: [String]]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(revisions.count * 64)
        for (index, (id, revs)) in revisions.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(id, to: &out)
            out.append(contentsOf: ":[".utf8)
            for (i, rev) in revs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(rev, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The answer's entries by id; nil for an answer to parse whole instead.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> [String: MissingRevisions]? {
        var cursor = StrictJSONCursor(bytes)
        var answer: [String: MissingRevisions] = [:]
        let isRead = cursor.forEachMember(depth: 1) { key, keyHasEscape, cursor in
            guard let id = text(key, hasEscape: keyHasEscape, in: cursor.bytes),
                  let entry = scanEntry(&cursor) else { return false }
            answer[id] = entry
            return true
        }
        cursor.skipWhitespace()
        return isRead && cursor.isAtEnd ? answer : nil
    }

    /// One id's `{"missing":[..],"possible_ancestors":[..]}`.
    private static func scanEntry(_ cursor: inout StrictJSONCursor) -> MissingRevisions? {
        var missing: [String]?, ancestors: [String]?
        let isRead = cursor.forEachMember(depth: 2) { key, keyHasEscape, cursor in
            guard !keyHasEscape else { return false }
            let name = String(decoding: UnsafeBufferPointer(rebasing: cursor.bytes[key]), as: UTF8.self)
            if name == "missing" {
                guard missing == nil else { return false }  // repeated: parsed whole (last wins)
                missing = scanStrings(&cursor)
                return missing != nil
            }
            if name == "possible_ancestors" {
                guard ancestors == nil else { return false }  // repeated: parsed whole (last wins)
                ancestors = scanStrings(&cursor)
                return ancestors != nil
            }
            return cursor.skipValue(depth: 2)
        }
        return isRead ? MissingRevisions(missing: missing ?? [], possibleAncestors: ancestors ?? []) : nil
    }

    /// An array's string elements (others skipped); nil when it is no array.
    private static func scanStrings(_ cursor: inout StrictJSONCursor) -> [String]? {
        var strings: [String] = []
        let isRead = cursor.forEachElement(depth: 3) { cursor in
            cursor.skipWhitespace()
            guard cursor.current == UInt8(ascii: "\"") else { return cursor.skipValue(depth: 3) }
            let start = cursor.index + 1
            guard let hasEscape = cursor.skipString(),
                  let string = text(start..<(cursor.index - 1), hasEscape: hasEscape, in: cursor.bytes) else { return false }
            strings.append(string)
            return true
        }
        return isRead ? strings : nil
    }

    /// The string whose text (between its quotes) is `range`, escapes decoded.
    private static func text(_ range: Range<Int>, hasEscape: Bool, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard hasEscape else { return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        let quoted = UnsafeBufferPointer(rebasing: bytes[(range.lowerBound - 1)..<(range.upperBound + 1)])
        return (try? JSONReader.parse(quoted))?.stringValue
    }
}
