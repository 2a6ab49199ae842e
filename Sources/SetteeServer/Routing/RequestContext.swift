import Synchronization
import Logging
import SetteeHTTP
import SetteeJSON
import SetteeReplicator
import SetteeStore

/// Who is asking. Every request carries one, so authorization is a check
/// wherever it is needed (and the security work only adds rules).
struct UserContext: Sendable, Equatable {
    /// Nil for an anonymous request.
    let name: String?
    let roles: [String]
    /// A `settee pair` user's limits, checked on every database request.
    var pairing: PairingGrant? = nil

    static let anonymous = UserContext(name: nil, roles: [])
    var isAdmin: Bool { roles.contains("_admin") }
}

/// What a handler gets: the request, who sent it, the path's parameters and
/// the node's shared state.
struct RequestContext: Sendable {
    let request: HTTPRequest
    let user: UserContext
    let node: NodeState
    /// The decoded `{name}` segments of the matched route.
    let parameters: PathParameters
    let query: QueryOptions

    var logger: Logger { request.logger }
    var headers: HTTPHeaders { request.headers }

    /// The request body parsed as JSON, within the configured size and depth limits.
    /// A POST must say `Content-Type: application/json` (415 otherwise), as
    /// CouchDB's `chttpd:validate_ctype` requires of its JSON endpoints.
    func jsonBody(checkingContentType: Bool = true) async throws -> JSONValueBody {
        let bytes = try await jsonBodyBytes(checkingContentType: checkingContentType)
        return try JSONValueBody(bytes: bytes, maxDepth: node.configuration.maxJSONDepth)
    }

    /// The bytes `jsonBody` parses, after the same Content-Type and size checks, for a
    /// handler that reads them without a value tree (`_bulk_docs` with `new_edits:false`).
    func jsonBodyBytes(checkingContentType: Bool = true) async throws -> [UInt8] {
        if checkingContentType && request.method == "POST" {
            let type = (request.headers["Content-Type"] ?? "").lowercased()
            guard type.hasPrefix("application/json") else {
                throw CouchError(415, "bad_content_type", "Content-Type must be application/json")
            }
        }
        return try await request.body.collect(upTo: node.configuration.http.limits.maxBodyBytes)
    }

    /// The revision a request names outside its body: `?rev=`, else `If-Match`
    /// (its quotes removed), as CouchDB reads them for PUT, DELETE and attachments.
    /// - Throws: 400 when both are given and differ (chttpd_db:extract_header_rev/2).
    var requestedRev: String? {
        get throws {
            let etag = request.headers["If-Match"].map(DocumentHandlers.unquote)
            if let rev = query["rev"], let etag, rev != etag {
                throw CouchError.badRequest("Document rev and etag have different values")
            }
            return query["rev"] ?? etag
        }
    }

    /// A body that must be a positive integer (`_revs_limit`, `_purged_infos_limit`):
    /// 400 `bad_request` with `message` otherwise.
    func positiveIntegerBody(orThrow message: String) async throws -> Int {
        guard let value = try await jsonBody().value.intValue, value > 0 else { throw CouchError.badRequest(message) }
        return value
    }

    /// Throws 401 unless the request comes from a server admin (CouchDB answers 401
    /// to a known user too: `couch_httpd:verify_is_server_admin`).
    func requireAdmin() throws {
        guard user.isAdmin else { throw CouchError.unauthorized("You are not a server admin.") }
    }

    /// Set by the database wrapper: a server admin, or a name or role of the
    /// database's `_security.admins`.
    var isDatabaseAdmin: Bool { WriteContext.writer?.isDatabaseAdmin ?? user.isAdmin }

    /// Unless `isDatabaseAdmin`: "You are not a db or server admin.", 401 to anonymous
    /// and 403 to a known user (couch_db:check_is_admin).
    func requireDatabaseAdmin() throws {
        guard !isDatabaseAdmin else { return }
        let reason = "You are not a db or server admin."
        throw user.name == nil ? CouchError.unauthorized(reason) : CouchError(403, "forbidden", reason)
    }
}

/// The state every handler shares. A class: every request's context holds it, and
/// copying the struct it was retained each of the configuration's strings and
/// collections (a tenth of a `GET`'s reference counting).
final class NodeState: Sendable {
    let configuration: NodeConfiguration
    let directory: DatabaseDirectory
    let authenticator: Authenticator
    /// Shared encodings of `_changes` feed lines, and how many feeds stream.
    let changesHub = ChangesHub()
    /// Client connections open on the node's listeners (`_system`'s `open_connections`).
    let connections = ConnectionCount()
    /// Replications: `_replicate` jobs and `_replicator` documents.
    let replications: ReplicationManager
    /// DNS-SD publishing, browsing and `[discovery] sync`, when `[discovery] enabled`.
    let discovery: NodeDiscovery?
    /// Settings the config API changes while running.
    let live: LiveSettings
    /// `/_node/_local/_config`.
    let config: NodeConfig
    /// `/_node/_local/_stats` and `_prometheus`.
    let stats = NodeStats()
    /// The HTTPS port bound at start (`[ssl] port` may be 0), shown in `GET /` for `settee pair`.
    let boundTLSPort = Mutex<Int?>(nil)
    /// Where every design document function runs (`JavaScriptService`).
    let javaScript: JavaScriptService

    init(configuration: NodeConfiguration, directory: DatabaseDirectory, authenticator: Authenticator,
         live: LiveSettings, javaScript: JavaScriptService, logger: Logger = Logger(label: "settee.replicator")) {
        self.configuration = configuration
        self.directory = directory
        self.authenticator = authenticator
        self.live = live
        self.javaScript = javaScript
        // A deleted key goes back to CouchDB's default, the one table's (ConfigKeys).
        let effects = ConfigEffects(live: live, lockout: authenticator.lockout, sessions: authenticator.sessions,
                                    setLogLevel: configuration.setLogLevel,
                                    passwordIterations: configuration.passwordIterations,
                                    javaScriptLimits: javaScript.limits)
        // What the file and the environment say takes effect now, by the same rows of the
        // table as a `_config` change ([uuids], [chttpd] require_valid_user...).
        for setting in configuration.configSettings where setting.section != "admins" {
            if (try? effects.validate(section: setting.section, key: setting.key, value: setting.value)) != nil {
                effects.apply(section: setting.section, key: setting.key, value: setting.value)
            }
        }
        config = NodeConfig(settings: configuration.configSettings, overrides: configuration.configOverrides,
                            persistence: configuration.configPersistence, effects: effects)
        replications = ReplicationManager(directory: directory, serverUUID: configuration.uuid,
                                          maxDocumentSize: configuration.maxDocumentSize, logger: logger,
                                          filters: ReplicationFilters(service: javaScript))
        discovery = configuration.discovery.enabled
            ? NodeDiscovery(configuration: configuration.discovery, uuid: configuration.uuid, directory: directory,
                            replications: replications, logger: Logger(label: "settee.discovery"))
            : nil
    }
}
