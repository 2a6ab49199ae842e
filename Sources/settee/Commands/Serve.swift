/*
 `settee serve`: load the configuration, refuse unsafe set-ups before binding, start
 the node, print one `Settee listening on http://ADDR:PORT/` line per listener (tests
 and scripts parse it), then run until SIGINT/SIGTERM.

 Signals reach the shutdown through `TerminationSignals` (a handler that writes to a
 pipe, read by a thread): a handler may only call async-signal-safe functions, while
 shutting down awaits in-flight writes.
*/
internal import Glibc
internal import ArgumentParser
internal import FoundationEssentials
internal import Synchronization
internal import Logging
internal import SetteeConfig
internal import SetteeHTTP
internal import SetteeServer
internal import SetteeStore
internal import Settee

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server (the default command).",
        discussion: """
            Settings come from, highest precedence first: these flags, the environment \
            (SETTEE_PORT, SETTEE_BIND, SETTEE_DATA_DIR, SETTEE_LOG_LEVEL, SETTEE_CONFIG, \
            SETTEE_ADMIN=name:password), the ini file, built-in defaults \
            (127.0.0.1:5984, data in ./data).
            """)

    @Option(name: .long, help: "Config file in CouchDB local.ini style (env SETTEE_CONFIG).")
    var config: String?

    @Option(name: .long, help: "TCP port; 0 picks a free one (env SETTEE_PORT; default 5984).")
    var port: Int?

    @Option(name: .long, help: "Address(es) to listen on, comma-separated (env SETTEE_BIND; default 127.0.0.1).")
    var bind: String?

    @Option(name: .customLong("data-dir"), help: "Data directory (env SETTEE_DATA_DIR; default ./data).")
    var dataDir: String?

    @Option(name: .customLong("log-level"), help: "debug, info, notice, warning, error or critical.")
    var logLevel: String?

    func run() async throws {
        // avahi prints a warning per process otherwise. Set here, before anything starts a
        // thread, not where discovery starts: setenv is unsafe beside a thread reading the
        // environment (a test process spawning settee crashed in Process.run that way).
        setenv("AVAHI_COMPAT_NOWARN", "1", 0)
        // Before threads allocate too: the arenas they would make stay once made (MallocArenas).
        MallocArenas.capAtStart(environment: ProcessInfo.processInfo.environment)
        let flags = ConfigOverrides(configPath: config, port: port, bindAddress: bind,
                                    dataDirectory: dataDir, logLevel: logLevel)
        var settings = try SetteeConfiguration.load(overrides: flags, environment: ProcessInfo.processInfo.environment)
        if settings.logToStandardOutput { LogSink.shared.descriptor.store(1, ordering: .relaxed) }
        let logger = Self.makeLogger(level: settings.logLevel)
        for warning in settings.warnings { logger.warning("\(warning)") }
        // Before anything binds: an admin-less server on a public address is an open door.
        try settings.checkBindSafety()
        try settings.checkListeners()
        var nodeConfiguration = try NodeSetup.nodeConfiguration(for: &settings, logger: logger)
        nodeConfiguration.setLogLevel = { LineLogHandler.setLevel(couchName: $0) }
        // Before any database or socket opens: the caps must fit the descriptors there are.
        DescriptorBudget.fit(&nodeConfiguration, limit: DescriptorBudget.raiseLimit(logger: logger), logger: logger)
        if nodeConfiguration.admins.isEmpty && nodeConfiguration.environmentAdmins.isEmpty {
            // CouchDB 3 refuses to start without an admin; Settee serves loopback, but
            // creating a database needs an admin, so say how to add one.
            logger.warning("no admin configured: creating databases needs one; start with SETTEE_ADMIN=name:password or add it under [admins]")
        }
        // One process per data directory: another `settee serve` or a program embedding
        // Settee keeps it until it exits (issue 43). Opened as a program opens one.
        let data = try Self.openDataDirectory(nodeConfiguration, logger: logger)
        defer { withExtendedLifetime(data) {} }
        let node = data.node
        try await node.prepare()
        Self.handleTerminationSignals(node: node, logger: logger)
        let ports = try node.start()
        Self.announce(addresses: nodeConfiguration.http.bindAddresses, ports: ports)
        if let port = node.metricsPort, let metrics = nodeConfiguration.metricsListener {
            let host = metrics.address.contains(":") ? "[\(metrics.address)]" : metrics.address
            StandardStreams.output("Settee metrics on http://\(host):\(port)/_node/_local/_prometheus\n")
        }
        if let tls = nodeConfiguration.http.tls {
            Self.announce(addresses: nodeConfiguration.http.bindAddresses, ports: node.tlsPorts, scheme: "https")
            StandardStreams.output("TLS certificate SHA-256 fingerprint: \(tls.context.fingerprint)\n")
        }
        await node.run()
        logger.info("stopped")
        LogSink.shared.flush()
    }

    /// The data directory, locked, with its node; or exit 1 with who holds it.
    static func openDataDirectory(_ configuration: NodeConfiguration, logger: Logger) throws -> DataDirectory {
        do {
            return try DataDirectory(serving: configuration, logger: logger)
        } catch StoreError.directoryLocked(let path) {
            StandardStreams.error("settee: the data directory \(path) is in use by another process "
                                  + "(settee serve or a program embedding Settee)\n")
            throw ExitCode.failure
        }
    }

    static func makeLogger(level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { label in LineLogHandler(label: label) }
        var logger = Logger(label: "settee")
        logger.logLevel = level
        return logger
    }

    /// Prints `Settee listening on http://ADDR:PORT/` for each listener, unbuffered.
    static func announce(addresses: [String], ports: [Int], scheme: String = "http") {
        for (index, port) in ports.enumerated() {
            let address = addresses.isEmpty ? "127.0.0.1" : addresses[min(index, addresses.count - 1)]
            // RFC 3986 §3.2.2: an IPv6 literal in a URL goes in brackets.
            let host = address.contains(":") && !address.hasPrefix("[") ? "[\(address)]" : address
            let line = "Settee listening on \(scheme)://\(host):\(port)/\n"
            StandardStreams.output(line)
        }
    }

    /// Turns SIGINT/SIGTERM into `node.shutdown()`, after which `run()` returns and the process exits 0. SIGPIPE is
    /// ignored so a client that hangs up mid-response cannot kill the server.
    static func handleTerminationSignals(node: SetteeNode, logger: Logger) {
        signal(SIGPIPE, SIG_IGN)
        TerminationSignals.install { number in
            logger.notice("signal received, shutting down", metadata: ["signal": "\(number)"])
            // One way out: shutdown() lets `node.run()` in `run()` return, and main
            // returns 0. (Calling exit() here too raced main's own exit and could hang.)
            Task { await node.shutdown() }
        }
    }
}
