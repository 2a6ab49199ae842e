internal import ArgumentParser
internal import FoundationEssentials
internal import Logging
internal import SetteeConfig
internal import SetteeServer
internal import SetteeStore

/// `--data-dir` and `--config` for the commands that open the data directory themselves
/// (`check`, `conflicts`), with no server running on it.
struct DataDirectoryOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Data directory (env SETTEE_DATA_DIR; default ./data).")
    var dataDir: String?

    @Option(name: .long, help: "Config file, for the data directory (env SETTEE_CONFIG).")
    var config: String?

    /// The data directory's databases, as the configuration (ini, environment, flags) names it;
    /// only errors are logged, under `label`.
    func open(label: String) throws -> (directory: DatabaseDirectory, path: String) {
        var logger = Logger(label: label)
        logger.logLevel = .error
        var settings = try SetteeConfiguration.load(overrides: ConfigOverrides(configPath: config, dataDirectory: dataDir),
                                                    environment: ProcessInfo.processInfo.environment)
        let node = try NodeSetup.nodeConfiguration(for: &settings, logger: logger)
        return (try DatabaseDirectory(configuration: node.store, logger: logger), node.store.path)
    }
}
