import SetteeJSON

/// A database's `_security` object and the read check CouchDB makes with it
/// (CouchDB docs › Security › Database permissions): server admins and the
/// database's admins and members may use the database; when `members` names
/// no user and no role, everyone may.
struct SecurityObject {
    let admins: Section
    let members: Section

    struct Section {
        let names: [String]
        let roles: [String]
        var isEmpty: Bool { names.isEmpty && roles.isEmpty }

        init(_ value: JSONValue?) {
            names = value?["names"]?.arrayValue?.compactMap(\.stringValue) ?? []
            roles = value?["roles"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }

        func admits(_ user: UserContext) -> Bool {
            if let name = user.name, names.contains(name) { return true }
            return user.roles.contains { roles.contains($0) }
        }
    }

    /// What CouchDB 3 gives a new database with `[couchdb] default_security = admin_only`.
    static let adminOnly: JSONValue = ["members": ["roles": ["_admin"]], "admins": ["roles": ["_admin"]]]

    init(bytes: [UInt8]) {
        let value = (try? JSONReader.parse(bytes)) ?? [:]
        admins = Section(value["admins"])
        members = Section(value["members"])
    }

    /// Throws 401 (anonymous) or 403 unless `user` may read and write this database.
    func requireMember(_ user: UserContext) throws {
        if user.isAdmin || members.isEmpty || members.admits(user) || admins.admits(user) { return }
        // CouchDB's two answers: anonymous 401 "authorized", a known user 403 "allowed".
        throw user.name == nil ? CouchError.unauthorized("You are not authorized to access this db.")
                               : CouchError(403, "forbidden", "You are not allowed to access this db.")
    }
}
