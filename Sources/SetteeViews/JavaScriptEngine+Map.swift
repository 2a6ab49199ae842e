public import SetteeJSON
internal import Synchronization

/// Map functions, one call a batch of documents: the calls an index build makes.
extension JavaScriptEngine {
    /// Runs map function `function` over `documents` (JSON text of each, with `_id`
    /// and `_rev`): for each document, its emitted `[key, value]` pairs, or nil when
    /// the function threw for it (CouchDB logs that and indexes nothing for it).
    public func map(_ function: Int, documents: [String]) throws(JavaScriptError) -> [[JSONValue]?] {
        let answer = try map([function], documents: documents.map { Array($0.utf8) })
        guard case .array(let perDocument) = try Self.parse(String(decoding: answer.text, as: UTF8.self)) else { return [] }
        return perDocument.map { rows in rows.arrayValue }
    }

    /// Runs map functions `functions` (of one design document) over `documents` (the JSON
    /// text of each, with `_id` and `_rev`) in one call: each document is parsed once,
    /// deep-frozen as CouchDB's query server seals it, and passed to every function in
    /// turn (couchjs's `map_doc`).
    /// - Returns: per document, per function in order, its rows (`MapAnswer`).
    public func map(_ functions: [Int], documents: [[UInt8]]) throws(JavaScriptError) -> MapAnswer {
        var text: [UInt8] = [UInt8(ascii: "[")]
        text.reserveCapacity(documents.reduce(2) { $0 + $1.count + 1 })
        for (position, document) in documents.enumerated() {
            if position > 0 { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: document)
        }
        text.append(UInt8(ascii: "]"))
        return try map(functions, documentArray: text, count: documents.count)
    }

    /// `map(_:documents:)` of the `count` documents of `text`, a JSON array of them
    /// (written by the caller straight into one buffer, with no text of its own for each).
    public func map(_ functions: [Int], documentArray text: [UInt8], count: Int) throws(JavaScriptError) -> MapAnswer {
        var text = text
        text.append(0)
        let answer = try lock.withLock { _ throws(JavaScriptError) -> [UInt8] in
            let docs = try text.withUnsafeBytes { bytes in
                Result { () throws(JavaScriptError) in
                    guard let start = bytes.assumingMemoryBound(to: CChar.self).baseAddress else { throw Self.notParsed }
                    return try parseJSON(cString: start)
                }
            }.get()
            return try callReturningBytes("__mapDocs", [docs] + functions.map { self.functions[$0] })
        }
        return MapAnswer(text: answer, functions: functions.count, documents: count)
    }
}
