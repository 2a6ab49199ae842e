import FoundationEssentials
import SetteeJSON
import SetteeReplicator
import SetteeStore

/// What `_replicator` shows to those who are not its admins, as CouchDB 3.4.3 answers
/// when its `_security` lets them in (checked on 3.4.3 with an empty `_security`):
/// listings need a server admin (401 "You are not a server admin."), and a document
/// another user owns (`owner`, recorded on write) is shown with its credentials
/// stripped — userinfo cut from `source`/`target` URLs, `headers` and `auth` removed
/// from endpoint objects (CouchDB's `couch_replicator_docs:strip_credentials`).
enum ReplicatorReadRule {
    static func isReplicatorDatabase(_ database: Database) -> Bool { database.name == ReplicationManager.databaseName }

    /// - Throws: 401 for a listing of `_replicator` by anyone but a server admin.
    static func requireListing(_ context: RequestContext, _ database: Database) throws {
        guard isReplicatorDatabase(database), !context.user.isAdmin else { return }
        throw CouchError(401, "unauthorized", "You are not a server admin.")
    }

    /// Whether documents read from `database` must be checked for stripping: a
    /// `_replicator` read by someone who is not its admin.
    static func mustCheck(_ context: RequestContext, _ database: Database) async throws -> Bool {
        guard isReplicatorDatabase(database), !context.user.isAdmin else { return false }
        return !SecurityObject(bytes: try await database.security()).admins.admits(context.user)
    }

    /// `document` (rendered JSON) as `user` may see it: unchanged when they own it;
    /// a trailing newline is kept.
    static func shown(_ document: [UInt8], to user: UserContext) -> [UInt8] {
        guard var object = (try? JSONReader.parse(document))?.objectValue else { return document }
        if let owner = object["owner"]?.stringValue, owner == user.name { return document }
        for key in ["source", "target"] {
            if let endpoint = object[key] { object[key] = stripped(endpoint) }
        }
        return JSONWriter.serialize(.object(object)) + (document.last == 0x0A ? [0x0A] : [])
    }

    static func stripped(_ endpoint: JSONValue) -> JSONValue {
        if let url = endpoint.stringValue { return .string(withoutUserinfo(url)) }
        guard var object = endpoint.objectValue else { return endpoint }
        object.removeAll { $0.key == "headers" || $0.key == "auth" }
        if let url = object["url"]?.stringValue { object["url"] = .string(withoutUserinfo(url)) }
        return .object(object)
    }

    /// `http(s)://user:password@rest` → `http(s)://rest`, as CouchDB's pattern
    /// `http(s)?://(?:[^:]+):[^@]+@(.*)$` does it.
    static func withoutUserinfo(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") else { return url }
        let userinfo = url[scheme.upperBound..<at]
        guard userinfo.contains(":") else { return url }
        return String(url[..<scheme.upperBound]) + String(url[url.index(after: at)...])
    }
}
