/*
 `settee replicate SOURCE TARGET`: one replication from the command line, with
 the engine the server's `_replicate` uses. SOURCE and TARGET are database URLs
 (credentials in the userinfo) or names of databases in the data directory.

 One-shot runs until the target has everything the source had when it started;
 --continuous follows the source until SIGINT/SIGTERM. On a terminal a progress
 line is redrawn as it goes; otherwise one summary line is printed at the end.
 A failure prints its cause and exits with status 1.
*/
internal import Glibc
internal import ArgumentParser
internal import FoundationEssentials
internal import Logging
internal import SetteeConfig
internal import SetteeJSON
internal import SetteeReplicator
internal import SetteeServer
internal import SetteeStore

struct Replicate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replicate a database to another (http(s) or file:// URLs, or names in the data directory).",
        discussion: """
            SOURCE and TARGET are http(s) URLs of databases (http://user:pass@host:5984/db), \
            file:// URLs of databases in another data directory or a backup on this machine \
            (file:///media/stick/carry/db, for carrying changes on a USB stick), or names of \
            databases in --data-dir. A data directory a running server has open is refused: \
            replicate through that server's URL instead.
            """)

    @Argument(help: "Database to read from: an http(s) or file:// URL, or a local database name.")
    var source: String

    @Argument(help: "Database to write to: an http(s) or file:// URL, or a local database name.")
    var target: String

    @Flag(help: "Keep following the source's changes until interrupted.")
    var continuous = false

    @Flag(name: .customLong("create-target"), help: "Create the target database if it does not exist.")
    var createTarget = false

    @Option(name: .customLong("doc-ids"), help: "Replicate only these documents (comma-separated ids).")
    var docIDs: String?

    @Option(help: "Replicate only documents matching this Mango selector (JSON).")
    var selector: String?

    @Option(help: "Replicate only documents the source's filter function DDOC/NAME passes.")
    var filter: String?

    @Option(name: .customLong("query-params"), help: "The filter function's req.query (a JSON object).")
    var queryParams: String?

    @Option(name: .customLong("since-seq"), help: "Start from this source sequence instead of the checkpoint.")
    var sinceSeq: String?

    @Option(name: .customLong("batch-size"), help: "Changes per batch (default 1000).")
    var batchSize: Int = 1000

    @Option(help: "Chunks of 100 revisions copied at once.")
    var workers: Int = ReplicationOptions.defaultWorkers

    @Flag(name: .customLong("no-checkpoints"), help: "Neither read nor write checkpoints.")
    var noCheckpoints = false

    @OptionGroup var peers: PeerOptions

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be positive") }
        guard workers > 0 else { throw ValidationError("--workers must be positive") }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let job = Task { try await replicate(redrawing: true) }
        TerminationSignals.install { _ in job.cancel() }
        try await job.value
    }

    /// The replication; a cancelled continuous one ends normally with its summary.
    /// `redrawing` false: no live progress line (`settee sync` runs two at once).
    /// `shared`: endpoints another replication of this process made (`settee sync`'s two
    /// share one, and so the data directory's lock).
    func replicate(redrawing: Bool, endpoints shared: PeerEndpoints? = nil) async throws {
        var logger = Logger(label: "settee.replicate")
        logger.logLevel = .error
        var options = ReplicationOptions()
        options.continuous = continuous
        options.createTarget = createTarget
        options.docIDs = docIDs.map { $0.split(separator: ",").map { String($0) } }
        options.sinceSeq = sinceSeq
        if let selector {
            guard let value = try? JSONReader.parse(Array(selector.utf8)), value.objectValue != nil else {
                throw Self.failure(ReplicationError.invalidOption("--selector must be a JSON object"))
            }
            options.selector = value
        }
        if let filter {
            guard filter.split(separator: "/", omittingEmptySubsequences: false).count == 2 else {
                throw Self.failure(ReplicationError.invalidOption("--filter must be DDOC/NAME"))
            }
            options.filterFunction = filter
            if let queryParams {
                guard let value = try? JSONReader.parse(Array(queryParams.utf8)), let object = value.objectValue else {
                    throw Self.failure(ReplicationError.invalidOption("--query-params must be a JSON object"))
                }
                options.queryParameters = object
            }
        }
        options.batchSize = batchSize
        options.workers = workers
        options.useCheckpoints = !noCheckpoints
        let endpoints = try shared ?? makeEndpoints()
        let replication: Replication
        do {
            replication = Replication(source: try endpoints.peer(source, pin: peers.pin),
                                      target: try endpoints.peer(target, pin: peers.pin, mayCreate: createTarget),
                                      options: options, logger: logger)
        } catch let error as ReplicationError {
            throw Self.failure(error)
        }
        let started = ContinuousClock.now
        let progress = ProgressLine(replication: replication, started: started, isTerminal: redrawing && ProgressLine.stdoutIsTerminal)
        let drawing = Task { await progress.redraw() }
        defer { drawing.cancel() }
        do {
            // Whoever runs the command owns the data directory: its local writes are the node's own.
            let outcome = try await WriteContext.$writer.withValue(.system) { try await replication.run() }
            drawing.cancel()
            progress.finish("replicated \(replication.source.displayName) → \(replication.target.displayName): "
                + progress.figures(outcome.stats) + ", source seq \(Self.text(outcome.sourceLastSeq))")
        } catch where continuous && Self.isCancellation(error) {
            drawing.cancel()
            progress.finish("stopped following \(replication.source.displayName): " + progress.figures(replication.progress.stats))
        } catch {
            drawing.cancel()
            progress.clear()
            throw Self.failure(error)
        }
    }

    /// The store, opened only when an endpoint is a local name, under the data directory's
    /// lock (the one `settee serve` takes): a server running on it would be a second writer.
    /// `file://` endpoints (sneakernet) open their own directory, under its lock.
    func makeEndpoints() throws -> PeerEndpoints {
        var logger = Logger(label: "settee.replicate")
        logger.logLevel = .error
        let session = CurlSession(maxConnections: CurlSession.connectionsPerReplication, verifyTLS: !peers.insecure)
        let isLocal = { (text: String) in
            !["http://", "https://", "file://"].contains { text.lowercased().hasPrefix($0) }
        }
        guard isLocal(source) || isLocal(target) else {
            // A file:// source runs its filter functions here, as a local one does.
            let hasFile = FileEndpoint.isFileURL(source) || FileEndpoint.isFileURL(target)
            return PeerEndpoints(directory: nil, serverUUID: "", session: session,
                                 filters: hasFile ? ReplicationFilters() : nil, allowsFiles: true)
        }
        var settings = try SetteeConfiguration.load(overrides: ConfigOverrides(configPath: peers.config, dataDirectory: peers.dataDir),
                                                    environment: ProcessInfo.processInfo.environment)
        let node = try NodeSetup.nodeConfiguration(for: &settings, logger: logger)
        let lock = try DataDirectoryOptions.lock(node.store.path, command: "settee replicate")
        let directory = try DatabaseDirectory(configuration: node.store, logger: logger)
        return PeerEndpoints(directory: directory, serverUUID: node.uuid, session: session,
                             maxDocumentSize: node.maxDocumentSize, filters: ReplicationFilters(),
                             allowsFiles: true, directoryLock: lock)
    }

    /// How an interrupted continuous run ends: the task's cancellation, or a transfer it cut.
    static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? ReplicationError) == .cancelled
    }

    static func failure(_ error: any Error) -> any Error {
        let message = (error as? ReplicationError)?.description ?? String(describing: error)
        StandardStreams.error("settee replicate: \(message)\n")
        return ExitCode.failure
    }

    static func text(_ seq: JSONValue) -> String { seq.stringValue ?? String(decoding: JSONWriter.serialize(seq), as: UTF8.self) }
}
