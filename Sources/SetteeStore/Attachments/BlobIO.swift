internal import Dispatch

/// Runs blocking blob work (open, write, fsync, pread, zlib) off Swift's cooperative
/// pool (STYLE 17), on a concurrent dispatch queue, and resumes the caller after.
enum BlobIO {
    static let queue = DispatchQueue(label: "settee.blob-io", attributes: .concurrent)

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
