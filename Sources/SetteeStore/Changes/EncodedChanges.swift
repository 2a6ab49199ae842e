/// Changes after a sequence, already encoded by a caller (e.g. as `_changes` feed
/// lines), so that feeds asking for the same thing can send the same bytes.
public struct EncodedChanges: Sendable {
    /// Results larger than this are shared only while being encoded, not kept after.
    static let maxKeptBytes = 64 * 1024

    public var bytes: [UInt8]
    /// How many changes `bytes` encodes.
    public var count: Int
    /// The sequence the read scanned up to (filters may hide rows, so not always the last change's).
    public var scannedTo: Int64

    public init(bytes: [UInt8], count: Int, scannedTo: Int64) {
        self.bytes = bytes
        self.count = count
        self.scannedTo = scannedTo
    }
}

/// What makes two encodings of changes the same: where they start, how many they
/// may hold, and the caller's name for everything else that shapes the bytes.
public struct ChangesEncodingKey: Hashable, Sendable {
    public var since: Int64
    public var limit: Int?
    /// Must name every option that changes the output (format, filter, `include_docs`...).
    public var format: String

    public init(since: Int64, limit: Int?, format: String) {
        self.since = since
        self.limit = limit
        self.format = format
    }
}

/// The key of a shared `_changes` read.
struct ChangesReadKey: Hashable, Sendable {
    let since: Int64
    let limit: Int?
}

extension Database {
    /// The changes described by `key`, encoded once for every caller that asks for
    /// the same key while the database is at the same sequence.
    ///
    /// `encode` reads and encodes the changes after `key.since`; its result is handed
    /// to every concurrent caller with an equal key, and small results are also kept
    /// for callers that come later at the same sequence. A caller that starts after a
    /// write was acknowledged never gets bytes encoded before that write.
    ///
    ///     let lines = try await database.sharedChanges(key) { try await encodeLines(after: key.since) }
    public func sharedChanges(_ key: ChangesEncodingKey,
                              encode: @escaping @Sendable () async throws -> EncodedChanges) async throws -> EncodedChanges {
        try await sharedChangesEncodings.value(for: key, at: changesNotifier.sequence, work: encode)
    }
}
