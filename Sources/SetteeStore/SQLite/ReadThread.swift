internal import Glibc
internal import Synchronization

/*
 ReadThread: one dedicated thread that runs a read offered to it while its reader is
 idle, and after each read keeps looking for the next one for a few tens of
 microseconds before it sleeps.

 Why: with one client every request is serial, and each read handed to a reader's
 dispatch queue woke a sleeping libdispatch worker (`sem_post`, a futex wake). On
 this VM the guest halts an idle vCPU at once (`guest_halt_poll_ns` is 0), so waking
 a thread there is an IPI through the hypervisor: tens of µs of a point query's
 round trip (bench/RESULTS.md, "One hop fewer …"). A thread that is still looking
 when the next read comes takes it with no system call and no wake-up.

 What it runs: a read whose reader has nothing queued or running (`ReaderPool.read`
 asks), on that reader's own serial queue (`DispatchQueue.sync`), so a reader's
 connection still serves one block at a time and its async work (snapshot
 releases, closes) orders with the read as before. It never queues: an offer while
 it is busy is refused and the read goes to the reader's queue as it always did, so
 a long scan here holds back no other read, and many clients keep every reader
 thread they had. SQLite still runs on no cooperative-pool thread and on no event
 loop (STYLE rule 17).

 States (`state`), and who moves them:

   looking ──offer: CAS──► claimed ──offer stores the read──► handed ──thread──► running
      ▲  │                    ▲                                                    │
      │  └─thread: no offer within `spin`, CAS──► asleep ──offer: CAS, sem_post─────┘ (to claimed)
      └──────────────────────────────────── thread, after the read ────────────────┘

 An offer wins only by a compare-exchange from `looking` or `asleep`, so one read at
 a time is handed; only the winner from `asleep` posts the semaphore, and the thread
 waits on it only after its own CAS to `asleep`: every post meets one wait.

 Idle cost: none. The thread sleeps in `sem_wait` once `spin` has passed with no
 offer, and spins again only after a read: an idle server does not spin, and a read
 now and then costs at most one `spin` of CPU after it.
 */

/// The dedicated thread that takes reads offered while their reader is idle (see above).
final class ReadThread: @unchecked Sendable {
    // @unchecked: `semaphore` is a C semaphore used only through sem_post/sem_wait,
    // and `slot` is guarded by its Mutex.
    private enum State {
        static let looking = 0, asleep = 1, claimed = 2, handed = 3, running = 4
    }

    /// The one thread of the process, started at its first offer.
    static let shared = ReadThread(spin: ReadThread.defaultSpin)

    /// The longest the thread looks for the next read after one before it sleeps: more
    /// than a quiet machine's one-client round trip leaves between two reads (the answer
    /// rendered and sent, the client's next request read and parsed: 50–100 µs), so
    /// one client's serial reads are caught (bench/RESULTS.md, "One hop fewer …").
    static let defaultSpin: Duration = .microseconds(150)

    private let state = Atomic<Int>(State.asleep)
    private let slot = Mutex<(@Sendable () -> Void)?>(nil)
    private let semaphore: UnsafeMutablePointer<sem_t>
    /// Only the thread reads and updates it.
    private var window: SpinWindow
    /// Whether an offer was refused during the last read (only the thread uses it).
    private var isParallel = false
    private let isStarted = Atomic<Bool>(false)
    /// Offers refused because the thread was busy, and reads queued on a busy reader
    /// (`noteParallelRead`): reads in parallel, not one client's serial stream; the
    /// thread then sleeps after its read instead of spinning.
    private let refusals = Atomic<Int>(0)
    /// When a read was last noted parallel (monotonic ns), and how long offers are declined after.
    private let lastParallel = Atomic<UInt64>(0)
    private let parallelHoldNanoseconds: UInt64
    /// Reads taken while the thread was looking, and after it slept (for tests).
    let takenLooking = Atomic<Int>(0)
    let takenAsleep = Atomic<Int>(0)

