public import SetteeJSON

/*
 A `_bulk_docs` request with `"new_edits": false` (what a replicator sends, 250 or 1,000
 documents at a time) read straight from its text: the text checked once by
 `JSONValidator`, the members found by `JSONSpanScanner`, each document parsed from its
 spans (`DocumentParser.parse(text:members:newEdits:)`). The value tree of the whole
 request is never built; it was 8 % of the target's CPU in a replication, and the
 documents' bodies are stored from their spans anyway.

 Only the plain case is read here; for anything else `read` answers nil and the handler
 parses the request as before, so every error keeps its words and its order: text that
 is not JSON (or nests too deep), a body that is not an object, no `docs` array,
 `new_edits` absent or anything but `false`, an element that is not an object, a
 `_local/` document, or a text where some object may repeat a key: CouchDB keeps the
 last member of a repeated key (`JSONObject+DuplicateKeys`), and a body copied from its
 spans would keep them all, so `JSONValidator.isValidWithDistinctKeys` sends those to the
 value path, whose reader drops the others (the check costs a few key compares per object).
 */

/// The documents of a replicated `_bulk_docs` request, parsed from its text.
public struct ReplicatedBatch {
    /// One per element of `docs`, in order.
    public var parsed: [DocumentParser.Parsed]
    /// The request's members other than `docs` (`new_edits`, `w`...), parsed.
    public var options: JSONObject

    /// Reads `text` as a `new_edits:false` batch, or nil when it is not the plain case
    /// (see above: the caller then parses the request as a value).
    /// - Throws: the first document's `DocumentError`, as parsing the documents in order does.
    public static func read(_ text: [UInt8], maxDepth: Int, parser: DocumentParser) throws -> ReplicatedBatch? {
        try text.withUnsafeBufferPointer { buffer in
            guard JSONValidator.isValidWithDistinctKeys(buffer, maxDepth: maxDepth),
                  let scanned = JSONSpanScanner.members(ofObjectIn: buffer, expanding: "docs"),
                  let elements = scanned.elements else { return nil }
            do {
                return try read(buffer, members: scanned.members, elements: elements, parser: parser)
            } catch is JSONError {
                return nil  // not reached: the text was validated; the value path answers
            }
        }
    }

    /// - Parameter elements: the first member named `docs` written as such: its elements' members.
    private static func read(_ text: UnsafeBufferPointer<UInt8>, members: [JSONMemberSpan],
                             elements: [[JSONMemberSpan]?], parser: DocumentParser) throws -> ReplicatedBatch? {
        var options = JSONObject()
        var docs: JSONMemberSpan?
        for span in members {
            let key = try JSONReader.parse(UnsafeBufferPointer(rebasing: text[span.range.lowerBound..<keyEnd(text, span)]),
                                           maxDepth: .max).stringValue ?? ""
            if key == "docs" {
                if docs == nil { docs = span }
                continue
            }
            let value = try JSONReader.parse(UnsafeBufferPointer(rebasing: text[span.valueStart..<span.range.upperBound]),
                                             maxDepth: .max)
            options.append(key, value)
        }
        // The expanded member must be the first `docs`: not so when an escaped `"\u0064ocs"` came first.
        guard let docs, text[docs.valueStart] == UInt8(ascii: "["), options["new_edits"] == .bool(false),
              docs.range.lowerBound == firstExpandable(text, members) else { return nil }
        var documents: [[JSONMemberSpan]] = []
        documents.reserveCapacity(elements.count)
        for element in elements {
            guard let element else { return nil }  // "Document must be a JSON object", from the value path
            // `_local/` documents are written one by one, by the value path (`mixedBulkDocs`).
            if try DocumentParser.firstID(text: text, spans: element)?.hasPrefix("_local/") == true { return nil }
            documents.append(element)
        }
        let parsed = try documents.map { try parser.parse(text: text, members: $0, newEdits: false) }
        return ReplicatedBatch(parsed: parsed, options: options)
    }

    /// Where the first member whose key is written `"docs"` and whose value is an array starts.
    private static func firstExpandable(_ text: UnsafeBufferPointer<UInt8>, _ members: [JSONMemberSpan]) -> Int? {
        let quoted = Array(#""docs""#.utf8)
        return members.first { span in
            text[span.valueStart] == UInt8(ascii: "[")
                && UnsafeBufferPointer(rebasing: text[span.range.lowerBound..<keyEnd(text, span)]).elementsEqual(quoted)
        }?.range.lowerBound
    }

    /// Just past the key's closing quote: the last `"` before the member's value.
    private static func keyEnd(_ text: UnsafeBufferPointer<UInt8>, _ span: JSONMemberSpan) -> Int {
        var end = span.valueStart - 1
        while end > span.range.lowerBound, text[end] != UInt8(ascii: "\"") { end -= 1 }
        return end + 1
    }
}
