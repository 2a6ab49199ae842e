import SetteeStore
import Testing

@Suite struct DatabaseUpdatesTests {
    @Test func recordsInOrderAndResumesFromASequence() {
        let log = DatabaseUpdates(capacity: 10)
        #expect(log.record(.created, databaseName: "a") == 1)
        log.record(.updated, databaseName: "a")
        log.record(.deleted, databaseName: "b")
        let page = log.updates(after: 1)
        #expect(page.updates.map(\.seq) == [2, 3])
        #expect(page.updates.map(\.kind) == [.updated, .deleted])
        #expect(page.lastSeq == 3)
        #expect(page.isComplete)
        #expect(log.updates(after: 3) == DatabaseUpdates.Page(updates: [], lastSeq: 3, isComplete: true))
        #expect(log.updates(after: 0, limit: 1).updates.map(\.databaseName) == ["a"])
    }

    @Test func historyIsBoundedAndReportsWhatWasDropped() {
        let log = DatabaseUpdates(capacity: 3)
        for i in 0..<50 { log.record(.updated, databaseName: "db\(i)") }
        let page = log.updates(after: 0)
        #expect(page.updates.map(\.seq) == [48, 49, 50])
        #expect(!page.isComplete)
        #expect(log.updates(after: 47).isComplete)
    }

    @Test func recordWakesWaitingFeeds() async {
        let log = DatabaseUpdates()
        async let woken = log.wait(after: 0, timeout: nil)
        await log.waitUntil(waiterCount: 1)
        log.record(.created, databaseName: "x")
        #expect(await woken == 1)
        #expect(await log.wait(after: 1, timeout: .milliseconds(10)) == nil)
    }
}
