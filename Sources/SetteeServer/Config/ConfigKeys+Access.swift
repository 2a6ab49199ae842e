/// The rows of `ConfigKeys` for authentication and HTTP behaviour (CouchDB 3.4.3's
/// default.ini `[chttpd_auth]`, `[chttpd_auth_lockout]`, `[chttpd]` and `[cors]`), nearly all
/// applied live, as CouchDB reads them per request.
extension ConfigKeys {
    static let auth: [ConfigKey] = [
        ConfigKey("chttpd_auth", "secret", .startOnly),
        ConfigKey("chttpd_auth", "timeout", .live, default: "600", check: positive, effect: sessionTimeout),
        ConfigKey("chttpd_auth", "allow_persistent_cookies", .live, default: "true", check: boolean) {
            $0.sessions.persistentSetting.set($1.flatMap(ConfigEffects.boolean) ?? true)
        },
        ConfigKey("chttpd_auth", "iterations", .atStart, default: "600000"),
        ConfigKey("chttpd_auth", "authentication_db", .live, default: "_users", effect: authenticationDatabase),
        ConfigKey("chttpd_auth", "password_regexp", .live, effect: passwordRequirements),
        // CouchDB 3's old name of [chttpd_auth], still read for these (couch_httpd_auth).
        ConfigKey("couch_httpd_auth", "timeout", .live, check: positive, effect: sessionTimeout),
        ConfigKey("couch_httpd_auth", "authentication_db", .live, effect: authenticationDatabase),
        ConfigKey("couch_httpd_auth", "password_regexp", .live, effect: passwordRequirements),
        ConfigKey("chttpd_auth_lockout", "mode", .live, default: "enforce", check: {
            LoginLockout.Mode(rawValue: $0) != nil ? nil : "off, warn or enforce"
        }) {
            $0.lockout.update(mode: $1.flatMap(LoginLockout.Mode.init(rawValue:)) ?? .enforce)
        },
        ConfigKey("chttpd_auth_lockout", "threshold", .live, default: "5", check: positive) {
            $0.lockout.update(threshold: $1.flatMap { Int($0) } ?? LoginLockoutConfiguration().threshold)
        },
        ConfigKey("chttpd_auth_lockout", "max_lifetime", .live, default: "300000",
                  check: atLeastZero("a number of milliseconds")) {
            $0.lockout.update(lifetime: .milliseconds($1.flatMap { Int($0) } ?? LoginLockoutConfiguration().maxLifetime))
        },
    ]

    static let http: [ConfigKey] = [
        ConfigKey("chttpd", "max_http_request_size", .atStart, default: "4294967296"),
        ConfigKey("chttpd", "x_forwarded_host", .live, default: "X-Forwarded-Host", effect: {
            $0.live.forwardedHostHeader.set($1.flatMap { $0.isEmpty ? nil : $0 } ?? "X-Forwarded-Host")
        }),
        ConfigKey("chttpd", "admin_only_all_dbs", .atStart, default: "true"),
        ConfigKey("chttpd", "require_valid_user", .live, default: "false", check: boolean) {
            $0.live.requireValidUser.set($1.flatMap(ConfigEffects.boolean) ?? false)
        },
        ConfigKey("chttpd", "require_valid_user_except_for_up", .live, default: "false", check: boolean) {
            $0.live.requireValidUserExceptForUp.set($1.flatMap(ConfigEffects.boolean) ?? false)
        },
        ConfigKey("chttpd", "decode_plus_to_space", .live, default: "true", check: boolean) {
            $0.live.decodePlusToSpace.set($1.flatMap(ConfigEffects.boolean) ?? true)
        },
        ConfigKey("chttpd", "allow_jsonp", .live, default: "false", check: boolean) {
            $0.live.allowJSONP.set($1.flatMap(ConfigEffects.boolean) ?? false)
        },
    ] + cors

    /// `[chttpd] enable_cors` and `[cors]`: one policy, replaced whole on each change.
    static let cors: [ConfigKey] = [
        ConfigKey("chttpd", "enable_cors", .live, default: "false", check: boolean) { effects, value in
            effects.updateCORS { $0.enabled = value.flatMap(ConfigEffects.boolean) ?? false }
        },
        ConfigKey("cors", "origins", .live, effect: { effects, value in
            effects.updateCORS { $0.origins = value.map(CORSPolicy.list) ?? [] }
        }),
        ConfigKey("cors", "credentials", .live, default: "false", check: boolean) { effects, value in
            effects.updateCORS { $0.credentials = value.flatMap(ConfigEffects.boolean) ?? false }
        },
        ConfigKey("cors", "methods", .live, effect: { effects, value in
            effects.updateCORS { $0.methods = value.map(CORSPolicy.list) ?? CORSPolicy.supportedMethods }
        }),
        ConfigKey("cors", "headers", .live, effect: { effects, value in
            effects.updateCORS { $0.headers = value.map { CORSPolicy.list($0).map { $0.lowercased() } } ?? CORSPolicy.supportedHeaders }
        }),
        ConfigKey("cors", "exposed_headers", .live, effect: { effects, value in
            effects.updateCORS { $0.exposedHeaders = value.map { CORSPolicy.list($0).map { $0.lowercased() } } ?? CORSPolicy.couchHeaders }
        }),
        ConfigKey("cors", "max_age", .live, default: "600", check: atLeastZero("a number of seconds")) { effects, value in
            effects.updateCORS { $0.maxAge = value ?? "600" }
        },
    ]

    // Effects shared by a key and its old name.
    private static let sessionTimeout: ConfigKey.Effect = { $0.sessions.timeoutSetting.set($1.flatMap { Int($0) } ?? 600) }
    private static let authenticationDatabase: ConfigKey.Effect = {
        $0.live.authentication.set($1.flatMap { $0.isEmpty ? nil : $0 })
    }
    private static let passwordRequirements: ConfigKey.Effect = { $0.live.authentication.passwordRequirements.set($1) }
}
