import Foundation
import Settee
import Testing

@Suite struct ReplicatorTests {
    static func fill(_ database: Database, count: Int, prefix: String = "d") async throws {
        let changes = (0..<count).map { DocumentChange(id: "\(prefix)\($0)", value: Note(text: "\(prefix) \($0)")) }
        for result in try await database.saveAll(changes) { _ = try result.get() }
    }

    @Test func aOneShotPushBetweenLocalDatabasesCopiesEverythingAndStops() async throws {
        try await withDataDirectory { data in
            let source = try await data.database("source")
            let target = try await data.database("target")
            try await Self.fill(source, count: 30)
            let replicator = Replicator(source, peer: .database(target), direction: .push)
            let updates = replicator.statusUpdates()
            replicator.start()
            var last: ReplicatorStatus?
            for await status in updates { last = status }
            #expect(last?.isStopped == true)
            guard case .stopped(let progress, let error)? = last else { return }
            #expect(error == nil && progress.documentsWritten == 30)
            #expect(try await target.info().documentCount == 30)
            #expect(try await target.document(Note.self, id: "d7")?.value.text == "d 7")
        }
    }

    /// Another program's listener, over HTTP with credentials: a continuous pull follows
    /// its new writes; stopping ends the status sequence.
    @Test func aContinuousPullFromAListenerFollowsNewWrites() async throws {
        var serverOptions = DataDirectory.Options()
        serverOptions.admins = ["admin": "secret"]
        try await withDataDirectory(options: serverOptions) { server in
            let shared = try await server.database("shared")
            try await Self.fill(shared, count: 5)
            let listener = try await server.startListener()
            try await withDataDirectory { client in
                let local = try await client.database("local")
                let url = "http://admin:secret@127.0.0.1:\(listener.port)/shared"
                let replicator = Replicator(local, peer: .url(url), direction: .pull, continuous: true)
                replicator.start()
                let arrived = local.changes()
                let watcher = Task {
                    var ids: Set<String> = []
                    for try await change in arrived {
                        ids.insert(change.id)
                        if ids.count == 6 { break }
                    }
                    return ids
                }
                _ = try await shared.save(Note(text: "late"), id: "late")
                let ids = try await within(.seconds(30)) { try await watcher.value }
                #expect(ids.contains("late") && ids.count == 6)
                await replicator.stop()
                #expect(replicator.status.isStopped)
                #expect(replicator.status.progress.documentsWritten >= 6)
            }
            await listener.stop()
        }
    }

    @Test func anUnreachablePeerIsReportedAndStopEndsIt() async throws {
        try await withDataDirectory { data in
            let local = try await data.database("local")
            // Port 9 (discard) on loopback: nothing listens there.
            let replicator = Replicator(local, peer: .url("http://127.0.0.1:9/nothing"), direction: .pull)
            let updates = replicator.statusUpdates()
            replicator.start()
            let watcher = Task {
                var seen: [ReplicatorStatus] = []
                for await status in updates {
                    seen.append(status)
                    if case .offline = status { break }
                    if status.isStopped { break }
                }
                return seen
            }
            let seen = try await within(.seconds(30)) { await watcher.value }
            #expect(seen.contains { if case .offline = $0 { true } else { $0.isStopped } })
            await replicator.stop()
            #expect(replicator.status.isStopped)
        }
    }

    @Test func cancellingTheStatusSequenceEndsIt() async throws {
        try await withDataDirectory { data in
            let a = try await data.database("a")
            let b = try await data.database("b")
            let replicator = Replicator(a, peer: .database(b), direction: .pushAndPull, continuous: true)
            replicator.start()
            let task = Task {
                for await _ in replicator.statusUpdates() {}
                return "ended"
            }
            task.cancel()
            #expect(try await within(.seconds(5)) { await task.value } == "ended")
            await replicator.stop()
        }
    }

