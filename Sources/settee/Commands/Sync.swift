/*
 `settee sync A B`: both ways at once — A to B and B to A, each a replication of
 its own with its own checkpoints, one-shot or --continuous. Two laptops that both
 edited end with the same documents and the same winners; with a `file://` B (a data
 directory on a USB stick), two that never share a network do, one carry at a time.
*/
internal import Glibc
internal import ArgumentParser
internal import FoundationEssentials
internal import SetteeReplicator

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replicate two databases both ways (http(s) or file:// URLs, or names in the data directory).")

    @Argument(help: "One database: an http(s) or file:// URL, or a local database name.")
    var first: String

    @Argument(help: "The other database: an http(s) or file:// URL, or a local database name.")
    var second: String

    @Flag(help: "Keep both directions going until interrupted.")
    var continuous = false

    @OptionGroup var peers: PeerOptions

    func run() async throws {
        let shared = (continuous ? ["--continuous"] : []) + peers.arguments
        let there = try Replicate.parse([first, second] + shared)
        let back = try Replicate.parse([second, first] + shared)
        signal(SIGPIPE, SIG_IGN)
        // One store open for both directions: the data directory's lock is taken once.
        let endpoints: PeerEndpoints
        do { endpoints = try there.makeEndpoints() } catch let error as ReplicationError { throw Replicate.failure(error) }
        // Neither direction creates a database: both must exist, as a sync is between two.
        let job = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await there.replicate(redrawing: false, endpoints: endpoints) }
                group.addTask { try await back.replicate(redrawing: false, endpoints: endpoints) }
                try await group.waitForAll()
            }
        }
        TerminationSignals.install { _ in job.cancel() }
        try await job.value
    }
}
