internal import ArgumentParser

/// How `settee replicate` and `settee sync` reach their peers: TLS checking for
/// URLs, and where local database names live.
struct PeerOptions: ParsableArguments {
    @Flag(help: "Do not verify TLS certificates of https peers.")
    var insecure = false

    @Option(name: .customLong("data-dir"), help: "Data directory for local database names (env SETTEE_DATA_DIR; default ./data).")
    var dataDir: String?

    @Option(name: .long, help: "Config file, for the data directory and server uuid (env SETTEE_CONFIG).")
    var config: String?

    /// The same options as arguments, to hand to another command.
    var arguments: [String] {
        (insecure ? ["--insecure"] : []) + (dataDir.map { ["--data-dir", $0] } ?? []) + (config.map { ["--config", $0] } ?? [])
    }
}
