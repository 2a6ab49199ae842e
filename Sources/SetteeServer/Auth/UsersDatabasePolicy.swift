import SetteeJSON
import SetteeStore

/// `_users`' built-in rules, as CouchDB 3.4's `_auth` design document and its
/// `before_doc_update` apply them, in Swift: a `password` is replaced by its
/// PBKDF2 hash before the write (never stored in clear), and a user document must
/// be `{"_id": "org.couchdb.user:NAME", "type": "user", "name": NAME, "roles": [...]}`
/// with a known password scheme. Refusals are 403 `forbidden` with CouchDB's words.
/// Non-admin writers (`WriteContext.writer`) may change only their own document and
/// never its roles — which matters only where `_users`' `_security` admits them
/// (`[couchdb] users_db_security_editable`): by default only admins reach it.
///
/// The members that grant access are what a writer may not give itself: `roles`
/// (database admins of `_users` may set them, as in CouchDB), and `settee_pairing`,
/// which opens one database whatever its `_security` says, so only a server admin
/// (`settee pair`) or the server itself (a pairing's claimed clients) may add, change
/// or remove it — over any path: a document PUT, `_bulk_docs`, `new_edits=false`.
struct UsersDatabasePolicy: WritePolicy {
    /// `[chttpd_auth] iterations` (CouchDB 3.4.3: 600,000) for new hashes.
    var iterations = PasswordHash.defaultIterations
    /// `[chttpd_auth] password_regexp`, read at each write.
    var requirements = PasswordRequirements()

    func prepare(_ update: DocumentUpdate, newEdits: Bool) throws(WriteRejection) -> DocumentUpdate {
        try Self.reviewWriter(of: update)
        guard !update.isDeleted, !update.id.hasPrefix("_design/"),
              let body = (try? JSONReader.parse(update.body))?.objectValue,
              let value = body["password"], !value.isNull else { return update }
        // CouchDB hashes strings only (couch_passwords:pbkdf2/4), and says so with Erlang's `~p`.
        guard let password = value.stringValue else {
            throw .forbidden("Password value of '\(Self.erlangText(value))' is invalid.")
        }
        try requirements.check(password)
        let salt = PasswordHash.randomHex(byteCount: 16)
        let key = PasswordHash.derive(password: password, salt: salt, prf: .sha256, iterations: iterations) ?? ""
        var hashed: JSONObject = [
            "password_scheme": "pbkdf2", "pbkdf2_prf": "sha256", "salt": .string(salt),
            "iterations": .int(iterations), "derived_key": .string(key),
        ]
        for member in body where member.key != "password" && hashed[member.key] == nil {
            hashed.append(member.key, member.value)
        }
        var prepared = update
        prepared.body = JSONWriter.serialize(.object(hashed))
        return prepared
    }

    func review(_ update: DocumentUpdate, newEdits: Bool,
                current: () throws -> StoredRevision?) throws(WriteRejection) {
        // The declared writer (the node's own writes declare `.system`); none: anonymous.
        let writer: WriterIdentity? = WriteContext.current
        let isAdmin = writer?.isDatabaseAdmin ?? false
        let old = (try? current()).flatMap { $0.isDeleted ? nil : $0 }
        let oldDoc = old?.body.flatMap { try? JSONReader.parse($0) }?.objectValue
        if update.isDeleted {
            // Deletes by admins and by the user the document is.
            guard isAdmin || (writer?.name != nil && writer?.name == oldDoc?["name"]?.stringValue) else {
                throw .forbidden("Only admins may delete other user docs.")
            }
            return
        }
        guard !update.id.hasPrefix("_design/") else { return }
        let doc = (try? JSONReader.parse(update.body))?.objectValue ?? JSONObject()
        guard doc["type"]?.stringValue == "user" else { throw .forbidden("doc.type must be user") }
        guard let nameValue = doc["name"], Self.isTruthy(nameValue) else { throw .forbidden("doc.name is required") }
        guard let roles = doc["roles"], Self.isTruthy(roles) else { throw .forbidden("doc.roles must exist") }
        guard let list = roles.arrayValue else { throw .forbidden("doc.roles must be an array") }
        guard list.allSatisfy({ $0.stringValue != nil }) else { throw .forbidden("doc.roles can only contain strings") }
        guard update.id == "org.couchdb.user:" + Self.javaScriptText(nameValue) else {
            throw .forbidden("Doc ID must be of the form org.couchdb.user:name")
        }
        // CouchDB's function fails further on a name that is not a string (500 TypeError).
        guard let name = nameValue.stringValue else { throw .forbidden("doc.name must be a string") }
        if let oldDoc, oldDoc["name"]?.stringValue != name { throw .forbidden("Usernames can not be changed.") }
        if doc["password_sha"] != nil && doc["salt"] == nil {
            throw .forbidden("Users with password_sha must have a salt.See /_utils/script/couch.js for example code.")
        }
        if let scheme = doc["password_scheme"]?.stringValue {
            guard ["simple", "pbkdf2"].contains(scheme) else {
                throw .forbidden("Password scheme `\(scheme)` not supported.")
            }
            if scheme == "pbkdf2" {
                guard doc["iterations"]?.numberValue != nil else { throw .forbidden("iterations must be a number.") }
                guard doc["derived_key"]?.stringValue != nil else { throw .forbidden("derived_key must be a string.") }
            }
        }
        try Self.reviewGrants(doc, old: oldDoc, writer: writer)
        try reviewCost(doc, old: oldDoc, isAdmin: isAdmin)
        let newRoles = list.compactMap(\.stringValue)
        if !isAdmin {
            if let oldDoc {
                guard writer?.name == name else { throw .forbidden("You may only update your own user document.") }
                let oldRoles = (oldDoc["roles"]?.arrayValue ?? []).compactMap(\.stringValue)
                guard oldRoles.sorted() == newRoles.sorted() else { throw .forbidden("Only _admin may edit roles") }
            } else if !newRoles.isEmpty {
                throw .forbidden("Only _admin may set roles")
            }
        }
        if newRoles.contains(where: { $0 != "_metrics" && $0.hasPrefix("_") }) {
            throw .forbidden("No system roles (starting with underscore) in users db.")
        }
        if name.hasPrefix("_") { throw .forbidden("Username may not start with underscore.") }
        if name.contains(":") { throw .forbidden("Character `:` is not allowed in usernames.") }
    }

