internal import ArgumentParser

/// The `settee` command: a CouchDB-compatible server in one binary.
@main
struct Settee: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settee",
        abstract: "A CouchDB-compatible database server.",
        subcommands: [Serve.self, Replicate.self, Sync.self, Peers.self, Pair.self, Check.self, Conflicts.self, Backup.self,
                      Restore.self],
        defaultSubcommand: Serve.self)
}
