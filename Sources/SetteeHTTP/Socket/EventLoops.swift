internal import Glibc
internal import Synchronization

/*
 EventLoops: a server's event loops, one per two cores by default (`ServerConfiguration.
 eventLoops`). Since a loop's thread also runs its connections' light requests
 (`LoopJobs`), one loop puts all of that work on one thread: fewest hand-offs and
 wake-ups (two loops on 2 cores measured no lower in server CPU a document `GET` than
 the pool, one loop lower: bench/RESULTS.md "One thread fewer on a GET's path"), but
 at most one core's worth of light requests, and a smaller share of a contended
 machine than more threads get.
 One loop per two cores leaves the other cores to the readers, the writers, the pool
 and the client on the same machine. Connections are dealt out in turn; listeners sit
 on the first loop.
 */

/// The event loops of one server, started together and dealt out to connections in turn.
final class EventLoops: Sendable {
    let all: [EventLoop]
    private let dealt = Atomic<Int>(0)

    /// Creates and starts `count` loops (at least one); none stays running on failure.
    init(count: Int) throws(HTTPError) {
        var loops: [EventLoop] = []
        do throws(HTTPError) {
            for _ in 0..<max(1, count) {
                let loop = try EventLoop()
                try loop.start()
                loops.append(loop)
            }
        } catch {
            loops.forEach { $0.stop() }
            throw error
        }
        all = loops
    }

    /// The loop for listeners.
    var first: EventLoop { all[0] }

    /// The loop for the next connection.
    func next() -> EventLoop {
        all[dealt.wrappingAdd(1, ordering: .relaxed).oldValue % all.count]
    }

    func stop() { all.forEach { $0.stop() } }

    /// One per two cores the process may run on, at least one.
    static var byDefault: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) / 2) }
}
