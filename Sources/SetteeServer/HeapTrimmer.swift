internal import Dispatch
import SetteeViews

/*
 glibc gives each thread that allocates under contention an arena of its own (up to eight
 per core) and keeps what is freed there for reuse: a device of a room of 20, after a burst
 of 4,000 documents through its 38 replications, held 25 MB in 15 arenas, 11 MB of it free
 (malloc_trim(0) from a debugger took its anonymous RSS from 31 to 20 MB). So every `interval`
 the free pages go back to the system, on a queue of their own (malloc_trim takes the arenas'
 locks for a few milliseconds: not the cooperative pool's work). A heap with nothing free
 costs a walk of its bins.
 */

/// Returns the malloc heap's free pages to the system every `interval`, from its creation
/// until `stop()`.
final class HeapTrimmer: @unchecked Sendable {
    // @unchecked: a dispatch source may be cancelled from any thread.
    static let interval: DispatchTimeInterval = .seconds(30)
    private let timer: any DispatchSourceTimer

    init(interval: DispatchTimeInterval = HeapTrimmer.interval,
         trim: @escaping @Sendable () -> Void = { ProcessHeap.returnFreedMemory() }) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "settee.heap-trimmer", qos: .utility))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(1))
        timer.setEventHandler(handler: trim)
        timer.resume()  // never released suspended: libdispatch traps on that
    }

    func stop() { timer.cancel() }

    deinit { timer.cancel() }
}
