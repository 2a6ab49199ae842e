import Settee
import Synchronization
import Testing

@Suite struct ChangeFeedTests {
    @Test func listsChangesThenFollowsNewOnes() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            let a = try await notes.save(Note(text: "a"), id: "a")
            _ = try await notes.save(Note(text: "b"), id: "b")
            _ = try await notes.save(Note(text: "a2"), id: "a", revision: a.revision)
            var past: [String] = []
            for try await change in notes.changes(continuous: false) { past.append(change.id) }
            #expect(past == ["b", "a"])
            let feed = notes.changes(since: .now)
            let follower = Task {
                var iterator = feed.makeAsyncIterator()
                return try await iterator.next()
            }
            let c = try await notes.save(Note(text: "c"), id: "c")
            let change = try #require(try await within(.seconds(10)) { try await follower.value })
            #expect(change.id == "c" && change.revisions == [c.revision] && !change.isDeleted)
        }
    }

    @Test func cancellingAWaitingFeedEndsIt() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            _ = try await notes.save(Note(text: "a"), id: "a")
            let seen = Atomic<Int>(0)
            let feed = notes.changes()
            let task = Task {
                for try await _ in feed { seen.add(1, ordering: .relaxed) }
                return "ended"
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while seen.load(ordering: .relaxed) == 0 && ContinuousClock.now < deadline { await Task.yield() }
            #expect(seen.load(ordering: .relaxed) == 1)
            task.cancel()
            #expect(try await within(.seconds(5)) { try await task.value } == "ended")
        }
    }
}
