internal import Dispatch
internal import FoundationEssentials
#if canImport(Glibc)
internal import Glibc
#endif

/// Delivers SIGINT and SIGTERM to a Swift closure without ever losing one.
///
/// Why not `DispatchSource.makeSignalSource`: on Linux it reads a signalfd, which
/// sees a signal only if every thread blocks it, while the disposition must be
/// SIG_IGN so the default action does not kill the process. A thread created
/// before the source (the cooperative pool starts before `main` runs) does not
/// block it, so the kernel could deliver SIGTERM there and discard it: `settee`
/// then ignored the signal and ran on (seen once in the test suite, 2026-11-23). A handler is
/// process-wide, so here it does the one async-signal-safe thing, a `write(2)` of
/// the signal number to a pipe, and a dedicated thread reads the pipe and calls
/// `onSignal`, which may then do anything (log, await the shutdown).
enum TerminationSignals {
    /// The pipe's write end, read by the handler: a plain global, set once before
    /// the handler is installed.
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1

    static func install(_ signals: [Int32] = [SIGINT, SIGTERM], onSignal: @escaping @Sendable (Int32) -> Void) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { preconditionFailure("pipe() failed: errno \(errno)") }
        let readEnd = ends[0]
        pipeWriteEnd = ends[1]
        // Blocks in read(2) for the process's life: a queue of its own gives it a thread.
        DispatchQueue(label: "settee-signals").async {
            var number: Int32 = 0
            while true {
                let count = withUnsafeMutableBytes(of: &number) { read(readEnd, $0.baseAddress, $0.count) }
                if count == MemoryLayout<Int32>.size { onSignal(number) } else if count < 0 && errno == EINTR { continue } else { return }
            }
        }
        for number in signals {
            signal(number) { received in
                var number = received
                // An Int32 is far below PIPE_BUF, so the write is atomic.
                _ = withUnsafeBytes(of: &number) { write(TerminationSignals.pipeWriteEnd, $0.baseAddress, $0.count) }
            }
        }
    }
}