    /// Push to Apache CouchDB and pull back into another embedded database, where
    /// `COUCHDB_URL` (with admin credentials) is set.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["COUCHDB_URL"] != nil))
    func replicatesWithApacheCouchDB() async throws {
        let base = try #require(ProcessInfo.processInfo.environment["COUCHDB_URL"])
        let url = base.trimmingCharacters(in: ["/"]) + "/settee-lib-" + UUID().uuidString.lowercased()
        defer { Self.deleteRemote(url) }
        try await withDataDirectory { data in
            let source = try await data.database("source")
            try await Self.fill(source, count: 20)
            let saved = try await source.putAttachment(Data("hello".utf8), named: "a.txt", contentType: "text/plain",
                                                       documentID: "d0", revision: source.document(Note.self, id: "d0")?.revision)
            let push = Replicator(source, peer: .url(url), direction: .push, createTarget: true)
            push.start()
            guard case .stopped(let pushed, nil) = await push.finished() else {
                Issue.record("push failed: \(push.status)")
                return
            }
            #expect(pushed.documentsWritten == 20)
            let copy = try await data.database("copy")
            let pull = Replicator(copy, peer: .url(url), direction: .pull)
            pull.start()
            guard case .stopped(_, nil) = await pull.finished() else {
                Issue.record("pull failed: \(pull.status)")
                return
            }
            #expect(try await copy.info().documentCount == 20)
            #expect(try await copy.document(Note.self, id: "d0")?.revision == saved)
            #expect(try await copy.attachment(named: "a.txt", documentID: "d0") == Data("hello".utf8))
        }
    }

    static func deleteRemote(_ url: String) {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "-o", "/dev/null", "-X", "DELETE", url]
        try? curl.run()
        curl.waitUntilExit()
    }

    /// A `_merge` policy by line id (`_design/lines`), as two programs write it: the same
    /// policy, written apart, so the design document itself ends up in conflict.
    struct LinePolicy: Codable, Sendable {
        struct Conflicts: Codable, Sendable {
            var policy = "_merge", key = "id"
            var order: String?
        }
        var conflicts: Conflicts
    }
    struct Line: Codable, Sendable, Equatable { var id: String; var text: String }
    struct Lines: Codable, Sendable { var lines: [Line] }

    /// Edits made apart on two directories merge by the policy once replicated, even while
    /// the policy's design document is in conflict too (before, the resolver spun on that
    /// conflicted design document and dropped the queued documents: nothing merged).
    @Test func editsMadeApartMergeWhileThePolicyDocumentIsInConflict() async throws {
        try await withDataDirectory { a in
            try await withDataDirectory { b in
                let left = try await a.database("notes"), right = try await b.database("notes")
                _ = try await left.save(LinePolicy(conflicts: .init()), id: "_design/lines")
                _ = try await right.save(LinePolicy(conflicts: .init(order: "id")), id: "_design/lines")
                var note = try await left.save(Lines(lines: [Line(id: "0", text: "first")]), id: "n")
                let sync = { () async -> ReplicatorStatus in
                    let replicator = Replicator(left, peer: .database(right), direction: .pushAndPull)
                    replicator.start()
                    return await replicator.finished()
                }
                _ = await sync()
                var other = try #require(try await right.document(Lines.self, id: "n"))
                note.value.lines.append(Line(id: "a", text: "from a"))
                other.value.lines.append(Line(id: "b", text: "from b"))
                _ = try await left.save(note)
                _ = try await right.save(other)
                _ = await sync()
                let everyLine = [Line(id: "0", text: "first"), Line(id: "a", text: "from a"), Line(id: "b", text: "from b")]
                let merged = try await within(.seconds(20)) {
                    while true {
                        // In id order: which of the two declarations wins decides the merged order.
                        let onLeft = try await left.document(Lines.self, id: "n")?.value.lines.sorted { $0.id < $1.id }
                        let onRight = try await right.document(Lines.self, id: "n")?.value.lines.sorted { $0.id < $1.id }
                        if onLeft == everyLine && onRight == everyLine { return true }
                        try await Task.sleep(for: .milliseconds(20))  // between polls of the resolved state
                    }
                }
                #expect(merged)
            }
        }
    }
}
