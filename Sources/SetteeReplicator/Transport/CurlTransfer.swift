internal import FoundationEssentials
internal import Synchronization

/// One exchange in flight on a curl handle: what the callbacks fill in, and the
/// flags that stop it. Shared between the curl thread and the waiting task.
final class CurlTransfer: Sendable {
    let request: RemoteRequest
    /// Streams hand each chunk over as it arrives; otherwise the body is collected.
    let onBytes: (@Sendable ([UInt8]) -> Bool)?
    let isStreaming: Bool
    /// A long exchange (a feed, an attachment either way): a stall ends it, not its length.
    var usesStallTimeout: Bool { isStreaming || request.upload != nil }
    private let state = Mutex(State())
    /// Set by task cancellation; the progress callback aborts the transfer.
    private let cancelled = Atomic<Bool>(false)

    func cancel() { cancelled.store(true, ordering: .relaxed) }
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    struct State {
        var body: [UInt8] = []
        var headers: [(String, String)] = []
        /// The consumer of a stream asked to stop: the write error that follows is not a failure.
        var stoppedByConsumer = false
        /// Why the upload body could not be read (a spool file's error).
        var uploadFailure: String?
    }

    init(request: RemoteRequest, onBytes: (@Sendable ([UInt8]) -> Bool)?) {
        self.request = request
        self.onBytes = onBytes
        isStreaming = onBytes != nil
    }

    var body: [UInt8] { state.withLock { $0.body } }
    var headers: [(String, String)] { state.withLock { $0.headers } }
    var stoppedByConsumer: Bool { state.withLock { $0.stoppedByConsumer } }
    var uploadFailure: String? { state.withLock { $0.uploadFailure } }

    /// The next bytes of the upload body into `buffer`, for curl's read callback.
    /// - Returns: how many (0 at the end), or nil when the body could not be read.
    func readUpload(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard let upload = request.upload else { return 0 }
        do {
            return try upload.read(into: buffer)
        } catch {
            state.withLock { $0.uploadFailure = String(describing: error) }
            return nil
        }
    }

    /// Body bytes from curl: false stops the transfer.
    func received(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if let onBytes {
            let keepGoing = onBytes(Array(bytes))
            if !keepGoing { state.withLock { $0.stoppedByConsumer = true } }
            return keepGoing
        }
        state.withLock { $0.body.append(contentsOf: bytes) }
        return true
    }

    /// The most a declared `Content-Length` reserves before the bytes come: a peer's
    /// header must not make the replicator allocate more than this on its word alone.
    static let largestReservation = 16 << 20

    /// One header line from curl (the status line of each response starts a new set:
    /// redirects and `100 Continue` come before the final one).
    func receivedHeader(_ line: UnsafeBufferPointer<UInt8>) {
        let text = URLText.trimmed(String(decoding: line, as: UTF8.self))
        state.withLock { s in
            if text.hasPrefix("HTTP/") {
                s.headers = []
            } else if let colon = text.firstIndex(of: ":") {
                let name = text[..<colon].lowercased()
                let value = URLText.trimmed(text[text.index(after: colon)...])
                s.headers.append((name, value))
                // Collected in one allocation, not grown by doubling (each growth a copy of
                // what came so far); a declared length is trusted up to 16 MiB only.
                if name == "content-length", !isStreaming, let length = Int(value), length > 0 {
                    s.body.reserveCapacity(min(length, Self.largestReservation))
                }
            }
        }
    }
}
