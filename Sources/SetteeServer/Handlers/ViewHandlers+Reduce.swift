import SetteeJSON
import SetteeStore
import SetteeViews

/// A view query's reduce: the rows of each group read in key order, then reduced by the
/// view's built-in reduce or, in one call on the node's JavaScript service, its own.
extension ViewHandlers {
    static func reduced(_ database: Database, _ index: KeyIndex, _ requested: RequestedView,
                        _ query: ViewQuery, _ ranges: [KeyRange]) async throws -> [UInt8] {
        var out = Array("{".utf8)
        if query.updateSeq {
            out.append(contentsOf: #""update_seq":"#.utf8)
            // The index's sequence, as for map rows (`writeHead`).
            SequenceToken.write(try await database.indexedSequence(index), to: &out)
            out.append(UInt8(ascii: ","))
        }
        let kept = ReducedRows.of(database)
        // `reduce_limit` decides whether an answer holds an overflow error: part of the key.
        let limit = requested.service.limits.value.reduceLimit
        let key = ReducedRows.key(signature: index.signature, reduce: "\(limit) \(requested.view.reduce ?? "")", query)
        let sequence = try await database.indexedSequence(index)
        if let rows = kept.rows(key, at: sequence) { return out + rows }
        let rows = try await reducedRows(database, index, requested, query, ranges, limit: limit)
        kept.keep(rows, for: key, at: sequence)
        return out + rows
    }

    /// `"rows":[…]}` of a reduce query, read and reduced.
    private static func reducedRows(_ database: Database, _ index: KeyIndex, _ requested: RequestedView,
                                    _ query: ViewQuery, _ ranges: [KeyRange],
                                    limit: JavaScriptLimits.ReduceLimit) async throws -> [UInt8] {
        let view = requested.view
        // couch_mrview_util:determine_group_level/1: a `group_level` given decides, 0 being one
        // row keyed null like no grouping (CouchDB 3.4.3; it grouped exact keys here); else
        // `group=true` groups exact keys (level nil).
        let level: Int? = query.groupLevel ?? (query.group ? nil : 0)
        let grouping = level.map { $0 > 0 } ?? true
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
        var values: [JSONValue]
        var overflows: [Int: String] = [:]
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
            let results = try await javaScriptReduce(reduce, inputs, requested.service, limit: limit)
            values = results.map { (try? $0.get()) ?? .null }
            for (index, result) in results.enumerated() {
                if case .failure(let overflow) = result { overflows[index] = overflow.reason }
            }
        } else {
            values = shown.map { _ in .null }
        }
        var out = Array(#""rows":["#.utf8)
        var written = 0
        for (index, (group, value)) in zip(shown, values).enumerated() {
            out.append(contentsOf: written == 0 ? Array("\r\n".utf8) : Array(",\r\n".utf8))
            if let reason = overflows[index] {
                JSONWriter.write(["key": group.key, "error": "reduce_overflow_error", "reason": .string(reason)], to: &out)
            } else {
                JSONWriter.write(["key": group.key, "value": value], to: &out)
            }
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

    /// Each group's reduction, in one call on the JavaScript service; a group whose
    /// reduction does not shrink is an overflow under `reduce_limit` (`ReduceOverflow`).
    private static func javaScriptReduce(_ function: DesignFunction, _ groups: [ReduceInput], _ service: JavaScriptService,
                                         limit: JavaScriptLimits.ReduceLimit) async throws
        -> [Result<JSONValue, ReduceOverflow>] {
        guard !groups.isEmpty else { return [] }
        // `log` would only log the overflow in CouchDB: here it lets it be, as `false` does.
        let check = limit == .on ? ReduceOverflow.Check(source: function.source) : nil
        do {
            return try await service.call(function) { (engine, reduce) throws(JavaScriptError) in
                try groups.map { (group) throws(JavaScriptError) in
                    try javaScriptReduce(engine, reduce, group, check)
                }
            }
        } catch let error as JavaScriptError {
            throw CouchError(javaScript: error, in: .reduce)
        }
    }

    private static func javaScriptReduce(_ engine: JavaScriptEngine, _ reduce: Int, _ group: ReduceInput,
                                         _ check: ReduceOverflow.Check?) throws(JavaScriptError)
        -> Result<JSONValue, ReduceOverflow> {
        let (keys, ids, values) = (group.keys, group.ids, group.values)
        var partials: [JSONValue] = []
        var start = 0
        repeat {
            let end = min(values.count, start + reduceChunk)
            let chunkKeys = (start..<end).map { JSONValue.array([keys[$0], .string(ids[$0])]) }
            let chunkValues = Array(values[start..<end])
            let result = try engine.reduce(reduce, keys: .array(chunkKeys), values: .array(chunkValues), rereduce: false)
            let input = { JSONValue.array(zip(chunkKeys, chunkValues).map { .array([$0, $1]) }) }
            if let overflow = check?.overflow(call: "reduce", input: input, result: result) { return .failure(overflow) }
            partials.append(result)
            start = end
        } while start < values.count
        while partials.count > 1 {
            var next: [JSONValue] = []
            for offset in stride(from: 0, to: partials.count, by: reduceChunk) {
                let chunk = Array(partials[offset..<min(partials.count, offset + reduceChunk)])
                let result = try engine.reduce(reduce, keys: .null, values: .array(chunk), rereduce: true)
                if let overflow = check?.overflow(call: "rereduce", input: { .array(chunk) }, result: result) {
                    return .failure(overflow)
                }
                next.append(result)
            }
            partials = next
        }
        return .success(partials[0])
    }
}
