import Foundation
import Logging
import SetteeConfig
import SetteeServer
import SetteeTestSupport
import Testing

@Suite struct SetteeConfigurationTests {
    @Test func defaults() throws {
        let config = try SetteeConfiguration.load(overrides: ConfigOverrides(), environment: [:])
        #expect(config.bindAddresses == ["127.0.0.1"])
        #expect(config.port == 5984)
        #expect(config.dataDirectory == "./data")
        #expect(config.logLevel == .info)
        #expect(!config.hasAdmin)
        #expect(config.warnings.isEmpty)
    }

    @Test func flagBeatsEnvironmentBeatsFileBeatsDefault() throws {
        let dir = try TempDirectory(prefix: "config")
        let path = dir.appending("settee.ini")
        try "[chttpd]\nport = 7000\nbind_address = 127.0.0.2\n[couchdb]\ndatabase_dir = /from/ini\n[log]\nlevel = debug\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let env = ["SETTEE_CONFIG": path, "SETTEE_PORT": "7001", "SETTEE_DATA_DIR": "/from/env"]
        let config = try SetteeConfiguration.load(overrides: ConfigOverrides(port: 7002), environment: env)
        #expect(config.port == 7002)
        #expect(config.dataDirectory == "/from/env")
        #expect(config.bindAddresses == ["127.0.0.2"])
        #expect(config.logLevel == .debug)
        let noFlag = try SetteeConfiguration.load(overrides: ConfigOverrides(), environment: env)
        #expect(noFlag.port == 7001)
    }

