import SetteeJSON

/// A request body that must be JSON: its bytes and the parsed value.
struct JSONValueBody: Sendable {
    let bytes: [UInt8]
    let value: JSONValue
    /// Whether an object in the text repeated a key: the value kept only its last member
    /// (as CouchDB does), so members must not be copied from `bytes`.
    let hadDuplicateKeys: Bool

    /// - Throws: 400 `bad_request` "invalid UTF-8 JSON" as CouchDB answers any
    ///   unparseable body; 400 for nesting past `maxDepth`.
    init(bytes: [UInt8], maxDepth: Int) throws {
        self.bytes = bytes
        do {
            (value, hadDuplicateKeys) = try JSONReader.parseNotingDuplicateKeys(bytes, maxDepth: maxDepth)
        } catch let error {
            if case .tooDeep(let limit) = error.kind {
                throw CouchError.badRequest("JSON nesting exceeds the limit of \(limit) levels")
            }
            throw CouchError.invalidJSON
        }
    }

    /// The body as an object, or 400 `bad_request` with `reason`.
    func object(orThrow reason: String = "Request body must be a JSON object") throws -> JSONObject {
        guard let object = value.objectValue else { throw CouchError.badRequest(reason) }
        return object
    }
}