    /// After a read noted parallel, how long offers are declined, so that with many
    /// clients reads stay on the readers' queues and never alternate between this thread
    /// and a reader's worker on one queue (document GETs at 32 connections fell 3–20 %).
    static let defaultParallelHold: Duration = .milliseconds(1)

    /// - Parameter parallelHold: how long offers are declined after a read noted parallel.
    init(spin: Duration, parallelHold: Duration = ReadThread.defaultParallelHold) {
        parallelHoldNanoseconds = Self.nanoseconds(parallelHold)
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
        window = SpinWindow(limit: Self.nanoseconds(spin))
    }

    /// Whether the thread sleeps (for tests: it must once `spin` has passed with no offer).
    var isAsleep: Bool { state.load(ordering: .acquiring) == State.asleep }

    /// Hands `read` to the thread if it is free (looking or asleep); false when it is
    /// busy, and the caller runs the read elsewhere.
    func offer(_ read: @escaping @Sendable () -> Void) -> Bool {
        if lastParallel.load(ordering: .relaxed) != 0,
           Self.now() &- lastParallel.load(ordering: .relaxed) < parallelHoldNanoseconds { return false }
        startIfNeeded()
        var wasAsleep = false
        if state.compareExchange(expected: State.looking, desired: State.claimed, ordering: .acquiringAndReleasing).exchanged {
            wasAsleep = false
        } else if state.compareExchange(expected: State.asleep, desired: State.claimed, ordering: .acquiringAndReleasing).exchanged {
            wasAsleep = true
        } else {
            refusals.add(1, ordering: .relaxed)
            return false
        }
        slot.withLock { $0 = read }
        state.store(State.handed, ordering: .releasing)
        if wasAsleep {
            takenAsleep.add(1, ordering: .relaxed)
            sem_post(semaphore)
        } else {
            takenLooking.add(1, ordering: .relaxed)
        }
        return true
    }

    /// Tells the thread a read went to a busy reader's queue: reads run in parallel, so
    /// after its read the thread sleeps instead of spinning (the spin is for one
    /// client's serial reads; with many, it would only take CPU from them).
    func noteParallelRead() {
        refusals.add(1, ordering: .relaxed)
        lastParallel.store(Self.now(), ordering: .relaxed)
    }

    private func startIfNeeded() {
        guard !isStarted.load(ordering: .acquiring),
              !isStarted.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let context = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<ReadThread>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        precondition(rc == 0, "pthread_create failed for the read thread: \(rc)")
        pthread_detach(tid)
    }

    private func run() {
        while true {
            waitForHanded()
            state.store(State.running, ordering: .relaxed)
            let read = slot.withLock { slot in
                defer { slot = nil }
                return slot
            }
            let refusedBefore = refusals.load(ordering: .relaxed)
            read?()
            isParallel = refusals.load(ordering: .relaxed) != refusedBefore
            state.store(State.looking, ordering: .releasing)
        }
    }

    /// Returns once a read is handed: spins while looking, for at most the window,
    /// then sleeps until an offer posts the semaphore; the gap adapts the window.
    private func waitForHanded() {
        let began = Self.now()
        let deadline = isParallel ? began : began &+ window.current
        let refusedBefore = refusals.load(ordering: .relaxed)
        var spins = 0
        while true {
            let current = state.load(ordering: .acquiring)
            if current == State.handed {
                window.record(gap: Self.now() &- began)
                return
            }
            if current == State.asleep {
                // Set by this thread (or the initial state): an offer moves it on and posts.
                while sem_wait(semaphore) != 0 {}  // EINTR only
                continue
            }
            if current == State.looking, spins & 31 == 0,
               Self.now() >= deadline || refusals.load(ordering: .relaxed) != refusedBefore {
                _ = state.compareExchange(expected: State.looking, desired: State.asleep, ordering: .acquiringAndReleasing)
                continue
            }
            spins &+= 1
            // Not a bare pause loop: on 2 cores the loop and the client must run
            // beside this thread, and a yield lets a thread woken on its core run at
            // once (with PAUSE alone the window collapsed under load: bench/RESULTS.md).
            sched_yield()
        }
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
