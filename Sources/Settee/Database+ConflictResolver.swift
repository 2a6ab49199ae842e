internal import FoundationEssentials
internal import Synchronization
internal import SetteeJSON
internal import SetteeServer

/// A conflict policy written in Swift: a closure the library runs, in this process, for
/// the documents of one database, where a declared policy would run.
extension Database {
    /// Makes `resolve` this database's conflict policy, in this process, until
    /// ``removeConflictResolver()`` or the directory closes (it belongs to the database's
    /// name: a database deleted and created again under it keeps it). It takes precedence over a
    /// declared policy (``setConflictPolicy(_:designDocument:)``) and does not replicate:
    /// each peer that should merge this way must set it too.
    ///
    ///     try notes.setConflictResolver(Note.self) { leaves, winner in
    ///         var merged = winner.value
    ///         merged.tags = Array(Set(leaves.flatMap(\.value.tags))).sorted()
    ///         return merged
    ///     }
    ///
    /// `resolve` gets the document's live leaves in canonical order (the winner as CouchDB
    /// picks it, then the others in `_conflicts` order; attachments are not passed) and
    /// `winner`, the first of them, and returns the merged value, which is saved as a child
    /// of the winner while each losing leaf gets a tombstone keeping its body. It runs
    /// after every replicated write that leaves documents in conflict (off the write's
    /// path), at once for the documents in conflict now, and on ``resolveConflicts()``.
    ///
    /// **It must be deterministic**, as a JavaScript policy must: a pure function of its
    /// arguments (no clock, no random numbers, no order of a `Set` or `Dictionary`), so
    /// that two peers resolving the same leaves write the same revision. The merged value
    /// is encoded with its keys sorted, so the same value gives the same bytes everywhere.
    /// A throw (or a leaf that does not decode as `Value`) leaves that document's conflict
    /// as it is, reported by ``resolveConflicts()``; it is not tried again by itself until
    /// its leaves or the resolver change.
    /// - Throws: ``SetteeError/forbidden(_:)`` for a system database (`_users`, `_replicator`).
    public func setConflictResolver<Value: Codable & Sendable>(
        _ type: Value.Type,
        _ resolve: @escaping @Sendable (_ leaves: [Document<Value>], _ winner: Document<Value>) throws -> Value
    ) throws(SetteeError) {
        let number = Self.resolverCount.add(1, ordering: .relaxed).newValue
        let policy = NativeConflictPolicy(name: "Swift conflict resolver #\(number) of \(name)") { leaves in
            let documents = try leaves.map(Self.leafDocument(Value.self))
            guard let winner = documents.first else { throw SetteeError.invalidDocument("a conflict without leaves") }
            return try Self.mergedBody(try resolve(documents, winner))
        }
        try setNativePolicy(policy)
    }

    /// Removes the resolver set by ``setConflictResolver(_:_:)``: the declared policy, if
    /// any, applies again (to the documents in conflict now, at once).
    public func removeConflictResolver() throws(SetteeError) {
        try setNativePolicy(nil)
    }

    private func setNativePolicy(_ policy: NativeConflictPolicy?) throws(SetteeError) {
        try data.checkOpen()
        guard !name.hasPrefix("_") else { throw .forbidden("System databases take no conflicts policy.") }
        do {
            try EmbeddedConflicts.setPolicy(policy, for: store)
        } catch {
            throw SetteeError.from(error, id: name)
        }
    }

    /// Numbers resolvers, so that a new one retries what an earlier one failed on.
    private static let resolverCount = Atomic<Int>(0)

    /// A leaf as the resolver reads it: `_id`, `_rev` and its body decoded as `Value`.
    private static func leafDocument<Value>(_ type: Value.Type) -> (JSONValue) throws -> Document<Value> {
        { leaf in
            guard let id = leaf["_id"]?.stringValue, let rev = leaf["_rev"]?.stringValue else {
                throw SetteeError.invalidDocument("a conflicting leaf without _id or _rev")
            }
            return Document(id: id, revision: rev, value: try decode(type, JSONWriter.serialize(leaf), id: id))
        }
    }

    /// The merged value as the body the node writes: JSON with sorted keys, a JSON object.
    private static func mergedBody<Value: Encodable>(_ value: Value) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let bytes: Data
        do { bytes = try encoder.encode(value) } catch { throw SetteeError.encoding(String(describing: error)) }
        guard case .object(let object)? = try? JSONReader.parse(Array(bytes)) else {
            throw SetteeError.encoding("\(Value.self) does not encode to a JSON object")
        }
        return .object(object)
    }
}