    @Test func aContainerReadsItsAdminFromASecretFileAndLogsToStdout() throws {
        let dir = try TempDirectory(prefix: "config-secret")
        let secret = dir.appending("admin")
        try "keeper:s3cret:with:colons\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let config = try SetteeConfiguration.load(
            overrides: ConfigOverrides(), environment: ["SETTEE_ADMIN_FILE": secret, "SETTEE_LOG_STREAM": "stdout"])
        #expect(config.environmentAdmin?.name == "keeper" && config.environmentAdmin?.password == "s3cret:with:colons")
        #expect(config.logToStandardOutput)
        // SETTEE_ADMIN wins over the file; an unreadable file or a bad stream is an error.
        let both = try SetteeConfiguration.load(
            overrides: ConfigOverrides(), environment: ["SETTEE_ADMIN": "a:b", "SETTEE_ADMIN_FILE": secret])
        #expect(both.environmentAdmin?.name == "a")
        #expect(throws: ConfigError.self) {
            try SetteeConfiguration.load(overrides: ConfigOverrides(), environment: ["SETTEE_ADMIN_FILE": dir.appending("none")])
        }
        #expect(throws: ConfigError.self) {
            try SetteeConfiguration.load(overrides: ConfigOverrides(), environment: ["SETTEE_LOG_STREAM": "syslog"])
        }
    }

    @Test func warnsOncePerUnknownSetting() throws {
        var config = SetteeConfiguration()
        try config.apply(INIFile(text: "[chttpd]\nport = 1\nfoo = 1\n[nope]\nbar = 2\n", source: "x.ini"))
        #expect(config.warnings == ["x.ini:3: unknown setting [chttpd] foo, ignored",
                                    "x.ini:5: unknown setting [nope] bar, ignored"])
    }

    @Test func readerMmapSizeTakesBytesOrZero() throws {
        var config = SetteeConfiguration()
        try config.apply(INIFile(text: "[settee]\nreader_mmap_size = 0\n", source: "f"))
        #expect(config.readerMmapSize == 0)
        #expect(config.warnings.isEmpty)
        #expect(throws: ConfigError.invalidValue(origin: "f:2", value: "-1", expected: "a number of bytes (0: off)")) {
            var config = SetteeConfiguration()
            try config.apply(INIFile(text: "[settee]\nreader_mmap_size = -1\n", source: "f"))
        }
    }

    @Test func maxDatabasesOpenTakesAPositiveCount() throws {
        var config = SetteeConfiguration()
        try config.apply(INIFile(text: "[couchdb]\nmax_dbs_open = 20\n", source: "f"))
        #expect(config.maxOpenDatabases == 20)
        #expect(config.warnings.isEmpty)
        #expect(throws: ConfigError.invalidValue(origin: "f:2", value: "0", expected: "a number of databases, at least 1")) {
            var config = SetteeConfiguration()
            try config.apply(INIFile(text: "[couchdb]\nmax_dbs_open = 0\n", source: "f"))
        }
    }

    @Test func rejectsBadValuesWithTheirOrigin() {
        #expect(throws: ConfigError.invalidValue(origin: "f:2", value: "http", expected: "a port 0-65535")) {
            var config = SetteeConfiguration()
            try config.apply(INIFile(text: "[chttpd]\nport = http\n", source: "f"))
        }
        #expect(throws: ConfigError.self) {
            try SetteeConfiguration.load(overrides: ConfigOverrides(), environment: ["SETTEE_ADMIN": "nocolon"])
        }
    }

    @Test(arguments: [("127.0.0.1", true), ("127.1.2.3", true), ("::1", true), ("[::1]", true),
                      ("0:0:0:0:0:0:0:1", true), ("localhost", true), ("0.0.0.0", false), ("::", false),
                      ("192.168.1.2", false), ("128.0.0.1", false), ("example.org", false)])
    func loopbackAddresses(address: String, isLoopback: Bool) {
        #expect(LoopbackAddress.isLoopback(address) == isLoopback)
    }

    @Test func publicBindNeedsAnAdmin() throws {
        var config = try SetteeConfiguration.load(overrides: ConfigOverrides(bindAddress: "0.0.0.0"), environment: [:])
        #expect(throws: ConfigError.adminRequired(addresses: ["0.0.0.0"])) { try config.checkBindSafety() }
        config.environmentAdmin = (name: "admin", password: "pw")
        try config.checkBindSafety()
    }

    @Test func hashesPlainAdminsAndRewritesTheFile() throws {
        let dir = try TempDirectory(prefix: "admins")
        let path = dir.appending("settee.ini")
        try "; mine\n[admins]\nalice = wonderland\n".write(toFile: path, atomically: true, encoding: .utf8)
        var config = try SetteeConfiguration.load(
            overrides: ConfigOverrides(configPath: path, dataDirectory: dir.appending("data")),
            environment: ["SETTEE_ADMIN": "bob:b:c"])
        let node = try NodeSetup.nodeConfiguration(for: &config, logger: Logger(label: "test"))
        let alice = try #require(node.admins["alice"])
        #expect(PasswordHash.verify(password: "wonderland", against: alice))
        // SETTEE_ADMIN's hash is not derived at start (EnvironmentAdmin): it is when first needed.
        let bob = try #require(node.environmentAdmins["bob"])
        #expect(node.admins["bob"] == nil && bob.knownHash == nil && bob.isGivenPassword("b:c"))
        #expect(PasswordHash.verify(password: "b:c", against: bob.derivedHash()))
        let rewritten = try String(contentsOfFile: path, encoding: .utf8)
        #expect(rewritten == "; mine\n[admins]\nalice = \(alice)\n")
        #expect(!rewritten.contains("bob"))
    }

    @Test func uuidIsGeneratedOnceThenKept() throws {
        let dir = try TempDirectory(prefix: "uuid")
        let data = dir.appending("nested/data")
        let first = try NodeSetup.resolveUUID(configured: nil, dataDirectory: data)
        #expect(first.count == 32 && first.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(try NodeSetup.resolveUUID(configured: nil, dataDirectory: data) == first)
        #expect(try NodeSetup.resolveUUID(configured: "fixed", dataDirectory: data) == "fixed")
    }

    /// `[discovery] topology`: mesh by default, pull or hub when asked, anything else refused with the line.
    @Test func discoveryTopologyIsMeshPullOrHub() throws {
        let dir = try TempDirectory(prefix: "config-topology")
        let path = dir.appending("settee.ini")
        #expect(try SetteeConfiguration.load(overrides: ConfigOverrides(), environment: [:]).discovery.topology == .mesh)
        try "[discovery]\ntopology = hub\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try SetteeConfiguration.load(overrides: ConfigOverrides(configPath: path), environment: [:]).discovery.topology == .hub)
        try "[discovery]\ntopology = pull\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try SetteeConfiguration.load(overrides: ConfigOverrides(configPath: path), environment: [:]).discovery.topology == .pull)
        try "[discovery]\ntopology = star\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) {
            try SetteeConfiguration.load(overrides: ConfigOverrides(configPath: path), environment: [:])
        }
    }
}