    /// CouchDB's couch_users_db:before_doc_update, which runs before any validation
    /// function: a user who is not an admin writes (or deletes) only the document its id
    /// names for it, else `not_found` (404 "missing", as a read of another's document);
    /// anonymous writers (sign-up) pass on to the rules of `review`.
    static func reviewWriter(of update: DocumentUpdate) throws(WriteRejection) {
        guard let writer = WriteContext.writer, !writer.isDatabaseAdmin, let name = writer.name,
              !update.id.hasPrefix("_design/"), update.id != "org.couchdb.user:" + name else { return }
        throw .refused(status: 404, error: "not_found", reason: "missing")
    }

    /// Whether JavaScript counts `value` as true (`if (!newDoc.name)` in CouchDB's function).
    static func isTruthy(_ value: JSONValue) -> Bool {
        if value.isNull || value == false || value == "" { return false }
        if let number = value.doubleValue { return number != 0 && !number.isNaN }
        return true
    }

    /// `value` as JavaScript's `+` turns it into text: what CouchDB's function compares
    /// the document id with (`'org.couchdb.user:' + newDoc.name`).
    static func javaScriptText(_ value: JSONValue) -> String {
        if let string = value.stringValue { return string }
        if let array = value.arrayValue {
            return array.map { $0.isNull ? "" : javaScriptText($0) }.joined(separator: ",")
        }
        if value.objectValue != nil { return "[object Object]" }
        return JSONWriter.string(value)
    }

    /// A JSON value as Erlang's `~p` prints what jiffy decodes it to (`1`, `true`,
    /// `[1,<<"a">>]`, `{[{<<"k">>,1}]}`), for CouchDB's message about a bad password.
    static func erlangText(_ value: JSONValue) -> String {
        if let array = value.arrayValue { return "[" + array.map(erlangText).joined(separator: ",") + "]" }
        if let object = value.objectValue {
            return "{[" + object.map { "{<<\"\($0.key)\">>,\(erlangText($0.value))}" }.joined(separator: ",") + "]}"
        }
        if let string = value.stringValue { return "<<\"\(string)\">>" }
        return JSONWriter.string(value)
    }

    /// Refuses a `settee_pairing` member written, changed or dropped by anyone but a
    /// server admin (the node's own writes are `.system`, one).
    static func reviewGrants(_ doc: JSONObject, old: JSONObject?, writer: WriterIdentity?) throws(WriteRejection) {
        guard let writer, !writer.roles.contains("_admin") else { return }
        let member = PairingGrant.member
        guard doc[member] != old?[member] else { return }
        throw .forbidden("Only _admin may set \(member)")
    }

    /// Refuses a hash costlier than the server's own (`[chttpd_auth] iterations`) from anyone
    /// but an admin: every wrong password tried against it would cost the server as much
    /// (CouchDB's reason for `[chttpd_auth] max_iterations`, which it checks at login only).
    /// A count that did not change (a document an admin wrote) stays.
    func reviewCost(_ doc: JSONObject, old: JSONObject?, isAdmin: Bool) throws(WriteRejection) {
        guard !isAdmin, let count = doc["iterations"]?.doubleValue, count > Double(iterations),
              doc["iterations"] != old?["iterations"] else { return }
        throw .forbidden("Iteration count is too high for this server")
    }
}
