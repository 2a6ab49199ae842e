import Settee
import Testing

@Suite struct ListenerTests {
    /// A peer's write over HTTP lands in the program's open database and wakes its change feed.
    @Test func aPeersWriteOverHTTPWakesTheProgramsFeed() async throws {
        var options = DataDirectory.Options()
        options.admins = ["admin": "secret"]
        try await withDataDirectory(options: options) { server in
            let inbox = try await server.database("inbox")
            let listener = try await server.startListener()
            #expect(listener.port > 0 && !listener.isPublished)
            let feed = inbox.changes(since: .now)
            let watcher = Task {
                var iterator = feed.makeAsyncIterator()
                return try await iterator.next()?.id
            }
            try await withDataDirectory { peer in
                let outbox = try await peer.database("outbox")
                _ = try await outbox.save(Note(text: "over the wire"), id: "sent")
                let push = Replicator(outbox, peer: .url("http://admin:secret@127.0.0.1:\(listener.port)/inbox"),
                                      direction: .push)
                push.start()
                guard case .stopped(_, nil) = await push.finished() else {
                    Issue.record("push failed: \(push.status)")
                    return
                }
            }
            #expect(try await within(.seconds(10)) { try await watcher.value } == "sent")
            #expect(try await inbox.document(Note.self, id: "sent")?.value.text == "over the wire")
            await listener.stop()
        }
    }

    /// A peer without credentials is nobody: new databases admit admins only, so its
    /// push stops with an error and writes nothing.
    @Test func anAnonymousPeerIsNotAnAdmin() async throws {
        var options = DataDirectory.Options()
        options.admins = ["admin": "secret"]
        try await withDataDirectory(options: options) { server in
            let inbox = try await server.database("inbox")
            let listener = try await server.startListener()
            try await withDataDirectory { peer in
                let outbox = try await peer.database("outbox")
                _ = try await outbox.save(Note(text: "sneaky"), id: "x")
                let push = Replicator(outbox, peer: .url("http://127.0.0.1:\(listener.port)/inbox"), direction: .push)
                push.start()
                let status = await push.finished()
                guard case .stopped(_, let error) = status else {
                    Issue.record("not stopped: \(status)")
                    return
                }
                #expect(error != nil)
            }
            #expect(try await inbox.info().documentCount == 0)
            await listener.stop()
        }
    }
}
