internal import ArgumentParser
internal import FoundationEssentials
internal import Logging
internal import SetteeConfig
internal import SetteeServer
internal import SetteeStore

/// `--data-dir` and `--config` for the commands that open the data directory themselves
/// (`check`, `conflicts`, `backup`, `restore`), with no server running on it.
struct DataDirectoryOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Data directory (env SETTEE_DATA_DIR; default ./data).")
    var dataDir: String?

    @Option(name: .long, help: "Config file, for the data directory (env SETTEE_CONFIG).")
    var config: String?

    /// The data directory's databases, as the configuration (ini, environment, flags) names it;
    /// only errors are logged, under `label`. With `locking`, the directory's lock is taken
    /// first (and must be kept while the directory is used), or the command exits 1 saying
    /// who holds it (`DataDirectoryOptions.lock`).
    func open(label: String, locking: Bool = false)
        throws -> (directory: DatabaseDirectory, path: String, lock: DataDirectoryLock?) {
        var logger = Logger(label: label)
        logger.logLevel = .error
        var settings = try SetteeConfiguration.load(overrides: ConfigOverrides(configPath: config, dataDirectory: dataDir),
                                                    environment: ProcessInfo.processInfo.environment)
        let node = try NodeSetup.nodeConfiguration(for: &settings, logger: logger)
        let lock = locking ? try Self.lock(node.store.path, command: label.replacing("settee.", with: "settee ")) : nil
        return (try DatabaseDirectory(configuration: node.store, logger: logger), node.store.path, lock)
    }

    /// The data directory's `DataDirectoryLock` (the one `settee serve` holds while it runs),
    /// or exit 1 saying a server has the directory open: two processes writing one
    /// directory's databases, each with its own caches and notifier, would not stay sound.
    static func lock(_ path: String, command: String) throws -> DataDirectoryLock {
        do {
            try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return try DataDirectoryLock(directory: path)
        } catch .directoryLocked(let path) {
            StandardStreams.error("\(command): the data directory \(path) is in use by another process "
                                  + "(settee serve or a program embedding Settee): stop it first, or go through "
                                  + "its URL\n")
            throw ExitCode.failure
        } catch {
            StandardStreams.error("\(command): \(error)\n")
            throw ExitCode.failure
        }
    }
}
