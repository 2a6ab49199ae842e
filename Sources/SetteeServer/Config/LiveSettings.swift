import Synchronization

/// A value the config API changes while requests read it.
final class LiveValue<Value: Sendable>: Sendable {
    private let current: Mutex<Value>
    init(_ value: Value) { current = Mutex(value) }
    var value: Value { current.withLock { $0 } }
    func set(_ value: Value) { current.withLock { $0 = value } }
}

/// `[admins]`: name → password hash. The admins of the ini file change over the config
/// API; the one from `SETTEE_ADMIN` stays whatever the file says, and its hash may not be
/// derived yet (`EnvironmentAdmin`).
final class AdminTable: Sendable {
    /// How an admin is known: by the file's hash, or as `SETTEE_ADMIN` gave it.
    enum Stored {
        case hash(String)
        case environment(EnvironmentAdmin)
    }

    private let table: Mutex<(file: [String: String], environment: [String: EnvironmentAdmin])>

    init(file: [String: String], environment: [String: EnvironmentAdmin] = [:]) {
        table = Mutex((file, environment))
    }

    func stored(_ name: String) -> Stored? {
        table.withLock { table in
            if let admin = table.environment[name] { return .environment(admin) }
            return table.file[name].map { .hash($0) }
        }
    }

    func contains(_ name: String) -> Bool { stored(name) != nil }

    /// What a login proven for `name` is remembered against (`CredentialCache`): its hash,
    /// or for `SETTEE_ADMIN` a token of its entry (remembering never derives its hash).
    func proofKey(_ name: String) -> String? {
        switch stored(name) {
        case .hash(let hash)?: hash
        case .environment(let admin)?: admin.proofKey
        case nil: nil
        }
    }

    var isEmpty: Bool { table.withLock { $0.file.isEmpty && $0.environment.isEmpty } }

    func set(_ name: String, hash: String?) { table.withLock { $0.file[name] = hash } }
    func replaceFileAdmins(_ admins: [String: String]) { table.withLock { $0.file = admins } }
}

/// The settings CouchDB applies the moment `/_node/_local/_config` changes them, read
/// by requests from here rather than from the start-up `NodeConfiguration`.
final class LiveSettings: Sendable {
    /// `[couchdb] max_document_size`.
    let maxDocumentSize: LiveValue<Int>
    /// `[chttpd] require_valid_user`: anonymous requests get 401; and
    /// `require_valid_user_except_for_up`, the same but for `GET /_up`.
    let requireValidUser = LiveValue(false)
    let requireValidUserExceptForUp = LiveValue(false)
    /// `[chttpd] decode_plus_to_space`: `+` in a query string or a path is a space.
    let decodePlusToSpace = LiveValue(true)
    /// `PUT /_reshard/state`: whether resharding is "running" or "stopped", and why.
    let reshardState = LiveValue<(state: String, reason: String?)>((state: "running", reason: nil))
    /// `[uuids]`, and `max_count`: the most ids one `GET /_uuids` may ask for.
    let uuids = UUIDGenerator()
    let uuidsMaxCount = LiveValue(1000)
    /// `[chttpd] enable_cors` and `[cors]`.
    let cors = LiveValue(CORSPolicy())
    let admins: AdminTable
    /// `[chttpd] x_forwarded_host`: the header a proxy names the original host in.
    let forwardedHostHeader: LiveValue<String>
    /// `[chttpd] allow_jsonp`: `?callback=` wraps JSON answers (`JSONP`).
    let allowJSONP = LiveValue(false)
    /// `[chttpd_auth] authentication_db`.
    let authentication: AuthenticationDatabase

    init(_ configuration: NodeConfiguration, authentication: AuthenticationDatabase = AuthenticationDatabase()) {
        self.authentication = authentication
        forwardedHostHeader = LiveValue(configuration.forwardedHostHeader)
        maxDocumentSize = LiveValue(configuration.maxDocumentSize)
        admins = AdminTable(file: configuration.admins.filter { configuration.environmentAdmins[$0.key] == nil },
                            environment: configuration.environmentAdmins)
    }

    /// As CouchDB's `chttpd_auth:party_mode_handler`: an anonymous request is refused
    /// under `require_valid_user`, but a login (`POST /_session`) never is, and `/_up`
    /// only when `require_valid_user_except_for_up` is not what asked.
    /// - Throws: 401 "Authentication required." with a Basic challenge.
    func admitAnonymous(method: String, path: [String]) throws {
        let required: Bool
        if method == "POST" && path == ["_session"] {
            required = false
        } else if path == ["_up"] {
            required = requireValidUser.value && !requireValidUserExceptForUp.value
        } else {
            required = requireValidUser.value || requireValidUserExceptForUp.value
        }
        if required {
            throw CouchError(401, "unauthorized", "Authentication required.",
                             headers: [("WWW-Authenticate", "Basic realm=\"server\"")])
        }
    }
}
