import SetteeJSON

/// What a pairing user (`settee pair`) may do, from the `settee_pairing` member of its
/// `_users` document: one database, until `expires`, from at most `uses` client
/// addresses (each address that logs in takes one use and keeps it), and with
/// `writeOnly` only the writes a push replication makes. Server admins write it;
/// the pairing user can never reach `_users` to change it (it may use one database).
struct PairingGrant: Sendable, Equatable {
    static let member = "settee_pairing"

    let database: String
    /// Seconds since the epoch.
    let expires: Int
    let uses: Int
    let writeOnly: Bool
    /// The client addresses (no port) that have taken a use.
    let clients: [String]

    init(database: String, expires: Int, uses: Int, writeOnly: Bool, clients: [String] = []) {
        self.database = database
        self.expires = expires
        self.uses = uses
        self.writeOnly = writeOnly
        self.clients = clients
    }

    /// A document's grant; nil when the member is absent. A malformed member is a
    /// grant to nothing (an expired one), never an unrestricted user.
    init?(_ value: JSONValue?) {
        guard let value, value != .null else { return nil }
        guard let database = value["db"]?.stringValue, let expires = value["expires"]?.intValue,
              let uses = value["uses"]?.intValue else {
            self.init(database: "", expires: 0, uses: 0, writeOnly: true)
            return
        }
        self.init(database: database, expires: expires, uses: uses, writeOnly: value["write_only"]?.boolValue ?? true,
                  clients: value["clients"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    var json: JSONValue {
        ["db": .string(database), "expires": .int(expires), "uses": .int(uses), "write_only": .bool(writeOnly),
         "clients": .array(clients.map { .string($0) })]
    }

    func isExpired(now: Int) -> Bool { now >= expires }
}
