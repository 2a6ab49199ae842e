import SetteeJSON
import SetteeStore
import Synchronization

/// The rows of reduce queries, kept with their database (`Database.derived`) by the
/// query's parameters and the index's update sequence: the same query of an index that
/// has not moved answers from here. CouchDB keeps each b-tree node's reduction and answers
/// a whole-view `_stats` in a few milliseconds; Settee reduces the rows it reads, which
/// took 75–109 ms for 100,000 rows (bench/views), on every query of a dashboard.
///
/// A reduce function must give the same result for the same rows (CouchDB relies on that
/// when it stores reductions), so a kept answer is the answer. One read after the index's
/// sequence is taken sees at least that sequence, so a kept answer is never older than
/// its key says.
final class ReducedRows: Sendable {
    /// Answers kept per database, and the bytes they may hold together.
    static let capacity = 128
    static let byteCapacity = 4 << 20
    /// Larger answers (a group=true over many keys) are not kept: reading them again costs
    /// what reducing them does.
    static let largestKept = 64 << 10

    private struct Kept {
        var rows: [String: (sequence: Int64, bytes: [UInt8])] = [:]
        var bytes = 0
    }
    private let kept = Mutex(Kept())

    /// The one kept with `database`.
    static func of(_ database: Database) -> ReducedRows {
        let key = "reduced-rows"
        if let existing = database.derived[key, as: ReducedRows.self] { return existing }
        let made = ReducedRows()
        database.derived.keep(made, for: key)
        return made
    }

    func rows(_ key: String, at sequence: Int64) -> [UInt8]? {
        kept.withLock { kept in
            guard let found = kept.rows[key], found.sequence == sequence else { return nil }
            return found.bytes
        }
    }

    func keep(_ bytes: [UInt8], for key: String, at sequence: Int64) {
        guard bytes.count <= Self.largestKept else { return }
        kept.withLock { kept in
            if let old = kept.rows.removeValue(forKey: key) { kept.bytes -= old.bytes.count }
            if kept.rows.count >= Self.capacity || kept.bytes + bytes.count > Self.byteCapacity {
                kept = Kept()  // rare: a new query shape after many; the next ones fill it again
            }
            kept.rows[key] = (sequence, bytes)
            kept.bytes += bytes.count
        }
    }

    /// What makes a reduce query's rows: the index, the reduce function and every
    /// parameter that selects, groups or pages rows (not `update_seq`, written apart).
    static func key(signature: String, reduce: String, _ query: ViewQuery) -> String {
        var out = Array(signature.utf8)
        func field(_ value: JSONValue?) {
            out.append(0)
            if let value { JSONWriter.write(value, to: &out) }
        }
        field(.string(reduce))
        field(query.keys.map(JSONValue.array))
        field(query.startKey)
        field(query.startDocID.map(JSONValue.string))
        field(query.endKey)
        field(query.endDocID.map(JSONValue.string))
        let flags = [query.group, query.isMultiKey, query.inclusiveEnd, query.descending, query.sorted]
        out.append(contentsOf: "\u{0}\(flags) \(query.groupLevel ?? -1) \(query.limit) \(query.skip)".utf8)
        return String(decoding: out, as: UTF8.self)
    }
}
