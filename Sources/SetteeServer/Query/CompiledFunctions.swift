internal import Crypto
import SetteeJSON
import SetteeStore
import SetteeViews
internal import Synchronization

/// One design document function in the engine it was compiled into.
struct CompiledFunction: Sendable {
    let engine: JavaScriptEngine
    let handle: Int
}

/// Design document functions compiled into their engines, kept by their source so a
/// function is compiled once while it stays the same (views, `_changes` filters).
/// Emptied when it grows past `limit`: design documents that keep changing keep
/// making new entries.
final class CompiledFunctions<Value: Sendable>: Sendable {
    private let kept = Mutex<[String: Value]>([:])
    let limit: Int

    init(limit: Int = 128) { self.limit = limit }

    /// The value kept for `key`, or what `make` compiles (then kept). A function that
    /// does not compile is CouchDB's 400 `compilation_error` with `failure`'s words, or
    /// 501 when there is no engine at all.
    func value(for key: String, failure: (String) -> String,
               _ make: () throws(JavaScriptError) -> Value) throws -> Value {
        if let value = kept.withLock({ $0[key] }) { return value }
        let value: Value
        do { value = try make() } catch {
            if error.isUnavailable { throw CouchError(501, "not_implemented", error.message) }
            throw CouchError(400, "compilation_error", failure(error.message))
        }
        kept.withLock { kept in
            if kept.count >= limit { kept.removeAll() }
            kept[key] = value
        }
        return value
    }
}

/// What names a design document's compiled code in a cache: the database it is in
/// (name and object: a recreated database is another object), its id and revision,
/// and a digest of its whole content, since a function reaches all of it (`require`,
/// `this`). Two databases never share compiled code, even for equal documents: what
/// one database's calls leave in the engine's globals must not reach another's
/// (issue #46, item 2: a copy written with `new_edits: false` under the same id and
/// revision ran its own `lib` in the original's place).
enum DesignCodeKey {
    static func make(_ database: Database, id: String, rev: String, body: JSONValue) -> String {
        let digest = SHA256.hash(data: JSONWriter.serialize(body)).map { byte in
            String(byte >> 4, radix: 16) + String(byte & 0xf, radix: 16)
        }.joined()
        return "\(ObjectIdentifier(database).hashValue)/\(database.name)\u{0}\(id)\u{0}\(rev)\u{0}\(digest)"
    }
}
