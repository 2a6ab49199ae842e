public import SetteeStore

/*
 `_revisions` as a replicator writes it, read without a value tree: CouchDB's `_bulk_get`
 and Settee's write `{"start":N,"ids":["sig",...]}`, compact, start first, ids unescaped.
 Building the object, its array and a string per id to then read them was 5 % of a
 replicated `_bulk_docs`. Anything else (white space, other member order, escapes, an
 empty list, a count `history(_:)` refuses) is not read here: the value is parsed and
 `history(_:)` answers, its errors included, so the two always agree
 (DocumentParserRevisionsTests).
 */
extension DocumentParser {
    /// `history(_:)` of the `_revisions` value that is all of `text`, when written in the
    /// compact form above and accepted; nil otherwise.
    public static func compactHistory(_ text: UnsafeBufferPointer<UInt8>) -> [RevisionID]? {
        var reader = CompactRevisions(text: text)
        return reader.read()
    }
}

/// The reader behind `DocumentParser.compactHistory`.
private struct CompactRevisions {
    let text: UnsafeBufferPointer<UInt8>
    var index = 0

    mutating func read() -> [RevisionID]? {
        guard expect(#"{"start":"#), let start = generation(), expect(#","ids":["#) else { return nil }
        var history: [RevisionID] = []
        while true {
            guard index < text.count, text[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            let suffixStart = index
            while index < text.count, text[index] != UInt8(ascii: "\""), text[index] != UInt8(ascii: "\\") { index += 1 }
            guard index < text.count, text[index] == UInt8(ascii: "\"") else { return nil }
            let suffix = String(decoding: UnsafeBufferPointer(rebasing: text[suffixStart..<index]), as: UTF8.self)
            index += 1
            guard let rev = RevisionID(generation: start - history.count, validating: suffix) else { return nil }
            history.append(rev)
            guard index < text.count else { return nil }
            index += 1
            if text[index - 1] == UInt8(ascii: "]") { break }
            guard text[index - 1] == UInt8(ascii: ",") else { return nil }
        }
        // `history(_:)` refuses more ids than the start generation.
        guard expect("}"), index == text.count, start >= history.count else { return nil }
        return history
    }

    /// A positive integer without a leading zero, short enough for any generation.
    mutating func generation() -> Int? {
        let first = index
        var value = 0
        while index < text.count, text[index] &- UInt8(ascii: "0") < 10, index - first < 12 {
            value = value * 10 + Int(text[index] - UInt8(ascii: "0"))
            index += 1
        }
        guard index > first, text[first] != UInt8(ascii: "0") else { return nil }
        return value
    }

    mutating func expect(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= text.count else { return false }
        for i in 0..<count where text[index + i] != word.utf8Start[i] { return false }
        index += count
        return true
    }
}
