import Dispatch
import Glibc
import Synchronization
import Testing
@testable import SetteeStore

/// The read thread takes reads offered while it is free, and sleeps once it has looked
/// for the next one for its spin (`ReadThread`).
@Suite struct ReadThreadTests {
    /// The first offer wakes the sleeping thread; one made while the thread still looks
    /// for the next read is taken with no wake-up. (A spin of 30 s: looking for sure.)
    @Test func anOfferWhileTheThreadLooksNeedsNoWake() async {
        let thread = ReadThread(spin: .seconds(30))
        #expect(await Self.runs(on: thread))
        #expect(thread.takenAsleep.load(ordering: .relaxed) == 1)
        for _ in 0..<3 { #expect(await Self.runs(on: thread)) }
        #expect(thread.takenAsleep.load(ordering: .relaxed) == 1)
        #expect(thread.takenLooking.load(ordering: .relaxed) == 3)
    }

    /// An offer while the thread runs a read is refused, so the caller runs it on the
    /// reader's queue instead: the thread never queues reads behind a long one.
    @Test func aBusyThreadRefusesOffers() async {
        let thread = ReadThread(spin: .seconds(30))
        let began = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        #expect(thread.offer { began.signal(); release.wait() })
        await withCheckedContinuation { c in DispatchQueue.global().async { began.wait(); c.resume() } }
        #expect(!thread.offer {})
        release.signal()
        #expect(await Self.runs(on: thread, retrying: true))
    }

    /// Right after a read went to a busy reader's queue (reads in parallel), offers are
    /// declined, so many clients' reads stay on the readers' queues.
    @Test func offersAreDeclinedRightAfterAParallelRead() async {
        let thread = ReadThread(spin: .seconds(30), parallelHold: .seconds(60))
        #expect(await Self.runs(on: thread))
        thread.noteParallelRead()
        #expect(!thread.offer {})
    }

    /// Once its spin has passed with no offer the thread sleeps (an idle server spins
    /// nowhere), and the next offer wakes it.
    @Test func theThreadSleepsOnceItsSpinPasses() async {
        let thread = ReadThread(spin: .milliseconds(1))
        #expect(await Self.runs(on: thread))
        let deadline = ContinuousClock.now + .seconds(20)
        while !thread.isAsleep, ContinuousClock.now < deadline { await Task.yield() }
        #expect(thread.isAsleep)
        #expect(await Self.runs(on: thread))
        #expect(thread.takenAsleep.load(ordering: .relaxed) == 2)
    }

    /// Offers a read that reports whether it ran off the caller's thread; with `retrying`,
    /// offers again while the thread is still finishing the read before.
    private static func runs(on thread: ReadThread, retrying: Bool = false) async -> Bool {
        let caller = pthread_self()
        return await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            let read: @Sendable () -> Void = { c.resume(returning: pthread_equal(pthread_self(), caller) == 0) }
            while !thread.offer(read) {
                guard retrying else { return c.resume(returning: false) }
            }
        }
    }
}
