@testable import SetteeStore
import Testing

/// No test sleeps to synchronise: registration is observed with
/// `waitUntil(waiterCount:)`, and outcomes are awaited through tasks.
@Suite struct ChangesNotifierTests {
    @Test func returnsAtOnceWhenSequenceAlreadyPassed() async {
        let notifier = ChangesNotifier(sequence: 3)
        notifier.notify(sequence: 5)
        // The commit happened before the feed subscribed: no wake-up may be missed.
        #expect(await notifier.wait(after: 4, timeout: nil) == 5)
        #expect(await notifier.wait(after: 0, timeout: .seconds(60)) == 5)
        #expect(notifier.waiterCount == 0)
    }

    @Test func oneNotifyWakesAThousandWaiters() async {
        let notifier = ChangesNotifier(sequence: 10)
        let count = 1_000
        await withTaskGroup(of: Int64?.self) { group in
            for _ in 0..<count {
                group.addTask { await notifier.wait(after: 10, timeout: nil) }
            }
            await notifier.waitUntil(waiterCount: count)
            notifier.notify(sequence: 11)
            var results: [Int64?] = []
            for await result in group { results.append(result) }
            #expect(results.count == count)
            #expect(results.allSatisfy { $0 == 11 })
        }
        #expect(notifier.waiterCount == 0)
    }

    @Test func timeoutReturnsNilAndRemovesWaiter() async {
        let notifier = ChangesNotifier()
        #expect(await notifier.wait(after: 0, timeout: .milliseconds(20)) == nil)
        #expect(await notifier.wait(after: 0, timeout: .zero) == nil)
        #expect(notifier.waiterCount == 0)
    }

    @Test func notifyBeatsALongTimeout() async {
        let notifier = ChangesNotifier()
        async let result = notifier.wait(after: 0, timeout: .seconds(600))
        await notifier.waitUntil(waiterCount: 1)
        notifier.notify(sequence: 1)
        #expect(await result == 1)
    }

    @Test func cancellationResumesAndRemovesWaiter() async {
        let notifier = ChangesNotifier()
        let untimed = Task { await notifier.wait(after: 0, timeout: nil) }
        let timed = Task { await notifier.wait(after: 0, timeout: .seconds(600)) }
        await notifier.waitUntil(waiterCount: 2)
        untimed.cancel()
        timed.cancel()
        #expect(await untimed.value == nil)
        #expect(await timed.value == nil)
        #expect(notifier.waiterCount == 0)
    }

