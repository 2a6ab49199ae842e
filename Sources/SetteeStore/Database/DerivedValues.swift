internal import Synchronization

/// Values the layers above derive from a database's documents and keep with it (parsed
/// design documents and their views): they go when the database closes, and belong to its
/// node, never to the process (two nodes in one program share none of them). At most
/// `capacity`; past it the table starts again (design documents change rarely).
package final class DerivedValues: Sendable {
    package static let capacity = 256
    private let values = Mutex<[String: any Sendable]>([:])

    package init() {}

    /// The value kept for `key`, if it is a `Value`.
    package subscript<Value: Sendable>(key: String, as type: Value.Type) -> Value? {
        values.withLock { $0[key] as? Value }
    }

    package func keep(_ value: any Sendable, for key: String) {
        values.withLock { values in
            if values.count >= Self.capacity && values[key] == nil { values.removeAll() }
            values[key] = value
        }
    }
}
