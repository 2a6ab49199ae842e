import Foundation
import Settee
import Synchronization
import Testing

@Suite struct LiveQueryTests {
    /// The first page, then one page per write that changes the results; the time from a
    /// save's return to its page arriving is the notification latency (issue 43: 5 ms).
    /// The figure is printed; the assertion is loose because `make test` runs every suite
    /// at once in this process on 2 shared cores (a 130 ms median was seen that way, 1–8 ms
    /// alone; bench/library measures it on its own). A lost notification fails it: each
    /// page must come, and the whole run must end within its time limit.
    @Test func yieldsNewResultsSoonAfterEachWrite() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            let live = notes.liveQuery(Note.self, Query(Selector.field("priority") > 0, limit: 1_000))
            let (pages, continuation) = AsyncStream.makeStream(of: (count: Int, at: ContinuousClock.Instant).self)
            let watcher = Task {
                for try await page in live { continuation.yield((page.documents.count, .now)) }
                continuation.finish()
            }
            defer { watcher.cancel() }
            let latencies = try await within(.seconds(120)) {
                var arrivals = pages.makeAsyncIterator()
                #expect(await arrivals.next()?.count == 0)
                // A write the query does not select yields nothing; the next one does.
                _ = try await notes.save(Note(text: "ignored", priority: 0), id: "zero")
                var latencies: [Duration] = []
                for number in 1...20 {
                    _ = try await notes.save(Note(text: "n", priority: number), id: "n\(number)")
                    let saved = ContinuousClock.now
                    let page = try #require(await arrivals.next())
                    #expect(page.count == number)
                    latencies.append(max(.zero, page.at - saved))
                }
                return latencies.sorted()
            }
            let median = latencies[latencies.count / 2]
            print("live query notification after save returned: median \(median), max \(latencies[latencies.count - 1])")
            #expect(median < .milliseconds(500))
        }
    }

    @Test func cancellingTheIteratingTaskEndsTheSequence() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            let received = Atomic<Int>(0)
            let live = notes.liveQuery(Note.self, Query(.all))
            let task = Task {
                for try await _ in live { received.add(1, ordering: .relaxed) }
                return "ended"
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while received.load(ordering: .relaxed) == 0 && ContinuousClock.now < deadline { await Task.yield() }
            #expect(received.load(ordering: .relaxed) == 1)
            task.cancel()
            #expect(try await within(.seconds(5)) { try await task.value } == "ended")
        }
    }
}

@Suite struct LiveQueryCloseTests {
    /// A live query waiting for writes ends with `.closed` when its directory closes,
    /// instead of waiting forever.
    @Test func closingTheDirectoryEndsAWaitingLiveQuery() async throws {
        let scratch = ScratchDirectory()
        defer { scratch.remove() }
        let data = try DataDirectory(path: scratch.path)
        let notes = try await data.database("notes")
        let received = Atomic<Int>(0)
        let live = notes.liveQuery(Note.self, Query(.all))
        let task = Task { () -> SetteeError? in
            do {
                for try await _ in live { received.add(1, ordering: .relaxed) }
                return nil
            } catch let error as SetteeError {
                return error
            } catch {
                return .storage(code: -1, message: "\(error)")
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while received.load(ordering: .relaxed) == 0 && ContinuousClock.now < deadline { await Task.yield() }
        await data.close()
        // On time-out the live query is cancelled, so a hang fails the test instead of hanging it.
        let ended = try? await within(.seconds(10)) {
            await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        }
        #expect(ended == .closed)
    }
}
