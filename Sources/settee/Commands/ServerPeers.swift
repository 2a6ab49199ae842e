/*
 `settee peers --server URL`: the room as a running server sees it (`GET /_peers`): for
 each peer its name, state, addresses, when it was last seen, and this server's
 replications with it both ways with their lag (with `topology = pull`, the way out is
 the peer's pull of this server: what its checkpoint here says). With `--watch` the list is printed
 again whenever it changes (checked every second) until interrupted.
*/
internal import ArgumentParser
internal import FoundationEssentials
internal import SetteeJSON
internal import SetteeReplicator
internal import Glibc

struct ServerPeers {
    let client: AdminClient
    let json: Bool

    /// One listing, or (watching) one per change until SIGINT/SIGTERM.
    func run(watch: Bool) async throws {
        guard watch else {
            Peers.print(try await listing())
            return
        }
        // Nothing to tidy: interrupted, the watch just ends.
        TerminationSignals.install { _ in exit(0) }
        var last = ""
        while true {
            let text = try await listing()
            if text != last {
                Peers.print(json ? text : "-- \(Date().formatted(.iso8601))\n" + text)
                last = text
            }
            try await Task.sleep(for: .seconds(1))
        }
    }

    private func listing() async throws -> String {
        let response = try await client.request("GET", "/_peers?reachable=false")
        guard response.status == 200, let body = try? JSONReader.parse(response.body) else {
            throw client.fail("\(client.base)/_peers answered \(response.status)")
        }
        if json { return String(decoding: JSONWriter.serialize(body["peers"] ?? []), as: UTF8.self) }
        guard body["enabled"] != false else { return "discovery is off on \(client.base) ([discovery] enabled)" }
        let peers = body["peers"]?.arrayValue ?? []
        return peers.isEmpty ? "no peers seen by \(client.base)" : peers.map(Self.line).joined(separator: "\n")
    }

    /// `name  state  addresses  last seen T  pull running lag 12 ms  push running`; with
    /// `topology = pull`, `push room peer pulls caught up checkpointed T` for the peer's pull.
    static func line(_ peer: JSONValue) -> String {
        var parts = [peer["instance"]?.stringValue ?? "?", peer["state"]?.stringValue ?? "?",
                     (peer["addresses"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ","),
                     "last seen " + (peer["last_seen"]?.stringValue ?? "-")]
        for replication in peer["replications"]?.arrayValue ?? [] {
            var text = "\(replication["direction"]?.stringValue ?? "?") \(replication["database"]?.stringValue ?? "?") "
                + (replication["state"]?.stringValue ?? "stopped")
            if let lag = replication["lag_ms"]?.intValue { text += " lag \(lag) ms" }
            // The peer's pull of this server (`topology = pull`): what its checkpoint here says.
            if replication["run_by"] == "peer" {
                if let behind = replication["behind"]?.intValue { text += behind == 0 ? " caught up" : " \(behind) behind" }
                if let at = replication["checkpointed_at"]?.stringValue { text += " checkpointed \(at)" }
            }
            if let error = replication["last_error"]?.stringValue { text += " (\(error))" }
            parts.append(text)
        }
        return parts.joined(separator: "  ")
    }
}
