internal import Glibc
internal import FoundationEssentials
internal import SetteeReplicator

/// `settee replicate`'s output: on a terminal a line redrawn in place twice a
/// second (documents read and written, failures, rate, whether caught up);
/// otherwise nothing until the one summary line.
struct ProgressLine: Sendable {
    let replication: Replication
    let started: ContinuousClock.Instant
    let isTerminal: Bool

    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    func redraw() async {
        guard isTerminal else { return }
        while !Task.isCancelled {
            let progress = replication.progress
            let state = progress.lastError.map { "retrying: \($0)" } ?? (progress.caughtUp ? "caught up" : "copying")
            write("\r\u{1B}[K" + figures(progress.stats) + " — " + state)
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    /// `N read, M written, F failed, R docs/s`.
    func figures(_ stats: ReplicationStats) -> String {
        let seconds = max(0.001, Double((ContinuousClock.now - started).components.attoseconds) / 1e18
            + Double((ContinuousClock.now - started).components.seconds))
        let rate = Int(Double(stats.docsWritten) / seconds)
        return "\(stats.docsRead) read, \(stats.docsWritten) written, \(stats.docWriteFailures) failed, "
            + "\(rate) docs/s in \((seconds * 10).rounded() / 10) s"
    }

    func finish(_ summary: String) {
        clear()
        write(summary + "\n")
    }

    func clear() { if isTerminal { write("\r\u{1B}[K") } }

    private func write(_ text: String) { StandardStreams.output(text) }
}
