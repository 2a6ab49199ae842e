internal import ArgumentParser

/// How `settee replicate` and `settee sync` reach their peers: TLS checking for
/// URLs, and where local database names live.
struct PeerOptions: ParsableArguments {
    @Flag(help: "Do not verify TLS certificates of https peers.")
    var insecure = false

    @Option(name: .long, help: ArgumentHelp(
        "Trust exactly the https peer certificate with this SHA-256 fingerprint (hex, colons optional), as printed by a Settee at start-up.",
        valueName: "SHA256"))
    var pin: String?

    @Option(name: .customLong("data-dir"), help: "Data directory for local database names (env SETTEE_DATA_DIR; default ./data).")
    var dataDir: String?

    @Option(name: .long, help: "Config file, for the data directory and server uuid (env SETTEE_CONFIG).")
    var config: String?

    /// The same options as arguments, to hand to another command.
    var arguments: [String] {
        (insecure ? ["--insecure"] : []) + (pin.map { ["--pin", $0] } ?? []) + (dataDir.map { ["--data-dir", $0] } ?? []) + (config.map { ["--config", $0] } ?? [])
    }
}
