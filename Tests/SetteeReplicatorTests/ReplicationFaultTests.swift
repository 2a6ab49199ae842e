import Foundation
import Logging
import SetteeHTTP
import SetteeJSON
@testable import SetteeReplicator
import SetteeTestSupport
import Synchronization
import Testing

/// The replicator against peers that misbehave (`FaultyProxy` in front of a real
/// server): it retries what may pass, stops with the cause on what cannot, never
/// writes a partial document and never checkpoints past what was written.
@Suite(.serialized) struct ReplicationFaultTests {
    private let admin = SetteeProcess.defaultAdmin

    /// `a`'s `src` (300 documents and the rest of `fill`) and an empty `b`.
    private func servers() async throws -> (RemoteServer, RemoteServer) {
        let a = try RemoteServer(), b = try RemoteServer()
        try await a.fill("src", count: 300)
        return (a, b)
    }

    private func proxy(_ server: RemoteServer, _ fault: @escaping @Sendable (String, Int) -> FaultyProxy.Fault?)
        throws -> FaultyProxy {
        let url = server.process.baseURL
        let proxy = FaultyProxy(upstream: "http://127.0.0.1:\(url.port ?? 0)") { request, seen in
            fault(FaultyProxy.kind(request.rawPath), seen)
        }
        try proxy.start()
        return proxy
    }

    private func peer(_ proxy: FaultyProxy, _ db: String, timeout: Duration = .seconds(30)) throws -> RemotePeer {
        let url = proxy.base.replacingOccurrences(of: "http://", with: "http://\(admin.name):\(admin.password)@")
        return RemotePeer(endpoint: try RemoteEndpoint(url: url + "/" + db), session: CurlSession(), timeout: timeout)
    }

    private func run(_ source: any Peer, _ target: any Peer) async throws -> Replication.Outcome {
        var options = ReplicationOptions()
        options.createTarget = true
        options.batchSize = 100
        return try await Replication(source: source, target: target, options: options, logger: Logger(label: "test")).run()
    }

    /// Issue 45 item 4: an attachment download cut halfway (2.5 of its 5 MB already in a
    /// spool file) is fetched again; the target gets the whole attachment, never the
    /// half, and no spool file is left behind.
    @Test func aCutAttachmentDownloadIsFetchedAgainAndLeavesNoSpoolFile() async throws {
        let (a, b) = try await servers()
        let downloads = Counter()
        let url = a.process.baseURL
        let faulty = FaultyProxy(upstream: "http://127.0.0.1:\(url.port ?? 0)") { request, _ in
            guard request.rawPath.contains("/big.bin") else { return nil }
            return downloads.increment() == 1 ? .truncate : nil
        }
        try faulty.start()
        let spool = try TempDirectory(prefix: "fault-spool")
        defer { spool.remove() }
        let proxied = faulty.base.replacingOccurrences(of: "http://", with: "http://\(admin.name):\(admin.password)@")
        let source = RemotePeer(endpoint: try RemoteEndpoint(url: proxied + "/src"), session: CurlSession(),
                                spool: SpoolDirectory(path: spool.path))
        let outcome = try await run(source, try b.peer("dst"))
        await faulty.stop()
        #expect(downloads.value >= 2)
        #expect(outcome.stats.docWriteFailures == 0)
        #expect(try await b.pictures("dst") == (try await a.pictures("src")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty)
    }

    @Test func garbageServerErrorsAndTruncatedBodiesAreRetried() async throws {
        let (a, b) = try await servers()
        let faulty = try proxy(a) { kind, seen in
            switch (kind, seen) {
            case ("_bulk_get", 0): .garbage
            case ("_changes", 1): .status(500)
            case ("_bulk_get", 2): .truncate
            default: nil
            }
        }
        let outcome = try await run(try peer(faulty, "src"), try b.peer("dst"))
        await faulty.stop()
        #expect(outcome.stats.docWriteFailures == 0)
        #expect(faulty.count("_bulk_get") > 3)
        #expect(try await b.pictures("dst") == (try await a.pictures("src")))
    }

    /// A source without `_bulk_get` (CouchDB before 2.2): every revision comes from
    /// `open_revs` as `multipart/mixed`, attachments inside it — the 5 MB one raw, the
    /// text one gzip'd as the server stores it.
    @Test func aSourceWithoutBulkGetIsReadThroughMultipartOpenRevs() async throws {
        let (a, b) = try await servers()
        let faulty = try proxy(a) { kind, _ in kind == "_bulk_get" ? .status(404) : nil }
        let outcome = try await run(try peer(faulty, "src"), try b.peer("dst"))
        await faulty.stop()
        #expect(outcome.stats.docWriteFailures == 0)
        #expect(faulty.count("doc") > 300)
        #expect(try await b.pictures("dst") == (try await a.pictures("src")))
    }

