/// A stored document: its id, the revision it was read or saved at, and its contents
/// as a `Codable` value (the JSON object without CouchDB's `_id`, `_rev` and other
/// `_` members).
///
/// To change a document, save a new value with the revision you read:
///
///     var note = try await notes.document(Note.self, id: "n1")!
///     note.value.text = "edited"
///     note = try await notes.save(note)      // throws .conflict if someone else saved first
public struct Document<Value: Codable & Sendable>: Sendable {
    public let id: String
    /// CouchDB's revision id (`N-hex`) of this version.
    public let revision: String
    public var value: Value

    public init(id: String, revision: String, value: Value) {
        self.id = id
        self.revision = revision
        self.value = value
    }
}

/// One document of a bulk save: a value, its id (nil: a new random id) and the revision
/// it replaces (nil: a new document).
public struct DocumentChange<Value: Codable & Sendable>: Sendable {
    public var id: String?
    public var revision: String?
    public var value: Value

    public init(id: String? = nil, revision: String? = nil, value: Value) {
        self.id = id
        self.revision = revision
        self.value = value
    }
}

/// A database's figures.
public struct DatabaseInfo: Sendable, Equatable {
    public let name: String
    /// Live documents (design documents included, as CouchDB counts them).
    public let documentCount: Int
    public let deletedDocumentCount: Int
    /// The sequence of the latest change.
    public let updateSequence: Int64
}
