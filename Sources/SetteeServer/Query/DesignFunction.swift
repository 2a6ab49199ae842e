internal import Crypto
import SetteeJSON
import SetteeStore

/// What names a design document's compiled code (`JavaScriptService`): the database it
/// is in, its id and revision, and a digest of its whole content, since a function
/// reaches all of it (`require`, `this`). Two databases never share compiled code,
/// even for equal documents: what one database's calls leave in an engine's globals
/// must not reach another's (issue #46, item 2: a copy written with `new_edits: false`
/// under the same id and revision ran its own `lib` in the original's place).
struct DesignCode: Sendable {
    /// Weak: kept lists of functions (`DocumentValidation`) must not keep a deleted database open.
    weak let database: Database?
    let key: DesignCodeKey
    let id: String
    let rev: String
    /// The design document's body (without `_id` and `_rev`).
    let body: JSONValue
    /// SHA-256 of the body's JSON, hex.
    let digest: String

    init(database: Database, id: String, rev: String, body: JSONValue, digest: String? = nil) {
        self.database = database
        self.id = id
        self.rev = rev
        self.body = body
        self.digest = digest ?? Self.digest(of: body)
        key = DesignCodeKey(database: ObjectIdentifier(database), name: database.name, id: id, rev: rev,
                            digest: self.digest)
    }

    static func digest(of body: JSONValue) -> String {
        SHA256.hash(data: JSONWriter.serialize(body)).map { byte in
            String(byte >> 4, radix: 16) + String(byte & 0xf, radix: 16)
        }.joined()
    }

    /// The design document's `language` when it is not JavaScript: its functions cannot run
    /// (CouchDB 3.4.3 answers them 500 `unknown_query_language`, naming the language).
    var unknownLanguage: String? {
        guard let language = body["language"]?.stringValue, language != "javascript" else { return nil }
        return language
    }

    /// The design document as a show, list or update function sees it: with `_id` and `_rev`.
    var document: JSONValue {
        var document = JSONObject()
        document["_id"] = .string(id)
        document["_rev"] = .string(rev)
        for member in body.objectValue ?? JSONObject() { document[member.key] = member.value }
        return .object(document)
    }
}

/// `DesignCode` as a dictionary key. The database's object identifier is checked
/// against the object itself where engines are kept (`EnginePool`): an identifier can
/// be reused by a database opened after another was freed.
struct DesignCodeKey: Hashable, Sendable {
    let database: ObjectIdentifier
    let name: String
    let id: String
    let rev: String
    let digest: String
}

/// One function of a design document, and how it is compiled.
struct DesignFunction: Sendable {
    enum Scope: Sendable {
        /// A filter, `validate_doc_update` or reduce function: no `require`.
        case plain
        /// A map function: `require` from `views.lib` only, as CouchDB lets it.
        case modules(JSONValue?)
        /// A show, list or update function: `this` is the design document, `require` from all of it.
        case designDocument
    }

    let code: DesignCode
    /// Where it is in the design document, e.g. `shows/s`, `views/v/map`.
    let name: String
    let source: String
    let scope: Scope
    /// The start of CouchDB's `compilation_error` reason, e.g. "Compilation of the show function s failed: ".
    let failure: String
}
