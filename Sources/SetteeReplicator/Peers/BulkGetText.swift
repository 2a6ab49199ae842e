internal import SetteeJSON

/// Where each document of a `_bulk_get` answer sits in the answer's text, so that
/// `_bulk_docs` can copy the source's bytes of a document instead of writing its
/// parsed value again. The answer is parsed all the same (it is checked as JSON, and
/// the replicator reads `_id`, `_rev`, `_attachments` and the error entries from the
/// parsed value); the text is only ever copied for a document whose value is used unchanged.
///
/// Each span is taken by position: the scanner's member number `i` of an object is the
/// parsed object's member number `i` (the same text, read in the same order), so an
/// escaped key or a repeated one names the same member in both.
enum BulkGetText {
    /// For each element of `results`, for each entry of its `docs`: the range of the
    /// entry's `ok` document in `bytes`, or nil (an error entry). Nil when `parsed`
    /// (what `JSONReader` made of `bytes`) is not laid out as `_bulk_get` answers are.
    static func documentRanges(in bytes: UnsafeBufferPointer<UInt8>, of parsed: JSONValue) -> [[Range<Int>?]]? {
        guard let root = parsed.objectValue, let rootSpans = JSONSpanScanner.members(ofObjectIn: bytes),
              let (results, resultsSpan) = member("results", of: root, rootSpans),
              let results = results.arrayValue,
              let resultSpans = JSONSpanScanner.elementMembers(ofArrayIn: bytes, at: resultsSpan.valueStart),
              resultSpans.count == results.count else { return nil }
        var ranges: [[Range<Int>?]] = []
        ranges.reserveCapacity(results.count)
        for (result, spans) in zip(results, resultSpans) {
            guard let result = result.objectValue, let spans, let (docs, docsSpan) = member("docs", of: result, spans),
                  let docs = docs.arrayValue,
                  let entrySpans = JSONSpanScanner.elementMembers(ofArrayIn: bytes, at: docsSpan.valueStart),
                  entrySpans.count == docs.count else { return nil }
            ranges.append(zip(docs, entrySpans).map { entry, spans in
                guard let entry = entry.objectValue, let spans, let (ok, span) = member("ok", of: entry, spans),
                      ok.objectValue != nil else { return nil }
                return span.valueStart..<span.range.upperBound
            })
        }
        return ranges
    }

    /// The first member named `name` (the one `JSONObject`'s subscript reads) and its span.
    private static func member(_ name: String, of object: JSONObject,
                               _ spans: [JSONMemberSpan]) -> (JSONValue, JSONMemberSpan)? {
        guard spans.count == object.count, let index = object.members.firstIndex(where: { $0.key == name }) else {
            return nil
        }
        return (object.members[index].value, spans[index])
    }
}