    @Test func alreadyCancelledTaskDoesNotRegister() async {
        let notifier = ChangesNotifier()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await notifier.wait(after: 0, timeout: nil)
        }
        #expect(await task.value == nil)
        #expect(notifier.waiterCount == 0)
    }

    @Test func waiterAheadOfSequenceStaysUntilPassed() async {
        let notifier = ChangesNotifier(sequence: 1)
        async let result = notifier.wait(after: 5, timeout: nil)
        await notifier.waitUntil(waiterCount: 1)
        notifier.notify(sequence: 3)
        #expect(notifier.waiterCount == 1)
        notifier.notify(sequence: 2)  // stale report: ignored
        #expect(notifier.sequence == 3)
        notifier.notify(sequence: 6)
        #expect(await result == 6)
    }

    /// A feed that was woken but whose task never runs again (e.g. stuck writing to a
    /// slow client) must not hold up the writer's next `notify`.
    @Test func slowSubscriberDoesNotBlockNotify() async {
        let notifier = ChangesNotifier()
        let (gate, release) = AsyncStream<Void>.makeStream()
        let slow = Task {
            _ = await notifier.wait(after: 0, timeout: nil)
            for await _ in gate { break }  // never continues until released
        }
        await notifier.waitUntil(waiterCount: 1)
        for seq in Int64(1)...1_000 { notifier.notify(sequence: seq) }
        #expect(notifier.sequence == 1_000)
        #expect(notifier.waiterCount == 0)
        release.yield()
        release.finish()
        await slow.value
    }

    @Test func concurrentNotifiesNeverLoseAWaiter() async {
        let notifier = ChangesNotifier()
        await withTaskGroup(of: Void.self) { group in
            for round in Int64(0)..<200 {
                group.addTask {
                    let seq = await notifier.wait(after: round, timeout: nil)
                    #expect((seq ?? 0) > round)
                }
                group.addTask { notifier.notify(sequence: round + 1) }
            }
        }
        #expect(notifier.waiterCount == 0)
    }

    /// The one timer must be re-armed when a waiter with an earlier deadline arrives
    /// after one with a later deadline started it (else the short wait would last 600 s).
    @Test(.timeLimit(.minutes(1))) func earlierDeadlineRearmsTheTimer() async {
        let notifier = ChangesNotifier()
        let long = Task { await notifier.wait(after: 0, timeout: .seconds(600)) }
        await notifier.waitUntil(waiterCount: 1)
        #expect(await notifier.wait(after: 0, timeout: .milliseconds(20)) == nil)
        #expect(notifier.waiterCount == 1)  // the long wait is still there
        long.cancel()
        #expect(await long.value == nil)
        #expect(notifier.waiterCount == 0)
    }

    /// Many deadlines handled by the one timer: each waiter ends, none is left behind.
    @Test(.timeLimit(.minutes(1))) func manyTimeoutsAllEnd() async {
        let notifier = ChangesNotifier()
        await withTaskGroup(of: Int64?.self) { group in
            for i in 0..<200 {
                group.addTask { await notifier.wait(after: 0, timeout: .milliseconds(5 + i % 40)) }
            }
            for await result in group { #expect(result == nil) }
        }
        #expect(notifier.waiterCount == 0)
        // The timer stopped with no waiter left, and a new deadline starts it again.
        #expect(await notifier.wait(after: 0, timeout: .milliseconds(5)) == nil)
    }

    /// A timeout that ends some waiters while a commit wakes others (more than one
    /// wake-up batch) resumes each exactly once (a double resume traps).
    @Test func timeoutsAndWakeUpsTogether() async {
        let notifier = ChangesNotifier()
        let count = ChangesNotifier.wakeBatch * 5
        await withTaskGroup(of: Int64?.self) { group in
            for i in 0..<count {
                group.addTask { await notifier.wait(after: 0, timeout: i % 2 == 0 ? .seconds(600) : .milliseconds(1)) }
            }
            notifier.notify(sequence: 1)
            var woken = 0
            for await result in group where result != nil {
                #expect(result == 1)
                woken += 1
            }
            #expect(woken >= count / 2)
        }
        #expect(notifier.waiterCount == 0)
    }

    /// Waiters queued for a later batch are woken with the newest sequence, so a feed
    /// woken late reads every change committed meanwhile in one go.
    @Test func lateBatchesGetTheNewestSequence() async {
        let notifier = ChangesNotifier()
        let count = ChangesNotifier.wakeBatch * 4
        await withTaskGroup(of: Int64?.self) { group in
            for _ in 0..<count { group.addTask { await notifier.wait(after: 0, timeout: nil) } }
            await notifier.waitUntil(waiterCount: count)
            notifier.notify(sequence: 1)
            notifier.notify(sequence: 2)
            var results: [Int64?] = []
            for await result in group { results.append(result) }
            #expect(results.count == count)
            #expect(results.allSatisfy { $0 == 1 || $0 == 2 })
            #expect(results.filter { $0 == 1 }.count <= ChangesNotifier.wakeBatch)
        }
        #expect(notifier.waiterCount == 0)
    }

    /// One commit wakes many batches of waiters while a third of them are cancelled
    /// meanwhile: every wait returns (none lost), each once (a double resume traps),
    /// with the commit's sequence unless cancelled first; the freed slots then serve a
    /// second round of waiters that a second commit wakes.
    @Test(.timeLimit(.minutes(1))) func manyWokenAtOnceSomeCancelledNoneLost() async {
        let notifier = ChangesNotifier()
        let count = ChangesNotifier.wakeBatch * 10 + 7
        for round in Int64(0)..<2 {
            let waits = (0..<count).map { _ in Task { await notifier.wait(after: round, timeout: .seconds(600)) } }
            await notifier.waitUntil(waiterCount: count)
            let cancelled = Set(stride(from: 0, to: count, by: 3))
            let canceller = Task { for index in cancelled { waits[index].cancel() } }
            notifier.notify(sequence: round + 1)
            await canceller.value
            var woken = 0
            for (index, wait) in waits.enumerated() {
                let result = await wait.value
                if result == round + 1 { woken += 1 } else { #expect(result == nil && cancelled.contains(index)) }
            }
            #expect(woken >= count - cancelled.count)
            #expect(notifier.waiterCount == 0)
        }
    }
}
