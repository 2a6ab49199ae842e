import SetteeJSON

/// A database's `_security` object and the read check CouchDB makes with it
/// (CouchDB docs › Security › Database permissions): server admins and the
/// database's admins and members may use the database; when `members` names
/// no user and no role, everyone may. `readers` (CouchDB 1.0's name) stands for
/// `members` when that is absent, as in CouchDB 3.4.3's `couch_db:get_members/1`.
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
        // `readers` is CouchDB 1.0's name for members, still read when there is no `members`.
        members = Section(value["members"] ?? value["readers"])
    }

    /// CouchDB's `couch_db:validate_security_object/1`: `admins` and `members` (or
    /// `readers` in its place) must be objects whose `names` and `roles`, where given, are
    /// lists of strings; other members are kept as they are.
    /// - Returns: why `object` is refused, in CouchDB's words; nil when it is fine.
    static func refusal(_ object: JSONObject) -> String? {
        for section in [object["admins"], object["members"] ?? object["readers"]] {
            guard let section else { continue }
            guard let fields = section.objectValue else { return "admins or members must be a JSON list of strings" }
            for key in ["names", "roles"] {
                guard let list = fields[key] else { continue }
                guard list.arrayValue?.allSatisfy({ $0.stringValue != nil }) ?? false else {
                    return "\(key) must be a JSON list of strings"
                }
            }
        }
        return nil
    }

    /// Throws 401 (anonymous) or 403 unless `user` may read and write this database.
    func requireMember(_ user: UserContext) throws {
        if user.isAdmin || members.isEmpty || members.admits(user) || admins.admits(user) { return }
        // CouchDB's two answers: anonymous 401 "authorized", a known user 403 "allowed".
        throw user.name == nil ? CouchError.unauthorized("You are not authorized to access this db.")
                               : CouchError(403, "forbidden", "You are not allowed to access this db.")
    }
}