    @Test func repeatedAndReorderedChangesRowsChangeNothing() async throws {
        let (a, b) = try await servers()
        let faulty = try proxy(a) { kind, _ in
            guard kind == "_changes" else { return nil }
            return .rewrite { answer in
                guard var object = answer as? [String: Any], let rows = object["results"] as? [Any] else { return }
                object["results"] = rows.reversed() + rows.prefix(10)
                answer = object
            }
        }
        let outcome = try await run(try peer(faulty, "src"), try b.peer("dst"))
        await faulty.stop()
        #expect(outcome.stats.docWriteFailures == 0)
        #expect(try await b.pictures("dst") == (try await a.pictures("src")))
    }

    @Test func aStalledPeerTimesOutAndIsRetried() async throws {
        let (a, b) = try await servers()
        let faulty = try proxy(a) { kind, seen in kind == "_bulk_get" && seen == 0 ? .stall : nil }
        let outcome = try await run(try peer(faulty, "src", timeout: .seconds(1)), try b.peer("dst"))
        await faulty.stop()
        #expect(outcome.stats.docWriteFailures == 0)
        #expect(try await b.pictures("dst") == (try await a.pictures("src")))
    }

    @Test func aRefusalMidwayStopsWithItsCauseAndNothingIsCheckpointedPastIt() async throws {
        let (a, b) = try await servers()
        let faulty = try proxy(b) { kind, seen in kind == "_bulk_docs" && seen == 1 ? .status(403) : nil }
        await #expect {
            _ = try await run(try a.peer("src"), try peer(faulty, "dst"))
        } throws: { error in
            guard case ReplicationError.peerError(_, 403, _, _)? = error as? ReplicationError else { return false }
            return true
        }
        await faulty.stop()
        // No checkpoint was written past the refusal (none at all inside 5 s), so
        // the next run finds every missing document again and ends complete.
        let again = try await run(try a.peer("src"), try b.peer("dst"))
        #expect(again.stats.missingFound > 0 && again.stats.docWriteFailures == 0)
        #expect(try await b.pictures("dst") == (try await a.pictures("src")))
    }

    @Test func peersAreSpokenToWithACookieSessionRenewedAfterA401() async throws {
        let (a, b) = try await servers()
        // One 401 on the cookie, as a server whose session expired answers: log in again, go on.
        let faulty = try proxy(a) { kind, seen in kind == "_bulk_get" && seen == 1 ? .status(401) : nil }
        let outcome = try await run(try peer(faulty, "src"), try b.peer("dst"))
        await faulty.stop()
        #expect(outcome.stats.docWriteFailures == 0)
        #expect(faulty.count("_session") == 2)
        #expect(try await b.pictures("dst") == (try await a.pictures("src")))
    }

    @Test func aResumedRunSendsNothingAlreadyCheckpointed() async throws {
        let (a, b) = try await servers()
        let source = try proxy(a) { _, _ in nil }, target = try proxy(b) { _, _ in nil }
        _ = try await run(try peer(source, "src"), try peer(target, "dst"))
        let before = (source.count("_bulk_get"), target.count("_revs_diff"), target.count("_bulk_docs"), target.count("PUT doc"))
        #expect(before.0 > 0 && before.2 > 0 && before.3 > 0)
        // Two more documents: the next run reads the feed from the checkpoint and sends just them.
        #expect(try await a.request("PUT", "/src/late1", json: [:]).status == 201)
        #expect(try await a.request("PUT", "/src/late2", json: [:]).status == 201)
        let again = try await run(try peer(source, "src"), try peer(target, "dst"))
        await source.stop()
        await target.stop()
        #expect(again.stats.missingChecked == 2 && again.stats.docsWritten == 2)
        #expect(source.count("_bulk_get") == before.0 + 1)
        #expect(target.count("_revs_diff") == before.1 + 1 && target.count("_bulk_docs") == before.2 + 1)
        #expect(target.count("PUT doc") == before.3)  // no multipart PUT: nothing with attachments was re-sent
    }

    @Test func aMalformedCheckpointIsNotTrusted() async throws {
        let (a, b) = try await servers()
        let first = try await run(try a.peer("src"), try b.peer("dst"))
        for server in [a, b] as [RemoteServer] {
            let db = server === a ? "src" : "dst"
            let current = try await server.request("GET", "/\(db)/_local/\(first.replicationID)").json
            #expect(try await server.request("PUT", "/\(db)/_local/\(first.replicationID)", json: [
                "_rev": current["_rev"] ?? .null, "session_id": 5, "history": "nope", "source_last_seq": ["x": 1],
            ]).status == 201)
        }
        let again = try await run(try a.peer("src"), try b.peer("dst"))
        #expect(again.stats.missingChecked >= 300 && again.stats.docsWritten == 0)
    }
}

/// Counts calls from any thread.
private final class Counter: Sendable {
    private let count = Mutex(0)
    /// - Returns: the count after this call.
    func increment() -> Int { count.withLock { $0 += 1; return $0 } }
    var value: Int { count.withLock { $0 } }
}
