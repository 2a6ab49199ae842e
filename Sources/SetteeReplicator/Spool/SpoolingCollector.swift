internal import Synchronization

/// Collects a response body as it arrives on the curl thread: in memory up to
/// `memoryLimit`, then in a `SpoolFile` (the bytes so far moved there first), so an
/// attachment of any size costs the replicator one piece of memory at a time.
///
/// Fed from one thread (the curl thread); read once the exchange has ended.
final class SpoolingCollector: Sendable {
    /// Attachments up to this stay in memory: a spool file per small attachment would
    /// cost a descriptor and two system calls for a few bytes.
    static let memoryLimit = 64 * 1024

    private struct State {
        var held: [UInt8] = []
        var spool: SpoolFile?
        var failure: (any Error)?
    }

    private let directory: SpoolDirectory
    private let limit: Int
    private let state = Mutex(State())

    init(directory: SpoolDirectory, memoryLimit: Int = SpoolingCollector.memoryLimit) {
        self.directory = directory
        limit = memoryLimit
    }

    /// Takes the next bytes. - Returns: false when they could not be kept (the
    /// transfer stops; `body()` throws why).
    func take(_ bytes: [UInt8]) -> Bool {
        state.withLock { s in
            guard s.failure == nil else { return false }
            do {
                if s.spool == nil && s.held.count + bytes.count <= limit {
                    s.held += bytes
                    return true
                }
                if s.spool == nil {
                    let spool = try SpoolFile(directory: directory.path)
                    try spool.append(s.held)
                    s.held = []
                    s.spool = spool
                }
                try s.spool?.append(bytes)
                return true
            } catch {
                s.failure = error
                s.spool = nil  // the file goes now, not with the collector
                return false
            }
        }
    }

    /// Bytes taken so far.
    var count: Int64 { state.withLock { $0.spool?.length ?? Int64($0.held.count) } }

    /// The bytes in memory, for an answer that is not the attachment (an error's JSON).
    var heldBytes: [UInt8] { state.withLock { $0.held } }

    /// What was collected. - Throws: why bytes could not be kept (a full disk).
    func body() throws -> AttachmentBody {
        let (held, spool, failure) = state.withLock { ($0.held, $0.spool, $0.failure) }
        if let failure { throw failure }
        if let spool { return AttachmentBody(spool: spool) }
        return AttachmentBody(held)
    }
}
