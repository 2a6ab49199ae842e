import SetteeJSON
import SetteeStore
import SetteeViews

/// A view query's reduce: the rows of each group read in key order, then reduced by the
/// view's built-in reduce or, in one call on the node's JavaScript service, its own.
extension ViewHandlers {
    static func reduced(_ database: Database, _ index: KeyIndex, _ requested: RequestedView,
                        _ query: ViewQuery, _ ranges: [KeyRange]) async throws -> [UInt8] {
        let view = requested.view
        let level: Int? = query.group ? nil : query.groupLevel
        let grouping = query.group || query.groupLevel != nil
        // A built-in reduce reads the index's own entries (key and value) and no document;
        // a JavaScript one is given each row's document id too.
        let builtin = view.builtinReduce
        var groups: [(key: JSONValue, keys: [JSONValue], ids: [String], values: [JSONValue])] = []
        var currentGroup: [UInt8]?
        for range in ranges {
            var after: [UInt8]?
            currentGroup = nil  // each of `keys` groups on its own, even when one repeats
            while true {
                let pageSize = builtin == nil ? 1_000 : 5_000
                let page: [(key: [UInt8], id: String?, value: [UInt8])]
                if builtin != nil {
                    page = try await database.indexEntries(index, range: range, descending: query.descending,
                                                           after: after, limit: pageSize).map { ($0.key, nil, $0.value) }
                } else {
                    page = try await database.indexPage(index, range: range, descending: query.descending, after: after,
                                                        limit: pageSize, bodies: false).map { ($0.key, $0.id, $0.value) }
                }
                for row in page {
                    after = row.key
                    let pair = Self.keyAndValue(row.value)
                    if grouping {
                        let groupKey = Self.groupKey(pair[0], level: level)
                        let encoded = IndexKeyEncoding.encode(groupKey)
                        if encoded != currentGroup {
                            groups.append((groupKey, [], [], []))
                            currentGroup = encoded
                        }
                    } else if groups.isEmpty {
                        groups.append((.null, [], [], []))
                    }
                    groups[groups.count - 1].keys.append(pair[0])
                    if let id = row.id { groups[groups.count - 1].ids.append(id) }
                    groups[groups.count - 1].values.append(pair[1])
                }
                if page.count < pageSize { break }
            }
        }
        let shown = Array(groups.dropFirst(query.skip).prefix(query.limit))
        let values: [JSONValue]
        if let builtin {
            do {
                values = try shown.map { (group) throws(BuiltinReduceError) in
                    try builtin.reduce(keys: group.keys, values: group.values)
                }
            } catch .invalidValue(let reason) {
                throw CouchError(500, "invalid_value", reason)
            }
        } else if let reduce = ViewIndexes.reduceFunction(view, requested.code) {
            let inputs = shown.map { ReduceInput(keys: $0.keys, ids: $0.ids, values: $0.values) }
            values = try await javaScriptReduce(reduce, inputs, requested.service)
        } else {
            values = shown.map { _ in .null }
        }
        var out = Array(#"{"rows":["#.utf8)
        var written = 0
        for (group, value) in zip(shown, values) {
            out.append(contentsOf: written == 0 ? Array("\r\n".utf8) : Array(",\r\n".utf8))
            JSONWriter.write(["key": group.key, "value": value], to: &out)
            written += 1
        }
        out.append(contentsOf: (written == 0 ? "\r\n\r\n]}" : "\r\n]}").utf8)
        return out
    }

    /// Rows a JavaScript reduce gets at once; more are reduced in chunks of this many, then
    /// rereduced, as CouchDB reduces its b-tree's nodes and rereduces their results (a
    /// function must give the same answer either way; one that does not shows it here too).
    static let reduceChunk = 500

    private struct ReduceInput: Sendable {
        let keys: [JSONValue]
        let ids: [String]
        let values: [JSONValue]
    }

    /// Each group's reduction, in one call on the JavaScript service.
    private static func javaScriptReduce(_ function: DesignFunction, _ groups: [ReduceInput],
                                         _ service: JavaScriptService) async throws -> [JSONValue] {
        guard !groups.isEmpty else { return [] }
        do {
            return try await service.call(function) { (engine, reduce) throws(JavaScriptError) in
                try groups.map { (group) throws(JavaScriptError) in
                    try javaScriptReduce(engine, reduce, keys: group.keys, ids: group.ids, values: group.values)
                }
            }
        } catch let error as JavaScriptError {
            throw CouchError.fromJavaScript(500, "reduce_error", error.message)
        }
    }

    private static func javaScriptReduce(_ engine: JavaScriptEngine, _ reduce: Int, keys: [JSONValue], ids: [String],
                                         values: [JSONValue]) throws(JavaScriptError) -> JSONValue {
        var partials: [JSONValue] = []
        var start = 0
        repeat {
            let end = min(values.count, start + reduceChunk)
            let chunkKeys = JSONValue.array((start..<end).map { .array([keys[$0], .string(ids[$0])]) })
            partials.append(try engine.reduce(reduce, keys: chunkKeys, values: .array(Array(values[start..<end])),
                                              rereduce: false))
            start = end
        } while start < values.count
        while partials.count > 1 {
            var next: [JSONValue] = []
            for offset in stride(from: 0, to: partials.count, by: reduceChunk) {
                let chunk = Array(partials[offset..<min(partials.count, offset + reduceChunk)])
                next.append(try engine.reduce(reduce, keys: .null, values: .array(chunk), rereduce: true))
            }
            partials = next
        }
        return partials[0]
    }
}
